"""Part picker (modal) for the focused map row: the parts that go there, key figures, search as
you type, a count for CPUs / DIMMs / PSUs / drives / bridges.  A part that would add an error
is still listed, with the engine's reason, so nothing is hidden without saying why."""

from __future__ import annotations

from rich.console import Group
from rich.padding import Padding
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from slotwise.engine.build import Build
from slotwise.engine.check.report import Report
from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import Chassis
from slotwise.tui.input_labels import app_words
from slotwise.tui.keys import PICKER_KEYS, bindings
from slotwise.tui.screens.base import AppModal
from slotwise.tui.screens.picker_model import (
    EMPTY,
    Choice,
    Evaluate,
    PickTarget,
    choices,
    edits_for,
    matches,
)
from slotwise.tui.widgets.cursor_list import CursorList
from slotwise.tui.widgets.ordered_input import Input


def choice_text(c: Choice, current: str | None) -> Group:
    """Headline (symbol + SKU), then figures and reasons indented under it."""
    head = Text()
    if c.key == EMPTY:
        head.append("○ ", style="bold")
    elif c.problem or c.new_errors:
        head.append("✖ ", style="bold red")
    elif not c.listed:
        head.append("? ", style="yellow")
    else:
        head.append("✔ ", style="bold green")
    head.append(c.title, style="bold")
    if current and c.key == current:
        head.append("  (fitted now)", style="italic")
    if not c.listed:
        head.append("  not listed for this chassis", style="yellow")
    body = Text(c.figures, style="dim")
    if c.problem:
        body.append(f"\n✖ cannot: {c.problem}", style="red")
    for f in c.new_errors[:2]:
        body.append(f"\n✖ would add ERROR {f.rule}: {app_words(f.message)}", style="red")
    if len(c.new_errors) > 2:
        body.append(f"\n… and {len(c.new_errors) - 2} more error(s)", style="red")
    return Group(head, Padding(body, (0, 0, 0, 3)))


def key_line(target: PickTarget) -> str:
    """The dialog's keys, only those that work for this row: Tab reaches the count field only
    where there is one, F6 lists more parts only where parts are listed (issue #14)."""
    env = target.kind == "env"
    keys = ["Enter: " + ("apply" if env else "fit")]
    if target.counted:
        keys.append(f"Tab: {target.count_label}")
    if not env:
        keys.append("F6: all catalog parts")
    keys.append("Esc: cancel")
    marks = "✔ no new error · ✖ adds an error" + ("" if env else " · ? not listed")
    return " · ".join(keys) + "   " + marks


class PartPicker(AppModal[tuple | None]):
    """Dismisses with the edits to apply, or None."""

    BINDINGS = bindings(PICKER_KEYS)

    def __init__(
        self,
        target: PickTarget,
        build: Build,
        chassis: Chassis,
        catalog: Catalog,
        evaluate: Evaluate,
        report: Report,
    ) -> None:
        super().__init__()
        self.target = target
        self.build = build
        self.chassis = chassis
        self.catalog = catalog
        self.evaluate = evaluate
        self.report = report
        self.show_all = False
        self.all_choices: list[Choice] = []
        self.shown: list[Choice] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker-dialog"):
            yield Static(
                f"[b]{self.target.title}[/b] — pick a {'setting' if self._is_env else 'part'}",
                classes="dialog-title",
                id="picker-title",
            )
            with Horizontal(id="picker-inputs"):
                yield Input(
                    placeholder="search: e.g. 200 or N+1"
                    if self._is_env
                    else "search: type part of a SKU, name or figure",
                    id="picker-search",
                    select_on_focus=False,  # letters typed in the list add to the search
                )
                if self.target.counted:
                    yield Label(self.target.count_label, id="picker-count-label")
                    yield Input(str(self.target.default_count), type="integer", id="picker-count")
            yield CursorList(id="picker-list")
            yield Static(key_line(self.target), classes="dialog-keys", id="picker-keys")

    @property
    def _is_env(self) -> bool:
        return self.target.kind == "env"

    def on_mount(self) -> None:
        self.app.apply_blink(self)
        self._recompute()
        self.query_one("#picker-search", Input).focus()
        self.app.call_after_refresh(self.app.release_keys)  # keys typed ahead: the search

    def _count(self) -> int | None:
        if not self.target.counted:
            return 1
        text = self.query_one("#picker-count", Input).value.strip()
        try:
            n = int(text)
        except ValueError:
            return None
        return n if n >= 0 else None

    def _recompute(self) -> None:
        n = self._count()
        if n is None:
            self._set([], "type a whole number of " + self.target.count_label)
            return
        self.all_choices = choices(
            self.target,
            self.build,
            self.chassis,
            self.catalog,
            self.evaluate,
            self.report,
            n,
            self.show_all,
        )
        self._filter()

    def _filter(self) -> None:
        q = self.query_one("#picker-search", Input).value
        self.shown = [c for c in self.all_choices if c.key == EMPTY or matches(c, q)]
        self._set(
            self.shown,
            "nothing matches; clear the search or press F6 for all parts"
            if q.strip()
            else "the catalog lists no part for this row on this chassis; "
            "press F6 to list all catalog parts of this kind",
        )

    def _set(self, shown: list[Choice], empty_msg: str) -> None:
        ol = self.query_one("#picker-list", OptionList)
        if not shown:
            self.shown = []
            ol.set_options([Option(empty_msg, disabled=True)])
            return
        ol.set_options([Option(choice_text(c, self.target.current), id=c.key) for c in shown])
        current = next(
            (i for i, c in enumerate(shown) if c.key == self.target.current and c.key != EMPTY),
            None,
        )
        first_real = next((i for i, c in enumerate(shown) if c.key != EMPTY), 0)
        ol.highlighted = current if current is not None else first_real

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.input.id == "picker-count":
            self._recompute()
        else:
            self._filter()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_choose()

    def on_key(self, event) -> None:
        if event.key in ("down", "up", "pagedown", "pageup") and isinstance(self.focused, Input):
            ol = self.query_one("#picker-list", OptionList)
            ol.focus()
            getattr(
                ol,
                "action_cursor_down" if event.key in ("down", "pagedown") else "action_cursor_up",
            )()
            event.stop()
            return
        if isinstance(self.focused, OptionList) and (
            (event.is_printable and event.character and event.character != " ")
            or event.key == "backspace"
        ):
            # Typing in the list goes to the search box (the list has no use for letters).
            search = self.query_one("#picker-search", Input)
            search.focus()
            if event.key == "backspace":
                search.action_delete_left()
            else:
                search.insert_text_at_cursor(event.character)
            event.stop()
            event.prevent_default()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_choose()

    def action_choose(self) -> None:
        ol = self.query_one("#picker-list", OptionList)
        i = ol.highlighted
        n = self._count()
        if i is None or i >= len(self.shown) or n is None:
            self.notify("Nothing to fit: pick a part (and a valid count).", severity="warning")
            return
        choice = self.shown[i]
        if choice.problem:
            self.notify(choice.problem, severity="error")
            return
        self.dismiss(edits_for(self.target, choice.key, n))

    def action_toggle_all(self) -> None:
        self.show_all = not self.show_all
        self._recompute()

    def action_cancel(self) -> None:
        self.dismiss(None)
