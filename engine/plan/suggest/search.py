"""The search itself: single-server candidates for every GPU count the estimator says fits and
meets the target, cluster candidates (the fewest identical nodes, one NIC per GPU) when no single
server does, and best-first validation in lower-bound order."""

from __future__ import annotations

import heapq

from slotwise.engine.check.margin import margin_for
from slotwise.engine.check.rules.context import memory_memo
from slotwise.engine.check.sizing import HARD_LIMIT, size_servers
from slotwise.engine.check.verdict import target_check
from slotwise.engine.estimate import Estimate
from slotwise.engine.inputs import ref
from slotwise.engine.plan.node_search import fewest_passing
from slotwise.engine.plan.suggest.candidates import (
    Candidate,
    SearchContext,
    estimate_on,
    gpu_options,
    make_candidate,
    nic_choice,
)
from slotwise.engine.plan.suggest.fill_in import cpu_choice
from slotwise.engine.plan.suggest.placement import Placement, bridge_options, place, place_nics
from slotwise.engine.plan.suggest.repair import finish, validate
from slotwise.engine.plan.suggest.results import Suggestion
from slotwise.engine.workload import Workload
from slotwise.parts.schema import Chassis, Gpu, Nic


def best_first(
    ctx: SearchContext, cands: list[Candidate], limit: int
) -> tuple[list[Suggestion], int]:
    """Validate candidates in lower-bound order until ``limit`` results beat every bound left."""
    heap = [(c.bound, c.seq, c) for c in cands]
    heapq.heapify(heap)
    found: list[Suggestion] = []
    validated = 0
    exact = True
    while heap:
        bound, _seq, cand = heapq.heappop(heap)
        if exact and len(found) >= limit:
            found.sort(key=lambda s: s.key)
            if found[limit - 1].key[: len(bound)] < bound:
                break
        validated += 1
        ok = validate(ctx, cand)
        if ok is None:
            continue
        sug = finish(ctx, cand, *ok)
        if sug is None:
            continue
        if sug.key[: len(bound)] < bound:
            exact = False  # a floor was wrong (evaluator counts power differently): no pruning
        found.append(sug)
    found.sort(key=lambda s: s.key)
    return found[:limit], validated


def misses_target(est: Estimate, w: Workload) -> str | None:
    """Why an estimate does not meet --target-days with the planning margin (engine.check.margin;
    None: it does, or there is no target).  An unknown time cannot be shown to meet it."""
    check = target_check(w, est.train_hours)
    if check is None:
        return None
    if check.days is None:
        return "training time unknown (GPU lacks a dense BF16 figure), cannot meet " + ref(
            "target_days"
        )
    m = margin_for(w).time
    if (check.train_hours or 0.0) * (1 + m) <= check.target_hours:
        return None
    return (
        f"{check.days:,.1f} days misses {ref('target_days')} {check.target_days:g} "
        f"with the {100 * m:.0f} % margin"
    )


