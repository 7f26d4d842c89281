"""Start-up and recovery: the catalog load (in the app's worker), the BOM or cluster document
named on the command line, and the dialogs that decide what is opened: resume an autosave, the
file or its unexported autosave, a model config outside the BOM's folder, autosaves set aside.

Functions of the app (:class:`slotwise.tui.app.SlotwiseApp`), which keeps the state; the app's
message handlers and worker call them.  Engine modules are imported where they are used
(start-up time, issue #14).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.widgets import Static

from slotwise.tui import session
from slotwise.tui.messages import CatalogReady, StartupFailed
from slotwise.tui.options import OptionSet
from slotwise.tui.state import BomPricing

if TYPE_CHECKING:
    from slotwise.tui.app import SlotwiseApp
    from slotwise.tui.autosave import AutosaveEntry
    from slotwise.tui.history import History


def autosaves_exist(app: SlotwiseApp) -> bool:
    """Any autosave file on disk (cheap: no parsing, no engine import)."""
    if not app._autosave_on:
        return False
    from slotwise.engine.store.local_paths import state_root

    root = Path(app._state_dir).expanduser() if app._state_dir else state_root()
    try:
        return (root / "autosave.json").exists() or any((root / "autosaves").glob("*.json"))
    except OSError:  # an unreadable state directory: said when the build starts
        return False


def load(app: SlotwiseApp) -> None:
    """Off the event loop: read the catalog (and the BOM named on the command line)."""
    from slotwise.parts.catalog import CatalogError, load_catalog

    try:
        catalog = app.catalog or load_catalog(
            None if app.catalog_dir is None else os.fspath(app.catalog_dir)
        )
    except CatalogError as exc:
        app.post_message(StartupFailed("The parts catalog has problems", str(exc)))
        return
    except OSError as exc:
        app.post_message(StartupFailed("Cannot read the parts catalog", str(exc)))
        return
    loaded: Any = None  # engine.bom.LoadedBom, or a cluster_doc.ClusterDoc
    if app.bom_arg is not None:
        from slotwise.engine.bom import read_bom
        from slotwise.engine.bom.cluster_doc import ClusterDocError, read_cluster, read_input
        from slotwise.parts.safe_io import InputError

        try:
            text, is_doc = read_input(app.bom_arg)
        except InputError:
            text, is_doc = "", False  # read_bom says what is wrong with the file
        if is_doc:  # a cluster document: its own screen
            try:
                loaded = read_cluster(text, filename=app.bom_arg)
            except ClusterDocError as exc:
                app.post_message(StartupFailed("The cluster document has problems", str(exc)))
                return
        else:
            loaded = read_bom(app.bom_arg, catalog)
    app.store  # noqa: B018 - import tui.autosave here, off the event loop
    from slotwise.tui.history import History  # noqa: F401 - likewise

    app.post_message(CatalogReady(catalog, loaded))
    app.evaluate_fn()  # the rule modules: after the first screen, before the first edit


def startup_failed(app: SlotwiseApp, message: StartupFailed) -> None:
    from slotwise.tui.screens.message import ErrorScreen

    app.query_one("#loading", Static).update(message.title)
    app.push_screen(ErrorScreen(message.title, message.text, fatal=True))


def catalog_ready(app: SlotwiseApp, message: CatalogReady) -> None:
    from slotwise.engine.bom.meta import BomMeta
    from slotwise.tui.history import History

    app.catalog = message.catalog
    loaded = message.loaded
    if app._early_chooser:
        app._early_chooser = False
        catalog_arrived(app)
        return
    app.query_one("#loading", Static).update(
        "slotwise — catalog loaded.  Ctrl+N / n: new build · Ctrl+Q: quit"
    )
    if loaded is not None:
        from slotwise.engine.bom.cluster_doc import ClusterDoc

        if isinstance(loaded, ClusterDoc):
            from slotwise.tui.screens.cluster import ClusterScreen

            app.push_screen(
                ClusterScreen(loaded, opened_file=True), lambda _: app.action_new_build()
            )
            return
        open_loaded(app, loaded)
        return
    if app.initial_build is not None:
        app.state.meta = BomMeta.new(clock=app.clock)
        app.start(History(app.initial_build), saved=None)
        return
    entries = recoverable(app)
    if entries:
        offer_resume(app, entries)
    else:
        app.action_new_build()
    report_set_aside(app)


def catalog_arrived(app: SlotwiseApp) -> None:
    """The real catalog replaces the chooser's preview (or a choice made on it runs)."""
    from slotwise.tui.screens.chooser import ChassisChooser

    app.query_one("#loading", Static).update(
        "slotwise — catalog loaded.  Ctrl+N / n: new build · Ctrl+Q: quit"
    )
    sku, app._pending_sku = app._pending_sku, None
    if sku is not None:
        if sku in app.catalog.chassis:
            app._chassis_chosen(sku)
        else:
            app.action_new_build()
        return
    for screen in app.screen_stack:
        if isinstance(screen, ChassisChooser):
            screen.use_catalog(app.catalog)


