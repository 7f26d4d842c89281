"""Modal messages: an error (never a traceback) and the "terminal too small" notice."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from slotwise.tui.screens.base import AppModal


class ErrorScreen(AppModal[None]):
    """Shows a problem with what to do; Enter/Esc closes.  ``fatal`` quits the app instead."""

    BINDINGS = [
        Binding("enter,escape,q", "close", "Close", id="error.close", tooltip="Close the message.")
    ]

    def __init__(self, title: str, message: str, fatal: bool = False) -> None:
        super().__init__()
        # A file name or a problem may quote a received file: its control characters are
        # shown escaped, never sent to the terminal (parts.plain_text).
        from slotwise.parts.plain_text import one_line, visible

        self.title_text = one_line(title)
        # Engine text names inputs: the app's labels.  Imported here: this module is loaded
        # before the first frame (the terminal-size notice) and input_labels pulls in pydantic.
        from slotwise.tui.input_labels import app_words

        self.message = visible(app_words(message))
        self.fatal = fatal

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog error-dialog"):
            yield Static(f"✖ {self.title_text}", classes="dialog-title", markup=False)
            with VerticalScroll(classes="dialog-scroll"):
                yield Static(self.message, classes="dialog-text", markup=False)
            yield Static(
                "Enter / Esc: " + ("quit" if self.fatal else "close"), classes="dialog-keys"
            )

    def action_close(self) -> None:
        if self.fatal:
            self.app.exit(2)
        else:
            self.dismiss(None)


class TooSmallScreen(AppModal[None]):
    """Covers everything while the terminal is below the minimum size."""

    BINDINGS = [
        Binding(
            "ctrl+q",
            "app.quit_keeping_work",
            "Quit",
            id="small.quit",
            tooltip="Quit slotwise (the autosave keeps any unexported work).",
        )
    ]

    def __init__(self, min_w: int, min_h: int) -> None:
        super().__init__()
        self.min_w = min_w
        self.min_h = min_h

    def compose(self) -> ComposeResult:
        yield Static("", id="too-small")

    def on_mount(self) -> None:
        self.refresh_text()

    def on_screen_resume(self) -> None:
        w, h = self.app.size
        if w >= self.min_w and h >= self.min_h:
            self.dismiss(None)
        else:
            self.refresh_text()

    def refresh_text(self) -> None:
        w, h = self.app.size
        self.query_one("#too-small", Static).update(
            f"Enlarge the terminal to at least {self.min_w}x{self.min_h} "
            f"(now {w}x{h}).  Ctrl+Q quits."
        )
