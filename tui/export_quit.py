"""Leaving with the work: export (the BOM, the customer document or the line items, as the
file's extension says), the quote details that go into them, and every quit path (a clean quit
puts an exported build's autosave in the trash; unexported changes ask first).

Functions of the app (:class:`slotwise.tui.app.SlotwiseApp`), whose actions call them.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from slotwise.engine.bom.meta import BomMeta
    from slotwise.tui.app import SlotwiseApp


def export(app: SlotwiseApp) -> None:
    from slotwise.tui.screens.export import ExportScreen

    if app.history is None:
        return
    from slotwise.tui.screens.export import default_bom_name

    meta = app.open_meta
    default = app.bom_path or default_bom_name(
        app.history.current.chassis, meta.customer, meta.project, app.clock()
    )

    def chosen(path: str | None) -> None:
        if path is None:
            return
        from slotwise.tui.screens.export import EXPORT_FORMATS, export_format, written_paths

        if export_format(path) is None:
            app.notify(
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
                    export_to(app, p, force=True)

            app.push_screen(
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
            export_to(app, p, force=False)

    app.push_screen(ExportScreen(default), chosen)


def export_to(app: SlotwiseApp, path: Path, force: bool) -> bool:
    """Write the build to ``path``: the BOM (.toml), the customer document (.md) or the line
    items (.csv), as the extension says (tui.screens.export.EXPORT_FORMATS)."""
    from slotwise.engine.bom import BomExistsError, export_bom, write_bom
    from slotwise.tui.screens.export import export_format

    fmt = export_format(str(path)) or "toml"
    meta = app.open_meta.touched(app.clock)
    if fmt != "toml":
        return export_document(app, path, fmt, meta, force)
    text = export_bom(
        app.editing.current,
        app.catalog,
        meta,
        report=app.report,
        **app.pricing.export_kwargs(),
    )
    try:
        write_bom(path, text, force=force)
    except (BomExistsError, OSError) as exc:
        from slotwise.tui.screens.message import ErrorScreen

        app.push_screen(
            ErrorScreen("Export failed", f"{path}: {exc}\n\nChoose another file name or directory.")
        )
        return False
    app.state.meta = meta
    app.state.bom_path = str(Path(path).expanduser().resolve())
    app.state.saved_build = app.editing.current
    app._changed(reload_form=False)
    app.notify(f"Exported the BOM to {app.bom_path}", timeout=4)
    return True


def export_document(app: SlotwiseApp, path: Path, fmt: str, meta: BomMeta, force: bool) -> bool:
    """The customer Markdown (with the pinned options side by side, and the engineering notes
    in a file beside it) or the CSV line items; the build stays unexported as a BOM."""
    from slotwise.engine.bom import BomExistsError, write_bom
    from slotwise.tui.input_labels import app_words
    from slotwise.tui.screens.export import notes_path

    build, kw = app.editing.current, app.pricing.export_kwargs()
    files: list[tuple[Path, str]] = []
    if fmt == "md":
        from slotwise.engine.bom.markdown import engineering_notes, to_markdown

        report = app.report if app.report is not None else app.evaluate_build(build)
        text = to_markdown(build, app.catalog, meta, report, **kw)
        compared = options_markdown(app)
        if compared:
            text = text.rstrip("\n") + "\n\n" + compared
        files.append((path, app_words(text)))
        notes = engineering_notes(build, app.catalog, meta, report)
        files.append((notes_path(path), app_words(notes)))
        what = "the customer document" + (" with the options side by side" if compared else "")
    else:
        from slotwise.engine.bom.csv_export import to_csv

        text = to_csv(build, app.catalog, kw.get("prices"), kw.get("currency"), meta.services)
        files.append((path, text))
        what = "the line items"
    for target, body in files:
        try:
            write_bom(target, body, force=force)
        except (BomExistsError, OSError) as exc:
            from slotwise.tui.screens.message import ErrorScreen

            app.push_screen(
                ErrorScreen(
                    "Export failed",
                    f"{target}: {exc}\n\nChoose another file name or directory.",
                )
            )
            return False
    where = Path(path).expanduser().resolve()
    if fmt == "md":
        app.notify(
            f"Wrote {what} to {where}; the engineering notes (rule ids, catalog to-dos, "
            f"part-number sources) to {notes_path(where).name}",
            timeout=6,
        )
    else:
        app.notify(f"Wrote {what} to {where}", timeout=4)
    return True


def quote_details(app: SlotwiseApp) -> None:
    from slotwise.tui.screens.quote import QuoteScreen

    if app.history is None:
        return

    def kept(meta: BomMeta | None) -> None:
        if meta is None:
            return
        app.state.meta = meta
        app._changed(reload_form=False)  # the autosave keeps the details
        app.notify("Quote details kept; they go into the BOM and the customer document.")

    app.push_screen(QuoteScreen(app.open_meta), kept)


def request_quit(app: SlotwiseApp) -> None:
    """Every quit path ends here.  No build open (start screen, chooser): nothing is
    touched.  Build exported: its autosave goes to the trash (kept for a while).
    Unexported changes: ask; the autosave keeps them for the next start."""
    from slotwise.tui.screens.confirm import ConfirmScreen

    if app.history is None:
        app.exit(0)
        return
    if not app.dirty and not app.other_options_dirty():
        message = None
        if app.slot is not None:
            with contextlib.suppress(OSError):  # then it stays listed: nothing is lost
                had_history = app.slot.exists() and app.history.can_undo
                trashed = app.slot.discard()
                if had_history and trashed is not None:
                    message = trashed_message(app, trashed)
        app.exit(0, message=message)
        return

    def answer(yes: bool | None) -> None:
        if yes:
            app.exit(0)  # the autosave keeps the work: offered again on next start

    app.push_screen(
        ConfirmScreen(
            "The build has changes that are not exported.\n\nQuit anyway? The autosave "
            "keeps them and slotwise offers to resume next time.",
            yes="Quit",
            no="Stay",
        ),
        answer,
    )


def trashed_message(app: SlotwiseApp, trashed: Path) -> str:
    """Said on the terminal after a clean quit: where the exported build's undo history
    went, and for how long it is kept."""
    from slotwise.tui.autosave import TRASH_KEEP

    assert app.history is not None
    n = len(app.history.undo_builds)
    return (
        f"slotwise: {app.history.current.chassis} is exported ({app.bom_path}); its undo "
        f"history ({n} change{'s' if n != 1 else ''}) is in the trash for "
        f"{TRASH_KEEP.days} days: {trashed}"
    )


def options_markdown(app: SlotwiseApp) -> str | None:
    """The pinned options side by side (engine.plan.compare, as `slotwise compare`), under
    the edited build's workload; None with fewer than two options."""
    opts = app.options
    if len(opts) < 2:
        return None
    from slotwise.engine.plan.compare import comparison_markdown
    from slotwise.tui.screens.compare import comparison_for

    opts.options[opts.active] = app._active_option()
    labels = [
        opts.label(i) + (" (detailed above)" if i == opts.active else "") for i in range(len(opts))
    ]
    builds = [o.build for o in opts.options]
    return comparison_markdown(comparison_for(labels, builds, app.catalog, opts.active))
