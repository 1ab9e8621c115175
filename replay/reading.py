"""A replay run as the layers above the store read it: its config (RunConfig), its record
(RunRecord), its stored scores of one text and window (ScoreSet), and the store's methods that
scoring, the training-data cutoffs and the reports call, as Protocols (RunReader, ScoreKeeper).

These sit below the store and below what reads it, so a report or a cutoff names what it reads
of a store without importing the store: the store (replay.store) is one such reader, a test's
stand-in another.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import msgspec

from replay.records import CaptureRecord, Completion, CompletionTexts, FimItem, ItemReference, Reference, RenderedPrompt

# The editor a run of the captures records when each capture was rendered for its own editor
# (`run captures` with no --editor): a name no editor profile has, shown as is in the listings.
CAPTURES_OWN = "captures' own"


class TimedCompletion(msgspec.Struct, frozen=True):
    """One completion of a run as its time is read: seconds to the first token and to the whole
    answer, prompt and generated tokens, the profile whose stage showed it (`tabby@1.8.0`, "" for
    none), whether an answer came at all (False: an error, or the editor sent nothing), and for a
    replayed capture with a time, the seconds until the next request of the same editor's log
    (None: no later one, or no time): when the user had typed on."""

    item_id: str
    ttft_s: float
    total_s: float
    prompt_tokens: int
    gen_tokens: int
    stage: str = ""
    answered: bool = True
    gap_s: float | None = None


class RunConfig(msgspec.Struct, frozen=True, omit_defaults=True):
    """What makes a run repeatable, kept with it in the store as one JSON object (a field left
    unset is not written; a stored key no field names is not read).

    The use case fills what was asked and found (the input, the editor, the model as given and as
    resolved, the cutoff); the runner adds the backend's own description (`backend`, `model`,
    `model_id` and the engine's settings), the generation parameters, the library versions and
    whether the stream was stopped early and the editor's timing rules read it."""

    source: str | None = None  # the input file, `captures`
    input_kind: str | None = None  # items, render inputs, prompts or captures
    corpus_hash: str | None = None
    editor: str | None = None  # "standard", CAPTURES_OWN or a profile (NAME or NAME@VERSION)
    family: str | None = None
    model_spec: str | None = None  # the model as the user gave it
    model_name: str | None = None  # the resolved model's own name (a GGUF's general.name)
    model_sha256: str | None = None
    rejects: int | None = None  # input lines rejected
    allow_foreign_sentinels: bool | None = None  # True: sent although the prompts hold sentinels the model lacks
    cutoff: str | None = None  # the training-data cutoff the run was started with (ISO date)
    backend: str | None = None  # the backend's name ("hf", "http", "llamacpp", ...)
    model: str | None = None  # what the backend was asked for
    model_id: str | None = None  # what identifies the weights (sha256 or name@revision)
    ctx: int | None = None  # llama.cpp's context size
    device: str | None = None  # transformers' device
    stop_ids: list[int] | None = None  # transformers' stop token ids
    endpoints: list[str] | None = None  # an HTTP backend's URLs
    api_key_env: str | None = None  # the variable that holds the API key, never the key
    params: dict[str, Any] | None = None  # the generation parameters (GenParams)
    versions: dict[str, str] | None = None  # fimreplay's and the engines' libraries'
    early_stop: bool | None = None
    editor_timing: bool | None = None

    @property
    def profile(self) -> str | None:
        """The editor profile a resumed run renders with: None when each capture was rendered
        for its own editor (or none is recorded)."""
        return None if self.editor in (None, CAPTURES_OWN) else self.editor

    def model_names(self) -> list[str]:
        """The names the run's model goes by: the resolved name, what the user gave, what the
        backend was asked for."""
        return [name for name in (self.model_name, self.model_spec, self.model) if name]


class RunRecord(msgspec.Struct, frozen=True):
    """One replay run: its id, when it was created (epoch seconds), its status ("running",
    "done", "done_with_errors", "interrupted", or "decided": stopped by a leaderboard once its
    sequential comparison was decided) and the config the runner kept."""

    id: str
    created: float
    status: str
    config: RunConfig

    @property
    def model(self) -> str | None:
        """The model the run asked its backend for (None: not recorded)."""
        return self.config.model

    @property
    def backend(self) -> str | None:
        """The backend's name ("hf", "http", "llamacpp", ...; None: not recorded)."""
        return self.config.backend

    @property
    def editor(self) -> str | None:
        """The editor the prompts were rendered for ("standard", CAPTURES_OWN, a profile; None:
        not recorded)."""
        return self.config.editor


class ScoreSet(msgspec.Struct):
    """A run's scores of one text and line window (or another kind of score the caller names):
    `entries`, item id -> (digest of the texts its values were computed on, metric -> value);
    `inputs`, set by a scorer that found an entry for each of the run's items, computed on
    them: its digest of all of them at once (b"": none), so that a later score of unchanged
    inputs takes the set whole instead of checking each item; `aggregates`, what was made of
    the values of a set so vouched for (the same values, files and order make the same)."""

    entries: dict[str, tuple[bytes, dict[str, float]]] = {}
    inputs: bytes = b""
    aggregates: dict[str, Any] = {}  # while vouched for: aggregates of its values, by their parameters


class RunReader(Protocol):
    """What the training-data cutoffs and the reports read of a store: a run, its prompts and
    completions, and the benchmark items."""

    def run(self, run_id: str) -> RunRecord | None: ...

    def runs(self) -> list[RunRecord]: ...

    def completions(self, run_id: str) -> list[Completion]: ...

    def items(self, ids: Sequence[str] | None = None) -> list[FimItem]: ...

    def run_prompts(self, run_id: str) -> list[RenderedPrompt]: ...

    def timed_completions(self, run_id: str) -> list[TimedCompletion]: ...

    def count_run_prompts(self, run_id: str) -> int: ...


class ScoreKeeper(RunReader, Protocol):
    """What scoring reads and writes of a store: a run's pairs and their references, and the
    scores kept per text and window (reused by a later score of the same texts)."""

    def scored_completions(self, run_id: str) -> list[tuple[CompletionTexts, ItemReference | None]]: ...

    def run_references(self, run_id: str) -> dict[str, Reference]: ...

    def capture(self, capture_id: int) -> CaptureRecord | None: ...

    def captures(self) -> Iterator[tuple[int, CaptureRecord, str]]: ...

    def score_sets(self, run_id: str) -> dict[str, ScoreSet]: ...

    def merge_scores(self, run_id: str, scored: str, entries: dict[str, tuple[bytes, dict[str, float]]],
                     inputs: bytes = b"", based_on: ScoreSet | None = None) -> None: ...

    def keep_aggregate(self, run_id: str, scored: str, inputs: bytes, key: str, value: Any) -> None: ...
