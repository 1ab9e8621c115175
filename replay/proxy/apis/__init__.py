"""The APIs editors ask completions of, one recogniser per family (registered once here: the
proxy records a request when a recogniser of its route takes its body; anything else is only
forwarded). Order matters where families share a route: Tabby's `/v1/completions` carries
`segments`, OpenAI's does not."""

from __future__ import annotations

from typing import Any

from replay.proxy.apis import llamacpp, mistral, ollama, openai, tabby
from replay.proxy.wire import Api, WireRequest

APIS: tuple[Api, ...] = (tabby.API, mistral.API, openai.API, ollama.API, llamacpp.API)
NAMES = tuple(api.name for api in APIS)
EVENTS_ROUTE = tabby.EVENTS_ROUTE

_BY_ROUTE: dict[str, tuple[Api, ...]] = {}
for _api in APIS:
    for _route in _api.routes:
        _BY_ROUTE[_route] = (*_BY_ROUTE.get(_route, ()), _api)
_ROUTES = sorted((*_BY_ROUTE, EVENTS_ROUTE), key=len, reverse=True)


def route_of(path: str) -> str | None:
    """The recorded route a request path is (the longest one it ends with, so that an upstream
    under a base path, `/openai/v1/completions`, is still recognised), or None: only forwarded."""
    path = path.rstrip("/")
    for route in _ROUTES:
        if path.endswith(route):
            return route
    return None


def recognise(route: str, body: dict[str, Any]) -> tuple[Api, WireRequest] | None:
    """The API and the request a body posted to `route` is, or None when none takes it."""
    for api in _BY_ROUTE.get(route, ()):
        wire = api.parse(route, body)
        if wire is not None:
            return api, wire
    return None
