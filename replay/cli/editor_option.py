"""`--editor NAME[@VERSION]`, the option every command that takes an editor shares: the names
come from the editors' registry (replay.editors), so a new editor shows up in every command's
help, and `--editor-version V` stays as another way to give the release."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import click


class EditorSpec(click.ParamType):
    """`NAME` or `NAME@VERSION`, NAME one of a registry list (replay.editors: all editors, or those
    whose captures can be verified). The version is everything after the first `@`, as each
    editor's rule book reads it (Tabby's own may hold a day: `1.9.0-dev@2024-12-31`)."""

    name = "editor"

    def __init__(self, names: Callable[[], Sequence[str]]) -> None:
        self.names = names

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "NAME[@VERSION]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        name, at, version = str(value).partition("@")
        if name not in self.names():
            self.fail(f"{name!r} is not an editor here (one of: {', '.join(self.names())})", param, ctx)
        if at and not version.strip():
            self.fail(f"{value!r}: no version after '@'", param, ctx)
        return str(value)


def _all_editors() -> Sequence[str]:
    from replay.editors import EDITORS

    return EDITORS


EDITOR_HELP = "The editor profile and release: NAME@VERSION, or NAME for its newest release; NAME one of {names}."


def editor_option(required: bool = False, names: Callable[[], Sequence[str]] = _all_editors, joined: bool = False,
                  help: str = EDITOR_HELP) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--editor NAME[@VERSION]`, with `--editor-version V` kept as another way to give the version.

    The command gets `editor` (the name) and `editor_version` (None: the newest), or with `joined`
    one `editor` spec, `NAME` or `NAME@VERSION`, as `run` stores it. The help lists the registry's
    names (`{names}` in `help`), so a new editor shows up in every command that takes one."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @click.option("--editor", "editor_spec", type=EditorSpec(names), required=required, default=None,
                      help=help.format(names=", ".join(names())))
        @click.option("--editor-version", "version_flag", default=None, metavar="VERSION",
                      help="The editor release whose rules apply, as after --editor NAME@ (default: the newest).")
        @functools.wraps(fn)
        def wrapper(*args: Any, editor_spec: str | None, version_flag: str | None, **kwargs: Any) -> Any:
            name, version = split_editor(editor_spec, version_flag)
            if joined:
                if version is not None and name is None:
                    raise click.UsageError("--editor-version needs --editor NAME (or give --editor NAME@VERSION)")
                return fn(*args, editor=name if version is None else f"{name}@{version}", **kwargs)
            return fn(*args, editor=name, editor_version=version, **kwargs)

        return wrapper

    return decorate


def split_editor(spec: str | None, version_flag: str | None) -> tuple[str | None, str | None]:
    """`--editor NAME[@VERSION]` and `--editor-version` -> (name, version); a version given both
    ways must be the same one."""
    if spec is None:
        return None, version_flag
    name, _, version = spec.partition("@")
    if version and version_flag is not None and version_flag != version:
        raise click.UsageError(f"two editor versions: --editor {spec} and --editor-version {version_flag}")
    return name, version or version_flag
