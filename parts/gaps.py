"""Unknown catalog figures that a validation rule needs: the to-do list a distributor fills with an
overlay (``slotwise parts --gaps``).

A figure is a *gap* when it is unknown (``None``, or an empty list where the rule needs a list)
and a rule reads it: with the figure missing, that rule reports "could not check" (or leaves a
part out of a sum) instead of an answer.  :data:`NEEDS` names, per record kind, each such field
and the rule ids it blocks; the ids are the engine's (``engine/check/rules/ids.py``, kept in step by
``tests/parts/test_catalog_gaps.py``).  Fields no rule reads (e.g. a CPU's core count) are not gaps.

Pure data over the catalog: no engine import (the engine imports the catalog, not the reverse).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import Chassis, Gpu, Record


@dataclass(frozen=True)
class Need:
    """A field a rule reads; ``applies`` limits it to the records where the rule reads it."""

    field: str
    rules: tuple[str, ...]
    why: str
    applies: Callable[[Record], bool] = lambda _r: True


@dataclass(frozen=True)
class Gap:
    kind: str
    sku: str
    field: str
    rules: tuple[str, ...]
    why: str

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "sku": self.sku,
            "field": self.field,
            "rules": list(self.rules),
            "why": self.why,
        }


def _pcie(r: Record) -> bool:
    return isinstance(r, Chassis) and r.gpu_form == "pcie"


def _air(r: Record) -> bool:
    return isinstance(r, Chassis) and r.cooling in ("air", "air_or_liquid")


def _pcie_card(r: Record) -> bool:
    return not (isinstance(r, Gpu) and r.form == "sxm") and getattr(r, "form", None) != "onboard"


NEEDS: dict[str, tuple[Need, ...]] = {
    "chassis": (
        Need("max_gpus", ("slots.too_many_gpus",), "the GPU count limit"),
        Need(
            "gpu_skus",
            ("slots.gpu_not_listed",),
            "the vendor's supported-GPU list",
            _pcie,
        ),
        Need("cpu_skus", ("platform.cpu_not_listed",), "the supported-CPU list"),
        Need("cpu_max_tdp_w", ("cooling.cpu_tdp",), "the CPU TDP the chassis cools"),
        Need(
            "max_gpu_tdp_air_w",
            ("cooling.gpu_tdp_air",),
            "the GPU TDP the chassis cools with air",
            _air,
        ),
        Need("max_ambient_c", ("cooling.ambient",), "the rated inlet (ambient) temperature"),
        Need(
            "dimm_slots",
            ("memory.too_many_dimms", "memory.unbalanced"),
            "the DIMM slot count",
        ),
        Need("psu_bays", ("power.psu_bays",), "the number of power-supply bays"),
        Need("psu_skus", ("power.psu_not_allowed",), "the PSUs the chassis takes"),
        Need(
            "system_overhead_w",
            ("power.redundancy",),
            "fans, board and BMC power (the power sum is a lower bound without it)",
        ),
        Need(
            "drive_bays",
            ("storage.bay_mismatch", "storage.too_many"),
            "the drive-bay layout",
        ),
        # read only on PCIe chassis whose GPUs take bridges: see record_gaps
        Need("nvlink_groups", ("nvlink.group_not_allowed",), "the slot groups a bridge may join"),
    ),
    "gpu": (
        Need("tdp_w", ("power.redundancy", "cooling.gpu_tdp_air"), "board power"),
        Need("width_slots", ("slots.too_wide", "slots.double_width_blocked"), "card width"),
        Need(
            "length",
            ("slots.too_long", "slots.too_tall"),
            "card length/height",
            _pcie_card,
        ),
        Need("pcie_lanes", ("slots.mechanical", "lanes.root_over"), "host link width", _pcie_card),
        Need(
            "bf16_tflops_dense",
            ("workload_fit.train_time",),
            "dense BF16 throughput (training time)",
        ),
        Need(
            "memory_bw_gbs",
            ("workload_fit.gpu_memory",),
            "memory bandwidth (inference speed in the workload estimate)",
        ),
    ),
    "baseboard": (
        Need("board_power_w", ("power.redundancy",), "NVSwitch/retimer power beyond the GPUs"),
    ),
    "cpu": (
        Need("tdp_w", ("power.redundancy", "cooling.cpu_tdp"), "CPU TDP"),
        Need("pcie_lanes", ("lanes.root_over",), "PCIe lanes per socket"),
        Need("memory_channels", ("memory.unbalanced",), "memory channels per socket"),
        Need("memory_mts_1dpc", ("memory.speed_capped",), "memory speed at 1 DIMM per channel"),
        Need("max_sockets", ("platform.cpu_max_sockets",), "sockets per system"),
    ),
    "dimm": (Need("power_w", ("power.redundancy",), "module power"),),
    "nic": (
        Need("power_w", ("power.redundancy",), "card power", _pcie_card),
        Need("pcie_lanes", ("slots.mechanical", "lanes.root_over"), "host link width", _pcie_card),
        Need("form", ("slots.too_long", "slots.too_tall", "slots.ocp_nic"), "card form factor"),
    ),
    "drive": (Need("power_w", ("power.redundancy",), "drive power"),),
    "psu": (Need("watts_low_line", ("power.redundancy",), "output at 100-127 V AC"),),
}


def _unknown(value: object) -> bool:
    return value is None or (isinstance(value, tuple) and len(value) == 0)


def _root_gaps(ch: Chassis) -> Iterable[Gap]:
    """Switch roots: the downstream lane count (lanes.root_over) and the uplink width
    (lanes.switch_oversubscribed).  A CPU root's count falls back on the CPU record's lanes."""
    for r in ch.roots:
        if r.kind != "switch":
            continue
        if r.lanes is None:
            yield Gap(
                "chassis",
                ch.sku,
                f"roots[{r.id}].lanes",
                ("lanes.root_over",),
                f"downstream lanes of switch {r.id}",
            )
        if r.upstream_lanes is None:
            yield Gap(
                "chassis",
                ch.sku,
                f"roots[{r.id}].upstream_lanes",
                ("lanes.switch_oversubscribed",),
                f"uplink width of switch {r.id}",
            )


def record_gaps(rec: Record, catalog: Catalog) -> list[Gap]:
    out: list[Gap] = []
    for need in NEEDS.get(rec.kind, ()):
        if need.field == "nvlink_groups":
            if not (isinstance(rec, Chassis) and _needs_groups(rec, catalog)):
                continue
        elif not need.applies(rec):
            continue
        if _unknown(getattr(rec, need.field, None)):
            out.append(Gap(rec.kind, rec.sku, need.field, need.rules, need.why))
    if isinstance(rec, Chassis):
        out += _root_gaps(rec)
    return out


def _needs_groups(ch: Chassis, catalog: Catalog) -> bool:
    """A PCIe chassis needs its bridgeable groups when a GPU it lists (or, with no list, any PCIe
    GPU) takes an NVLink bridge."""
    if ch.gpu_form != "pcie":
        return False
    gpus = [catalog.gpus[s] for s in ch.gpu_skus if s in catalog.gpus] or [
        g for g in catalog.gpus.values() if g.form == "pcie"
    ]
    return any(g.nvlink == "bridge" for g in gpus)


def related(catalog: Catalog, ch: Chassis) -> list[Record]:
    """The chassis and every record it names (CPUs, GPUs, DIMMs, PSUs, baseboards and their GPUs,
    on-board NICs), in catalog order."""
    skus = {ch.sku, *ch.cpu_skus, *ch.gpu_skus, *ch.dimm_skus, *ch.psu_skus, *ch.baseboard_skus}
    skus |= {o.sku for o in ch.onboard_nics}
    skus |= {catalog.baseboards[b].gpu_sku for b in ch.baseboard_skus if b in catalog.baseboards}
    return [r for r in catalog if r.sku in skus]


def find_gaps(catalog: Catalog, chassis: str | None = None) -> list[Gap]:
    """Every rule-blocking unknown, per record (one chassis and its parts when ``chassis`` is
    given), ordered by kind then SKU."""
    from slotwise.parts.schema import PART_KINDS

    recs = related(catalog, catalog.chassis[chassis]) if chassis is not None else list(catalog)
    recs.sort(key=lambda r: (PART_KINDS.index(r.kind), r.sku))
    out: list[Gap] = []
    for rec in recs:
        out += record_gaps(rec, catalog)
    return out


#: Record kinds that are ordered as a line of a quote (a model preset is not; an on-board NIC
#: comes with its chassis).
ORDERED_KINDS = ("chassis", "gpu", "baseboard", "bridge", "cpu", "dimm", "nic", "drive", "psu")


def pn_gaps(catalog: Catalog, chassis: str | None = None) -> list[Record]:
    """Records a quote lists that have no sourced orderable part number ("PN needed" in every
    export), ordered by kind then SKU; one chassis and its parts when ``chassis`` is given."""
    from slotwise.parts.schema import PART_KINDS

    recs = related(catalog, catalog.chassis[chassis]) if chassis is not None else list(catalog)
    out = [
        r
        for r in recs
        if r.kind in ORDERED_KINDS and not r.part_numbers and getattr(r, "form", None) != "onboard"
    ]
    return sorted(out, key=lambda r: (PART_KINDS.index(r.kind), r.sku))
