"""evaluate(build, catalog, workload) -> Report: every rule family over one build.

Pure: reads the build and the catalog, returns findings (sorted by severity) and budgets.  It
never raises on a Build: unknown SKUs, slots the chassis does not have, impossible counts all
become findings.  A rule family or the estimator that fails internally is an ``engine.internal``
*error* finding (never silence, never "OK"); ``validate`` exits 3 on it (CLI.md).  Per-chassis lookups and estimator results are cached on the Catalog instance
(see engine.check.rules.context), so re-running it on every keystroke is cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import is_not
from typing import Any

from slotwise.engine.build import Build, DriveFit
from slotwise.engine.check.report import Finding, Report, sort_findings
from slotwise.engine.check.rules import load_guard
from slotwise.engine.check.rules.context import GPU_SLOTS_KEY, ChassisIndex, Ctx, chassis_index
from slotwise.engine.check.rules.family import evaluation_order
from slotwise.engine.check.rules.ids import RULE_FAMILIES, RULE_MODULES
from slotwise.engine.check.verdict import verdict
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import Catalog
from slotwise.parts.safe_io import shorten_text

# The rule families in the order they run: as listed in engine.check.rules.ids (also the order of
# their budgets in the report), moved only where one declares it reads what another computed
# (``RuleFamily.after``: cooling after power for the heat, network after workload_fit for the
# estimate).
_CHECKS: dict[str, Callable[[Ctx], None]] = {m.FAMILY.name: m.check for m in RULE_MODULES}
FAMILIES: tuple[tuple[str, Callable[[Ctx], None]], ...] = tuple(
    (family.name, _CHECKS[family.name]) for family in evaluation_order(RULE_FAMILIES)
)


def make_context(build: Build, catalog: Catalog, workload: Workload | None) -> Ctx | None:
    """Resolve the build's SKUs against the catalog; None when the chassis is unknown."""
    ch = catalog.chassis.get(build.chassis)
    if ch is None:
        return None
    return _context(build, catalog, chassis_index(catalog, ch), workload)


def _context(build: Build, catalog: Catalog, idx: ChassisIndex, workload: Workload | None) -> Ctx:
    ch = idx.chassis
    ctx = Ctx(build=build, catalog=catalog, chassis=ch, idx=idx, workload=workload)
    ctx.onboard_nics = idx.onboard_nics
    known = idx.slot
    gpus, nics = catalog.gpus, catalog.nics
    by_sku: dict[str, list[str]] = {}  # Ctx.gpu_slots_by_sku, grouped in the same pass
    for sid, sku in build.slots.items():
        if sid not in known:
            continue
        gpu = gpus.get(sku)
        if gpu is not None:
            ctx.gpus[sid] = gpu
            same = by_sku.get(gpu.sku)
            if same is None:
                by_sku[gpu.sku] = [sid]
            else:
                same.append(sid)
            continue
        nic = nics.get(sku)
        if nic is not None:
            ctx.nics[sid] = nic
    ctx.memo[GPU_SLOTS_KEY] = by_sku
    if build.cpu is not None:
        ctx.cpu = catalog.cpus.get(build.cpu)
    if build.dimm is not None:
        ctx.dimm = catalog.dimms.get(build.dimm)
    if build.psu is not None:
        ctx.psu = catalog.psus.get(build.psu)
    if build.baseboard is not None and ch.gpu_form == "sxm":
        bb = catalog.baseboards.get(build.baseboard)
        if bb is not None:
            ctx.baseboard = bb
            ctx.baseboard_gpu = catalog.gpus.get(bb.gpu_sku)
    return ctx


