"""JavaScript string semantics that Continue's TypeScript relies on and Python's differ from."""

from __future__ import annotations

# JavaScript's String.prototype.trim() removes WhiteSpace and LineTerminator (ECMA-262): not the
# same set as Python's str.strip() (which also strips U+001C..U+001F and U+0085, but keeps U+FEFF).
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def js_trim(text: str) -> str:
    """`text.trim()` as Continue's JavaScript computes it."""
    return text.strip(_JS_SPACE)


def js_length(text: str) -> int:
    """JavaScript `string.length` (UTF-16 code units)."""
    return len(text.encode("utf-16-le", errors="surrogatepass")) // 2

