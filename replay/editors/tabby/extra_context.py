"""tabby-agent's wait for extra context before a completion request, by agent state.

Before it fetches, the agent asks the editor (over LSP) for what it adds to the request: the
editor's options (`tabby/editorOptions`, with the client capability `tabby.editorOptions`), the
workspace folders (`workspace/workspaceFolders`, with `workspace`), the git repository
(`tabby/git/repository`, with `tabby.gitProvider`; otherwise its own `git` command) and the
declarations of the symbols before the cursor (the editor's language support, with
`tabby.languageSupport`, while completion.prompt.fillDeclarations.enabled). Snippets of recently
changed and opened files it finds itself. How long it waits, by state (TabbyML/tabby
clients/tabby-agent/src):

- until 7205b788b (1.3.0 - 1.6.0) the agent asks the editor nothing: the VS Code extension
  collected declarations and snippets itself before calling the agent (clients/vscode
  TabbyCompletionProvider.ts), and the agent's LSP server (LspServer.ts) takes none;
- from 7205b788b (2024-05-27, lsp/Server.ts textDocumentPositionParamsToCompletionRequest;
  codeCompletion/index.ts from f4d9c75f0) every completion call first awaits each question in
  turn (editor options, workspace folders, git, declarations) with no time limit, and only then
  looks its cache up and debounces: the wait is the sum of the answers, a cached answer waits too;
- from 309edd172 (2025-04-21, codeCompletion/index.ts fetchExtraContext) the questions go out
  together (Promise.all) and an automatic call waits at most 500 ms for them
  (`extraContextTimeout`), only when it fetches (a cached answer does not ask), before its
  debounce;
- from e61d780ca (2025-05-14, "handle cancellation and error for fetching context") the same
  wait comes after the debounce.

A question answered after the limit is left out of the request (the request is built at once
from what came; buildRequest.ts); a keystroke during the wait cancels the call (the LSP token:
the wait rejects, then `signal.aborted` throws), so nothing is sent. In a session the editor's
answers carry nothing the body would hold (one document, no repository, no declarations), so
what the wait changes is when the request goes out and whether it does. A manual trigger waits
with no limit (`fetchExtraContext(..., undefined, token)`); sessions trigger automatically.

The client looks its cache up at the keystroke, also where the agent does so after the wait
(until 309edd172): the keystroke aborted the request in flight, so no answer can reach the cache
during the wait.

The session says how long the editor takes for each question in its `options`:
`contextProviderMs` {`editorOptions`, `workspaceFolders`, `git`, `declarations`}: milliseconds
(an integer), each 0 unless given, the editor answering at once. A session's relative `filepath`
lies in the editor's workspace folder, which the agent learns from the workspace-folders answer
from 7205b788b on (before, over LSP, it learns none: LspServer.ts passes no workspace), and so
sends the path relative to it (session_input). From 309edd172 a workspace-folders answer later
than the 500 ms limit would leave the agent no folder, and it would send the document's URI,
which a session does not give: such a session is refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from replay.editors.rulebook import Rule
from replay.editors.tabby.errors import TabbyInputError
from replay.editors.tabby.options import SESSION_DEFAULTS, flatten
from replay.editors.tabby.releases import AgentState, agent_rule
from replay.editors.tabby.request_rules import LSP_CONTEXT
from replay.editors.timed_client import DroppedCall
from replay.records import EditorInput

_A = "clients/tabby-agent/src/"

OPTION = "contextProviderMs"  # the session's key: not a tabby-agent config path
PROVIDERS = tuple(key.removeprefix(OPTION + ".") for key in SESSION_DEFAULTS)
DECLARATIONS_ENABLED = "completion.prompt.fillDeclarations.enabled"
AUTOMATIC_LIMIT_MS = 500.0  # fetchExtraContext's `extraContextTimeout` for an automatic trigger

# The agent asks the editor in turn, before the cache and the debounce (7205b788b: lsp/Server.ts).
SEQUENTIAL = LSP_CONTEXT
PARALLEL = agent_rule(
    "context-parallel-500ms", "309edd172be083d759f2c943792d70376ec90db8", "2025-04-21T10:34:52Z",
    _A + "codeCompletion/index.ts fetchExtraContext",
    "the editor's context is asked all at once; an automatic call that fetches waits at most 500 ms for "
    "it, before its debounce; a cached answer asks nothing")
AFTER_DEBOUNCE = agent_rule(
    "context-after-debounce", "e61d780cac488576fdf5cb4a147397098d10525f", "2025-05-14T12:00:52Z",
    _A + "codeCompletion/index.ts generateCompletions",
    "the wait for the editor's context (at most 500 ms) comes after the debounce")
CONTEXT_RULES: tuple[Rule, ...] = (SEQUENTIAL, PARALLEL, AFTER_DEBOUNCE)
# The folder a session's relative filepath lies in, as the editor names it to the agent: only the
# path relative to it reaches the body.
SESSION_WORKSPACE = "file:///workspace"
_ABSOLUTE = re.compile(r"^(?:/|[A-Za-z][A-Za-z0-9+.-]*:)")


@dataclass(frozen=True)
class ProviderTimes:
    """How long the editor takes to answer each of the agent's questions (ms)."""

    editor_options: float = 0.0
    workspace_folders: float = 0.0
    git: float = 0.0
    declarations: float = 0.0

    @classmethod
    def of(cls, options: Mapping[str, Any] | None) -> ProviderTimes:
        """The session's `contextProviderMs` (nested or dotted); a name not among PROVIDERS, or a
        value that is not a whole number of milliseconds at least 0, is refused."""
        times: dict[str, float] = {}
        for key, value in flatten(options).items():
            head, _, name = key.partition(".")
            if head != OPTION:
                continue
            if name not in PROVIDERS:
                raise TabbyInputError(f"{OPTION}: {name!r} is not one of the agent's questions "
                                      f"({', '.join(PROVIDERS)})")
            if type(value) is not int or value < 0:
                raise TabbyInputError(f"{OPTION}.{name} must be a whole number of milliseconds, 0 or more, "
                                      f"got {value!r}")
            times[name] = float(value)
        return cls(times.get("editorOptions", 0.0), times.get("workspaceFolders", 0.0), times.get("git", 0.0),
                   times.get("declarations", 0.0))

    def asked(self, declarations: bool) -> tuple[float, ...]:
        """The times of the questions the agent asks (declarations only while they are enabled)."""
        asked = [self.editor_options, self.workspace_folders, self.git]
        return tuple(asked + [self.declarations] if declarations else asked)


