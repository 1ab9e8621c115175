"""fimreplay's library: importers, editor pipelines, tokens, corpus, backends, scoring, store.

Nothing below this package imports Textual or the `tui` package (a test enforces it), so the
library can be scripted without the terminal UI.
"""

__version__ = "0.1.0"
