"""The part picker's logic, without Textual: what can go on a map row, the edit that puts it
there, key figures for each candidate, and which new errors a candidate would cause.

Candidates come from the chassis record (the parts the vendor lists for it); the "all parts"
toggle adds the rest of the catalog of that kind.  Whether a candidate is a good idea is never
decided here: each one is tried on a copy of the build and the engine's ``evaluate`` says which
errors it would add.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from slotwise.engine.build import Build, Environment
from slotwise.engine.build.edits import (
    AddBridge,
    EditError,
    Place,
    Remove,
    RemoveBridge,
    SetBaseboard,
    SetCount,
    SetDrives,
    SetEnv,
)
from slotwise.engine.check.report import Finding, Report
from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import (
    Baseboard,
    Bridge,
    Chassis,
    Dimm,
    Drive,
    Nic,
    Psu,
    Record,
)

EMPTY = "__empty__"
Evaluate = Callable[[Build, Catalog], Report]


@dataclass(frozen=True)
class PickTarget:
    row_key: str
    kind: str  # slot, nvlink, cpu, dimm, psu, bay, baseboard, env
    title: str
    counted: bool = False
    count_label: str = "count"
    default_count: int = 1
    current: str | None = None
    slots: tuple[str, ...] = ()
    bay: str | None = None
    env: Environment | None = None  # the site settings now (kept except what is picked)


@dataclass(frozen=True)
class Choice:
    key: str  # SKU, EMPTY, or an env combination "200-240|N+1"
    title: str
    figures: str
    listed: bool = True  # the vendor lists it for this chassis
    new_errors: tuple[Finding, ...] = ()
    problem: str | None = None  # the edit itself was refused (EditError)


def target_for(row_key: str, chassis: Chassis, build: Build) -> PickTarget | None:
    if row_key.startswith("slot:"):
        sid = row_key[5:]
        label = next((s.label for s in chassis.slots if s.id == sid), sid)
        return PickTarget(
            row_key, "slot", f"Slot {label}", current=build.slots.get(sid), slots=(sid,)
        )
    if row_key.startswith("nvlink:"):
        idx = row_key[7:]
        if idx.startswith("x"):
            extra = [
                b
                for b in build.bridges
                if set(b.slots) not in [set(g) for g in chassis.nvlink_groups]
            ]
            group = extra[int(idx[1:])].slots
        else:
            group = tuple(chassis.nvlink_groups[int(idx)])
        fit = next((b for b in build.bridges if set(b.slots) == set(group)), None)
        return PickTarget(
            row_key,
            "nvlink",
            f"NVLink bridge on slots {'+'.join(group)}",
            counted=True,
            count_label="bridges on this group",
            default_count=fit.count if fit else 1,
            current=fit.sku if fit else None,
            slots=group,
        )
    if row_key == "cpu":
        return PickTarget(
            row_key, "cpu", "CPUs", True, "CPUs", build.cpu_count or chassis.cpu_sockets, build.cpu
        )
    if row_key == "dimm":
        return PickTarget(
            row_key,
            "dimm",
            "DIMMs",
            True,
            "DIMMs",
            build.dimm_count or chassis.dimm_slots or 1,
            build.dimm,
        )
    if row_key == "psu":
        return PickTarget(
            row_key,
            "psu",
            "Power supplies",
            True,
            "PSUs",
            build.psu_count or chassis.psu_default_count or chassis.psu_bays or 1,
            build.psu,
        )
    if row_key.startswith("bay:"):
        bay_id = row_key[4:]
        bay = next((b for b in chassis.drive_bays if b.id == bay_id), None)
        drive_fit = next((d for d in build.drives if d.bay == bay_id), None)
        return PickTarget(
            row_key,
            "bay",
            f"Drive bays {bay_id}",
            True,
            "drives",
            drive_fit.count if drive_fit else (bay.count if bay else 1),
            drive_fit.sku if drive_fit else None,
            bay=bay_id,
        )
    if row_key == "baseboard":
        return PickTarget(row_key, "baseboard", "HGX baseboard", current=build.baseboard)
    if row_key == "env":
        e = build.env
        return PickTarget(
            row_key,
            "env",
            "Site: input voltage and PSU redundancy",
            True,
            "ambient °C",
            round(e.ambient_c),
            f"{e.input_voltage}|{e.redundancy}",
        )
    return None


def candidates(
    target: PickTarget,
    chassis: Chassis,
    catalog: Catalog,
    show_all: bool = False,
    build: Build | None = None,
) -> list[tuple[Record, bool]]:
    """(record, listed-for-this-chassis) pairs, listed ones first, in catalog order."""
    k = target.kind
    if k == "env":
        return []
    if k == "slot":
        listed_gpus = set(chassis.gpu_skus) if chassis.gpu_form == "pcie" else set()
        pool: list[Record] = list(catalog.gpus.values()) + list(catalog.nics.values())
        if not chassis.gpu_skus and chassis.gpu_form == "pcie":
            listed_gpus = {g.sku for g in catalog.gpus.values() if g.form == "pcie"}
        listed = listed_gpus | set(catalog.nics)
    elif k == "nvlink":
        bridges = [b for b in catalog.bridges.values() if b.ways == len(target.slots)]
        pool = list(bridges)
        # bridges made for the GPUs now in these slots are "listed" (all, while they are empty)
        occupants = {build.slots[x] for x in target.slots if build and x in build.slots}
        listed = {b.sku for b in bridges if not occupants or occupants & set(b.gpu_skus)}
    elif k == "bay":
        bay = next((b for b in chassis.drive_bays if b.id == target.bay), None)
        drives = list(catalog.drives.values())
        pool = list(drives)
        listed = {
            d.sku
            for d in drives
            if bay and d.form_factor == bay.form_factor and d.interface in bay.interfaces
        }
    else:
        pools: dict[str, Mapping[str, Record]] = {
            "cpu": catalog.cpus,
            "dimm": catalog.dimms,
            "psu": catalog.psus,
            "baseboard": catalog.baseboards,
        }
        pool = list(pools[k].values())
        vendor = {
            "cpu": chassis.cpu_skus,
            "dimm": chassis.dimm_skus,
            "psu": chassis.psu_skus,
            "baseboard": chassis.baseboard_skus,
        }[k]
        listed = set(vendor) if vendor else {r.sku for r in pool}
    out = [(r, True) for r in pool if r.sku in listed]
    if show_all:
        out += [(r, False) for r in pool if r.sku not in listed]
    return out


def edits_for(target: PickTarget, key: str, count: int) -> tuple:
    """The edits that put ``key`` (a SKU, EMPTY, or an env combination) on the target row."""
    k = target.kind
    empty = key == EMPTY
    if k == "slot":
        return (Remove(slot=target.slots[0]),) if empty else (Place(slot=target.slots[0], sku=key),)
    if k == "nvlink":
        if empty:
            return (RemoveBridge(slots=target.slots),)
        return (AddBridge(sku=key, slots=target.slots, count=max(1, count)),)
    if k in ("cpu", "dimm", "psu"):
        return (SetCount(what=k, sku=None if empty else key, count=0 if empty else count),)
    if k == "bay":
        return (
            SetDrives(
                bay=target.bay or "", sku=None if empty else key, count=0 if empty else count
            ),
        )
    if k == "baseboard":
        return (SetBaseboard(sku=None if empty else key),)
    if k == "env":
        volts, red, cooling = key.split("|")
        base = target.env or Environment()
        env = Environment.model_validate(
            {
                **base.model_dump(),
                "input_voltage": volts,
                "redundancy": red,
                "cooling": cooling,
                "ambient_c": count,
            }
        )
        return (SetEnv(env=env),)
    return ()


ENV_CHOICES = tuple(
    (v, r, c) for c in ("air", "liquid") for v in ("200-240", "100-127") for r in ("N+1", "N+N")
)


def _fmt(v, unit: str = "") -> str | None:
    if v is None:
        return None
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return f"{v}{unit}"


def figures(rec: Record) -> str:
    """Key figures of a record in one line; unknown figures say 'unknown'."""
    k = rec.kind
    g = lambda f, u="": _fmt(getattr(rec, f, None), u)  # noqa: E731
    if k == "gpu":
        nv = getattr(rec, "nvlink", None)
        bits = [
            g("memory_gb", " GB"),
            f"TDP {g('tdp_w', ' W') or 'unknown'}",
            f"{g('width_slots') or '?'}-wide",
            f"x{g('pcie_lanes') or '?'} G{g('pcie_gen') or '?'}",
            "NVLink unknown" if nv is None else "no NVLink" if nv == "none" else f"NVLink {nv}",
        ]
    elif isinstance(rec, Nic):
        bits = [
            f"{rec.ports}×{rec.port_gbps} Gb/s",
            f"x{g('pcie_lanes') or '?'}",
            g("form") or "",
            f"{g('power_w', ' W') or 'power unknown'}",
        ]
    elif k == "cpu":
        bits = [
            f"{g('cores') or '?'} cores",
            f"TDP {g('tdp_w', ' W') or 'unknown'}",
            f"{g('pcie_lanes') or '?'} lanes",
            f"{g('memory_channels') or '?'} ch",
        ]
    elif isinstance(rec, Dimm):
        bits = [g("capacity_gb", " GB"), g("speed_mts", " MT/s"), rec.type]
    elif isinstance(rec, Psu):
        bits = [
            f"{rec.watts_high_line} W @200-240V",
            f"{g('watts_low_line', ' W') or 'unknown'} @100-127V",
        ]
    elif isinstance(rec, Drive):
        bits = [g("capacity_tb", " TB"), rec.form_factor, rec.interface]
    elif isinstance(rec, Baseboard):
        bits = [f"{rec.gpu_count}× {rec.gpu_sku}", "liquid only" if rec.liquid_only else ""]
    elif isinstance(rec, Bridge):
        bits = [f"{rec.ways}-way", f"{rec.per_group} per group", "for " + ", ".join(rec.gpu_skus)]
    else:
        bits = []
    return " · ".join(b for b in bits if b)


def _finding_key(f: Finding) -> tuple:
    return (f.rule, f.slots, f.parts)


def new_errors(before: Report, after: Report) -> tuple[Finding, ...]:
    """Errors in ``after`` that ``before`` did not have (matched by rule, slots and parts,
    so a power error whose numbers merely change is not 'new')."""
    old = {_finding_key(f) for f in before.findings if f.severity == "error"}
    return tuple(f for f in after.findings if f.severity == "error" and _finding_key(f) not in old)


def choices(
    target: PickTarget,
    build: Build,
    chassis: Chassis,
    catalog: Catalog,
    evaluate: Evaluate,
    before: Report,
    count: int,
    show_all: bool = False,
) -> list[Choice]:
    """Every candidate with its figures and the errors it would add, good ones first."""
    out: list[Choice] = []
    if target.kind == "env":
        for volts, red, cooling in ENV_CHOICES:
            key = f"{volts}|{red}|{cooling}"
            out.append(
                _try(
                    target,
                    build,
                    catalog,
                    evaluate,
                    before,
                    count,
                    key,
                    f"{volts} V AC · {red} · site cooling: {cooling}",
                    "PSUs are rated at this input; N+N = half the PSUs may fail; "
                    "liquid = the site has a direct-to-chip loop",
                    True,
                )
            )
        return out
    for rec, listed in candidates(target, chassis, catalog, show_all, build):
        out.append(
            _try(
                target,
                build,
                catalog,
                evaluate,
                before,
                count,
                rec.sku,
                f"{rec.sku}",
                f"{rec.name} · {figures(rec)}",
                listed,
            )
        )
    out.sort(key=lambda c: (not c.listed, bool(c.new_errors or c.problem)))
    if target.current is not None and target.kind != "env":
        out.insert(0, Choice(EMPTY, "— empty —", f"take out {target.current}"))
    return out


def _try(target, build, catalog, evaluate, before, count, key, title, figs, listed) -> Choice:
    try:
        trial = build
        for e in edits_for(target, key, count):
            trial = e.apply(trial)
    except (EditError, ValueError) as exc:
        return Choice(key, title, figs, listed, problem=str(exc))
    return Choice(key, title, figs, listed, new_errors(before, evaluate(trial, catalog)))


def matches(choice: Choice, query: str) -> bool:
    """Search as you type: every word of the query appears in the SKU, name or figures."""
    hay = f"{choice.title} {choice.figures}".lower()
    return all(w in hay for w in query.lower().split())