def recoverable(app: SlotwiseApp) -> list[AutosaveEntry]:
    """Autosaved builds this catalog can open; the others are set aside (with a reason
    in ``_aside_msgs``), never dropped."""
    app._aside_msgs = []
    if app.store is None:
        return []
    entries = app.store.entries()
    app._aside_msgs.extend(app.store.problems)
    usable = []
    for e in entries:
        sku = e.state.build.chassis
        if sku in app.catalog.chassis:
            usable.append(e)
            continue
        if e.locked_by is not None:
            continue  # a live slotwise (with its own overlay) edits it: not ours to move
        slot = app.store.open(e.build_id)
        slot.set_aside(
            f"it is a build on chassis {sku}, which this parts catalog does not have "
            "(was it made with a --catalog overlay? move the file back into "
            f"{slot.dir} and start slotwise with that overlay)"
        )
        app._aside_msgs.append(slot.problem or f"{e.path} was set aside")
    return usable


def report_set_aside(app: SlotwiseApp) -> None:
    from slotwise.tui.screens.message import ErrorScreen

    if app._aside_msgs:
        app.push_screen(
            ErrorScreen(
                "Some autosaves could not be resumed",
                "\n\n".join(app._aside_msgs)
                + "\n\nNothing was deleted: each file was kept where it says.",
            )
        )


def open_loaded(app: SlotwiseApp, loaded) -> None:
    from slotwise.tui.screens.message import ErrorScreen

    problems = "\n".join(
        f"- {p.severity.upper()}: {p.message}"
        + (f" (line {p.line})" if getattr(p, "line", None) else "")
        + (f"\n  → {p.fix}" if p.fix else "")
        for p in loaded.problems
    )
    if loaded.build is None or loaded.build.chassis not in app.catalog.chassis:
        app.action_new_build()
        app.push_screen(
            ErrorScreen(
                f"Cannot open {loaded.filename}",
                (problems or "the file names no known chassis")
                + "\n\nStarting a new build instead.",
            )
        )
        return
    clash = unexported_autosave_of(app, loaded)
    if clash is not None:
        ask_bom_or_autosave(app, loaded, clash, problems)
        return
    open_bom(app, loaded, problems)


def unexported_autosave_of(app: SlotwiseApp, loaded) -> AutosaveEntry | None:
    """The newest free autosave of the same file whose build differs from the file's."""
    if app.store is None:
        return None
    target = Path(loaded.filename).resolve()
    for e in app.store.entries():
        st = e.state
        if (
            st.bom_path
            and Path(st.bom_path).expanduser().resolve() == target
            and st.build != loaded.build
            and e.locked_by is None
            and st.build.chassis in app.catalog.chassis
        ):
            return e
    return None


