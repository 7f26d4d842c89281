"""The slotwise Textual app: assemble a server slot by slot with live validation.

State lives here and only here: the catalog, the undo/redo ``History`` of Builds, the
engine's ``Report`` for the current build, the BOM meta and where it was last exported.
Every change goes through :meth:`SlotwiseApp.apply_edits`, which applies engine edits,
re-runs ``engine.check.evaluate.evaluate`` (pure, < 1 ms) and autosaves.  The catalog is loaded
in a worker thread so the first frame does not wait for it.

The flows the app runs live beside it, as functions of the app: start-up and recovery
(:mod:`slotwise.tui.startup`), the autosave wiring (:mod:`slotwise.tui.session`), export and
quit (:mod:`slotwise.tui.export_quit`); messages screens post are :mod:`slotwise.tui.messages`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import App, ComposeResult
from textual.widgets import Static

from slotwise.tui import export_quit, session, startup
from slotwise.tui.keys import APP_KEYS, bindings
from slotwise.tui.messages import CatalogReady, KeysReleased, PricesPathChosen, StartupFailed
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
        if (
            self.bom_arg is None
            and self.initial_build is None
            and not startup.autosaves_exist(self)
        ):
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
    def hold_keys(self, at_most_s: float = 1.0) -> None:
        """A modal is about to open (the map's Enter posts a message; the picker is pushed
        when the build screen handles it), or a view that mounts on first use: keys that arrive
        meanwhile are kept for it instead of acting on the screen underneath.  Released by the
        modal or view (or after ``at_most_s``, so a key is never lost)."""
        self._held_keys: list[tuple[str, str | None]] = []
        self._holding = True
        self.set_timer(at_most_s, self.release_keys)

    def keep_typed_ahead(self, key: str, character: str | None) -> bool:
        """True (and the key kept) while a modal is opening."""
        if not getattr(self, "_holding", False):
            return False
        self._held_keys.append((key, character))
        return True

    async def on_event(self, event) -> None:
        """While a modal opens, every key the terminal sends is kept before the app routes it:
        routed, it would reach whatever has the focus at that moment (the screen underneath,
        whose "q" quit, or the modal's search field ahead of the keys still kept)."""
        if (
            isinstance(event, events.Key)
            and not event.is_forwarded
            and self.keep_typed_ahead(event.key, event.character)
        ):
            return
        await super().on_event(event)

    def on_key(self, event) -> None:
        """A key bubbling up to the app while a modal opens is kept for the modal too."""
        if self.keep_typed_ahead(event.key, event.character):
            event.stop()
            event.prevent_default()

    def release_keys(self) -> None:
        """The modal is up: the kept keys are replayed once every key that reached the app
        before this call has been kept too (:class:`KeysReleased` queues behind them)."""
        if getattr(self, "_holding", False):
            self.post_message(KeysReleased())

    async def on_keys_released(self, message: KeysReleased) -> None:
        """Replay the kept keys, in the order typed, to whatever has the focus now (the modal's
        search field), as the app routes any key."""
        if not getattr(self, "_holding", False):
            return
        self._holding = False
        held, self._held_keys = self._held_keys, []
        for key, character in held:
            await super().on_event(events.Key(key, character))

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

    @work(thread=True, exclusive=True, group="startup")
    def _load(self) -> None:
        """Off the event loop: read the catalog (and the BOM named on the command line)."""
        startup.load(self)

    def on_startup_failed(self, message: StartupFailed) -> None:
        startup.startup_failed(self, message)

    def on_catalog_ready(self, message: CatalogReady) -> None:
        startup.catalog_ready(self, message)

    def discard_autosave(self, entry: AutosaveEntry) -> Path | None:
        """Move an autosave to the trash (the start screen asks first).  Raises
        tui.autosave.AutosaveError (AutosaveBusy: open in another slotwise) when it cannot."""
        return session.discard_autosave(self, entry)

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
            session.lock(self, slot)  # a new id: nobody else has it
            self.state.slot = slot
        self.state.history = history
        self.state.saved_build = saved
        self.state.is_copy = copy
        if saved is None and not resumed and not history.can_undo and not history.can_redo:
            self.state.saved_build = history.current  # a fresh build has nothing to lose yet
        self.state.report = self.evaluate_build(history.current)
        session.save_state(self)
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
        session.save_state(self)
        screen = self._build_screen()
        if screen is not None:
            screen.refresh_view(reload_form=reload_form)

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
        export_quit.export(self)

    def export_to(self, path: Path, force: bool) -> bool:
        """Write the build to ``path``: the BOM (.toml), the customer document (.md) or the line
        items (.csv), as the extension says (tui.screens.export.EXPORT_FORMATS)."""
        return export_quit.export_to(self, path, force)

    def action_quote_details(self) -> None:
        export_quit.quote_details(self)

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
        export_quit.request_quit(self)

    def on_unmount(self) -> None:
        session.unlock_all(self)

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
            session.lock(self, slot)  # a new id: nobody else has it
        kept = opts.active
        if opts.session is None:
            first = opts.options[0].slot
            opts.session = first.build_id if first is not None else None
        index = opts.add(opts.copy_of(opts.options[kept], slot))
        for i, opt in enumerate(opts.options):  # every option's file now carries its letter
            if i != index:
                session.save_option(self, opt, i)
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
