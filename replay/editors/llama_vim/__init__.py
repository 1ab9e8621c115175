"""llama.vim (ggml-org/llama.vim), llama.cpp's own Vim/Neovim plugin: its request to llama-server's
/infill (request.py, body.py), its ring buffer of extra context (ring.py), what it shows of the
answer (completion.py), by commit (releases.py); the server's half is replay.editors.llama_server."""
