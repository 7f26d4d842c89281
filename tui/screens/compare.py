"""Compare (F6): the session's options side by side, as `slotwise compare` shows them.

The table comes from engine.plan.compare (the same rows, the same "(best)" marks, in words so they
survive NO_COLOR); every option is checked against the workload of the build being edited.
Keys: 1/2/3 open that option (its own undo history comes with it), arrows / PgUp / PgDn scroll,
Esc closes.  At 80x24 the table scrolls both ways; the first column stays in view.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from slotwise.engine.plan.compare import Comparison, Option, compare_builds
from slotwise.tui.input_labels import app_words
from slotwise.tui.screens.base import AppModal


class CompareScreen(AppModal[int | None]):
    """Dismisses with the index of the option to open, or None."""

    BINDINGS = [
        Binding("escape,f6,q", "close", "Close", id="compare.close", tooltip="Close the table."),
        Binding("1", "open(0)", "Open A", id="compare.open_a", tooltip="Open option A."),
        Binding("2", "open(1)", "Open B", id="compare.open_b", tooltip="Open option B."),
        Binding("3", "open(2)", "Open C", id="compare.open_c", tooltip="Open option C."),
    ]

    def __init__(self, comparison: Comparison) -> None:
        super().__init__()
        self.comparison = comparison

    def compose(self) -> ComposeResult:
        cmp = self.comparison
        keys = ", ".join(f"{i + 1} opens {lab.split(' (')[0]}" for i, lab in enumerate(cmp.labels))
        with Vertical(classes="dialog compare-dialog"):
            yield Static(f"Options compared  (Esc closes; {keys})", classes="dialog-title")
            if cmp.workload:
                yield Static(f"workload: {cmp.workload}", classes="compare-workload")
            yield DataTable(
                id="compare-table", zebra_stripes=False, cursor_type="row", show_cursor=True
            )
            legend = "(best) marks the best value of a row where one option is better."
            notes = "".join(f"\n{app_words(n)}." for n in cmp.notes)  # what short cells left out
            yield Static(legend + notes, classes="compare-legend")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.fixed_columns = 1
        table.add_column("", key="label")
        for i, lab in enumerate(self.comparison.labels):
            table.add_column(lab, key=f"opt{i}")
        for row in self.comparison.rows:
            cells = [
                f"{c.text} (best)" if i in row.best else c.text for i, c in enumerate(row.cells)
            ]
            table.add_row(row.label, *cells, key=row.key)
        table.focus()
        self.app.apply_blink(self)

    def action_open(self, index: int) -> None:
        if index < len(self.comparison.labels):
            self.dismiss(index)
        else:
            self.notify(f"There is no option {'ABC'[index]}.", severity="warning")

    def action_close(self) -> None:
        self.dismiss(None)


def comparison_for(labels: list[str], builds: list, catalog, active: int) -> Comparison:
    """The engine's comparison of the session's builds under the active build's workload."""
    options = [Option(label=lab, build=b) for lab, b in zip(labels, builds, strict=True)]
    return compare_builds(options, catalog, builds[active].workload)
