"""The slotwise Textual app: assemble a server slot by slot with live validation.

State lives here and only here: the catalog, the undo/redo ``History`` of Builds, the
engine's ``Report`` for the current build, the BOM meta and where it was last exported.
Every change goes through :meth:`SlotwiseApp.apply_edits`, which applies engine edits,
re-runs ``engine.check.evaluate.evaluate`` (pure, < 1 ms) and autosaves.  The catalog is loaded
in a worker thread so the first frame does not wait for it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App, ComposeResult
from textual.widgets import Static

from slotwise.tui.keys import APP_KEYS, bindings
from slotwise.tui.messages import CatalogReady, PricesPathChosen, StartupFailed
from slotwise.tui.options import OptionSet
from slotwise.tui.state import AppState, BomPricing

# Start-up time (issue #14): the first frame needs Textual and nothing else, so the engine,
# pydantic and the catalog are imported where they are used, most of them in the loading
# worker.  These names are for the type checker only.
if TYPE_CHECKING:
    from textual.timer import Timer

    from slotwise.engine.bom.meta import BomMeta, Clock
    from slotwise.engine.build import Build
    from slotwise.engine.check.report import Report
    from slotwise.parts.catalog import Catalog
    from slotwise.tui.autosave import Autosave, AutosaveEntry, AutosaveStore
    from slotwise.tui.history import History
    from slotwise.tui.options import BuildOption

MIN_WIDTH, MIN_HEIGHT = 60, 20
# The deferred catalog load starts after this long without a key on the chooser.  A person
# needs longer than this to read the first screen and react (simple visual reaction time is
# about 0.2-0.25 s, R. J. Kosinski, "A literature review on reaction time", Clemson University,
# 2013), so the load rarely competes with the first keys; choosing a chassis starts it at once.
LOAD_AFTER_IDLE_S = 0.3


def _slotwise_commands():
    from slotwise.tui.screens.palette import SlotwiseCommands

    return SlotwiseCommands


class SlotwiseApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "slotwise"
    BINDINGS = bindings(APP_KEYS)
    COMMANDS = App.COMMANDS | {_slotwise_commands}
    ENABLE_COMMAND_PALETTE = True
    # Toasts sit over the map's lower right: short-lived (issue #14); errors that need
    # reading open a dialog instead.
    NOTIFICATION_TIMEOUT = 3

    def __init__(
        self,
        bom: str | os.PathLike[str] | None = None,
        catalog_dir: str | os.PathLike[str] | None = None,
        *,
        catalog: Catalog | None = None,
        state_dir: str | os.PathLike[str] | None = None,
        clock: Clock | None = None,
        autosave: bool = True,
        evaluate: Callable[[Build, Catalog], Report] | None = None,
        cursor_blink: bool = True,
        build: Build | None = None,
    ) -> None:
        super().__init__()
        if self.no_color:
            # NO_COLOR: no colour at all (the terminal's own foreground and background), not
            # Textual's greyscale, which turns red and dim text into dark grey on dark grey;
            # what stands out does so by reverse video, bold and text markers (tui.app.tcss).
            from textual.filter import Monochrome, NoColor

            self._filters = [NoColor() if isinstance(f, Monochrome) else f for f in self._filters]
        self.bom_arg = None if bom is None else str(bom)
        self.catalog_dir = catalog_dir
        self.catalog: Catalog = catalog  # type: ignore[assignment]  # set before any screen uses it
        if clock is None:  # engine.bom.meta.utc_now, without importing engine.bom yet
            from datetime import UTC

            clock = lambda: datetime.now(UTC)  # noqa: E731
        self.clock = clock
        # Hot exit: one autosave per build under the state dir; ``slot`` is this build's
        # (locked while this app edits it), None until a build is started or resumed.
        self._autosave_on = autosave
        self._state_dir = state_dir
        self._store: AutosaveStore | None = None
        self._evaluate = evaluate
        # The build being edited and what belongs to it (tui.state): read through the typed
        # properties below, changed only by this class (screens post messages).
        self.state = AppState()
        self._autosave_warned = False
        self._aside_msgs: list[str] = []  # autosaves set aside at start-up, one line each
        self._early_chooser = False  # the chooser is up on the TOML preview (on_mount)
        self._load_deferred = False  # the catalog load waits for the chooser's first frame
        self._load_timer: Timer | None = None  # runs the deferred load when input is quiet
        self._pending_sku: str | None = None  # chosen on the preview, before the catalog
        self.cursor_blink = cursor_blink  # False in tests/screenshots: deterministic frames
        self.initial_build = build  # start on this build (screenshots, tests): no chooser
        # The session's options (tui.options): empty until the first pin; then the build being
        # edited is options.options[options.active], and the fields above are its state.
        self.options = OptionSet()

    # ------------------------------------------------------------------------- typed state
    @property
    def history(self) -> History | None:
        return self.state.history

    @property
    def report(self) -> Report | None:
        return self.state.report

    @property
    def editing(self) -> History:
        """The history of the build on screen. Screens that show a build exist only once one is
        open, so there a missing history is a programming error, not a user's state."""
        if self.state.history is None:
            raise RuntimeError("no build is open")
        return self.state.history

    @property
    def open_report(self) -> Report:
        """The report of the build on screen (see :attr:`editing`)."""
        if self.state.report is None:
            raise RuntimeError("no build is open")
        return self.state.report

    @property
    def open_meta(self) -> BomMeta:
        """The document fields of the build on screen (see :attr:`editing`)."""
        if self.state.meta is None:
            raise RuntimeError("no build is open")
        return self.state.meta

    @property
    def meta(self) -> BomMeta | None:
        return self.state.meta

    @property
    def bom_path(self) -> str | None:
        return self.state.bom_path

    @property
    def saved_build(self) -> Build | None:
        return self.state.saved_build

    @property
    def slot(self) -> Autosave | None:
        return self.state.slot

    @property
    def pricing(self) -> BomPricing:
        return self.state.pricing

    @property
    def prices_path(self) -> str | None:
        return self.state.prices_path

    @property
    def is_copy(self) -> bool:
        """The build is a copy of an autosave another slotwise holds open."""
        return self.state.is_copy

    def on_prices_path_chosen(self, message: PricesPathChosen) -> None:
        """A screen used a price list: the other price screens start from it."""
        self.state.prices_path = message.path

    def notify(self, message: str, **kwargs: Any) -> None:
        """Every toast words the inputs engine text points at as the app's field labels
        (``slotwise.engine.inputs``): "Price per kWh", never ``--kwh-price``."""
        from slotwise.parts.plain_text import visible
        from slotwise.tui.input_labels import app_words

        # A path or a problem may quote a received file: no control character reaches the
        # terminal (parts.plain_text).
        super().notify(visible(app_words(message)), **kwargs)

    @property
    def store(self) -> AutosaveStore | None:
        """The autosaves under the state dir (None when autosave is off)."""
        if not self._autosave_on:
            return None
        if self._store is None:
            from slotwise.tui.autosave import AutosaveStore

            self._store = AutosaveStore(self._state_dir, clock=self.clock)
        return self._store

    # ------------------------------------------------------------------------- start-up
    def compose(self) -> ComposeResult:
        # No Footer here: this screen is under the chooser at once (App-level keys, Ctrl+Q
        # and F1, still work); one footer less to lay out before the first frame.
        yield Static(
            "slotwise — loading the parts catalog…  Ctrl+Q quits, F1 lists the keys",
            id="loading",
        )

    def on_mount(self) -> None:
        self._on_sigterm()
        self._check_size()
        if self.catalog is not None and self.bom_arg is None:
            self.post_message(CatalogReady(self.catalog))
            return
        if self.bom_arg is None and self.initial_build is None and not self._autosaves_exist():
            # Nothing to resume: the chooser can be up before the catalog (issue #14, start-up
            # time); it switches to the validated records when they arrive.
            from types import SimpleNamespace

            from slotwise.tui.chassis_preview import chassis_preview

            preview = chassis_preview(self.catalog_dir)
            if preview:
                self._early_chooser = True
                self._push_chooser(SimpleNamespace(chassis=preview))
                # The catalog loads once that first frame is drawn (start_deferred_load),
                # so the worker does not compete with it for the CPU.
                self._load_deferred = True
                return
        self._load()

    def start_deferred_load(self) -> None:
        """Called by the chooser after its first frame: load the catalog once the keyboard has
        been quiet for LOAD_AFTER_IDLE_S (keys reset the wait, see ``postpone_load``).  The
        load holds the interpreter for about half a second (pydantic, validation, the rule
        modules), so started at once it made the first keys typed into the chooser lag."""
        if self._load_deferred and self._load_timer is None:
            self._load_timer = self.set_timer(LOAD_AFTER_IDLE_S, self.load_now)

    def postpone_load(self) -> None:
        """A key on the chooser: the user is typing, keep the catalog load for the next pause."""
        if self._load_deferred and self._load_timer is not None:
            self._load_timer.reset()

    def load_now(self) -> None:
        """Start the deferred catalog load now (the timer ran out, or a chassis was chosen)."""
        if self._load_timer is not None:
            self._load_timer.stop()
        if self._load_deferred:
            self._load_deferred = False
            self._load()

    # ---------------------------------------------------------------- keys typed ahead of a modal
    def hold_keys(self) -> None:
        """A modal is about to open (the map's Enter posts a message; the picker is pushed
        when the build screen handles it): keys that arrive meanwhile are kept for it instead
        of acting on the screen underneath.  Released by the modal (or after 1 s at most)."""
        self._held_keys: list[tuple[str, str | None]] = []
        self._holding = True
        self.set_timer(1.0, self.release_keys)

    def keep_typed_ahead(self, key: str, character: str | None) -> bool:
        """True (and the key kept) while a modal is opening."""
        if not getattr(self, "_holding", False):
            return False
        self._held_keys.append((key, character))
        return True

    def on_key(self, event) -> None:
        """A key bubbling up to the app while a modal opens (its bindings would act on the
        screen underneath: "q" typed ahead of the picker quit) is kept for the modal."""
        if self.keep_typed_ahead(event.key, event.character):
            event.stop()
            event.prevent_default()

    def release_keys(self) -> None:
        """Replay the kept keys to whatever has the focus now (the modal's search field)."""
        from textual import events

        if not getattr(self, "_holding", False):
            return
        self._holding = False
        held, self._held_keys = self._held_keys, []
        for key, character in held:
            self.post_message(events.Key(key, character))

    def _on_sigterm(self) -> None:
        """``kill PID`` (SIGTERM) quits like Ctrl+Q's "quit keeping work": the autosave already
        holds every change, the lock is freed and Textual puts the terminal back (main screen,
        no mouse reporting) instead of dying inside the alternate screen (issue #29)."""
        import asyncio
        import signal

        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, AttributeError):
            asyncio.get_running_loop().add_signal_handler(
                signal.SIGTERM, self.action_quit_keeping_work
            )

    def _autosaves_exist(self) -> bool:
        """Any autosave file on disk (cheap: no parsing, no engine import)."""
        if not self._autosave_on:
            return False
        from slotwise.engine.store.local_paths import state_root

        root = Path(self._state_dir).expanduser() if self._state_dir else state_root()
        try:
            return (root / "autosave.json").exists() or any((root / "autosaves").glob("*.json"))
        except OSError:  # an unreadable state directory: said when the build starts
            return False

    @work(thread=True, exclusive=True, group="startup")
    def _load(self) -> None:
        """Off the event loop: read the catalog (and the BOM named on the command line)."""
        from slotwise.parts.catalog import CatalogError, load_catalog

        try:
            catalog = self.catalog or load_catalog(
                None if self.catalog_dir is None else os.fspath(self.catalog_dir)
            )
        except CatalogError as exc:
            self.post_message(StartupFailed("The parts catalog has problems", str(exc)))
            return
        except OSError as exc:
            self.post_message(StartupFailed("Cannot read the parts catalog", str(exc)))
            return
        loaded: Any = None  # engine.bom.LoadedBom, or a cluster_doc.ClusterDoc
        if self.bom_arg is not None:
            from slotwise.engine.bom import read_bom
            from slotwise.engine.bom.cluster_doc import ClusterDocError, read_cluster, read_input
            from slotwise.parts.safe_io import InputError

            try:
                text, is_doc = read_input(self.bom_arg)
            except InputError:
                text, is_doc = "", False  # read_bom says what is wrong with the file
            if is_doc:  # a cluster document: its own screen
                try:
                    loaded = read_cluster(text, filename=self.bom_arg)
                except ClusterDocError as exc:
                    self.post_message(StartupFailed("The cluster document has problems", str(exc)))
                    return
            else:
                loaded = read_bom(self.bom_arg, catalog)
        self.store  # noqa: B018 - import tui.autosave here, off the event loop
        from slotwise.tui.history import History  # noqa: F401 - likewise

        self.post_message(CatalogReady(catalog, loaded))
        self.evaluate_fn()  # the rule modules: after the first screen, before the first edit

    def on_startup_failed(self, message: StartupFailed) -> None:
        from slotwise.tui.screens.message import ErrorScreen

        self.query_one("#loading", Static).update(message.title)
        self.push_screen(ErrorScreen(message.title, message.text, fatal=True))

    def on_catalog_ready(self, message: CatalogReady) -> None:
        from slotwise.engine.bom.meta import BomMeta
        from slotwise.tui.history import History

        self.catalog = message.catalog
        loaded = message.loaded
        if self._early_chooser:
            self._early_chooser = False
            self._catalog_arrived()
            return
        self.query_one("#loading", Static).update(
            "slotwise — catalog loaded.  Ctrl+N / n: new build · Ctrl+Q: quit"
        )
        if loaded is not None:
            from slotwise.engine.bom.cluster_doc import ClusterDoc

            if isinstance(loaded, ClusterDoc):
                from slotwise.tui.screens.cluster import ClusterScreen

                self.push_screen(
                    ClusterScreen(loaded, opened_file=True), lambda _: self.action_new_build()
                )
                return
            self._open_loaded(loaded)
            return
        if self.initial_build is not None:
            self.state.meta = BomMeta.new(clock=self.clock)
            self.start(History(self.initial_build), saved=None)
            return
        entries = self._recoverable()
        if entries:
            self._offer_resume(entries)
        else:
            self.action_new_build()
        self._report_set_aside()

    def _recoverable(self) -> list[AutosaveEntry]:
        """Autosaved builds this catalog can open; the others are set aside (with a reason
        in ``_aside_msgs``), never dropped."""
        self._aside_msgs = []
        if self.store is None:
            return []
        entries = self.store.entries()
        self._aside_msgs.extend(self.store.problems)
        usable = []
        for e in entries:
            sku = e.state.build.chassis
            if sku in self.catalog.chassis:
                usable.append(e)
                continue
            if e.locked_by is not None:
                continue  # a live slotwise (with its own overlay) edits it: not ours to move
            slot = self.store.open(e.build_id)
            slot.set_aside(
                f"it is a build on chassis {sku}, which this parts catalog does not have "
                "(was it made with a --catalog overlay? move the file back into "
                f"{slot.dir} and start slotwise with that overlay)"
            )
            self._aside_msgs.append(slot.problem or f"{e.path} was set aside")
        return usable

    def _report_set_aside(self) -> None:
        from slotwise.tui.screens.message import ErrorScreen

        if self._aside_msgs:
            self.push_screen(
                ErrorScreen(
                    "Some autosaves could not be resumed",
                    "\n\n".join(self._aside_msgs)
                    + "\n\nNothing was deleted: each file was kept where it says.",
                )
            )

    def _open_loaded(self, loaded) -> None:
        from slotwise.tui.screens.message import ErrorScreen

        problems = "\n".join(
            f"- {p.severity.upper()}: {p.message}"
            + (f" (line {p.line})" if getattr(p, "line", None) else "")
            + (f"\n  → {p.fix}" if p.fix else "")
            for p in loaded.problems
        )
        if loaded.build is None or loaded.build.chassis not in self.catalog.chassis:
            self.action_new_build()
            self.push_screen(
                ErrorScreen(
                    f"Cannot open {loaded.filename}",
                    (problems or "the file names no known chassis")
                    + "\n\nStarting a new build instead.",
                )
            )
            return
        clash = self._unexported_autosave_of(loaded)
        if clash is not None:
            self._ask_bom_or_autosave(loaded, clash, problems)
            return
        self._open_bom(loaded, problems)

    def _unexported_autosave_of(self, loaded) -> AutosaveEntry | None:
        """The newest free autosave of the same file whose build differs from the file's."""
        if self.store is None:
            return None
        target = Path(loaded.filename).resolve()
        for e in self.store.entries():
            st = e.state
            if (
                st.bom_path
                and Path(st.bom_path).expanduser().resolve() == target
                and st.build != loaded.build
                and e.locked_by is None
                and st.build.chassis in self.catalog.chassis
            ):
                return e
        return None

    def _ask_bom_or_autosave(self, loaded, clash: AutosaveEntry, problems: str) -> None:
        from slotwise.tui.screens.confirm import ConfirmScreen
        from slotwise.tui.screens.recover import entry_text

        def answer(resume: bool | None) -> None:
            if resume:
                self._resume(clash)
            else:
                self._open_bom(loaded, problems)

        self.push_screen(
            ConfirmScreen(
                f"{loaded.filename} has autosaved changes that are not in the file:\n\n"
                + entry_text(clash).plain
                + "\n\nResume the autosave, or open the file as saved? Either way the "
                "autosave is kept (it stays on the start screen's list).",
                yes="Resume the autosave",
                no="Open the file",
            ),
            answer,
        )

    def _open_bom(self, loaded, problems: str) -> None:
        from slotwise.tui.history import History
        from slotwise.tui.screens.message import ErrorScreen

        self.state.meta = loaded.meta
        self.state.bom_path = str(Path(loaded.filename).expanduser().resolve())
        self.state.pricing = BomPricing(
            prices=dict(loaded.prices) or None,
            currency=loaded.currency,
            price_note=loaded.price_note,
        )
        self.start(History(loaded.build), saved=loaded.build)
        if loaded.problems:
            self.push_screen(ErrorScreen(f"{loaded.filename} loaded with problems", problems))
        if loaded.refused_config:
            ref = loaded.refused_config
            if not ref.startswith("~") and not Path(ref).is_absolute():
                ref = str(Path(loaded.filename).expanduser().parent / ref)  # as the BOM meant
            self._ask_outside_config(ref)

    def _ask_outside_config(self, ref: str) -> None:
        """The BOM names a model config outside its folder (engine.bom.config_path): read it
        only if the user says so (Enter keeps it unread)."""
        from slotwise.engine.build.edits import SetWorkload
        from slotwise.tui.screens.confirm import ConfirmScreen

        def answer(yes: bool | None) -> None:
            wl = self.history.current.workload if self.history else None
            if yes and wl is not None:
                self.apply_edits(
                    [SetWorkload(workload=wl.model_copy(update={"config": ref}))],
                    "read the model config the BOM names",
                )

        self.push_screen(
            ConfirmScreen(
                f"This BOM names a model config outside its own folder:\n\n  {ref}\n\n"
                "A file from someone else should not read files on this machine. Read it "
                "anyway? (Otherwise the workload has no model until you choose one.)",
                yes="Read it",
                no="Leave it",
                enter_means_yes=False,
            ),
            answer,
        )

    def _offer_resume(self, entries: list[AutosaveEntry]) -> None:
        from slotwise.tui.screens.recover import RecoverScreen

        def answer(choice: tuple[str, AutosaveEntry | None] | None) -> None:
            what, entry = choice or ("new", None)
            if what == "resume" and entry is not None:
                self._resume(entry)
            else:
                self.action_new_build()

        self.push_screen(RecoverScreen(entries), answer)

    def _resume(self, entry: AutosaveEntry) -> None:
        """Continue an autosaved build; one open in another slotwise continues as a copy."""
        from slotwise.engine.bom.meta import BomMeta
        from slotwise.tui.history import History

        assert self.store is not None
        slot = self.store.open(entry.build_id)
        holder = self._lock(slot)
        if holder is not None:
            slot = self.store.new()
            self._lock(slot)
            pid = f" (pid {holder.pid})" if holder.pid else ""
            self.notify(
                f"That build is open in another slotwise{pid}: you are editing a copy; "
                "both are kept.",
                severity="warning",
                timeout=8,
            )
        self._take_slot(slot)
        st = entry.state
        self.state.meta = st.meta or BomMeta()
        self.state.bom_path = st.bom_path
        history = History.restore(st.build, st.undo, st.redo, st.undo_labels, st.redo_labels)
        if holder is None and st.session and st.option:
            self._restore_options(entry, history)
        self.start(history, saved=st.saved, resumed=True, copy=holder is not None)
        when = st.saved_at.strftime("%Y-%m-%d %H:%M UTC")
        self.notify(f"Resumed the build autosaved {when}.", timeout=3)
        if len(self.options) > 1:
            letters = ", ".join(self.options.letter(i) for i in range(len(self.options)))
            self.notify(
                f"Options {letters} are back; editing {self.options.label(self.options.active)}. "
                "F6 compares them.",
                timeout=6,
            )

    def _restore_options(self, entry: AutosaveEntry, history: History) -> None:
        """The other options autosaved in ``entry``'s session come back with their letters
        (each locked for this app; one open in another slotwise stays there)."""
        from slotwise.engine.bom.meta import BomMeta
        from slotwise.tui.history import History
        from slotwise.tui.options import LETTERS, BuildOption, OptionSet

        assert self.store is not None
        st = entry.state
        found: dict[str, BuildOption] = {}
        for e in self.store.entries():
            o = e.state
            if o.session != st.session or not o.option or o.option in found:
                continue
            if e.build_id == entry.build_id:
                found[o.option] = BuildOption(
                    history=history,
                    meta=o.meta or BomMeta(),
                    saved_build=o.saved,
                    bom_path=o.bom_path,
                    slot=self.slot,
                )
                continue
            if e.locked_by is not None or o.build.chassis not in self.catalog.chassis:
                continue
            slot = self.store.open(e.build_id)
            if self._lock(slot) is not None:
                continue
            found[o.option] = BuildOption(
                history=History.restore(o.build, o.undo, o.redo, o.undo_labels, o.redo_labels),
                meta=o.meta or BomMeta(),
                saved_build=o.saved,
                bom_path=o.bom_path,
                slot=slot,
            )
        letters = sorted(found, key=LETTERS.index)
        if len(letters) < 2 or st.option not in letters:
            return
        opts = OptionSet(session=st.session)
        for letter in letters:
            opts.add(found[letter])
        opts.active = letters.index(st.option)
        self.options = opts

    def _take_slot(self, slot: Autosave | None) -> None:
        if self.slot is not None and self.slot is not slot:
            self.slot.unlock()
        self.state.slot = slot

    def discard_autosave(self, entry: AutosaveEntry) -> Path | None:
        """Move an autosave to the trash (the start screen asks first).  Raises
        tui.autosave.AutosaveError (AutosaveBusy: open in another slotwise) when it cannot."""
        assert self.store is not None
        return self.store.open(entry.build_id).discard()

    def _lock(self, slot: Autosave):
        """Take ``slot``'s lock; an unusable state directory is said once and work goes on
        (the build is then not autosaved).  Returns the other holder, as Autosave.lock."""
        try:
            return slot.lock()
        except OSError as exc:  # tui.autosave.AutosaveError: names the path and the fix
            self._warn_autosave(exc)
            return None

    def _warn_autosave(self, exc: OSError) -> None:
        if not self._autosave_warned:
            self._autosave_warned = True
            self.notify(str(exc), severity="warning", timeout=12)

    # ------------------------------------------------------------------------- state
    def evaluate_fn(self) -> Callable[[Build, Catalog], Report]:
        if self._evaluate is None:
            from slotwise.engine.check.evaluate import evaluate

            self._evaluate = evaluate
        return self._evaluate

    def evaluate_build(self, build: Build, catalog: Catalog | None = None) -> Report:
        """The engine's report; an engine crash becomes a finding, never a traceback."""
        try:
            return self.evaluate_fn()(build, catalog or self.catalog)
        except Exception as exc:  # the engine promises not to raise; be safe anyway
            from slotwise.engine.check.report import Finding, Report

            return Report(
                findings=(
                    Finding(
                        rule="app.engine_failed",
                        severity="error",
                        message=f"the rules engine failed on this build: {type(exc).__name__}: {exc}",
                        fix="undo the last change and report this build (export it) as a bug",
                    ),
                )
            )

    @property
    def dirty(self) -> bool:
        return self.history is not None and self.history.current != self.saved_build

    def start(
        self, history: History, saved: Build | None, *, resumed: bool = False, copy: bool = False
    ) -> None:
        """Make ``history`` the build being edited and show the build screen."""
        from slotwise.tui.screens.build import BuildScreen

        if self.slot is None and self.store is not None:
            slot = self.store.new()
            self._lock(slot)  # a new id: nobody else has it
            self.state.slot = slot
        self.state.history = history
        self.state.saved_build = saved
        self.state.is_copy = copy
        if saved is None and not resumed and not history.can_undo and not history.can_redo:
            self.state.saved_build = history.current  # a fresh build has nothing to lose yet
        self.state.report = self.evaluate_build(history.current)
        self._save_state()
        screen = self._build_screen()
        if screen is None:
            self.push_screen(BuildScreen())
        else:
            screen.refresh_view(reload_form=True)

    def _build_screen(self):
        from slotwise.tui.screens.build import BuildScreen

        return next((s for s in self.screen_stack if isinstance(s, BuildScreen)), None)

    def apply_edits(
        self, edits, label: str, *, coalesce: str | None = None, reload_form: bool = True
    ) -> bool:
        """Apply engine edits as one undo step; False (with a message) if refused/no-op."""
        from slotwise.engine.build.edits import EditError, apply_all

        if self.history is None:
            return False
        try:
            new = apply_all(self.history.current, list(edits))
        except (EditError, ValueError) as exc:
            self.notify(f"Cannot {label}: {exc}", severity="error")
            return False
        if not self.history.push(new, label, coalesce=coalesce):
            return False
        self._changed(reload_form=reload_form)
        return True

    def replace_build(self, build: Build, label: str) -> bool:
        """Make ``build`` the current build as one undo step (e.g. a suggested build)."""
        if self.history is None or not self.history.push(build, label):
            return False
        self._changed()
        return True

    def undo(self) -> None:
        label = self.history.undo() if self.history else None
        if label is None:
            self.notify("Nothing to undo.")
            return
        self.notify(f"Undid: {label}")
        self._changed()

    def redo(self) -> None:
        label = self.history.redo() if self.history else None
        if label is None:
            self.notify("Nothing to redo.")
            return
        self.notify(f"Redid: {label}")
        self._changed()

    def recheck(self) -> None:
        """Re-run the engine on the same build (e.g. after a model config was downloaded)."""
        if self.history is not None:
            self._changed(reload_form=False)

    def _changed(self, reload_form: bool = True) -> None:
        self.state.report = self.evaluate_build(self.editing.current)
        self._save_state()
        screen = self._build_screen()
        if screen is not None:
            screen.refresh_view(reload_form=reload_form)

    def _save_state(self) -> None:
        slot, h = self.slot, self.history
        if slot is None or h is None:
            return
        pinned = bool(self.options.options)
        if not (pinned or h.can_undo or h.can_redo or self.dirty or slot.exists()):
            return  # a build just started or opened: nothing to lose yet
        self._save_option(self._active_option(), self.options.active if pinned else None)

    def _save_option(self, opt: BuildOption, index: int | None) -> None:
        """Write one option's autosave, with the session id and its letter when pinned."""
        if opt.slot is None:
            return
        h = opt.history
        opts = self.options
        try:
            opt.slot.save(
                h.current,
                undo=h.undo_builds,
                redo=h.redo_builds,
                bom_path=opt.bom_path,
                meta=opt.meta if opt.meta is not None else self.open_meta,
                undo_labels=h.undo_labels,
                redo_labels=h.redo_labels,
                saved=opt.saved_build,
                session=opts.session if index is not None else None,
                option=opts.letter(index) if index is not None else None,
                label=self._session_label() if index in (None, opts.active) else opts.label(index),
            )
        except OSError as exc:  # tui.autosave.AutosaveError: names the path and cause
            self._warn_autosave(exc)

    def _session_label(self) -> str | None:
        """Which of the session's builds this is, for the resume list: the option letter
        once pinned, "copy" for a copy of a build another slotwise holds open."""
        parts = []
        if len(self.options):
            parts.append(self.options.label(self.options.active))
        if self.is_copy:
            parts.append("copy")
        return ", ".join(parts) or None

    def apply_blink(self, screen) -> None:
        """Screens call this on mount: no blinking cursors when ``cursor_blink`` is False."""
        if not self.cursor_blink:
            from textual.widgets import Input

            for widget in screen.query(Input):
                widget.cursor_blink = False

    # ------------------------------------------------------------------------- actions
    def action_help(self) -> None:
        from textual.command import CommandPalette

        from slotwise.tui.screens.help import HelpScreen

        if not any(isinstance(s, HelpScreen | CommandPalette) for s in self.screen_stack):
            self.push_screen(HelpScreen())

    def action_command_palette(self) -> None:
        # One palette at most, even when another screen was opened above it.
        from textual.command import CommandPalette

        if not any(isinstance(s, CommandPalette) for s in self.screen_stack):
            super().action_command_palette()

    def _catalog_arrived(self) -> None:
        """The real catalog replaces the chooser's preview (or a choice made on it runs)."""
        from slotwise.tui.screens.chooser import ChassisChooser

        self.query_one("#loading", Static).update(
            "slotwise — catalog loaded.  Ctrl+N / n: new build · Ctrl+Q: quit"
        )
        sku, self._pending_sku = self._pending_sku, None
        if sku is not None:
            if sku in self.catalog.chassis:
                self._chassis_chosen(sku)
            else:
                self.action_new_build()
            return
        for screen in self.screen_stack:
            if isinstance(screen, ChassisChooser):
                screen.use_catalog(self.catalog)

    def _chassis_chosen(self, sku: str | None) -> None:
        if sku is None:
            return
        if self.catalog is None:  # chosen on the preview: start when the catalog is in
            self._pending_sku = sku
            self.load_now()
            self.query_one("#loading", Static).update(f"slotwise — opening {sku} …")
            return
        from slotwise.engine.build.edits import SetChassis

        if self.history is None:
            from slotwise.engine.bom.meta import BomMeta
            from slotwise.engine.build import Build
            from slotwise.tui.history import History

            self.state.meta = BomMeta.new(clock=self.clock)
            self.state.bom_path = None
            self.start(History(Build(chassis=sku)), saved=None)
        else:
            self.apply_edits((SetChassis(sku=sku),), f"start over on {sku}")

    def _push_chooser(self, source) -> None:
        from slotwise.tui.screens.chooser import ChassisChooser

        self.push_screen(
            ChassisChooser(source, cancellable=self.history is not None), self._chassis_chosen
        )

    def action_new_build(self) -> None:
        if self.catalog is None:
            return
        if not self.catalog.chassis:
            from slotwise.tui.screens.message import ErrorScreen

            self.push_screen(
                ErrorScreen(
                    "No chassis in the catalog",
                    "The parts catalog lists no chassis, so there is "
                    "nothing to build on. Check parts/data/chassis or "
                    "the --catalog overlay.",
                    fatal=True,
                )
            )
            return

        self._push_chooser(self.catalog)

    def action_export(self) -> None:
        from slotwise.tui.screens.export import ExportScreen

        if self.history is None:
            return
        from slotwise.tui.screens.export import default_bom_name

        meta = self.open_meta
        default = self.bom_path or default_bom_name(
            self.history.current.chassis, meta.customer, meta.project, self.clock()
        )

        def chosen(path: str | None) -> None:
            if path is None:
                return
            from slotwise.tui.screens.export import EXPORT_FORMATS, export_format, written_paths

            if export_format(path) is None:
                self.notify(
                    f"{path}: name the file {', '.join(EXPORT_FORMATS)} to say what to write "
                    "(the BOM, the customer document, the line items); nothing was written.",
                    severity="warning",
                    timeout=8,
                )
                return
            p = Path(path).expanduser()
            existing = [q for q in written_paths(p) if q.exists()]
            if existing:
                from slotwise.tui.screens.confirm import ConfirmScreen

                def answer(yes: bool | None) -> None:
                    if yes:
                        self.export_to(p, force=True)

                self.push_screen(
                    ConfirmScreen(
                        " and ".join(str(q) for q in existing)
                        + (" already exist" if len(existing) > 1 else " already exists")
                        + ". Overwrite?",
                        yes="Overwrite",
                        no="Keep it",
                        enter_means_yes=False,  # Enter, Enter never replaces a file
                    ),
                    answer,
                )
            else:
                self.export_to(p, force=False)

        self.push_screen(ExportScreen(default), chosen)

    def export_to(self, path: Path, force: bool) -> bool:
        """Write the build to ``path``: the BOM (.toml), the customer document (.md) or the line
        items (.csv), as the extension says (tui.screens.export.EXPORT_FORMATS)."""
        from slotwise.engine.bom import BomExistsError, export_bom, write_bom
        from slotwise.tui.screens.export import export_format

        fmt = export_format(str(path)) or "toml"
        meta = self.open_meta.touched(self.clock)
        if fmt != "toml":
            return self._export_document(path, fmt, meta, force)
        text = export_bom(
            self.editing.current,
            self.catalog,
            meta,
            report=self.report,
            **self.pricing.export_kwargs(),
        )
        try:
            write_bom(path, text, force=force)
        except (BomExistsError, OSError) as exc:
            from slotwise.tui.screens.message import ErrorScreen

            self.push_screen(
                ErrorScreen(
                    "Export failed", f"{path}: {exc}\n\nChoose another file name or directory."
                )
            )
            return False
        self.state.meta = meta
        self.state.bom_path = str(Path(path).expanduser().resolve())
        self.state.saved_build = self.editing.current
        self._changed(reload_form=False)
        self.notify(f"Exported the BOM to {self.bom_path}", timeout=4)
        return True

    def _export_document(self, path: Path, fmt: str, meta: BomMeta, force: bool) -> bool:
        """The customer Markdown (with the pinned options side by side, and the engineering notes
        in a file beside it) or the CSV line items; the build stays unexported as a BOM."""
        from slotwise.engine.bom import BomExistsError, write_bom
        from slotwise.tui.input_labels import app_words
        from slotwise.tui.screens.export import notes_path

        build, kw = self.editing.current, self.pricing.export_kwargs()
        files: list[tuple[Path, str]] = []
        if fmt == "md":
            from slotwise.engine.bom.markdown import engineering_notes, to_markdown

            report = self.report if self.report is not None else self.evaluate_build(build)
            text = to_markdown(build, self.catalog, meta, report, **kw)
            compared = self._options_markdown()
            if compared:
                text = text.rstrip("\n") + "\n\n" + compared
            files.append((path, app_words(text)))
            notes = engineering_notes(build, self.catalog, meta, report)
            files.append((notes_path(path), app_words(notes)))
            what = "the customer document" + (" with the options side by side" if compared else "")
        else:
            from slotwise.engine.bom.csv_export import to_csv

            text = to_csv(build, self.catalog, kw.get("prices"), kw.get("currency"), meta.services)
            files.append((path, text))
            what = "the line items"
        for target, body in files:
            try:
                write_bom(target, body, force=force)
            except (BomExistsError, OSError) as exc:
                from slotwise.tui.screens.message import ErrorScreen

                self.push_screen(
                    ErrorScreen(
                        "Export failed",
                        f"{target}: {exc}\n\nChoose another file name or directory.",
                    )
                )
                return False
        where = Path(path).expanduser().resolve()
        if fmt == "md":
            self.notify(
                f"Wrote {what} to {where}; the engineering notes (rule ids, catalog to-dos, "
                f"part-number sources) to {notes_path(where).name}",
                timeout=6,
            )
        else:
            self.notify(f"Wrote {what} to {where}", timeout=4)
        return True

    def _options_markdown(self) -> str | None:
        """The pinned options side by side (engine.plan.compare, as `slotwise compare`), under
        the edited build's workload; None with fewer than two options."""
        opts = self.options
        if len(opts) < 2:
            return None
        from slotwise.engine.plan.compare import comparison_markdown
        from slotwise.tui.screens.compare import comparison_for

        opts.options[opts.active] = self._active_option()
        labels = [
            opts.label(i) + (" (detailed above)" if i == opts.active else "")
            for i in range(len(opts))
        ]
        builds = [o.build for o in opts.options]
        return comparison_markdown(comparison_for(labels, builds, self.catalog, opts.active))

    def action_quote_details(self) -> None:
        from slotwise.tui.screens.quote import QuoteScreen

        if self.history is None:
            return

        def kept(meta: BomMeta | None) -> None:
            if meta is None:
                return
            self.state.meta = meta
            self._changed(reload_form=False)  # the autosave keeps the details
            self.notify("Quote details kept; they go into the BOM and the customer document.")

        self.push_screen(QuoteScreen(self.open_meta), kept)

    async def action_quit(self) -> None:
        """Textual's own quit (the palette's "Quit", any ``app.quit`` binding): the same
        unsaved-work check as Ctrl+Q."""
        self.action_request_quit()

    def action_quit_keeping_work(self) -> None:
        """Quit at once, touching no autosave (the "terminal too small" notice's Ctrl+Q)."""
        self.exit(0)

    def action_request_quit(self) -> None:
        """Every quit path ends here.  No build open (start screen, chooser): nothing is
        touched.  Build exported: its autosave goes to the trash (kept for a while).
        Unexported changes: ask; the autosave keeps them for the next start."""
        from slotwise.tui.screens.confirm import ConfirmScreen

        if self.history is None:
            self.exit(0)
            return
        if not self.dirty and not self.other_options_dirty():
            message = None
            if self.slot is not None:
                with contextlib.suppress(OSError):  # then it stays listed: nothing is lost
                    had_history = self.slot.exists() and self.history.can_undo
                    trashed = self.slot.discard()
                    if had_history and trashed is not None:
                        message = self._trashed_message(trashed)
            self.exit(0, message=message)
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.exit(0)  # the autosave keeps the work: offered again on next start

        self.push_screen(
            ConfirmScreen(
                "The build has changes that are not exported.\n\nQuit anyway? The autosave "
                "keeps them and slotwise offers to resume next time.",
                yes="Quit",
                no="Stay",
            ),
            answer,
        )

    def _trashed_message(self, trashed: Path) -> str:
        """Said on the terminal after a clean quit: where the exported build's undo history
        went, and for how long it is kept."""
        from slotwise.tui.autosave import TRASH_KEEP

        assert self.history is not None
        n = len(self.history.undo_builds)
        return (
            f"slotwise: {self.history.current.chassis} is exported ({self.bom_path}); its undo "
            f"history ({n} change{'s' if n != 1 else ''}) is in the trash for "
            f"{TRASH_KEEP.days} days: {trashed}"
        )

    def on_unmount(self) -> None:
        if self.slot is not None:
            self.slot.unlock()  # a killed app's lock is freed by the kernel instead
        for i, opt in enumerate(self.options.options):
            if i != self.options.active and opt.slot is not None:
                opt.slot.unlock()

    # ------------------------------------------------------------------------- options
    def _active_option(self) -> BuildOption:
        from slotwise.tui.options import BuildOption

        assert self.history is not None
        return BuildOption(
            history=self.history,
            saved_build=self.saved_build,
            meta=self.open_meta,
            bom_path=self.bom_path,
            slot=self.slot,
            pricing=self.pricing,
        )

    def _enter_option(self, index: int) -> None:
        opt = self.options.options[index]
        self.options.active = index
        self.state.enter(opt)
        self._changed()

    def other_options_dirty(self) -> int:
        """Options other than the one being edited that hold unexported changes."""
        return sum(
            1
            for i, o in enumerate(self.options.options)
            if i != self.options.active and o.history.current != o.saved_build
        )

    def pin_option(self) -> None:
        """Keep the current build as an option and go on editing a copy of it."""
        if self.history is None:
            return
        opts = self.options
        if not opts.options:
            opts.add(self._active_option())
        else:
            opts.options[opts.active] = self._active_option()
        if opts.full:
            self.notify(
                f"The session keeps {len(opts)} options at most: open one (F6) and change it.",
                severity="warning",
            )
            return
        slot = None
        if self.store is not None:
            slot = self.store.new()
            self._lock(slot)  # a new id: nobody else has it
        kept = opts.active
        if opts.session is None:
            first = opts.options[0].slot
            opts.session = first.build_id if first is not None else None
        index = opts.add(opts.copy_of(opts.options[kept], slot))
        for i, opt in enumerate(opts.options):  # every option's file now carries its letter
            if i != index:
                self._save_option(opt, i)
        self._enter_option(index)
        self.notify(
            f"Pinned {opts.label(kept)}; now editing {opts.label(index)}, a copy of it. "
            "F6 compares the options."
        )

    def open_option(self, index: int) -> None:
        opts = self.options
        if self.history is None or not 0 <= index < len(opts):
            return
        opts.options[opts.active] = self._active_option()
        if index != opts.active:
            self._enter_option(index)
        self.notify(f"Editing {opts.label(index)} (its own undo history).")

    def action_compare_options(self) -> None:
        from slotwise.tui.screens.compare import CompareScreen, comparison_for

        if self.history is None:
            return
        opts = self.options
        if len(opts) < 2:
            self.notify("Pin the build as an option first (p), then change the copy.")
            return
        opts.options[opts.active] = self._active_option()
        labels = [
            opts.label(i) + (" (editing)" if i == opts.active else "") for i in range(len(opts))
        ]
        builds = [o.build for o in opts.options]
        cmp = comparison_for(labels, builds, self.catalog, opts.active)

        def chosen(index: int | None) -> None:
            if index is not None:
                self.open_option(index)

        self.push_screen(CompareScreen(cmp), chosen)

    # ------------------------------------------------------------------------- size guard
    async def _on_resize(self, event) -> None:
        # App._on_resize stops the event, so a plain on_resize handler never runs.
        await super()._on_resize(event)
        self._check_size(event.size)

    def _check_size(self, size=None) -> None:
        """Cover the app with the "enlarge the terminal" notice while it is too small.  A
        notice left under another screen closes itself when it comes back on top
        (TooSmallScreen.on_screen_resume)."""
        from slotwise.tui.screens.message import TooSmallScreen

        w, h = size or self.size
        small = w < MIN_WIDTH or h < MIN_HEIGHT
        top = self.screen if self.screen_stack else None
        if small:
            if isinstance(top, TooSmallScreen):
                top.refresh_text()
            else:
                self.push_screen(TooSmallScreen(MIN_WIDTH, MIN_HEIGHT))
        elif isinstance(top, TooSmallScreen):
            self.pop_screen()

    def push_screen(self, screen, *args, **kwargs):
        """As App.push_screen, but the size notice stays on top: a screen opened while the
        terminal is too small goes under it (at most one notice is ever on the stack)."""
        from slotwise.tui.screens.message import TooSmallScreen

        if (
            not isinstance(screen, TooSmallScreen)
            and self.screen_stack
            and isinstance(self.screen, TooSmallScreen)
        ):
            self.pop_screen()
            result = super().push_screen(screen, *args, **kwargs)
            super().push_screen(TooSmallScreen(MIN_WIDTH, MIN_HEIGHT))
            return result
        return super().push_screen(screen, *args, **kwargs)


def fixed_clock(when: datetime) -> Clock:
    """A clock that always says ``when`` (tests and screenshots)."""
    return lambda: when
