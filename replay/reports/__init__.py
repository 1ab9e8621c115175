"""What a reader is shown of scored runs: a run's report as tables and pages (report), paired
statistics of two runs (compare), the ranked table and page of several models (leaderboard)."""
