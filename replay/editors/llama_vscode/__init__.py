"""llama.vscode (ggml-org/llama.vscode), llama.cpp's own VS Code extension, by tag: the /infill
body it sends (request.py, settings.py), its ring buffer of extra context (ring.py), what it
shows of the answer (completion.py); the server half is replay.editors.llama_server.
profile.py is what the editor registry calls; releases.py holds the tags and the rules' history.
"""
