"""Quote details: customer, project, engineer, quote date, validity and the service lines (the
BOM's ``[meta]``).  Services are Supermicro codes the user types (EWCSC warranty, OSNBD3 on-site,
MC0037 assembly: engine.build.companions.SERVICES); none is quoted unless typed here.

A modal form; Enter on the last field (or Ctrl+S) keeps the details, Esc closes without changes.
Dates are YYYY-MM-DD (blank: none); a wrong date is said under the form and nothing is kept.
Dismisses with the new :class:`BomMeta`, or None."""

from __future__ import annotations

from datetime import date

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.widgets import Input, Label, Static

from slotwise.engine.bom.meta import BomMeta
from slotwise.engine.build.companions import parse_services, services_hint
from slotwise.tui.screens.base import AppModal

FIELDS = (
    ("customer", "Customer"),
    ("project", "Project"),
    ("engineer", "Engineer"),
    ("quote_date", "Quote date"),
    ("valid_until", "Valid until"),
    ("services", "Services"),
)
HINT = "Dates YYYY-MM-DD. Services (blank: none): " + services_hint()
MAX_CHARS = 200


class QuoteScreen(AppModal[BomMeta | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="quote.cancel", tooltip="Close, change nothing."),
        Binding("ctrl+s", "keep", "Keep", id="quote.keep", tooltip="Keep these details."),
    ]

    def __init__(self, meta: BomMeta) -> None:
        super().__init__()
        self.meta = meta

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                "[b]Quote details[/b] — in the BOM and the customer document",
                classes="dialog-title",
            )
            with Grid(id="quote-grid"):
                for name, label in FIELDS:
                    value = getattr(self.meta, name)
                    if name == "services":
                        text = ", ".join(value)
                    else:
                        text = "" if value is None else str(value)
                    yield Label(label)
                    yield Input(text, id=f"quote-{name}", max_length=MAX_CHARS)
            yield Static(HINT, classes="dialog-keys")
            yield Static("", id="quote-problem", classes="dialog-keys")
            yield Static(
                "Tab/↓ next field · Enter on the last field or Ctrl+S: keep · Esc: cancel",
                classes="dialog-keys",
            )

    def on_mount(self) -> None:
        self.app.apply_blink(self)
        self.query_one(f"#quote-{FIELDS[0][0]}", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == f"quote-{FIELDS[-1][0]}":
            self.action_keep()
        else:
            self.focus_next()

    def _read(self) -> BomMeta | str:
        values: dict[str, object] = {}
        for name, label in FIELDS:
            text = self.query_one(f"#quote-{name}", Input).value.strip()
            if name == "services":
                try:
                    values[name] = parse_services(text)
                except ValueError as exc:
                    return f"Services: {exc}."
                continue
            if name in ("quote_date", "valid_until"):
                if not text:
                    values[name] = None
                    continue
                try:
                    values[name] = date.fromisoformat(text)
                except ValueError:
                    return f"{label}: {text!r} is not a date; write YYYY-MM-DD."
            else:
                values[name] = text
        qd, vu = values["quote_date"], values["valid_until"]
        if isinstance(qd, date) and isinstance(vu, date) and vu < qd:
            return "Valid until is before the quote date."
        try:
            return self.meta.model_copy(update=values)
        except ValueError as exc:  # pragma: no cover - the fields above are all free text
            return str(exc)

    def action_keep(self) -> None:
        got = self._read()
        if isinstance(got, str):
            self.query_one("#quote-problem", Static).update(got)
            return
        self.dismiss(got)

    def action_cancel(self) -> None:
        self.dismiss(None)
