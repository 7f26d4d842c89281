"""Export prompt: where to write the BOM.  Dismisses with the path text, or None."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class ExportScreen(ModalScreen[str | None]):
    BINDINGS = [
        Binding(
            "escape", "cancel", "Cancel", id="export.cancel", tooltip="Close without exporting."
        )
    ]

    def __init__(self, default: str) -> None:
        super().__init__()
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("[b]Export the BOM[/b] — file to write (TOML)", classes="dialog-title")
            yield Input(self.default, id="export-path")
            yield Static(
                "Enter: export · Esc: cancel · an existing file is only replaced after you confirm",
                classes="dialog-keys",
            )

    def on_mount(self) -> None:
        self.app.apply_blink(self)
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        if not value:
            self.notify("Type a file name, e.g. build.toml", severity="warning")
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)