def share_of_users(w: Workload, servers: int) -> Workload:
    """The workload one of ``servers`` serving replicas' servers carries: its share of users."""
    if servers <= 1 or not w.users:
        return w
    return w.model_copy(update={"users": -(-w.users // servers)})


def _serving_nodes(ctx: SearchContext, gpu: Gpu, n: int) -> int | str:
    """Servers of ``n`` x ``gpu`` that serve the users (the one sizing answer with the GPU's own
    links), or why none: a replica that spans servers is the cluster search's job."""
    key = (gpu.sku, n)
    sz = ctx.sized.get(key)
    if sz is None:
        sz = ctx.sized[key] = size_servers(
            ctx.workload, gpu, n, arch=ctx.arch, memory=memory_memo(ctx.catalog)
        )
    if sz.servers is None:
        return f"{n} x {gpu.sku}: {sz.problem}"
    if sz.fabric_needed:
        return f"{n} x {gpu.sku}: one copy of the model spans servers"
    return sz.servers


def single_node_candidates(ctx: SearchContext, chassis: list[Chassis]) -> list[Candidate]:
    cands: list[Candidate] = []
    w = ctx.workload
    for ch in chassis:
        cpu = cpu_choice(ch, ctx.catalog, ctx.objective, ctx.prices)
        if cpu is None:
            ctx.rejected[f"{ch.sku}: no CPU listed for it in the catalog"] += 1
            continue
        options = gpu_options(ctx, ch)
        if not options:
            allowed = ", ".join(ctx.cons.gpus) or "any"
            ctx.rejected[f"{ch.sku}: supports none of the allowed GPUs ({allowed})"] += 1
        for gpu, bb in options:
            groups = tuple(ch.nvlink_groups) if bridge_options(ctx.catalog, gpu, ch) else ()
            if bb is not None:
                counts = [bb.gpu_count]
            else:
                counts = sorted(ctx.placer.sets(ch, gpu, ch.cpu_sockets, groups))
            for n in counts:
                if n % w.tp_or_1:
                    continue
                nodes = 1
                if ctx.real and not w.training and w.users:
                    # serving scales by replicas across servers (engine.check.sizing)
                    found = _serving_nodes(ctx, gpu, n)
                    if isinstance(found, str):
                        ctx.rejected[found] += 1
                        continue
                    nodes = found
                    est = estimate_on(ctx, gpu, n, n, share_of_users(w, nodes))
                else:
                    est = estimate_on(ctx, gpu, n, n)
                    if not est.fits:
                        ctx.rejected[f"workload does not fit {n} x {gpu.sku}"] += 1
                        continue
                    why = misses_target(est, w)
                    if why:
                        ctx.rejected[f"{n} x {gpu.sku}: {why}"] += 1
                        continue
                placement = None
                if bb is None:
                    placement = place(ctx.placer, ch, gpu, n, ch.cpu_sockets, groups, None, 0)
                cand = make_candidate(ctx, ch, gpu, bb, n, nodes, est, None, cpu, placement)
                if cand is not None:
                    cands.append(cand)
    return cands


def fewest_nodes(ctx: SearchContext, gpu: Gpu, per_node: int) -> tuple[int, Estimate] | str:
    """(nodes, estimate) for the fewest nodes (>= 2) that fit and meet the target, or why not.
    Memory per GPU and time both fall as GPUs are added, so doubling then bisecting is exact."""
    w = ctx.workload
    memo: dict[int, Estimate] = {}

    def est(k: int) -> Estimate:
        if k not in memo:
            memo[k] = estimate_on(ctx, gpu, per_node * k, per_node)
        return memo[k]

    def ok(k: int) -> bool:
        e = est(k)
        return bool(e.fits) and not misses_target(e, w)

    top = ctx.cons.max_nodes
    if top < 2:
        return f"{ref('max_nodes')} is below 2"

    def stuck(k: int) -> str | None:
        why = misses_target(est(k), w)
        return why if why and est(k).train_hours is None else None

    found = fewest_passing(ok, stuck, top, per_node)
    if isinstance(found, str) and found.startswith("not even"):
        # stopped by the node limit: say which limit, and what it would take past it
        past = fewest_passing(ok, stuck, HARD_LIMIT, per_node)
        if isinstance(past, int):
            ctx.capped.append((past, per_node, gpu.sku))
            return (
                f"{ref('max_nodes', str(top))} stops the search: {past:,} nodes of "
                f"{per_node} x {gpu.sku} would run it (raise it to {past})"
            )
    return found if isinstance(found, str) else (found, est(found))


def multi_node_candidates(ctx: SearchContext, chassis: list[Chassis]) -> list[Candidate]:
    cands: list[Candidate] = []
    w = ctx.workload
    nics = nic_choice(ctx)
    if not nics:
        ctx.rejected[f"no NIC of >= {ctx.cons.min_nic_gbps} Gb/s in the catalog"] += 1
        return cands
    for ch in chassis:
        cpu = cpu_choice(ch, ctx.catalog, ctx.objective, ctx.prices)
        if cpu is None:
            continue
        for gpu, bb in gpu_options(ctx, ch):
            groups = (
                tuple(ch.nvlink_groups)
                if bb is None and bridge_options(ctx.catalog, gpu, ch)
                else ()
            )
            best: tuple[int, Placement | None, Nic] | None = None
            for nic in nics:
                if bb is not None:
                    slots = place_nics(ch, (), False, nic, bb.gpu_count, ch.cpu_sockets)
                    if slots is not None:
                        best = (bb.gpu_count, Placement((), slots), nic)
                        break
                    continue
                sizes = sorted(ctx.placer.sets(ch, gpu, ch.cpu_sockets, groups), reverse=True)
                for g in sizes:
                    if g % w.tp_or_1:
                        continue
                    pl = place(ctx.placer, ch, gpu, g, ch.cpu_sockets, groups, nic, g)
                    if pl is not None:
                        if best is None or g > best[0]:
                            best = (g, pl, nic)
                        break
                if best is not None:
                    break
            if best is None:
                ctx.rejected[f"{ch.sku}: no room for one NIC per {gpu.sku}"] += 1
                continue
            g, placement, nic = best
            found = fewest_nodes(ctx, gpu, g)
            if isinstance(found, str):
                ctx.rejected[f"{gpu.sku}: {found}"] += 1
                continue
            nodes, est = found
            cand = make_candidate(ctx, ch, gpu, bb, g, nodes, est, nic, cpu, placement)
            if cand is not None:
                cands.append(cand)
    return cands
