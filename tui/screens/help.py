"""Every key, grouped by where it works, generated from tui.keys."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from slotwise.tui.keys import ALL_KEYS, pretty_keys
from slotwise.tui.screens.base import AppModal
from slotwise.tui.widgets.map_legend import legend_table


def help_table() -> Table:
    table = Table(show_header=True, header_style="bold", box=None, expand=True, pad_edge=False)
    table.add_column("Key", no_wrap=True)
    table.add_column("What it does")
    for group, keys in ALL_KEYS:
        table.add_row(f"[b u]{group}[/]", "")
        for k in keys:
            table.add_row(pretty_keys(k.keys), k.help)
    table.add_row("[b u]Workload form[/]", "")
    table.add_row("Tab / Shift+Tab", "Next / previous field; type to search model presets.")
    return table


class HelpScreen(AppModal[None]):
    BINDINGS = [
        Binding(
            "escape,f1,q,question_mark",
            "close",
            "Close",
            id="help.close",
            tooltip="Close the key list.",
        )
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help-dialog"):
            yield Static(
                "slotwise keys  (Esc closes; Ctrl+P lists every action)", classes="dialog-title"
            )
            with VerticalScroll(classes="dialog-scroll"):
                yield Static(help_table())
                yield Static("\n[b u]Chassis map symbols[/]  (l shows only these)")
                yield Static(legend_table())

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()  # arrows / PgUp / PgDn scroll the list

    def action_close(self) -> None:
        self.dismiss(None)


class LegendScreen(AppModal[None]):
    """What the chassis map's symbols mean (l on the build screen; F1 lists them too)."""

    BINDINGS = [
        Binding(
            "escape,l,q",
            "close",
            "Close",
            id="legend.close",
            tooltip="Close the legend.",
        )
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help-dialog"):
            yield Static(
                "Chassis map symbols  (Esc closes; F1 lists every key)", classes="dialog-title"
            )
            with VerticalScroll(classes="dialog-scroll"):
                yield Static(legend_table())

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
