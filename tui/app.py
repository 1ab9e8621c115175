"""The fimreplay Textual app and its one factory, `create_app` (Posting's pattern: `main`, the
CLI and the tests all build the app the same way; tests configure it through the environment
and the factory's arguments, never by reaching into it)."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.theme import Theme
from textual.worker import Worker

from replay.store import Store, open_store
from tui.errors import notify_worker_error
from tui.screens.captures import CapturesScreen
from tui.screens.help import HelpScreen
from tui.screens.runs import RunsScreen
from tui.watcher import StoreChanged, StoreWatcher

if TYPE_CHECKING:
    from replay.usecases.capture import Watch
    from replay.usecases.demo import DemoOptions
    from replay.usecases.proxy import ProxyHandle, ProxyOptions

# Colours picked from the xterm 16-colour palette's hues, so that a terminal that only has 16
# colours (Rich downgrades to the nearest) still tells primary, accent, warning and error apart;
# the cursor row also uses `reverse`, which every terminal has.
THEME = Theme(
    name="fimreplay",
    primary="#0087ff",
    secondary="#00afaf",
    accent="#ffaf00",
    warning="#ffff00",
    error="#ff0000",
    success="#00d700",
    foreground="#e4e4e4",
    background="#000000",
    surface="#121212",
    panel="#262626",
    dark=True,
)


class DemoStep(Message):
    """A step of `fimreplay demo --tui` (posted from the demo worker's thread)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class DemoProgress(Message):
    """Items done of the demo's current run."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done, self.total = done, total


class ProxyNote(Message):
    """What the background proxy (`--proxy`) has to say: where it listens, a warning."""

    def __init__(self, text: str, severity: str = "information") -> None:
        super().__init__()
        self.text, self.severity = text, severity


class FimReplayApp(App[None]):
    """Captures, replay dashboard and runs as modes; item, audit and help pushed on top."""

    CSS_PATH = "app.tcss"
    TITLE = "fimreplay"
    BINDINGS = [
        Binding("1", "switch_mode('captures')", "Captures"),
        Binding("2", "switch_mode('dashboard')", "Replay"),
        Binding("3", "switch_mode('runs')", "Runs"),
        Binding("4", "switch_mode('acceptance')", "Acceptance"),
        Binding("question_mark,f1", "help", "Help"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, store: Store, *, watch_dirs: Sequence[Path] = (), poll_interval: float = 0.5,
                 export_dir: Path | None = None, owns_store: bool = False, tokenizer_spec: str | None = None,
                 compare_tokenizer_spec: str | None = None, demo: DemoOptions | None = None,
                 proxy: ProxyOptions | None = None) -> None:
        super().__init__()
        self.demo = demo
        self.proxy = proxy
        self._proxy: ProxyHandle | None = None
        self._demo_cancelled = False
        self.store = store
        # None: each capture is read with its model family's tokenizer (replay.usecases.inspect).
        self.tokenizer_spec = tokenizer_spec
        self.compare_tokenizer_spec = compare_tokenizer_spec
        self.watch_dirs = tuple(watch_dirs)
        self.poll_interval = poll_interval
        self.export_dir = export_dir
        self.owns_store = owns_store
        self._watcher: StoreWatcher | None = None
        self._importer: Watch | None = None
        self._dashboard_screen: Screen | None = None

    # -- modes and screens ----------------------------------------------------------------------
    def on_mount(self) -> None:
        """Builds the modes, starts the store watcher. Once the first screen is up, everything
        alive (Textual, Rich, the library) is moved out of the collector's generations
        (`gc.freeze`): a full collection otherwise walks all of it and costs a 100-200 ms frame
        every few seconds of scrolling (bench/speed/tui_screens.py)."""
        self.register_theme(THEME)
        self.theme = "fimreplay"
        self.add_mode("captures", lambda: CapturesScreen(self.store))
        self.add_mode("runs", lambda: RunsScreen(self.store, self.export_dir))
        self.add_mode("acceptance", self._acceptance)
        self.add_mode("dashboard", self._dashboard)
        self.switch_mode("captures")
        self.call_after_refresh(_freeze_heap)
        self._watcher = StoreWatcher(self, self.store, self.poll_interval)
        self._watcher.start()
        if self.watch_dirs:
            self.start_watching(self.watch_dirs)
        if self.proxy is not None:
            self.start_proxy(self.proxy)
        if self.demo is not None:
            self.run_demo(self.demo)

    def _dashboard(self) -> Screen:
        from tui.screens.dashboard import DashboardScreen

        self._dashboard_screen = DashboardScreen(self.store)
        return self._dashboard_screen

    def _acceptance(self) -> Screen:
        from tui.screens.acceptance import AcceptanceScreen  # scoring's imports load when it is first shown

        return AcceptanceScreen(self.store)

    def open_item(self, capture_id: int, marked_token: int | None = None) -> None:
        from tui.screens.item import ItemScreen

        self.push_screen(ItemScreen(self.store, capture_id, marked_token=marked_token))

    def open_audit(self, capture_id: int | None) -> None:
        from tui.screens.audit import AuditScreen

        self.push_screen(AuditScreen(self.store, capture_id))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Captures", "The live table of imported captures", lambda: self.switch_mode("captures"))
        yield SystemCommand("Replay dashboard", "Run items or captures against models", lambda: self.switch_mode("dashboard"))
        yield SystemCommand("Runs", "Compare, export and copy runs", lambda: self.switch_mode("runs"))
        yield SystemCommand("Acceptance", "Acceptance, retention and which score predicts it", lambda: self.switch_mode("acceptance"))
        yield SystemCommand("Audit all captures", "Tokenizer gotcha findings of the whole set", lambda: self.open_audit(None))
        yield SystemCommand("Keys", "Every key of every screen", self.action_help)

    # -- live updates and errors ----------------------------------------------------------------
    def on_store_changed(self, message: StoreChanged) -> None:
        """Each screen of the stack reloads what it shows; a screen still being put together
        (pushed, its widgets not mounted yet) is left alone: it reads the store when it mounts
        (a Screen is mounted before its widgets are, so each screen also asks for its own)."""
        for screen in self.screen_stack:
            refresh = getattr(screen, "store_changed", None)
            if refresh is not None and screen.is_mounted:
                refresh()

    def start_watching(self, folders: Sequence[Path]) -> None:
        """`--watch DIR`: the watch imports into the store on its own thread and connection;
        its commits reach the screens like any other writer's (StoreWatcher)."""
        from replay.usecases.capture import start_watch

        self._importer = start_watch(self.store.path, folders, on_imported=lambda *_: self.post_message(StoreChanged()))

    @work(thread=True, exclusive=True, group="proxy", exit_on_error=False)
    def start_proxy(self, opts: ProxyOptions) -> None:
        """`--proxy URL`: the recording proxy on its own thread, event loop and store connection;
        each capture it writes reaches the captures screen as a commit does (StoreChanged)."""
        from replay.usecases.proxy import start_proxy

        self._proxy = start_proxy(self.store.path, opts, on_recorded=lambda *_: self.post_message(StoreChanged()),
                                  warn=lambda text: self.post_message(ProxyNote(text, "warning")))
        self.post_message(ProxyNote(f"proxy on http://{self._proxy.address} -> {opts.upstream}"))

    def on_proxy_note(self, message: ProxyNote) -> None:
        self.notify(message.text, title="proxy", severity=message.severity,  # type: ignore[arg-type]
                    timeout=30 if message.severity == "warning" else 5)

    @work(thread=True, exclusive=True, group="demo", exit_on_error=False)
    def run_demo(self, opts: DemoOptions) -> None:
        """`fimreplay demo --tui`: the demo on its own store connection; its imports and
        completions reach the screens as commits (StoreWatcher), its steps as messages. Quitting
        stops it between two replayed items."""
        from replay.usecases.demo import run_demo_beside

        result = run_demo_beside(self.store.path, opts, say=lambda text: self.post_message(DemoStep(text)),
                                 on_progress=lambda done, total: self.post_message(DemoProgress(done, total)),
                                 cancelled=lambda: self._demo_cancelled)
        if result is not None:
            self.post_message(DemoStep(f"finished: runs {', '.join(result.runs)} (Runs screen: 3)"))

    def on_demo_step(self, message: DemoStep) -> None:
        self.sub_title = f"demo: {message.text}"
        self.notify(message.text, title="demo")

    def on_demo_progress(self, message: DemoProgress) -> None:
        step = self.sub_title.split(" [", 1)[0]
        self.sub_title = f"{step} [{message.done}/{message.total}]"

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The app's own workers (`--watch`); screens and widgets route theirs here too."""
        notify_worker_error(event)

    async def action_quit(self) -> None:
        """Ask running replays to stop between two items (each finished completion is already
        committed), wait for their threads, then leave: the store is consistent on exit."""
        self._demo_cancelled = True
        for worker in [w for w in self.workers if w.group == "demo"]:
            await worker.wait()
        if self._dashboard_screen is not None:
            await self._dashboard_screen.stop_runs()  # type: ignore[attr-defined]
        self.exit()

    def on_unmount(self) -> None:
        gc.unfreeze()
        if self._watcher is not None:
            self._watcher.stop()
        if self._importer is not None:
            self._importer.stop()
        if self._proxy is not None:
            self._proxy.stop()  # writes every exchange that finished
        if self.owns_store:
            self.store.close()


def _freeze_heap() -> None:
    """Collect what start-up left behind, then exempt the rest from later full collections."""
    gc.collect()
    gc.freeze()


def create_app(db_path: str | Path | None = None, watch_dirs: Sequence[str | Path] = (), *, store: Store | None = None,
               poll_interval: float = 0.5, export_dir: str | Path | None = None,
               tokenizer: str | None = None, compare_tokenizer: str | None = None,
               demo: DemoOptions | None = None, proxy: ProxyOptions | None = None) -> FimReplayApp:
    """The one way to build the app (CLI, `python -m tui`, tests). `db_path` None means the
    default store ($FIMREPLAY_DB / $FIMREPLAY_HOME / user data dir), as for every command."""
    owns = store is None
    return FimReplayApp(store if store is not None else open_store(db_path), watch_dirs=[Path(d) for d in watch_dirs],
                        poll_interval=poll_interval, export_dir=Path(export_dir) if export_dir else None, owns_store=owns,
                        tokenizer_spec=tokenizer, compare_tokenizer_spec=compare_tokenizer, demo=demo, proxy=proxy)
