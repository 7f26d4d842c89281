"""What the chassis map's symbols mean: one list, shown by the help screen (F1 / ?) and by the
legend dialog (l on the build screen).  Every symbol here is one that
``slotwise.tui.widgets.chassis_map`` or ``map_rows`` draws; a test checks they stay in step."""

from __future__ import annotations

from rich.table import Table

#: (symbol as drawn, what it means), in the order a row is read left to right.
MAP_LEGEND: tuple[tuple[str, str], ...] = (
    ("◆", "The row belongs to the finding selected in the findings pane."),
    ("✖ ▲ •", "The worst finding on the row: error, warning, info (the findings pane says what)."),
    (
        "┏ ┣ ┃ ┗",
        "An NVLink bridge joins these slots: ┏ first slot, ┣ a bridged slot between, ┗ last.",
    ),
    ("x16 G5", "The slot's electrical lanes and PCIe generation; (x16 mech) its mechanical size."),
    ("░░ covered by", "The double-width card in the slot named covers this slot."),
    ("⇄ moving", "The card being moved (m, then m again on the empty target slot)."),
    ("— empty —", "Nothing fitted (dim); what is fitted is in bold."),
    ("═══ 2 × SKU", "NVLink bridge rows: this bridge is fitted on the group."),
    ("═══ joined by", "This pair is inside a wider (4-way) bridge that is fitted."),
    ("┄┄┄ no bridge", "No bridge on this group; Enter on the row picks one."),
    (
        "used 32/?",
        "PCIe lanes the cards on this root use / lanes the root has; ? = the catalog does not "
        "know the root's lanes, so the lane check there is not verified.",
    ),
    ("⚠ Topology inferred", "The slot-to-root map is derived, not read from a manual."),
)


def legend_table() -> Table:
    table = Table(show_header=True, header_style="bold", box=None, expand=True, pad_edge=False)
    table.add_column("Symbol", no_wrap=True)
    table.add_column("Meaning")
    for symbol, meaning in MAP_LEGEND:
        table.add_row(symbol, meaning)
    return table
