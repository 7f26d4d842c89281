"""What the chassis map shows, as plain data (no Textual): one row per slot, bridge group,
socket, DIMM set, drive bay, PSU set and baseboard, grouped under headers by PCIe root.

The layout follows the chassis record only (slot labels as the manual prints them, roots,
``covers`` for double-width cards, ``nvlink_groups``); no validity is decided here: which rows
have problems comes from the engine's Report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from slotwise.engine.build import Build
from slotwise.engine.check.report import Report
from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import Chassis

RowKind = Literal["header", "slot", "nvlink", "cpu", "dimm", "bay", "psu", "baseboard", "env"]


@dataclass(frozen=True)
class MapRow:
    key: str  # unique id, e.g. "slot:3", "nvlink:0", "cpu", "bay:front"
    kind: RowKind
    title: str  # left column: "Slot 3", "CPU sockets"
    body: str  # what sits there, or "— empty —"
    tech: str = ""  # "x16 G5", "2.5in nvme"
    filled: bool = False
    covered_by: str | None = None  # label of the slot whose double-width card covers this one
    slots: tuple[str, ...] = ()  # slot ids this row stands for (for finding highlights)
    parts: tuple[str, ...] = ()
    connector: str = "  "  # two columns of NVLink bridge drawing: "┏ ", "┃ ", "┗ "
    selectable: bool = True
    extra: dict = field(default_factory=dict, hash=False, compare=False)


def _width(catalog: Catalog, sku: str | None) -> int | None:
    if not sku:
        return None
    rec = catalog.get(sku)
    return getattr(rec, "width_slots", None)


def _slot_label(ch: Chassis, slot_id: str) -> str:
    for s in ch.slots:
        if s.id == slot_id:
            return s.label
    return slot_id


def map_rows(
    chassis: Chassis, build: Build, catalog: Catalog, report: Report | None = None
) -> list[MapRow]:
    """Rows of the chassis map, top to bottom."""
    rows: list[MapRow] = []
    if chassis.topology_confidence == "C":
        rows.append(
            MapRow(
                "hdr:topology",
                "header",
                "⚠ Topology inferred",
                _short(chassis.topology_note or "slot-to-root map not from a manual"),
                selectable=False,
            )
        )
    lanes_used = {}
    if report is not None:
        for b in report.budgets:
            if b.name.startswith("lanes:"):
                lanes_used[b.name[6:]] = b
    covered: dict[str, str] = {}
    for s in chassis.slots:
        occ = build.slots.get(s.id)
        w = _width(catalog, occ)
        if s.covers and occ and w is not None and w >= 2:
            covered[s.covers] = s.label

    connectors = _bridge_connectors(chassis, build)
    roots = list(chassis.roots)
    root_ids = {r.id for r in roots}
    orphan = [s for s in chassis.slots if s.root not in root_ids]
    for root in roots:
        slots = [s for s in chassis.slots if s.root == root.id]
        if not slots:
            continue
        kind = "CPU root" if root.kind == "cpu" else "PCIe switch"
        name = root.label or f"{kind} {root.id}"
        figs = []
        if root.lanes:
            figs.append(f"{root.lanes} lanes")
        if root.gen:
            figs.append(f"Gen{root.gen}")
        if root.parent:
            figs.append(f"via {root.parent}")
        bud = lanes_used.get(root.id)
        if bud is not None:
            avail = "?" if bud.available is None else f"{bud.available:g}"
            figs.append(f"used {bud.used:g}/{avail}")
        rows.append(MapRow(f"root:{root.id}", "header", name, " · ".join(figs), selectable=False))
        rows += [_slot_row(s, build, covered, connectors) for s in slots]
    if orphan:
        rows.append(MapRow("root:?", "header", "Slots on an unknown root", "", selectable=False))
        rows += [_slot_row(s, build, covered, connectors) for s in orphan]

    if chassis.nvlink_groups:
        rows.append(MapRow("hdr:nvlink", "header", "NVLink bridges", "", selectable=False))
        for i, group in enumerate(chassis.nvlink_groups):
            fit = next((b for b in build.bridges if set(b.slots) == set(group)), None)
            labels = "+".join(group)
            body = f"═══ {fit.count} × {fit.sku}" if fit else _unbridged(group, build)
            rows.append(
                MapRow(
                    f"nvlink:{i}",
                    "nvlink",
                    f"NVLink {labels}",
                    body,
                    f"{len(group)}-way",
                    filled=fit is not None,
                    slots=tuple(group),
                    parts=(fit.sku,) if fit else (),
                )
            )
    # Bridges fitted on groups the chassis does not list (e.g. from an imported BOM).
    listed = [set(g) for g in chassis.nvlink_groups]
    for j, fit in enumerate(b for b in build.bridges if set(b.slots) not in listed):
        labels = "+".join(fit.slots)
        rows.append(
            MapRow(
                f"nvlink:x{j}",
                "nvlink",
                f"NVLink {labels}",
                f"═══ {fit.count} × {fit.sku}",
                "not a listed pair",
                filled=True,
                slots=fit.slots,
                parts=(fit.sku,),
                extra={"slots": fit.slots},
            )
        )

    rows.append(MapRow("hdr:platform", "header", "Platform", "", selectable=False))
    if chassis.gpu_form == "sxm" or chassis.baseboard_skus or build.baseboard:
        rows.append(
            MapRow(
                "baseboard",
                "baseboard",
                "HGX baseboard",
                build.baseboard or "— empty —",
                filled=bool(build.baseboard),
                parts=(build.baseboard,) if build.baseboard else (),
            )
        )
    for i, onb in enumerate(chassis.onboard_nics):
        rows.append(
            MapRow(
                f"onboard:{i}",
                "header",
                "On board",
                f"{onb.count} × {onb.sku} (included)",
                selectable=False,
                parts=(onb.sku,),
            )
        )
    sockets = chassis.cpu_sockets
    rows.append(
        MapRow(
            "cpu",
            "cpu",
            "CPU sockets",
            _count(build.cpu_count, build.cpu),
            f"{sockets} socket{'s' if sockets > 1 else ''}",
            filled=bool(build.cpu_count),
            parts=_p(build.cpu),
        )
    )
    ds = "?" if chassis.dimm_slots is None else str(chassis.dimm_slots)
    rows.append(
        MapRow(
            "dimm",
            "dimm",
            "DIMMs",
            _count(build.dimm_count, build.dimm),
            f"{ds} slots",
            filled=bool(build.dimm_count),
            parts=_p(build.dimm),
        )
    )
    for bay in chassis.drive_bays:
        drive_fit = next((d for d in build.drives if d.bay == bay.id), None)
        rows.append(
            MapRow(
                f"bay:{bay.id}",
                "bay",
                f"Bays {bay.id}",
                _count(drive_fit.count, drive_fit.sku) if drive_fit else "— empty —",
                f"{bay.count}× {bay.form_factor} {'/'.join(bay.interfaces)}",
                filled=drive_fit is not None,
                parts=_p(drive_fit.sku if drive_fit else None),
            )
        )
    if not chassis.drive_bays:
        rows += _unknown_bay_rows(build)
    bays = "?" if chassis.psu_bays is None else str(chassis.psu_bays)
    rows.append(
        MapRow(
            "psu",
            "psu",
            "PSUs",
            _count(build.psu_count, build.psu),
            f"{bays} bays",
            filled=bool(build.psu_count),
            parts=_p(build.psu),
        )
    )
    e = build.env
    rows.append(
        MapRow(
            "env",
            "env",
            "Site",
            f"{e.input_voltage} V AC · {e.ambient_c:g} °C · {e.redundancy} · {e.cooling} cooling",
            "",
            filled=True,
        )
    )
    return rows


def _unbridged(group: list[str] | tuple[str, ...], build: Build) -> str:
    """The body of a bridge group row with no bridge of its own: a pair inside a fitted 4-way
    bridge is joined by it (issue #14: it said "no bridge"); a 4-way group whose pairs carry
    bridges says so."""
    g = set(group)
    wider = next((b for b in build.bridges if g < set(b.slots)), None)
    if wider is not None:
        return f"═══ joined by the {len(wider.slots)}-way bridge on {'+'.join(wider.slots)}"
    inner = [b for b in build.bridges if set(b.slots) < g]
    if inner:
        pairs = ", ".join("+".join(b.slots) for b in inner)
        return f"┄┄┄ no {len(g)}-way bridge (bridged inside: {pairs})"
    return "┄┄┄ no bridge"


UNKNOWN_BAYS = "drives"


def _unknown_bay_rows(build: Build) -> list[MapRow]:
    """Drive rows for a chassis whose bay layout is not in the catalog: drives can still be added
    (the storage rule then reports that it could not check them), one row per bay group the
    build already uses, else one empty row."""
    groups = list(dict.fromkeys(d.bay for d in build.drives)) or [UNKNOWN_BAYS]
    out = []
    for bay_id in groups:
        fit = next((d for d in build.drives if d.bay == bay_id), None)
        out.append(
            MapRow(
                f"bay:{bay_id}",
                "bay",
                f"Bays {bay_id}",
                _count(fit.count, fit.sku) if fit else "— empty —",
                "layout unknown",
                filled=fit is not None,
                parts=_p(fit.sku if fit else None),
            )
        )
    return out


def _short(text: str, limit: int = 60) -> str:
    """First sentence, at most ``limit`` characters (the map row must stay one line)."""
    first = text.split(". ")[0].split("; ")[0]
    return first if len(first) <= limit else first[: limit - 1] + "…"


def _p(sku: str | None) -> tuple[str, ...]:
    return (sku,) if sku else ()


def _count(n: int, sku: str | None) -> str:
    if not n or not sku:
        return "— empty —"
    return f"{n} × {sku}"


def _slot_row(s, build: Build, covered: dict[str, str], connectors: dict[str, str]) -> MapRow:
    occ = build.slots.get(s.id)
    tech = f"x{s.lanes} G{s.gen}" + ("" if s.mechanical == s.lanes else f" (x{s.mechanical} mech)")
    if occ:
        body = occ
    elif s.id in covered:
        body = f"░░ covered by the card in slot {covered[s.id]}"
    else:
        body = "— empty —"
    return MapRow(
        f"slot:{s.id}",
        "slot",
        s.label if not s.label.isdigit() else f"Slot {s.label}",
        body,
        tech,
        filled=bool(occ),
        covered_by=covered.get(s.id),
        slots=(s.id,),
        parts=_p(occ),
        connector=connectors.get(s.id, "  "),
    )


def _bridge_connectors(chassis: Chassis, build: Build) -> dict[str, str]:
    """Two columns of box drawing joining bridged slots: ┏ first, ┃ between, ┗ last."""
    order = [s.id for s in chassis.slots]
    cols: list[list[str]] = [[" "] * len(order), [" "] * len(order)]
    busy: list[list[bool]] = [[False] * len(order), [False] * len(order)]
    for fit in build.bridges:
        idx = sorted(order.index(x) for x in fit.slots if x in order)
        if len(idx) < 2:
            continue
        lo, hi = idx[0], idx[-1]
        col = next((c for c in (0, 1) if not any(busy[c][lo : hi + 1])), None)
        if col is None:
            continue
        for i in range(lo, hi + 1):
            busy[col][i] = True
            cols[col][i] = "┃"
        for i in idx[1:-1]:
            cols[col][i] = "┣"
        cols[col][lo] = "┏"
        cols[col][hi] = "┗"
    return {
        sid: cols[0][i] + cols[1][i]
        for i, sid in enumerate(order)
        if cols[0][i] + cols[1][i] != "  "
    }
