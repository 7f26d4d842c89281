"""The session's autosave wiring: the slot (autosave file) the build being edited writes to,
its lock, writing each option's file after every change, and the one warning when the state
directory is unusable.  The autosave files themselves are :mod:`slotwise.tui.autosave`.

Functions of the app (:class:`slotwise.tui.app.SlotwiseApp`), which keeps the state.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from slotwise.tui.app import SlotwiseApp
    from slotwise.tui.autosave import Autosave, AutosaveEntry
    from slotwise.tui.options import BuildOption


def take_slot(app: SlotwiseApp, slot: Autosave | None) -> None:
    if app.slot is not None and app.slot is not slot:
        app.slot.unlock()
    app.state.slot = slot


def discard_autosave(app: SlotwiseApp, entry: AutosaveEntry) -> Path | None:
    """Move an autosave to the trash (the start screen asks first).  Raises
    tui.autosave.AutosaveError (AutosaveBusy: open in another slotwise) when it cannot."""
    assert app.store is not None
    return app.store.open(entry.build_id).discard()


def lock(app: SlotwiseApp, slot: Autosave):
    """Take ``slot``'s lock; an unusable state directory is said once and work goes on
    (the build is then not autosaved).  Returns the other holder, as Autosave.lock."""
    try:
        return slot.lock()
    except OSError as exc:  # tui.autosave.AutosaveError: names the path and the fix
        warn_autosave(app, exc)
        return None


def warn_autosave(app: SlotwiseApp, exc: OSError) -> None:
    if not app._autosave_warned:
        app._autosave_warned = True
        app.notify(str(exc), severity="warning", timeout=12)


def save_state(app: SlotwiseApp) -> None:
    slot, h = app.slot, app.history
    if slot is None or h is None:
        return
    pinned = bool(app.options.options)
    if not (pinned or h.can_undo or h.can_redo or app.dirty or slot.exists()):
        return  # a build just started or opened: nothing to lose yet
    save_option(app, app._active_option(), app.options.active if pinned else None)


def save_option(app: SlotwiseApp, opt: BuildOption, index: int | None) -> None:
    """Write one option's autosave, with the session id and its letter when pinned."""
    if opt.slot is None:
        return
    h = opt.history
    opts = app.options
    try:
        opt.slot.save(
            h.current,
            undo=h.undo_builds,
            redo=h.redo_builds,
            bom_path=opt.bom_path,
            meta=opt.meta if opt.meta is not None else app.open_meta,
            undo_labels=h.undo_labels,
            redo_labels=h.redo_labels,
            saved=opt.saved_build,
            session=opts.session if index is not None else None,
            option=opts.letter(index) if index is not None else None,
            label=session_label(app) if index in (None, opts.active) else opts.label(index),
        )
    except OSError as exc:  # tui.autosave.AutosaveError: names the path and cause
        warn_autosave(app, exc)


def session_label(app: SlotwiseApp) -> str | None:
    """Which of the session's builds this is, for the resume list: the option letter
    once pinned, "copy" for a copy of a build another slotwise holds open."""
    parts = []
    if len(app.options):
        parts.append(app.options.label(app.options.active))
    if app.is_copy:
        parts.append("copy")
    return ", ".join(parts) or None


def unlock_all(app: SlotwiseApp) -> None:
    if app.slot is not None:
        app.slot.unlock()  # a killed app's lock is freed by the kernel instead
    for i, opt in enumerate(app.options.options):
        if i != app.options.active and opt.slot is not None:
            opt.slot.unlock()
