"""The chassis map: the main way to build.  One line per slot (grouped under its PCIe root),
NVLink group, socket set, DIMM set, drive bay, PSU set, baseboard and site settings.

Built on OptionList, so the cursor moves slot to slot with the arrow keys (and j/k) and skips
the root headers.  Problems are marked with symbols *and* words, never colour alone.
"""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from slotwise.engine.build import Build
from slotwise.engine.check.report import Report
from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import Chassis
from slotwise.tui.keys import MAP_KEYS, bindings
from slotwise.tui.widgets.cursor_list import CursorList
from slotwise.tui.widgets.map_rows import MapRow, map_rows

SEVERITY_MARK = {"error": ("✖", "bold red"), "warning": ("▲", "yellow"), "info": ("•", "cyan")}


class ChassisMap(CursorList):
    BINDINGS = bindings(MAP_KEYS)

    class Pick(Message):
        def __init__(self, row: MapRow) -> None:
            super().__init__()
            self.row = row

    class RemoveRow(Message):
        def __init__(self, row: MapRow) -> None:
            super().__init__()
            self.row = row

    class MoveRow(Message):
        def __init__(self, row: MapRow) -> None:
            super().__init__()
            self.row = row

    class FillRow(Message):
        def __init__(self, row: MapRow) -> None:
            super().__init__()
            self.row = row

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.rows: list[MapRow] = []
        self.marked: set[str] = set()  # slots of the selected finding
        self.marked_parts: set[str] = set()  # its parts (marks CPU / DIMM / PSU ... rows)
        self.moving: str | None = None  # slot id of a card being moved
        self.title_width = 12
        self._worst_nvlink: dict[str, str] = {}

    def show(
        self,
        chassis: Chassis,
        build: Build,
        catalog: Catalog,
        report: Report | None,
        marked: set[str] | None = None,
        marked_parts: set[str] | None = None,
    ) -> None:
        """Redraw from the build and report; the cursor stays on the same row key."""
        if marked is not None:
            self.marked = marked
            self.marked_parts = marked_parts or set()
        keep = self.current_row.key if self.current_row else None
        self.rows = map_rows(chassis, build, catalog, report)
        # slot names whole where there is room: up to 24 columns at 80, more on a wide map
        # (leaving about 45 for the figures and the part)
        room = max(24, (self.content_size.width or 0) - 45)
        self.title_width = min(
            room, max((len(r.title) for r in self.rows if r.kind != "header"), default=12)
        )
        worst = _worst_by_slot(report)
        worst_part = _worst_by_part(report)
        self._worst_nvlink = _worst_by_slot(report, prefix="nvlink.")
        options = []
        for row in self.rows:
            options.append(
                Option(
                    self._render_row(row, worst, worst_part),
                    id=row.key,
                    disabled=not row.selectable,
                )
            )
        self.set_options(options)
        keys = [r.key for r in self.rows]
        if keep in keys:
            self.highlighted = keys.index(keep)
        elif self.highlighted is None:
            first = next((i for i, r in enumerate(self.rows) if r.selectable), None)
            self.highlighted = first

    def _render_row(self, row: MapRow, worst: dict, worst_part: dict) -> Text:
        t = Text(no_wrap=True, overflow="ellipsis")
        if row.kind == "header":
            t.append(f"{row.title}", style="bold underline")
            if row.body:
                t.append(f"  {row.body}", style="dim")
            return t
        sev = None
        # A bridge row shows only NVLink findings on its slots (a lane note on the same
        # slots belongs to the slot rows).
        by_slot = self._worst_nvlink if row.kind == "nvlink" else worst
        for s in row.slots:
            sev = _worse(sev, by_slot.get(s))
        if row.kind != "slot":
            for p in row.parts:
                sev = _worse(sev, worst_part.get(p))
        hit = set(row.slots) & self.marked or (
            row.kind not in ("slot", "nvlink") and set(row.parts) & self.marked_parts
        )
        mark = "◆" if hit else " "
        t.append(mark, style="bold reverse" if mark != " " else "")
        if sev:
            sym, style = SEVERITY_MARK[sev]
            t.append(sym, style=style)
        else:
            t.append(" ")
        t.append(row.connector, style="bold magenta")
        w = self.title_width
        title = row.title if len(row.title) <= w else row.title[: w - 1] + "…"
        t.append(f"{title:<{w}}", style="bold" if row.filled else "")
        t.append(f" {row.tech:<8.8} " if row.kind == "slot" else " ", style="dim")
        if row.kind == "slot" and self.moving and row.slots and row.slots[0] == self.moving:
            t.append("⇄ moving: ", style="bold")
        if row.filled:
            t.append(row.body, style="bold")
        else:
            t.append(row.body, style="dim italic")
        if row.kind != "slot" and row.tech:
            t.append(f"  ({row.tech})", style="dim")
        return t

    @property
    def current_row(self) -> MapRow | None:
        i = self.highlighted
        if i is None or i >= len(self.rows):
            return None
        return self.rows[i]

    def row_for_slot(self, slot_id: str) -> int | None:
        return next(
            (i for i, r in enumerate(self.rows) if r.kind == "slot" and r.slots == (slot_id,)), None
        )

    def action_pick(self) -> None:
        if self.current_row and self.current_row.selectable:
            self.app.hold_keys()  # type: ignore[attr-defined]  # keys typed ahead: the picker's
            self.post_message(self.Pick(self.current_row))

    def action_remove(self) -> None:
        if self.current_row and self.current_row.selectable:
            self.post_message(self.RemoveRow(self.current_row))

    def action_move(self) -> None:
        if self.current_row and self.current_row.kind == "slot":
            self.post_message(self.MoveRow(self.current_row))

    def action_fill(self) -> None:
        if self.current_row and self.current_row.kind == "slot":
            self.post_message(self.FillRow(self.current_row))

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_pick()


_ORDER = {"error": 0, "warning": 1, "info": 2}


def _worse(a: str | None, b: str | None) -> str | None:
    if a is None:
        return b
    if b is None:
        return a
    return a if _ORDER[a] <= _ORDER[b] else b


def _worst_by_slot(report: Report | None, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    if report is None:
        return out
    for f in report.findings:
        if not f.rule.startswith(prefix):
            continue
        for s in f.slots:
            out[s] = _worse(out.get(s), f.severity) or f.severity
    return out


def _worst_by_part(report: Report | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if report is None:
        return out
    for f in report.findings:
        if f.slots:
            continue
        for p in f.parts:
            out[p] = _worse(out.get(p), f.severity) or f.severity
    return out
