"""JavaScript string semantics both editors' TypeScript relies on, where Python's differ.

- trim/trimStart/trimEnd remove ECMAScript WhiteSpace + LineTerminator (ECMA-262): Python's
  str.strip() also strips U+001C..U+001F and U+0085, and keeps U+FEFF;
- `length`, indexes and character-by-character comparisons count UTF-16 code units: an astral
  character (an emoji) is two of them.
"""

from __future__ import annotations

from array import array

JS_WHITESPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                 "\u2028\u2029\u202f\u205f\u3000\ufeff")


def js_trim(text: str) -> str:
    """`text.trim()`."""
    return text.strip(JS_WHITESPACE)


def js_trim_start(text: str) -> str:
    """`text.trimStart()`."""
    return text.lstrip(JS_WHITESPACE)


def js_trim_end(text: str) -> str:
    """`text.trimEnd()`."""
    return text.rstrip(JS_WHITESPACE)


def js_is_blank(text: str) -> bool:
    """`text.trim().length === 0`."""
    return js_trim(text) == ""


def utf16(text: str) -> str:
    """The text as JavaScript sees it: one character per UTF-16 code unit (an astral character
    becomes its two surrogates), so that lengths, regexes and distances count as in the editor."""
    if all(ord(ch) < 0x10000 for ch in text):
        return text
    return "".join(map(chr, array("H", text.encode("utf-16-le", "surrogatepass"))))


def js_length(text: str) -> int:
    """`text.length` (UTF-16 code units)."""
    return len(text.encode("utf-16-le", errors="surrogatepass")) // 2
