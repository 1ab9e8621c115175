"""`fimreplay proxy`: record what an editor sends its model, between the two."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from replay.cli.app import cli, db_option, emit_json, json_option, rejects_option, warn
from replay.cli.editor_option import editor_option

if TYPE_CHECKING:
    from replay.records import CaptureRecord, OutcomeEvent
    from replay.store import Store


def _editors() -> tuple[str, ...]:
    from replay.usecases.proxy import EDITORS

    return EDITORS


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


@cli.task("proxy", "capture")
@click.option("--upstream", required=True, help="The model server the editor talks to (http://HOST:PORT[/base]).")
@click.option("--listen", default="127.0.0.1:8765", show_default=True,
              help="Where the editor connects instead (loopback unless you mean otherwise).")
@editor_option(names=_editors,
               help="The editor every capture is from, NAME[@VERSION], NAME one of {names}: for a client the wire does "
                    "not tell (Continue without its User-Agent, a client not listed) and the release it runs, which no "
                    "request carries (default: told from each request, by its User-Agent or what only its requests carry).")
@click.option("--max-body", type=int, default=1 << 20, show_default=True,
              help="Bytes of a body recorded; a larger one is forwarded whole and recorded cut, with a flag.")
@rejects_option
@db_option
@json_option
def proxy_cmd(upstream: str, listen: str, editor: str | None, editor_version: str | None, max_body: int,
              rejects_path: Path | None, store: Store, as_json: bool) -> None:
    """Forward an editor's requests to its model server and record each completion (Ctrl-C stops)."""
    from replay.usecases.proxy import ProxyOptions, run_proxy

    def recorded(capture_id: int, rec: CaptureRecord | OutcomeEvent) -> None:
        from replay.records import CaptureRecord

        if isinstance(rec, CaptureRecord):
            wire = rec.extra.get("wire", {})
            timings = wire.get("timings", {})
            line = {"id": capture_id, "editor": rec.editor, "editor_version": rec.editor_version, "route": wire.get("route"), "http_status": wire.get("http_status"),
                    "model": rec.model, "ttfb_ms": _ms(timings.get("ttfb_s")), "total_ms": _ms(timings.get("total_s"))}
        else:
            line = {"outcome": rec.kind, "completion_id": rec.completion_id}
        if as_json:
            emit_json(line)
        else:
            click.echo("  ".join(f"{k}={v}" for k, v in line.items() if v is not None))

    summary = run_proxy(store.path, ProxyOptions(upstream, listen, editor, max_body, rejects_path, editor_version),
                        say=lambda s: click.echo(s, err=True), warn=warn, on_recorded=recorded)
    if as_json:
        emit_json({"stopped": summary.to_json()})
    else:
        click.echo(f"recorded {summary.captures} captures, {summary.outcomes} outcomes; rejected {summary.rejected}, "
                   f"refused {summary.refused}" + (f"; rejects: {summary.rejects_file}" if summary.rejects_file else ""),
                   err=True)
