"""A yes/no question as a modal: y / Enter = yes, n / Esc = no.  Dismisses with a bool."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y,enter", "answer(True)", "Yes", id="confirm.yes", tooltip="Answer yes."),
        Binding("n,escape", "answer(False)", "No", id="confirm.no", tooltip="Answer no."),
    ]

    def __init__(self, question: str, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.question = question
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-text")
            yield Static(
                f"[b]y[/b] / Enter: {self.yes}    [b]n[/b] / Esc: {self.no}", classes="dialog-keys"
            )

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
