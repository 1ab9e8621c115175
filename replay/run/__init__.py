"""A run: what it replays (inputs), the resumable replay through a backend (runner), the
completion cache it reads first (cache), and OpenAI batch files in and out (batch)."""
