"""A yes/no question as a modal: y / Enter = yes, n / Esc = no.  Dismisses with a bool.

For a destructive question (``enter_means_yes=False``) only ``y`` says yes: Enter and Esc
both keep things as they are."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from slotwise.tui.screens.base import AppModal


class ConfirmScreen(AppModal[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes", tooltip="Answer yes."),
        Binding("n,escape", "answer(False)", "No", id="confirm.no", tooltip="Answer no."),
        Binding("enter", "enter", "Default", id="confirm.enter", tooltip="The default answer."),
    ]

    def __init__(
        self, question: str, yes: str = "Yes", no: str = "No", *, enter_means_yes: bool = True
    ) -> None:
        super().__init__()
        from slotwise.parts.plain_text import visible  # a file name may hold control characters

        self.question = visible(question)
        self.yes = yes
        self.no = no
        self.enter_means_yes = enter_means_yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-text")
            enter_yes, enter_no = (" / Enter", "") if self.enter_means_yes else ("", " / Enter")
            yield Static(
                f"[b]y[/b]{enter_yes}: {self.yes}    [b]n[/b] / Esc{enter_no}: {self.no}",
                classes="dialog-keys",
            )

    def action_enter(self) -> None:
        self.dismiss(self.enter_means_yes)

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
