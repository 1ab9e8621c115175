"""The use cases: what a user asks fimreplay to do, one function per task, called alike by the
command line (replay.cli) and the terminal UI (tui/).

Each task takes plain values and the store, does the library work (choosing sources, reading
inputs, writing outputs and rejects files) and returns a typed result; neither front end does
any of that itself, so a command and its screen cannot drift apart. Progress and notes reach the
caller through callbacks (`say`, `warn`, `on_progress`), never by printing. Failures are
replay.errors types. The modules, by task group:

    base       a store failure as the store's one-line error; the callback types
    capture    import, list and watch capture files
    render     render, postprocess, verify (the editor pipelines)
    inspect    tokens, audit; a capture's tokens, token diffs, findings and row stats
    benchmark  evalgen, named corpora
    replay     run, export, import-results
    score      score, report, the runs listing and their comparison, live scores
    timing     a run's time and in-time score beside its score (score, compare, demo)
    assets     list and install the offline assets
    demo       the main job end to end on the embedded defaults

Nothing here imports a UI toolkit; the library below never imports this package.
"""
