"""File prompts: where to write the BOM (or another export).  Dismiss with the path text, or None."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from slotwise.tui.screens.base import AppModal


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
    """Where to write the BOM."""
