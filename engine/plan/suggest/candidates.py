"""One unvalidated build per chassis, GPU model and count: the chassis and GPU options the
constraints allow, the search's shared context (catalog, estimator, evaluator, rejections), and
the candidate build with its ranking lower bound."""

from __future__ import annotations

import inspect
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from slotwise.engine.build import BridgeFit, Build, Environment
from slotwise.engine.check.rules.context import memory_memo
from slotwise.engine.cost.pricing import PriceList, quote_build
from slotwise.engine.estimate import Estimate
from slotwise.engine.inputs import ref
from slotwise.engine.plan.suggest.fill_in import (
    dimm_options,
    draw_estimate,
    drives_for,
    first_dimm_meeting,
    psu_options,
    with_psu,
)
from slotwise.engine.plan.suggest.placement import Placement, Placer, bridge_options, bridges_for
from slotwise.engine.plan.suggest.ranking import (
    INF,
    gpu_power_floor,
    part_metric,
    ranking_key,
    time_metric,
    unpriced,
)
from slotwise.engine.plan.suggest.results import Constraints, Estimator, Evaluator, SuggestError
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import Baseboard, Chassis, Cpu, Dimm, Gpu, Nic, Psu

FAMILIES = ("X13", "X14", "H13", "H14")


@dataclass
class Candidate:
    chassis: Chassis
    gpu: Gpu
    gpus: int
    nodes: int
    est: Estimate
    build: Build
    dimm_options: list[tuple[Dimm, int]]
    psu_options: list[Psu]
    nic: Nic | None
    bound: tuple = ()
    seq: int = 0


@dataclass
class SearchContext:
    workload: Workload
    catalog: Catalog
    cons: Constraints
    objective: str
    prices: PriceList | None
    estimator: Estimator
    evaluator: Evaluator
    arch: Any
    memory_ratio: float
    per_server_kw: bool = False
    placer: Placer = field(default_factory=Placer)
    rejected: Counter = field(default_factory=Counter)
    seq: int = 0
    #: The real estimator and evaluator: the one sizing answer (engine.check.sizing) applies.
    real: bool = False
    #: (nodes it would take, GPUs per node, GPU) of searches the node limit stopped.
    capped: list = field(default_factory=list)
    #: size_servers per (GPU, count) with the GPU's own links, shared by every chassis.
    sized: dict = field(default_factory=dict)


def estimate_on(
    ctx: SearchContext, gpu: Gpu, gpus: int, per_server: int, workload: Workload | None = None
) -> Estimate:
    """Call the estimator; pass ``gpus_per_server`` when it takes one (the real one does: it
    decides where tensor parallelism and the intra-node links apply)."""
    w = workload or ctx.workload
    if ctx.real:  # the real estimator: memory per GPU remembered on the catalog
        memo = memory_memo(ctx.catalog)
        return ctx.estimator(w, gpu, gpus, arch=ctx.arch, gpus_per_server=per_server, memo=memo)
    if ctx.per_server_kw:
        return ctx.estimator(w, gpu, gpus, arch=ctx.arch, gpus_per_server=per_server)
    return ctx.estimator(w, gpu, gpus, arch=ctx.arch)


def takes_per_server(fn: Estimator) -> bool:
    try:
        return "gpus_per_server" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def default_estimator() -> Estimator:
    from slotwise.engine.estimate import estimate

    return estimate


def default_evaluator() -> Evaluator:
    from slotwise.engine.check.evaluate import evaluate

    return evaluate


def select_chassis(catalog: Catalog, cons: Constraints) -> list[Chassis]:
    """Chassis that pass the chassis and cooling constraints; SuggestError for unknown names."""
    out = list(catalog.chassis.values())
    if cons.chassis:
        want_sku = {c.upper() for c in cons.chassis if c.upper() not in FAMILIES}
        want_fam = {c.upper() for c in cons.chassis if c.upper() in FAMILIES}
        known = {s.upper() for s in catalog.chassis}
        unknown = sorted(want_sku - known)
        if unknown:
            raise SuggestError(
                f"{ref('chassis')} {', '.join(unknown)}: not in the catalog; use a family "
                f"({', '.join(FAMILIES)}) or one of: {', '.join(sorted(catalog.chassis))}"
            )
        out = [c for c in out if c.sku.upper() in want_sku or c.family in want_fam]
    if cons.gpus:
        unknown = sorted(set(cons.gpus) - set(catalog.gpus))
        if unknown:
            raise SuggestError(
                f"{ref('gpu')} {', '.join(unknown)}: not in the catalog; known GPUs: "
                + ", ".join(sorted(catalog.gpus))
            )
    if cons.cooling == "air":
        out = [c for c in out if c.cooling in ("air", "air_or_liquid")]
    elif cons.cooling == "liquid":
        out = [c for c in out if c.cooling in ("liquid", "air_or_liquid")]
    return sorted(out, key=lambda c: c.sku)


