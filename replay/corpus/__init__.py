"""Benchmark items from raw code: faketokens, N items per file, line and span modes."""