@dataclass(frozen=True)
class ContextWait:
    """One agent state's wait for the editor's context (replay/editors/timed_client.py's
    ContextWait), for an automatic trigger."""

    state: AgentState
    times: ProviderTimes
    declarations: bool = True

    @classmethod
    def of(cls, state: AgentState, options: Mapping[str, Any] | None) -> ContextWait:
        flat = flatten(options)
        times = ProviderTimes.of(options)
        if state.has(PARALLEL) and times.workspace_folders > AUTOMATIC_LIMIT_MS:
            raise TabbyInputError(f"{OPTION}.workspaceFolders {times.workspace_folders:g} ms is beyond the agent's "
                                  f"{AUTOMATIC_LIMIT_MS:g} ms: it would send the document's URI, which a session "
                                  "does not give")
        return cls(state, times, bool(flat.get(DECLARATIONS_ENABLED, True)))

    def _wait(self) -> float:
        asked = self.times.asked(self.declarations)
        if self.state.has(PARALLEL):
            return min(AUTOMATIC_LIMIT_MS, max(asked))
        return sum(asked)

    def before_debounce_ms(self, cached: bool) -> float:
        """The wait between the keystroke and the debounce."""
        if not self.state.has(SEQUENTIAL) or self.state.has(AFTER_DEBOUNCE):
            return 0.0
        if self.state.has(PARALLEL) and cached:
            return 0.0
        return self._wait()

    def after_debounce_ms(self, cached: bool) -> float:
        """The wait between the debounce and the request."""
        return self._wait() if self.state.has(AFTER_DEBOUNCE) and not cached else 0.0

    def dropped_call_debounces(self) -> DroppedCall:
        """A call dropped while it waits before its debounce still calls the debouncer, which
        counts the typing interval before it checks the aborted signal (codeCompletion/
        debouncer.ts `debounce`): from 309edd172 at once (the wait rejects on the cancelled token
        and the call goes on to `debounce`), before it once its questions are answered (the
        cancelled token does not stop them: lsp/Server.ts, codeCompletion/index.ts, then
        provideCompletions). From e61d780ca the debounce comes before the wait."""
        if not self.state.has(SEQUENTIAL) or self.state.has(AFTER_DEBOUNCE):
            return "never"
        return "at_drop" if self.state.has(PARALLEL) else "at_end"


def session_input(state: AgentState, inp: EditorInput) -> EditorInput:
    """The cursor's input as the agent at `state` has it in a session: from 7205b788b a relative
    filepath lies in the workspace folder the editor names (SESSION_WORKSPACE)."""
    if not state.has(SEQUENTIAL) or not inp.filepath or inp.workspace or _ABSOLUTE.match(inp.filepath):
        return inp
    return msgspec.structs.replace(inp, workspace=SESSION_WORKSPACE)