def gpu_options(ctx: SearchContext, ch: Chassis) -> list[tuple[Gpu, Baseboard | None]]:
    cat = ctx.catalog
    allowed = set(ctx.cons.gpus)
    out: list[tuple[Gpu, Baseboard | None]] = []
    if ch.gpu_form == "sxm":
        for bsku in ch.baseboard_skus:
            bb = cat.baseboards.get(bsku)
            if bb is None or bb.gpu_sku not in cat.gpus:
                continue
            if bb.liquid_only and ctx.cons.cooling == "air":
                continue
            if allowed and bb.gpu_sku not in allowed:
                continue
            out.append((cat.gpus[bb.gpu_sku], bb))
    else:
        skus = ch.gpu_skus or tuple(s for s, g in cat.gpus.items() if g.form == "pcie")
        for s in skus:
            g = cat.gpus.get(s)
            if g is None or g.form != "pcie" or (allowed and s not in allowed):
                continue
            out.append((g, None))
    return out


def env_for(ctx: SearchContext, ch: Chassis, bb: Baseboard | None) -> Environment:
    cooling = ctx.cons.cooling
    if cooling is None:
        cooling = "liquid" if (ch.cooling == "liquid" or (bb and bb.liquid_only)) else "air"
    return Environment(
        input_voltage=ctx.cons.voltage, redundancy=ctx.cons.redundancy, cooling=cooling
    )


def nic_choice(ctx: SearchContext) -> list[Nic]:
    nics = [
        n
        for n in ctx.catalog.nics.values()
        if n.port_gbps >= ctx.cons.min_nic_gbps
        and n.form not in ("OCP3", "onboard")
        and n.role != "dpu"
    ]
    if ctx.objective in ("price", "power"):
        return sorted(nics, key=lambda n: part_metric(n, ctx.objective, ctx.prices))
    # gpus/time: priced first (a price list is loaded), then the common 400G rail per GPU,
    # then faster, then lower power
    return sorted(
        nics,
        key=lambda n: (
            unpriced(n.sku, ctx.prices),
            abs(n.port_gbps - 400),
            -n.port_gbps,
            n.power_w or INF,
            n.sku,
        ),
    )


def make_candidate(
    ctx: SearchContext,
    ch: Chassis,
    gpu: Gpu,
    bb: Baseboard | None,
    n: int,
    nodes: int,
    est: Estimate,
    nic: Nic | None,
    cpu: Cpu,
    placement: Placement | None,
) -> Candidate | None:
    cat = ctx.catalog
    env = env_for(ctx, ch, bb)
    slots: dict[str, str] = {}
    bridges: tuple[BridgeFit, ...] = ()
    if placement is not None:
        slots.update({s: gpu.sku for s in placement.gpu_slots})
        slots.update({s: nic.sku for s in placement.nic_slots if nic})
        bridges = bridges_for(ch, placement.gpu_slots, bridge_options(cat, gpu, ch))
    dimm_opts = dimm_options(ch, cpu, ch.cpu_sockets, cat, ctx.objective, ctx.prices)
    gpu_gb = gpu.memory_gb * n
    first = first_dimm_meeting(dimm_opts, ctx.memory_ratio * gpu_gb)
    psu_opts = psu_options(ch, cat, ctx.cons.voltage, ctx.objective, ctx.prices)
    if not psu_opts:
        if not any(s in cat.psus for s in ch.psu_skus):
            why = "the catalog lists no PSU for it"
        else:
            why = f"none of its PSUs has a published rating at {ctx.cons.voltage} V input"
        ctx.rejected[f"{ch.sku}: {why}"] += 1
        return None
    drives = drives_for(ch, cat, ctx.objective, ctx.prices)
    if not drives:
        # a server needs a boot drive; with no known bay for one, the build is not complete
        ctx.rejected[f"{ch.sku}: no drive bay known for a boot drive (catalog)"] += 1
        return None
    carried = ctx.workload if nodes == 1 else None
    if nodes > 1 and not ctx.workload.training and ctx.workload.users and nic is None:
        # a server of a serving cluster carries its share of the users
        carried = ctx.workload.model_copy(update={"users": -(-ctx.workload.users // nodes)})
    build = Build(
        chassis=ch.sku,
        cpu=cpu.sku,
        cpu_count=ch.cpu_sockets,
        dimm=first[0].sku if first else None,
        dimm_count=first[1] if first else 0,
        slots=slots,
        baseboard=bb.sku if bb else None,
        bridges=bridges,
        drives=drives,
        env=env,
        workload=carried,
    )
    sized = with_psu(build, cat, psu_opts, draw_estimate(build, cat), ctx.prices)
    if sized is None:
        ctx.rejected[f"{ch.sku}: not enough PSU bays for the draw under {env.redundancy}"] += 1
        return None
    ctx.seq += 1
    cand = Candidate(ch, gpu, n, nodes, est, sized, dimm_opts, psu_opts, nic, seq=ctx.seq)
    # Lower bound of the ranking key: parts the repair loop may change (DIMMs, PSUs) are left
    # out of the price floor, and the power floor counts the GPUs alone.
    price_floor = 0.0
    if ctx.prices is not None:
        fixed = build.with_(dimm=None, dimm_count=0, psu=None, psu_count=0)
        price_floor = quote_build(fixed, ctx.prices).known_total * nodes
    power_floor = gpu_power_floor(gpu, n, nodes, bb)
    cand.bound = ranking_key(
        ctx.objective,
        n * nodes,
        nodes,
        power_floor,
        price_floor,
        time_metric(est, ctx.workload),
        (),
    )
    # known figures first, then "fits" before "tight" (repair.finish): 0, 0 is the floor
    cand.bound = (0, 0, *cand.bound)
    return cand
