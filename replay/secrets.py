"""The one rule that keeps credentials off the disk, shared by every writer.

Everything fimreplay writes (the store, rejects files, reports, results, logs, the proxy's
captures) passes what came from outside through `scrub_text` / `scrub_obj` / `scrub_headers`
first. What counts as a secret:

- the values of credential-like keys, as JSON (`"api_key": "…"`, also as the last part of a
  dotted settings path such as tabby-agent's `"server.token"` or
  `"server.requestHeaders.Authorization"`) or as `key: value` lines:
  Continue's dev data puts the IDE's user token in `userId` (continuedev/continue
  core/data/log.ts: `newBody.userId = ideSettings?.userToken`), and its output channel prints
  requestOptions, whose headers may carry an API key;
- HTTP headers that authenticate: Authorization, Proxy-Authorization, api-key, x-api-key,
  Cookie, Set-Cookie;
- the password in a URL's user-info (`https://user:password@host/`), as proxy settings write it;
- bearer tokens and the known shapes of provider keys (OpenAI `sk-…`, Hugging Face `hf_…`,
  GitHub `ghp_…`/`gho_…`/`ghs_…`/`github_pat_…`, AWS `AKIA…`);
- any value registered at run time with `register` — the key read from `--api-key-env NAME` is,
  so a server that echoes the key back cannot get it stored.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping

REDACTED = "<redacted>"

_KEY = r"(?:user_?id|user_?token|api_?key|x-api-key|api-key|authorization|proxy-authorization|access_?token|password|secret|token|cookie|set-cookie)"
_KEY_NAME = re.compile(_KEY, re.IGNORECASE)
# A value cut before its closing quote (a line cut to a length) is redacted to the end.
_JSON_PAIR = re.compile(rf'("(?:[\w-]+\.)*{_KEY}"\s*:\s*)"(?:[^"\\]|\\.)*(?:"|\\?$)', re.IGNORECASE)
_LINE_PAIR = re.compile(rf"(?m)^(\s*{_KEY}: ).+$", re.IGNORECASE)
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@\"']*):[^@/\s\"']*@")
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}")
_KEY_SHAPES = re.compile(
    r"\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}|AKIA[0-9A-Z]{16})\b"
)

# What each pattern needs to find anything (scrub_text's cheap checks): the lowercase words
# every _KEY name contains, and the prefixes of the key shapes.
_KEY_WORDS = ("userid", "user_id", "token", "apikey", "api_key", "api-key", "authorization", "password", "secret", "cookie")
_KEY_PREFIXES = ("sk-", "hf_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "AKIA")

_registered: set[str] = set()
_lock = threading.Lock()


def register(value: str | None) -> None:
    """Treat `value` (an API key the user configured) as a secret wherever it appears."""
    if value and len(value) >= 4:
        with _lock:
            _registered.add(value)


def is_secret_key(name: str) -> bool:
    """Whether a field or header named `name` holds a credential (a dotted settings path: by its last part)."""
    return bool(_KEY_NAME.fullmatch(name.strip().rsplit(".", 1)[-1]))


def scrub_registered(text: str) -> str:
    """`text` with the registered values (the configured keys) replaced: for what a model wrote,
    where `password: …` or an `sk-…`-shaped string is code under test, not a leak, and only
    the key the user gave must not come back."""
    if not text:
        return text
    for value in sorted(_registered, key=len, reverse=True):
        if value in text:
            text = text.replace(value, REDACTED)
    return text


def scrub_registered_bytes(data: bytes) -> bytes:
    """`scrub_registered` for bytes as read from a log (a stored line keeps its bytes)."""
    for value in sorted(_registered, key=len, reverse=True):
        raw = value.encode("utf-8")
        if raw in data:
            data = data.replace(raw, REDACTED.encode())
    return data


def scrub_text(text: str) -> str:
    """`text` with every secret the module's rule knows replaced by `<redacted>`.

    Each pattern runs only where the text holds what it needs (a key name, `://` and `@`, the
    word bearer or basic, a key shape's prefix): the same result, without scanning every
    request body the proxy records with each pattern."""
    if not text:
        return text
    text = scrub_registered(text)
    lower = text.lower()
    if any(word in lower for word in _KEY_WORDS):
        text = _JSON_PAIR.sub(rf'\1"{REDACTED}"', text)
        text = _LINE_PAIR.sub(rf"\1{REDACTED}", text)
    if "://" in text and "@" in text:
        text = _URL_USERINFO.sub(rf"\1:{REDACTED}@", text)
    if "bearer" in lower or "basic" in lower:
        text = _BEARER.sub(rf"\1 {REDACTED}", text)
    if any(prefix in text for prefix in _KEY_PREFIXES):
        text = _KEY_SHAPES.sub(REDACTED, text)
    return text


def scrub_obj(obj: object) -> object:
    """A copy of a decoded JSON value with credential-like keys' values and every string scrubbed."""
    if isinstance(obj, dict):
        return {k: (REDACTED if obj[k] and is_secret_key(str(k)) else scrub_obj(obj[k])) for k in obj}
    if isinstance(obj, list):
        return [scrub_obj(v) for v in obj]
    if isinstance(obj, str):
        return scrub_text(obj)
    return obj


def scrub_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """HTTP headers as they may be stored: authenticating ones' values replaced, the rest scrubbed."""
    return {k: (REDACTED if is_secret_key(k) else scrub_text(v)) for k, v in headers.items()}
