"""The recording proxy (`fimreplay proxy`): between an editor and its model server, it forwards
every request unchanged and records each completion exchange as a capture, exactly as it went
over the wire.

    server        the aiohttp server and its pooled upstream client (the forwarding path)
    apis/         one recogniser per API family: OpenAI, Ollama, llama.cpp, Mistral, Tabby
    wire          what a recogniser reads (WireRequest) and how an answer's framing is undone
    clients       which editor sent a request
    prompt_parts  prefix and suffix inside a raw-route prompt (the model family's template)
    exchange      one forwarded exchange and the capture or outcome event it becomes
    recorder      the writer thread: the store is written off the event loop
"""
