"""File prompts: where to write the BOM (or another export).  Dismiss with the path text, or None."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from slotwise.tui.screens.base import AppModal
from slotwise.tui.widgets.ordered_input import Input


def default_bom_name(
    chassis: str, customer: str, project: str, when: datetime, folder: Path | None = None
) -> str:
    """A BOM file name two builds do not share by accident: the customer (or else the project),
    the chassis and the date, e.g. ``acme-SYS-421GE-TNRT-2026-01-15.toml``; ``-2``, ``-3`` ...
    when that file already exists in ``folder`` (default: the working directory)."""
    who = re.sub(r"[^A-Za-z0-9]+", "-", customer.strip() or project.strip()).strip("-")[:40]
    stem = "-".join(p for p in (who, chassis, f"{when:%Y-%m-%d}") if p)
    folder = Path.cwd() if folder is None else folder
    name, n = f"{stem}.toml", 1
    while (folder / name).exists():
        n += 1
        name = f"{stem}-{n}.toml"
    return name


class PathPrompt(AppModal[str | None]):
    """Ask for a file to write.  Subclasses set the wording; the caller confirms overwrites."""

    TITLE_MARKUP = "[b]Export the BOM[/b] — file to write (TOML)"
    VERB = "export"
    EXAMPLE = "build.toml"
    INPUT_ID = "export-path"

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="export.cancel", tooltip="Close, write nothing.")
    ]

    def __init__(self, default: str) -> None:
        super().__init__()
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.TITLE_MARKUP, classes="dialog-title")
            yield Input(self.default, id=self.INPUT_ID, classes="path-input")
            yield Static(
                f"A name without a folder is saved in {Path.cwd()}",
                classes="dialog-keys",
                id="path-where",
            )
            yield Static(
                f"Enter: {self.VERB} · Esc: cancel · an existing file is only replaced after "
                "you confirm",
                classes="dialog-keys",
            )

    def on_mount(self) -> None:
        self.app.apply_blink(self)
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        if not value:
            self.notify(f"Type a file name, e.g. {self.EXAMPLE}", severity="warning")
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ExportScreen(PathPrompt):
    """Where to write the BOM; the extension chooses what is written (EXPORT_FORMATS)."""

    TITLE_MARKUP = "[b]Export[/b] — .toml: the BOM · .md: the customer document · .csv: line items"


#: What each file extension writes (the app never writes TOML under another name).
EXPORT_FORMATS = {".toml": "toml", ".md": "md", ".csv": "csv"}


def export_format(path: str) -> str | None:
    """The format ``path``'s extension asks for; None for any other extension."""
    return EXPORT_FORMATS.get(Path(path).suffix.lower())


def notes_path(path: Path) -> Path:
    """Where a Markdown export's engineering notes go: ``quote.md`` -> ``quote.notes.md``."""
    return path.with_suffix(".notes.md")


def written_paths(path: Path) -> list[Path]:
    """Every file an export to ``path`` writes (a .md also writes its engineering notes)."""
    return [path, notes_path(path)] if export_format(str(path)) == "md" else [path]
