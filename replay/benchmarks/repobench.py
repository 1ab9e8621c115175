"""RepoBench v1.1 (Leolty/repobench; ICLR 2024), RepoBench-C's next-line prediction in Python and
Java with the repository's other files as context.

Only on a model hub (tianyang/repobench_python_v1.1, tianyang/repobench_java_v1.1; splits
cross_file_first, cross_file_random, in_file), a split exported as JSON Lines. A row (the card's
features): repo_name, file_path, context [{identifier, path, snippet}], import_statement,
cropped_code, next_line, gold_snippet_index, token_num, all_code, created_at, level. Its prompt
builder (data/utils.py construct_prompt at commit 53c1c55ad9e6) writes the in-file part as
"<comment> Path: <file_path>\\n<import_statement>\\n<cropped_code>\\n" and asks for next_line:
the prefix is import_statement + "\\n" + cropped_code + "\\n" (the path line is that builder's
own marker, as an editor writes its own), the middle next_line, the suffix empty (left to
right). `context` becomes the item's snippets in its order, file_path the document's
`filepath`. Rows carry no id: the id is "<split>/<n>", the split being the file's name without
.jsonl and n the 0-based row, the order the benchmark's evaluation lists predictions in; the
per-file unit is "<repo_name>/<file_path>".
"""

from __future__ import annotations

from replay.benchmarks.rows import Row, item, language_by_path, snippets
from replay.records import FimItem

FORMAT = "repobench"
REQUIRED = ("repo_name", "file_path", "context", "import_statement", "cropped_code", "next_line")


def parse(row: Row) -> FimItem:
    path = row.text("file_path")
    prefix = f"{row.text('import_statement')}\n{row.text('cropped_code')}\n"
    return item(f"{row.stem}/{row.index}", f"{row.text('repo_name')}/{path}", prefix, row.text("next_line"), "",
                benchmark=FORMAT, mode="next-line", language=language_by_path(path), filepath=path,
                snippets=snippets(row.obj["context"], "snippet", "path", "context"))
