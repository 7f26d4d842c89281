"""Chassis chooser: a new build starts here.  Every chassis with its key figures; a chassis
whose slot topology was inferred rather than read from a manual says so in words."""

from __future__ import annotations

import contextlib

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from slotwise.tui.keys import (
    APP_KEYS,
    CHOOSER_KEYS,
    HINTS_CHOOSER,
    HINTS_CHOOSER_MORE,
    bindings,
)
from slotwise.tui.screens.base import AppScreen
from slotwise.tui.widgets.cursor_list import CursorList
from slotwise.tui.widgets.key_hints import KeyHints
from slotwise.tui.widgets.ordered_input import Input

COOLING = {"air": "air", "liquid": "liquid", "air_or_liquid": "air or liquid"}


def chassis_text(ch) -> Text:
    """One chassis (a parts.schema.Chassis, or the start-up preview of one)."""
    # two lines that never wrap at 80 columns: the figures, then the name (after the
    # "topology inferred" warning, which would otherwise be split over two lines)
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(f"{ch.sku:<19}", style="bold")
    figs = [
        ch.family,
        f"{ch.form_factor_u}U" if ch.form_factor_u else "?U",
        f"{ch.max_gpus if ch.max_gpus is not None else '?'}× "
        f"{'SXM' if ch.gpu_form == 'sxm' else 'PCIe'} GPU",
        f"{ch.psu_bays if ch.psu_bays else '?'} PSU",
        COOLING[ch.cooling],
    ]
    t.append(" " + " · ".join(figs))
    t.append("\n  ")
    if ch.topology_confidence == "C":
        t.append("⚠ topology inferred", style="bold yellow")
        t.append(" · ", style="dim")
    t.append(ch.name, style="dim")
    return t


class ChassisChooser(AppScreen[str | None]):
    BINDINGS = bindings(APP_KEYS) + bindings(CHOOSER_KEYS)

    def __init__(self, catalog, cancellable: bool = False) -> None:
        """``catalog``: anything with a ``chassis`` mapping (the catalog, or the preview)."""
        super().__init__()
        self.cancellable = cancellable
        self.catalog = catalog
        self.skus = self._sorted(catalog)

    @staticmethod
    def _sorted(catalog) -> list[str]:
        return sorted(catalog.chassis, key=lambda s: (catalog.chassis[s].family, s))

    def use_catalog(self, catalog) -> None:
        """Show the validated records (the preview was up while they loaded)."""
        ol = self.query_one("#chooser-list", OptionList)
        opt = ol.highlighted_option
        self.catalog = catalog
        self.skus = self._sorted(catalog)
        self._fill(self.query_one("#chooser-filter", Input).value)
        if opt is not None and opt.id:
            with contextlib.suppress(Exception):
                ol.highlighted = ol.get_option_index(opt.id)

    def compose(self) -> ComposeResult:
        with Vertical(id="chooser"):
            yield Static(
                "[b]New build[/b] — choose a chassis (type to filter, ↑↓, Enter)",
                id="chooser-title",
            )
            yield Input(
                placeholder="filter: sku, family, 4U, sxm ...",
                id="chooser-filter",
                select_on_focus=False,
            )
            yield CursorList(id="chooser-list")
        # A one-line key hint instead of Textual's Footer: it fits 80 columns and is cheap to
        # draw (the chooser is the first frame; issue #14).
        # Esc goes back to the build when there is one, else it quits like ^Q (listed once).
        always = (
            HINTS_CHOOSER
            if self.cancellable
            else tuple(k for k in HINTS_CHOOSER if k != "chooser.cancel")
        )
        yield KeyHints(always=always, more=HINTS_CHOOSER_MORE, id="chooser-hints")

    def on_mount(self) -> None:
        self.app.apply_blink(self)
        self._fill("")
        self.query_one("#chooser-list", OptionList).focus()
        start = getattr(self.app, "start_deferred_load", None)
        if start is not None:
            self.call_after_refresh(start)

    def _fill(self, query: str) -> None:
        words = query.lower().split()
        opts = []
        for sku in self.skus:
            ch = self.catalog.chassis[sku]
            text = chassis_text(ch)
            if all(w in text.plain.lower() for w in words):
                opts.append(Option(text, id=sku))
        ol = self.query_one("#chooser-list", OptionList)
        ol.set_options(opts or [Option("no chassis matches the filter", disabled=True)])
        if opts:
            ol.highlighted = 0

    def on_input_changed(self, event: Input.Changed) -> None:
        self._typing()
        self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_choose()

    def _typing(self) -> None:
        """The user is typing: the app's deferred catalog load waits for a pause."""
        postpone = getattr(self.app, "postpone_load", None)
        if postpone is not None:
            postpone()

    def on_key(self, event) -> None:
        self._typing()
        # Typing a letter while the list has focus goes to the filter (search as you type).
        ol = self.query_one("#chooser-list", OptionList)
        if self.focused is ol and event.character and event.character.isalnum():
            inp = self.query_one("#chooser-filter", Input)
            inp.focus()
            inp.insert_text_at_cursor(event.character)
            event.stop()
        elif self.focused is self.query_one("#chooser-filter", Input) and event.key in (
            "down",
            "up",
        ):
            ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_choose(self) -> None:
        ol = self.query_one("#chooser-list", OptionList)
        opt = ol.highlighted_option
        if opt is not None and opt.id:
            self.dismiss(opt.id)

    def action_cancel(self) -> None:
        if self.cancellable:
            self.dismiss(None)
        else:
            self.app.action_request_quit()

    def action_help(self) -> None:
        self.app.action_help()

    def action_request_quit(self) -> None:
        self.app.action_request_quit()
