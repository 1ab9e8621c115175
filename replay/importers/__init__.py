"""Capture logs -> CaptureRecord / OutcomeEvent, one module per log format.

- tabby.py              Tabby server event logs (`~/.tabby/events/YYYY-MM-DD.json`, JSON Lines, .gz)
- continue_devdata.py   Continue dev data (`autocomplete.jsonl` of every release; the other event files ignored)
- continue_console.py   Continue's VS Code output channel "LLM Prompt/Completion" (copied text)
- continue_jetbrains.py Continue's JetBrains `prompt.log` (lossy)
- formats.py            the registry of the formats above (names, kind, signature, parser)
- detect.py             which format a file holds
- scan.py               JSON lines -> chunks of store rows, rejects and counts
- reader.py             a large file parsed in a child process while the importer writes
- importer.py           `Importer(store, Rejects(...)).import_paths([...]) -> ImportSummary`
- watch.py              `Watcher(store, [dir], on_imported=cb).start()` / `.stop()`
"""
