"""Public FIM benchmarks read as items: one module per benchmark's file layout, one registry
(`formats`), one reader (`reader`: a .jsonl or .jsonl.gz file to items, its bad rows rejected).

Each row becomes a FimItem with the benchmark's own id, the prefix, middle and suffix its
harness puts together (byte for byte), the language, the unit its per-file average is taken
over (`file`), the cross-file context it gives as snippets, and the fields its checker runs a
completion with. The data is the user's file: nothing is downloaded (docs/benchmarks.md says
where each can be had).
"""
