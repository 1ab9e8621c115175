"""Turning token bytes into text a person can read: partial UTF-8 and whitespace made visible."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def gpt2_byte_decoder() -> dict[str, int]:
    """GPT-2's byte-to-unicode table reversed: byte-level BPE token text -> raw bytes.

    The table is the one of openai/gpt-2 src/encoder.py `bytes_to_unicode` (printable Latin-1
    bytes map to themselves, the other 68 to U+0100 onwards, in byte order)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    table = {}
    n = 0
    for b in range(256):
        if b in keep:
            table[chr(b)] = b
        else:
            table[chr(256 + n)] = b
            n += 1
    return table


def byte_level_bytes(text: str) -> bytes:
    """Raw bytes of a byte-level BPE token; characters outside the table are taken as UTF-8."""
    dec = gpt2_byte_decoder()
    out = bytearray()
    for ch in text:
        b = dec.get(ch)
        if b is None:
            out += ch.encode("utf-8")
        else:
            out.append(b)
    return bytes(out)


def readable(data: bytes) -> str:
    """The text of a token's bytes; bytes that are not valid UTF-8 on their own show as <0xNN>."""
    out = []
    i = 0
    while i < len(data):
        for j in range(min(len(data), i + 4), i, -1):
            try:
                out.append(data[i:j].decode("utf-8"))
                i = j
                break
            except UnicodeDecodeError:
                continue
        else:
            out.append(f"<0x{data[i]:02X}>")
            i += 1
    return "".join(out)


_VISIBLE = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍", "\u00a0": "⍽"}


def visible(piece: str) -> str:
    """Whitespace made visible for display: space ·, newline ↵, tab →, CR ␍, NBSP ⍽."""
    return "".join(_VISIBLE.get(ch, ch) for ch in piece)