def ask_bom_or_autosave(app: SlotwiseApp, loaded, clash: AutosaveEntry, problems: str) -> None:
    from slotwise.tui.screens.confirm import ConfirmScreen
    from slotwise.tui.screens.recover import entry_text

    def answer(resume_it: bool | None) -> None:
        if resume_it:
            resume(app, clash)
        else:
            open_bom(app, loaded, problems)

    app.push_screen(
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


def open_bom(app: SlotwiseApp, loaded, problems: str) -> None:
    from slotwise.tui.history import History
    from slotwise.tui.screens.message import ErrorScreen

    app.state.meta = loaded.meta
    app.state.bom_path = str(Path(loaded.filename).expanduser().resolve())
    app.state.pricing = BomPricing(
        prices=dict(loaded.prices) or None,
        currency=loaded.currency,
        price_note=loaded.price_note,
    )
    app.start(History(loaded.build), saved=loaded.build)
    if loaded.problems:
        app.push_screen(ErrorScreen(f"{loaded.filename} loaded with problems", problems))
    if loaded.refused_config:
        ref = loaded.refused_config
        if not ref.startswith("~") and not Path(ref).is_absolute():
            ref = str(Path(loaded.filename).expanduser().parent / ref)  # as the BOM meant
        ask_outside_config(app, ref)


def ask_outside_config(app: SlotwiseApp, ref: str) -> None:
    """The BOM names a model config outside its folder (engine.bom.config_path): read it
    only if the user says so (Enter keeps it unread)."""
    from slotwise.engine.build.edits import SetWorkload
    from slotwise.tui.screens.confirm import ConfirmScreen

    def answer(yes: bool | None) -> None:
        wl = app.history.current.workload if app.history else None
        if yes and wl is not None:
            app.apply_edits(
                [SetWorkload(workload=wl.model_copy(update={"config": ref}))],
                "read the model config the BOM names",
            )

    app.push_screen(
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


def offer_resume(app: SlotwiseApp, entries: list[AutosaveEntry]) -> None:
    from slotwise.tui.screens.recover import RecoverScreen

    def answer(choice: tuple[str, AutosaveEntry | None] | None) -> None:
        what, entry = choice or ("new", None)
        if what == "resume" and entry is not None:
            resume(app, entry)
        else:
            app.action_new_build()

    app.push_screen(RecoverScreen(entries), answer)


def resume(app: SlotwiseApp, entry: AutosaveEntry) -> None:
    """Continue an autosaved build; one open in another slotwise continues as a copy."""
    from slotwise.engine.bom.meta import BomMeta
    from slotwise.tui.history import History

    assert app.store is not None
    slot = app.store.open(entry.build_id)
    holder = session.lock(app, slot)
    if holder is not None:
        slot = app.store.new()
        session.lock(app, slot)
        pid = f" (pid {holder.pid})" if holder.pid else ""
        app.notify(
            f"That build is open in another slotwise{pid}: you are editing a copy; both are kept.",
            severity="warning",
            timeout=8,
        )
    session.take_slot(app, slot)
    st = entry.state
    app.state.meta = st.meta or BomMeta()
    app.state.bom_path = st.bom_path
    history = History.restore(st.build, st.undo, st.redo, st.undo_labels, st.redo_labels)
    if holder is None and st.session and st.option:
        restore_options(app, entry, history)
    app.start(history, saved=st.saved, resumed=True, copy=holder is not None)
    when = st.saved_at.strftime("%Y-%m-%d %H:%M UTC")
    app.notify(f"Resumed the build autosaved {when}.", timeout=3)
    if len(app.options) > 1:
        letters = ", ".join(app.options.letter(i) for i in range(len(app.options)))
        app.notify(
            f"Options {letters} are back; editing {app.options.label(app.options.active)}. "
            "F6 compares them.",
            timeout=6,
        )


def restore_options(app: SlotwiseApp, entry: AutosaveEntry, history: History) -> None:
    """The other options autosaved in ``entry``'s session come back with their letters
    (each locked for this app; one open in another slotwise stays there)."""
    from slotwise.engine.bom.meta import BomMeta
    from slotwise.tui.history import History
    from slotwise.tui.options import LETTERS, BuildOption

    assert app.store is not None
    st = entry.state
    found: dict[str, BuildOption] = {}
    for e in app.store.entries():
        o = e.state
        if o.session != st.session or not o.option or o.option in found:
            continue
        if e.build_id == entry.build_id:
            found[o.option] = BuildOption(
                history=history,
                meta=o.meta or BomMeta(),
                saved_build=o.saved,
                bom_path=o.bom_path,
                slot=app.slot,
            )
            continue
        if e.locked_by is not None or o.build.chassis not in app.catalog.chassis:
            continue
        slot = app.store.open(e.build_id)
        if session.lock(app, slot) is not None:
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
    app.options = opts
