"""Validate a candidate: evaluate it, repair what the rules report (more DIMMs, a bigger PSU set,
the findings' own part edits) until it has no errors, then apply the power and budget
constraints and make the ``Suggestion``."""

from __future__ import annotations

import dataclasses

from slotwise.engine.build import Build
from slotwise.engine.build.edits import AddBridge, Move, RemoveBridge, SetCount, SetDrives
from slotwise.engine.check.report import Report
from slotwise.engine.check.sizing import Sizing
from slotwise.engine.cost.pricing import quote_build
from slotwise.engine.inputs import ref
from slotwise.engine.plan.cluster import plan_cluster
from slotwise.engine.plan.suggest.candidates import Candidate, SearchContext
from slotwise.engine.plan.suggest.fill_in import draw_estimate, with_psu
from slotwise.engine.plan.suggest.ranking import INF, ranking_key, time_metric
from slotwise.engine.plan.suggest.results import Suggestion

# Edits from findings the repair loop may apply: they change parts around the GPUs, never the
# GPU count or the chassis.
_REPAIR_EDITS = (SetCount, SetDrives, AddBridge, RemoveBridge, Move)


_MAX_REPAIRS = 8


def validate(ctx: SearchContext, cand: Candidate) -> tuple[Build, Report] | None:
    """Evaluate, and repair what the rules say about memory, power and simple part fixes."""
    build = cand.build
    gpu_count = sum(1 for v in build.slots.values() if v == cand.gpu.sku)
    dimm_i = next(
        (
            i
            for i, (d, n) in enumerate(cand.dimm_options)
            if d.sku == build.dimm and n == build.dimm_count
        ),
        0,
    )
    seen: set[str] = set()
    report: Report | None = None
    for _ in range(_MAX_REPAIRS):
        report = ctx.evaluator(build, ctx.catalog)
        if report.errors == 0:
            return build, report
        sig = build.model_dump_json()
        if sig in seen:
            break
        seen.add(sig)
        errors = report.of("error")
        rules = {f.rule.split(".")[0] for f in errors}
        new = build
        if "memory" in rules and cand.dimm_options:
            d0, n0 = cand.dimm_options[dimm_i]
            cap = d0.capacity_gb * n0
            nxt = next(
                (
                    i
                    for i in range(dimm_i + 1, len(cand.dimm_options))
                    if cand.dimm_options[i][0].capacity_gb * cand.dimm_options[i][1] > cap
                ),
                None,
            )
            if nxt is not None:
                dimm_i = nxt
                d, n = cand.dimm_options[nxt]
                new = new.with_(dimm=d.sku, dimm_count=n)
        if "power" in rules:
            budget = report.budget("power")
            draw = budget.used if budget is not None else draw_estimate(new, ctx.catalog)
            resized = with_psu(new, ctx.catalog, cand.psu_options, draw, ctx.prices)
            if resized is not None:
                new = resized
        if new == build:
            for f in errors:
                for e in f.edit:
                    if isinstance(e, _REPAIR_EDITS):
                        try:
                            new = e.apply(new)
                        except ValueError:
                            continue
        if new == build:
            break
        if sum(1 for v in new.slots.values() if v == cand.gpu.sku) != gpu_count:
            break
        build = new
    if report is not None:
        first = report.of("error")[0]
        ctx.rejected[f"{first.rule}: {first.message}"] += 1
    return None


def _sized(
    ctx: SearchContext, cand: Candidate, build: Build, report: Report
) -> tuple[Build, Report, Sizing | None, int] | None:
    """The one sizing answer for the validated build under the whole workload
    (engine.check.sizing via evaluate): its server count replaces the search's.  A serving
    server then carries its share of the users and is validated again.  None: rejected."""
    if not ctx.real:
        return build, report, None, cand.nodes
    w = ctx.workload
    full = report if build.workload == w else ctx.evaluator(build.with_(workload=w), ctx.catalog)
    sz = full.verdict.sizing if full.verdict is not None else None
    if sz is None or sz.servers is None:
        why = sz.problem if sz is not None else "no estimate for the whole workload"
        ctx.rejected[f"{cand.chassis.sku} with {cand.gpus} x {cand.gpu.sku}: {why}"] += 1
        return None
    if build.workload is not None and not w.training and w.users:
        share = w.model_copy(update={"users": -(-w.users // sz.servers)})
        if build.workload != share:
            build = build.with_(workload=share)
            report = ctx.evaluator(build, ctx.catalog)
            if report.errors:
                first = report.of("error")[0]
                ctx.rejected[f"{first.rule}: {first.message}"] += 1
                return None
    return build, report, sz, sz.servers


def finish(ctx: SearchContext, cand: Candidate, build: Build, report: Report) -> Suggestion | None:
    sized = _sized(ctx, cand, build, report)
    if sized is None:
        return None
    build, report, sizing, nodes = sized
    if nodes != cand.nodes:
        cand = dataclasses.replace(cand, nodes=nodes)
    # per node: the worst-case draw at the wall (what circuits, racks and TCO are sized on)
    power = report.wall_power_w
    quote = quote_build(build, ctx.prices) if ctx.prices is not None else None
    cons = ctx.cons
    if cons.max_power_w is not None and (power is None or power > cons.max_power_w):
        why = "unknown" if power is None else f"{power:,.0f} W"
        ctx.rejected[f"power per server {why} over {ref('max_power_w')} {cons.max_power_w:g}"] += 1
        return None
    price = None if quote is None or quote.total is None else quote.total * cand.nodes
    if cons.budget is not None:
        if price is None:
            miss = ", ".join(quote.missing) if quote else "no price list"
            ctx.rejected[f"price unknown ({miss}), so the budget cannot be checked"] += 1
            return None
        if price > cons.budget:
            ctx.rejected[f"price over the budget of {cons.budget:,.0f}"] += 1
            return None
    cluster = None
    if cand.nodes > 1:
        try:
            cluster = plan_cluster(
                nodes=cand.nodes,
                gpus_per_node=cand.gpus,
                gpu=cand.gpu.sku,
                chassis=cand.chassis.sku,
                nic=cand.nic.sku if cand.nic else None,
                nic_gbps=cand.nic.port_gbps if cand.nic else None,
                nics_per_node=sum(
                    1 for v in build.slots.values() if cand.nic and v == cand.nic.sku
                ),
                nic_ports=cand.nic.ports if cand.nic else 1,
                node_power_w=power,
                node_u=cand.chassis.form_factor_u,
                kw_per_rack=cons.kw_per_rack,
            )
        except ValueError as exc:  # FabricError / RackError (a node over the rack limit)
            ctx.rejected[f"cluster: {exc}"] += 1
            return None
    key = ranking_key(
        ctx.objective,
        cand.gpus * cand.nodes,
        cand.nodes,
        INF if power is None else power * cand.nodes,
        INF if price is None else price,
        time_metric(cand.est, ctx.workload),
        (cand.chassis.sku, cand.gpu.sku),
    )
    # every figure known (speed, time) before builds whose speed is unknown; among the known,
    # a build whose memory verdict is "fits" before one that is only "tight" (the estimate
    # fits, the high end of its range does not: engine.check.sizing)
    unknown = int(sizing is not None and bool(sizing.unknown))
    tight = int(sizing is not None and sizing.memory_tight)
    key = (unknown, tight, *key)
    return Suggestion(
        rank=0,
        build=build,
        report=report,
        estimate=cand.est,
        gpu=cand.gpu.sku,
        gpus=cand.gpus,
        nodes=cand.nodes,
        power_w=power,
        quote=quote,
        cluster=cluster,
        key=key,
        sizing=sizing,
    )
