"""One module per engine behind one small interface; cache.py keys completions."""
