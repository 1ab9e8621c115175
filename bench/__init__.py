"""Benchmarks, run from the repository root as modules: `python -m bench.speed.all`,
`python -m bench.faults.runs`, ... (speed/: ratios against the bare engine or library;
faults/: the long fault suites)."""
