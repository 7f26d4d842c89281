"""Line items of a build (what a distributor orders) and the canonical order of a build's parts.

Shared by the TOML, Markdown and CSV exports so all three list the same parts, in the same
order: chassis, the NICs built into it (included, quantity from the chassis record), baseboard,
CPUs, memory, GPUs/NICs in slot order, NVLink bridges, drives, PSUs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from slotwise.engine.build.companions import companions, priced
from slotwise.engine.build import Build
from slotwise.parts.catalog import Catalog, onboard_nics
from slotwise.parts.schema import Record

UNKNOWN_PART = "unknown part (not in the catalog)"
#: What every export writes where a line has no sourced orderable part number.
PN_NEEDED = "PN needed"
#: The part-number cell of a part built into the chassis (ordered with it, no line of its own).
PN_INCLUDED = "included"
#: The "type" column of a vendor BOM, per line kind.
TYPE_LABEL = {
    "chassis": "System",
    "baseboard": "GPU baseboard",
    "cpu": "CPU",
    "dimm": "Memory",
    "gpu": "GPU",
    "nic": "Network",
    "card": "Card",
    "bridge": "NVLink bridge",
    "drive": "Drive",
    "psu": "Power supply",
    "service": "Required service",
    "cable": "Cable",
    "accessory": "Accessory",
    "cord": "Power cord",
    "transceiver": "Transceiver",
    "warranty": "Warranty",
    "onsite": "On-site service",
    "assembly": "Assembly",
}
#: Kinds of the lines derived beside the parts or chosen as services (engine.build.companions).
COMPANION_KINDS = frozenset(
    {"service", "cable", "accessory", "cord", "transceiver", "warranty", "onsite", "assembly"}
)


class LineItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    sku: str
    description: str
    quantity: int
    kind: str
    unit_price: float | None = None
    # Built into the chassis (on-board NICs): listed so the BOM shows them, priced at 0 when a
    # price list is used (the chassis price covers them).
    included: bool = False
    # The orderable part number (Supermicro's when sourced, else the maker's) and its provenance;
    # None: no public source gives one ("PN needed" in every export).
    part_number: str | None = None
    part_number_vendor: str | None = None
    part_number_confidence: str | None = None
    part_number_source: str | None = None
    maker_part_number: str | None = None
    # Power per unit as the catalog states it (TDP / rated figure); None: not known.
    unit_power_w: float | None = None
    # Where unit_power_w is None, why (companion lines): "none" (draws none: a cord, a
    # service), "in the card's figure", "not verified".
    power_note: str | None = None
    # A companion line: the rule that derived it and the rule's source (engineering notes).
    basis: str | None = None

    @property
    def companion(self) -> bool:
        return self.kind in COMPANION_KINDS

    @property
    def power_cell(self) -> str | None:
        """The power words where there is no figure ("none", "not verified", ...)."""
        return None if self.unit_power_w is not None else self.power_note

    @property
    def extended_price(self) -> float | None:
        return None if self.unit_price is None else round(self.unit_price * self.quantity, 2)

    @property
    def total_power_w(self) -> float | None:
        return None if self.unit_power_w is None else round(self.unit_power_w * self.quantity, 2)

    @property
    def pn_cell(self) -> str:
        """The part-number cell: the number, "included" or "PN needed"."""
        if self.part_number:
            return self.part_number
        return PN_INCLUDED if self.included else PN_NEEDED

    @property
    def type_label(self) -> str:
        return TYPE_LABEL.get(self.kind, self.kind)


def unit_power(catalog: Catalog, rec: Record | None) -> float | None:
    """A part's power per unit as the catalog records it: a GPU's or CPU's TDP, a DIMM's, NIC's
    or drive's power, an HGX baseboard's GPUs at TDP plus its board power, a chassis' published
    fans/board figure.  None where the catalog has no figure (a bridge and a PSU draw none of
    their own; the PSU losses are in the engine's wall figure, not in a line)."""
    if rec is None:
        return None
    if rec.kind in ("gpu", "cpu"):
        return getattr(rec, "tdp_w", None)
    if rec.kind in ("dimm", "nic", "drive"):
        return getattr(rec, "power_w", None)
    if rec.kind == "baseboard":
        gpu = catalog.gpus.get(getattr(rec, "gpu_sku", ""))
        board = getattr(rec, "board_power_w", None)
        if gpu is None or gpu.tdp_w is None or board is None:
            return None
        return float(gpu.tdp_w * getattr(rec, "gpu_count", 0) + board)
    if rec.kind == "chassis":
        return getattr(rec, "system_overhead_w", None)
    return None


def _pn_fields(rec: Record | None) -> dict[str, str | None]:
    if rec is None:
        return {}
    pn = rec.part_number()
    maker = next((p for p in rec.part_numbers if p.vendor != "Supermicro"), None)
    out: dict[str, str | None] = {}
    if pn is not None:
        out.update(
            part_number=pn.pn,
            part_number_vendor=pn.vendor,
            part_number_confidence=pn.confidence,
            part_number_source=pn.source,
        )
    if maker is not None and maker is not pn:
        out["maker_part_number"] = maker.pn
    return out


def _natural(s: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s))


def slot_order(build: Build, catalog: Catalog):
    """Sort key for slot ids: the chassis manual's order, then unknown ids naturally sorted."""
    ch = catalog.chassis.get(build.chassis)
    pos = {s.id: i for i, s in enumerate(ch.slots)} if ch else {}
    return lambda sid: (pos.get(sid, len(pos)), _natural(sid))


