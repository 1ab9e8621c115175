"""A virtual table over the captures of the store (Toolong's approach: a ScrollView with the
Line API). Only the rows on screen are read, a page of `PAGE` rows at a time; the next page is
found by keyset (the last row's sort key and id: an index range), so neither the first paint
nor a frame while scrolling costs more with 100k captures than with 100."""

from __future__ import annotations

import time
from collections import OrderedDict

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.events import Click, Key
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from replay.store import CAPTURE_SORT_KEYS, CaptureRow, Store
from replay.usecases.inspect import count_capture_stats
from tui.errors import WorkerErrors

PAGE = 100
MAX_PAGES = 64

# (title, sort name or None when the column cannot be sorted on, width; 0 = takes the rest)
COLUMNS: list[tuple[str, str | None, int]] = [
    ("time (UTC)", "time", 19),
    ("editor", "editor", 8),
    ("model", "model", 22),
    ("file", "file", 0),
    ("outcome", "outcome", 13),
    ("tokens", None, 6),
    ("gotchas", None, 7),
]
NUMERIC = [title in ("tokens", "gotchas") for title, _, _ in COLUMNS]  # right-aligned


def format_ts(ts: float | None) -> str:
    """Captures keep UTC epoch seconds; shown in UTC so that a screen is the same everywhere."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ts)) if ts is not None else "-"


def _cells(row: CaptureRow) -> list[str]:
    return [
        format_ts(row.ts), row.editor, row.model or "-", row.filepath or "-", row.outcome,
        "" if row.prompt_tokens is None else str(row.prompt_tokens),
        "" if row.gotchas is None else str(row.gotchas),
    ]


def _fit(text: str, width: int, right: bool = False) -> str:
    if len(text) > width:
        return text[: max(width - 1, 0)] + "…" if width else ""
    return text.rjust(width) if right else text.ljust(width)


class CaptureTable(WorkerErrors, ScrollView, can_focus=True):
    """The captures listing: filter, sort, cursor; Enter posts `Selected` with the capture id."""

    COMPONENT_CLASSES = {"capture-table--header", "capture-table--cursor", "capture-table--odd"}
    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "jump(0)", "First", show=False),
        Binding("end,G", "jump(-1)", "Last", show=False),
        Binding("enter", "select", "Open"),
        Binding("s", "next_sort", "Sort"),
        Binding("r", "reverse", "Reverse"),
    ]
    DEFAULT_CSS = """
    CaptureTable { height: 1fr; }
    CaptureTable > .capture-table--header { text-style: bold; background: $panel; }
    CaptureTable > .capture-table--cursor { background: $accent; color: $text; }
    CaptureTable > .capture-table--odd { background: $boost; }
    """

    class Selected(Message):
        def __init__(self, capture_id: int) -> None:
            self.capture_id = capture_id
            super().__init__()

    class TypeAhead(Message):
        """A printable key no binding took: it goes to the filter (type to filter). Keys
        typed right after `/` arrive here too, queued before the focus moved to the filter."""

        def __init__(self, character: str) -> None:
            self.character = character
            super().__init__()

    class StatsReady(Message):
        """Prompt-token and gotcha counts of some rows were computed and stored."""

    class NoTokenizer(Message):
        """Some captures on screen cannot be counted: no tokenizer is known for their model
        (Tabby's log names no model). Not an error: the counts stay empty and the screen says
        how to give one."""

    class Counted(Message):
        """The number of rows matching the filter (posted by the counting worker)."""

        def __init__(self, query: tuple[str, str, bool], count: int) -> None:
            self.query = query
            self.count = count
            super().__init__()

    cursor = reactive(0, repaint=False)

    def __init__(self, store: Store, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.store = store
        self.text = ""
        # Newest first: what a user opening the list after an import (or while watching) looks for.
        self.sort = "time"
        self.descending = True
        self.count = 0
        self._pages: OrderedDict[int, list[CaptureRow]] = OrderedDict()
        self._frame: tuple[list[int], int, dict[str, Style]] = ([], 0, {})
        self._stats_tried: set[int] = set()
        self._stats_wanted: list[int] = []
        self._stats_running = False
        self.tokenizer_spec: str | None = None
        self.no_tokenizer: list[str] = []  # where the captures counted without a tokenizer came from

    # -- data -----------------------------------------------------------------------------
    @property
    def query(self) -> tuple[str, str, bool]:
        return (self.text, self.sort, self.descending)

    def _page(self, number: int) -> list[CaptureRow]:
        """Rows [number*PAGE, (number+1)*PAGE): keyset after the previous page when it is held,
        else an offset from whichever end of the listing is nearer."""
        page = self._pages.get(number)
        if page is not None:
            self._pages.move_to_end(number)
            return page
        before = self._pages.get(number - 1)
        if before and len(before) == PAGE:
            last = before[-1]
            page = self.store.capture_rows(self.text, self.sort, self.descending, after=(last.sort_key, last.id), limit=PAGE)
        elif number * PAGE > self.count // 2 and self.count:
            start = number * PAGE
            end = min(start + PAGE, self.count)
            tail = self.store.capture_rows(self.text, self.sort, not self.descending, offset=self.count - end,
                                           limit=max(end - start, 0))
            page = tail[::-1]
        else:
            page = self.store.capture_rows(self.text, self.sort, self.descending, offset=number * PAGE, limit=PAGE)
        self._pages[number] = page
        while len(self._pages) > MAX_PAGES:
            self._pages.popitem(last=False)
        return page

    def row(self, index: int) -> CaptureRow | None:
        if not 0 <= index < self.count:
            return None
        page = self._page(index // PAGE)
        offset = index % PAGE
        return page[offset] if offset < len(page) else None

    def set_count(self, count: int, *, new_at_top: bool = False) -> None:
        """Apply a new row count (after a filter change or new captures) without the view
        jumping: when new rows sort above the view (newest first), the view moves down by
        as many rows, so what the user was reading stays where it was."""
        delta = count - self.count
        self.count = count
        self._pages.clear()
        self.virtual_size = Size(self.virtual_size.width, count + 1)
        if new_at_top and delta > 0 and self.scroll_y > 0:
            self.scroll_to(y=self.scroll_y + delta, animate=False, immediate=True, force=True)
            self.cursor += delta
        self.cursor = min(self.cursor, max(count - 1, 0))
        self.refresh()

    def reload(self) -> None:
        """Count again in a worker (a filtered count scans the table); `Counted` comes back."""
        query = self.query
        self.run_worker(lambda: self.post_message(self.Counted(query, self.store.count_capture_rows(query[0]))),
                        thread=True, exclusive=True, group="capture-count", exit_on_error=False)

    def on_capture_table_counted(self, message: Counted) -> None:
        if message.query == self.query:
            newest_first = self.descending and self.sort in ("id", "time")
            self.set_count(message.count, new_at_top=newest_first)

    def set_filter(self, text: str) -> None:
        self.text = text
        self._requery()

    def set_sort(self, sort: str, descending: bool) -> None:
        if sort not in CAPTURE_SORT_KEYS:
            raise ValueError(f"unknown sort {sort!r}")
        self.sort, self.descending = sort, descending
        self._requery()

    def _requery(self) -> None:
        self._pages.clear()
        self.cursor = 0
        self.scroll_to(y=0, animate=False, immediate=True, force=True)
        self.refresh()
        self.reload()

    @property
    def selected(self) -> CaptureRow | None:
        return self.row(self.cursor)

    # -- painting ---------------------------------------------------------------------------
    def _widths(self) -> list[int]:
        fixed = sum(w for _, _, w in COLUMNS) + len(COLUMNS) - 1
        rest = max(self.scrollable_content_region.width - fixed, 8)
        return [w or rest for _, _, w in COLUMNS]

    @staticmethod
    def _line(cells: list[str], widths: list[int], width: int, style: Style) -> Strip:
        text = " ".join(_fit(cell, w, right) for cell, w, right in zip(cells, widths, NUMERIC))
        return Strip([Segment(_fit(text, width), style)], width)

    def render_lines(self, crop: Region) -> list[Strip]:
        """One frame: look the styles and column widths up once, not once per line."""
        base = self.rich_style
        self._frame = (
            self._widths(),
            self.scrollable_content_region.width,
            {
                "header": self.get_component_rich_style("capture-table--header"),
                "cursor": self.get_component_rich_style("capture-table--cursor"),
                "odd": base + self.get_component_rich_style("capture-table--odd"),
                "even": base,
            },
        )
        lines = super().render_lines(crop)
        self._want_stats()
        return lines

    # -- prompt tokens and gotchas, computed for the rows on screen --------------------------------
    def _want_stats(self) -> None:
        """Ask for the counts of the rows on screen that have none. One worker at a time takes
        the latest request, so fast scrolling counts what is seen, not every row passed."""
        top = int(self.scroll_y)
        missing = []
        for index in range(top, min(top + self.size.height, self.count)):
            row = self.row(index)
            if row is not None and row.prompt_tokens is None and row.id not in self._stats_tried:
                missing.append(row.id)
        self._stats_wanted = missing
        if missing and not self._stats_running:
            self._stats_running = True
            self.run_worker(self._stats_loop, thread=True, group="capture-stats", exit_on_error=False, name="prompt tokens")

    def _stats_loop(self) -> None:
        try:
            while True:
                ids, self._stats_wanted = self._stats_wanted, []
                if not ids:
                    return
                self._stats_tried.update(ids)
                self._compute_stats(ids)
        finally:
            self._stats_running = False

    def _compute_stats(self, ids: list[int]) -> None:
        """Tokenize and audit the captures and keep the counts in the store, so that a capture
        is counted once; those with no known tokenizer are told to the screen."""
        stats = count_capture_stats(self.store, ids, self.tokenizer_spec)
        if stats.counted:
            self.post_message(self.StatsReady())
        if stats.unknown:
            self.no_tokenizer.extend(stats.unknown)
            self.post_message(self.NoTokenizer())

    def on_capture_table_stats_ready(self, message: StatsReady) -> None:
        self._pages.clear()
        self.refresh()

    def render_line(self, y: int) -> Strip:
        widths, width, styles = self._frame
        if y == 0:
            titles = []
            for title, sort, _ in COLUMNS:
                mark = (" ▼" if self.descending else " ▲") if sort == self.sort else ""
                titles.append(title + mark)
            return self._line(titles, widths, width, styles["header"])
        index = int(self.scroll_y) + y - 1
        row = self.row(index)
        if row is None:
            return Strip.blank(width, styles["even"])
        style = styles["cursor"] if index == self.cursor else styles["odd" if index % 2 else "even"]
        return self._line(_cells(row), widths, width, style)

    def watch_cursor(self, old: int, new: int) -> None:
        # `force`: right after a new count, Textual has not shown the scrollbar yet and would
        # ignore the scroll (End pressed as the table fills stayed at the top).
        top = int(self.scroll_y)
        rows = max(self.size.height - 1, 1)
        if new < top:
            self.scroll_to(y=new, animate=False, immediate=True, force=True)
        elif new >= top + rows:
            self.scroll_to(y=new - rows + 1, animate=False, immediate=True, force=True)
        self.refresh()

    # -- actions ----------------------------------------------------------------------------
    def action_cursor(self, step: int) -> None:
        if self.count:
            self.cursor = min(max(self.cursor + step, 0), self.count - 1)

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * max(self.size.height - 1, 1))

    def action_jump(self, where: int) -> None:
        if self.count:
            self.cursor = 0 if where == 0 else self.count - 1

    def action_select(self) -> None:
        row = self.selected
        if row is not None:
            self.post_message(self.Selected(row.id))

    def action_next_sort(self) -> None:
        names = [s for _, s, _ in COLUMNS if s] + ["id"]
        self.set_sort(names[(names.index(self.sort) + 1) % len(names)], self.descending)

    def action_reverse(self) -> None:
        self.set_sort(self.sort, not self.descending)

    def on_key(self, event: Key) -> None:
        if event.is_printable and event.character and event.key not in self.screen.active_bindings:
            event.stop()
            self.post_message(self.TypeAhead(event.character))

    def on_click(self, event: Click) -> None:
        if event.y == 0:
            x = 0
            for (_, sort, _), width in zip(COLUMNS, self._widths()):
                if x <= event.x < x + width + 1 and sort:
                    self.set_sort(sort, not self.descending if sort == self.sort else False)
                    return
                x += width + 1
            return
        index = int(self.scroll_y) + event.y - 1
        if 0 <= index < self.count:
            if index == self.cursor and event.chain == 2:
                self.action_select()
            self.cursor = index