def _in_slot_order(build: Build, idx: ChassisIndex | None) -> Build:
    """The build with its cards, bridges and drives in the chassis manual's order (unknown ids
    after, by name), as a BOM lists them (engine.build.items.canonical_build): the report reads
    the same however the parts were placed, so a build in the app and the same build reopened
    from its BOM give the same findings.  A build already in that order (the usual case: the
    app and the BOM reader keep it) is returned as it is, without copying anything."""
    if idx is not None:
        pos, bays = idx.slot_order, idx.bay_order
    else:
        pos, bays = {}, {}
    n_pos, n_bays = len(pos), len(bays)
    sk: Callable[[str], Any]
    bridged = {s for br in build.bridges for s in br.slots}
    if pos.keys() >= build.slots.keys() and pos.keys() >= bridged:
        # Every id is the chassis': its place alone orders it (places are unique), read in C.
        sk = pos.__getitem__
    else:

        def sk(sid: str) -> tuple[int, str]:
            return (pos.get(sid, n_pos), sid)

    order = sorted(build.slots, key=sk)
    slots_moved = order != list(build.slots)
    bridges_moved = False
    fits = []
    for br in build.bridges:
        in_order = tuple(sorted(br.slots, key=sk))
        if in_order != br.slots:
            br = br.model_copy(update={"slots": in_order})
            bridges_moved = True
        fits.append(br)
    bridges = fits
    if len(fits) > 1:
        bridges = sorted(fits, key=lambda br: (list(map(sk, br.slots)), br.sku, br.count))
        bridges_moved = bridges_moved or any(map(is_not, bridges, build.bridges))
    drives: Sequence[DriveFit] = build.drives
    drives_moved = False
    if len(drives) > 1:
        drives = sorted(drives, key=lambda d: (bays.get(d.bay, n_bays), d.bay, d.sku, d.count))
        drives_moved = any(map(is_not, drives, build.drives))
    if not (slots_moved or bridges_moved or drives_moved):
        return build
    update: dict[str, object] = {}
    if slots_moved:
        update["slots"] = dict(zip(order, map(build.slots.__getitem__, order), strict=True))
    if bridges_moved:
        update["bridges"] = tuple(bridges)
    if drives_moved:
        update["drives"] = tuple(drives)
    return build.model_copy(update=update)


def evaluate(build: Build, catalog: Catalog, workload: Workload | None = None) -> Report:
    """Check ``build`` against ``catalog``; ``workload`` defaults to ``build.workload``."""
    wl = workload if workload is not None else build.workload
    ch = catalog.chassis.get(build.chassis)
    idx = chassis_index(catalog, ch) if ch is not None else None
    build = _in_slot_order(build, idx)
    if idx is None:
        known = ", ".join(sorted(catalog.chassis)) or "none in the catalog"
        return Report(
            findings=(
                Finding(
                    rule="slots.unknown_chassis",
                    severity="error",
                    message=f"chassis {build.chassis!r} is not in the parts catalog, so nothing "
                    "else could be checked",
                    parts=(build.chassis,),
                    fix=f"choose a known chassis: {known}",
                ),
            )
        )
    ctx = _context(build, catalog, idx, wl)
    for name, check in FAMILIES:
        try:
            check(ctx)
        except Exception as exc:  # noqa: BLE001 - a rule bug must not take the UI down
            ctx.findings.append(
                Finding(
                    rule="engine.internal",
                    severity="error",
                    message=f"the {name} checks failed on this build ("
                    f"{shorten_text(f'{type(exc).__name__}: {exc}', 300)}); the report is "
                    "incomplete. Please report this as a bug",
                    fix="report the BOM file with this message",
                )
            )
    try:
        load_guard.guard(ctx, make_context)
    except Exception as exc:  # noqa: BLE001 - same contract as the rule families
        ctx.findings.append(
            Finding(
                rule="engine.internal",
                severity="error",
                message="checking the fixes' power failed ("
                f"{shorten_text(f'{type(exc).__name__}: {exc}', 300)})",
                fix="report the BOM file with this message",
            )
        )
    return Report(
        findings=sort_findings(ctx.findings),
        budgets=tuple(ctx.budgets),
        estimate=ctx.estimate,
        verdict=verdict(ctx.estimate, wl, ctx.sizing, target=ctx.memo.get("target_check"))
        if ctx.estimate is not None
        else None,
        power=ctx.power_figures,
    )