def bay_order(build: Build, catalog: Catalog):
    ch = catalog.chassis.get(build.chassis)
    pos = {b.id: i for i, b in enumerate(ch.drive_bays)} if ch else {}
    return lambda bay: (pos.get(bay, len(pos)), _natural(bay))


def canonical_build(build: Build, catalog: Catalog) -> Build:
    """The same build with slots, bridges and drives in canonical order (how a BOM lists them)."""
    sk = slot_order(build, catalog)
    bk = bay_order(build, catalog)
    slots = {sid: build.slots[sid] for sid in sorted(build.slots, key=sk)}
    bridges = tuple(
        sorted(
            (
                br.model_copy(update={"slots": tuple(sorted(br.slots, key=sk))})
                for br in build.bridges
            ),
            key=lambda br: ([sk(s) for s in br.slots], br.sku, br.count),
        )
    )
    drives = tuple(sorted(build.drives, key=lambda d: (bk(d.bay), d.sku, d.count)))
    return build.model_copy(update={"slots": slots, "bridges": bridges, "drives": drives})


def describe(catalog: Catalog, sku: str) -> str:
    rec = catalog.get(sku)
    return rec.name if rec is not None else UNKNOWN_PART


def line_items(
    build: Build,
    catalog: Catalog,
    prices: Mapping[str, float] | None = None,
    services: Sequence[str] = (),
) -> list[LineItem]:
    """One line per SKU (quantities summed), in BOM order; unit prices from ``prices``.  After
    the parts: the companion lines their rules derive and the chosen ``services``
    (engine.build.companions), priced only where ``prices`` has their part number."""
    prices = prices or {}
    order: list[tuple[str, str]] = []
    qty: dict[tuple[str, str], int] = {}

    def add(kind: str, sku: str | None, n: int) -> None:
        if not sku or n <= 0:
            return
        key = (kind, sku)
        if key not in qty:
            order.append(key)
            qty[key] = 0
        qty[key] += n

    add("chassis", build.chassis, 1)
    add("baseboard", build.baseboard, 1)
    add("cpu", build.cpu, build.cpu_count)
    add("dimm", build.dimm, build.dimm_count)
    sk = slot_order(build, catalog)
    for sid in sorted(build.slots, key=sk):
        sku = build.slots[sid]
        rec = catalog.get(sku)
        add(rec.kind if rec is not None else "card", sku, 1)
    for br in build.bridges:
        add("bridge", br.sku, br.count)
    bk = bay_order(build, catalog)
    for d in sorted(build.drives, key=lambda d: (bk(d.bay), d.sku)):
        add("drive", d.sku, d.count)
    add("psu", build.psu, build.psu_count)
    items = [
        LineItem(
            sku=sku,
            description=describe(catalog, sku),
            quantity=qty[(kind, sku)],
            kind=kind,
            unit_price=prices.get(sku),
            unit_power_w=unit_power(catalog, catalog.get(sku)),
            **_pn_fields(catalog.get(sku)),
        )
        for kind, sku in order
    ]
    ch = catalog.chassis.get(build.chassis)
    built_in: dict[str, int] = {}
    for _, nic in onboard_nics(catalog, ch) if ch is not None else ():
        built_in[nic.sku] = built_in.get(nic.sku, 0) + 1
    items[1:1] = [
        LineItem(
            sku=sku,
            description=f"{describe(catalog, sku)} (on board, included with {build.chassis})",
            quantity=n,
            kind="nic",
            unit_price=0.0 if prices else None,
            included=True,
            unit_power_w=unit_power(catalog, catalog.get(sku)),
        )
        for sku, n in built_in.items()
    ]
    parts = [(i.sku, i.quantity) for i in items]
    items += [
        LineItem(
            sku=c.sku,
            description=c.description,
            quantity=c.quantity,
            kind=c.kind,
            unit_price=priced(prices, c),
            part_number=c.pn,
            part_number_vendor=c.vendor,
            part_number_confidence=c.confidence,
            part_number_source=c.source if c.pn else None,
            unit_power_w=c.unit_power_w,
            power_note=c.power_note,
            basis=c.source,
        )
        for c in companions(parts, catalog, services)
    ]
    return items


def parts_line(build: Build) -> str:
    """CPUs, memory, drives, PSUs and bridges of a build on one line (the CLI and the app's
    Suggest screen print it as it is)."""
    bits = []
    if build.cpu:
        bits.append(f"{build.cpu_count} x {build.cpu}")
    if build.dimm:
        bits.append(f"{build.dimm_count} x {build.dimm}")
    bits += [f"{d.count} x {d.sku}" for d in build.drives]
    if build.psu:
        env = build.env
        bits.append(f"{build.psu_count} x {build.psu} ({env.redundancy}, {env.input_voltage} V)")
    bits += [f"{br.count} x {br.sku} on {'+'.join(br.slots)}" for br in build.bridges]
    return " | ".join(bits)


def gpu_inventory(build: Build, catalog: Catalog) -> tuple[int, float]:
    """(number of GPUs, total GPU memory in GB) counting slot GPUs and an HGX baseboard's."""
    n = 0
    mem = 0.0
    for sku in build.slots.values():
        gpu = catalog.gpus.get(sku)
        if gpu is not None:
            n += 1
            mem += gpu.memory_gb
    bb = catalog.baseboards.get(build.baseboard or "")
    if bb is not None:
        n += bb.gpu_count
        gpu = catalog.gpus.get(bb.gpu_sku)
        if gpu is not None:
            mem += gpu.memory_gb * bb.gpu_count
    return n, mem
