"""CrossCodeEval (amazon-science/cceval, commit 25f9cab757f5): next-line completion needing other
files of the repository, in Python, Java, TypeScript and C#.

The data is data/crosscodeeval_data.tar.xz of that repository (not in the mirror here: too
large; <language>/line_completion*.jsonl once unpacked). A row (scripts/eval.py,
scripts/vllm_inference.py, prompt_builder/augment_with_cfc.py): prompt (the file before the
cursor), groundtruth (the line to complete), right_context (the rest of the file), metadata
{task_id, repository, file, context_start_lineno, groundtruth_start_lineno,
right_context_start_lineno}, and in the retrieval files crossfile_context {text, list:
[{retrieved_chunk, filename, score}]}. The retrieved chunks become the item's snippets in their
order (each editor places them as it places snippets), and metadata.file, the path in the
repository, is the document's `filepath`; `text`, the harness's own commented rendering of the
chunks, is not kept. The metric is exact match and edit similarity (no execution);
the per-file unit is "<repository>/<file>".
"""

from __future__ import annotations

from replay.benchmarks.rows import BadRow, Row, item, language_by_path, snippets
from replay.records import FimItem

FORMAT = "crosscodeeval"
REQUIRED = ("prompt", "groundtruth", "right_context", "metadata")


def parse(row: Row) -> FimItem:
    meta = row.mapping("metadata")
    task_id = row.text("task_id", meta, "metadata.")
    repository, path = row.text("repository", meta, "metadata."), row.text("file", meta, "metadata.")
    context = row.obj.get("crossfile_context")
    found = ()
    if context:  # "" or {} in the files without retrieval
        if not isinstance(context, dict):
            raise BadRow(f"'crossfile_context' must be an object, got {type(context).__name__}")
        found = snippets(context.get("list", []), "retrieved_chunk", "filename", "crossfile_context.list")
    return item(task_id, f"{repository}/{path}", row.text("prompt"), row.text("groundtruth"), row.text("right_context"),
                benchmark=FORMAT, mode="line", language=language_by_path(path), filepath=path, snippets=found)
