"""Suggest complete builds for a workload: search the catalog, fill every part in, rank.

For each chassis that passes the constraints and each GPU it supports, the solver tries every GPU
count the slot map allows (or the HGX baseboard's fixed count), asks the estimator whether the
workload fits, and fills in the rest of the server from the data:

* GPUs go in slots whose size, lanes and socket suit the card, never two double-width cards where
  one ``covers`` the other, spread across CPUs and PCIe switches, whole NVLink groups first;
* NVLink bridges join every fully populated ``nvlink_groups`` entry the GPU has a bridge for;
* every CPU socket is filled with the allowed CPU that is cheapest in the objective's terms;
* DIMMs fill every memory channel (1 DPC first), growing until the memory rule is satisfied;
* for a multi-node cluster, one NIC of >= 200 Gb/s per GPU, in slots left free by the GPUs;
* enough PSUs for the redundancy policy at the site's input voltage (sized from the engine's own
  power budget).

Each candidate is validated with ``evaluate`` and only builds with zero errors are suggested.
Ranking is exact: every candidate gets a lower bound of its ranking key before it is validated
(exact GPU count, GPU TDP as a power floor, the price of the parts that cannot change), candidates
are validated in bound order, and the search stops once ``limit`` validated builds beat every
remaining bound.  When no single server can run the workload, the same search sizes a cluster of
identical nodes (engine.plan.cluster): per chassis and GPU, the most GPUs a node can hold with one NIC
each, and the fewest nodes that fit the model and meet --target-days (give a target to trade
money for time: more nodes are never added just to go faster).  Cluster node builds carry no
workload, because the rules judge one server and the job needs all of them.

The estimator and the evaluator are parameters, so tests on a small catalog can inject their own.

The package, one job per module:

* :mod:`.results`: what a search returns and takes (``Suggestion``, ``SuggestResult``,
  ``Constraints``, ``SuggestError``);
* :mod:`.ranking`: the ranking key per objective and its lower bounds;
* :mod:`.placement`: which slots the GPUs and NICs go in, and the NVLink bridges they get;
* :mod:`.fill_in`: CPUs, DIMMs, drives and PSUs around the GPUs;
* :mod:`.candidates`: one unvalidated build per chassis, GPU model and count;
* :mod:`.repair`: evaluate a candidate, repair what the rules say, apply the constraints;
* :mod:`.search`: single-server and cluster candidates, validated best first;
* this module: :func:`suggest`, which runs them in that order.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from slotwise.engine.cost.pricing import PriceList
from slotwise.engine.inputs import ref
from slotwise.engine.plan.suggest.candidates import (
    FAMILIES,
    SearchContext,
    default_estimator,
    default_evaluator,
    select_chassis,
    takes_per_server,
)
from slotwise.engine.plan.suggest.fill_in import default_memory_ratio, draw_estimate, psu_count_for
from slotwise.engine.plan.suggest.placement import EXHAUSTIVE_SLOTS, catalog_placer
from slotwise.engine.plan.suggest.results import (
    OBJECTIVES,
    Constraints,
    Estimator,
    Evaluator,
    Objective,
    SuggestError,
    Suggestion,
    SuggestResult,
)
from slotwise.engine.plan.suggest.search import (
    best_first,
    multi_node_candidates,
    single_node_candidates,
)
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import Catalog

__all__ = [
    "EXHAUSTIVE_SLOTS",
    "FAMILIES",
    "OBJECTIVES",
    "Constraints",
    "Estimator",
    "Evaluator",
    "Objective",
    "SuggestError",
    "SuggestResult",
    "Suggestion",
    "default_memory_ratio",
    "draw_estimate",
    "psu_count_for",
    "select_chassis",
    "suggest",
]


def suggest(
    workload: Workload,
    catalog: Catalog,
    constraints: Constraints | None = None,
    *,
    objective: str = "gpus",
    limit: int = 5,
    prices: PriceList | None = None,
    estimator: Estimator | None = None,
    evaluator: Evaluator | None = None,
    arch: Any = None,
    memory_ratio: float | None = None,
) -> SuggestResult:
    """The best ``limit`` builds for ``workload``; see the module doc.  Raises SuggestError.

    ``estimator``/``evaluator`` default to engine.estimate.estimate / engine.check.evaluate.evaluate;
    ``memory_ratio`` (host memory per GPU memory to aim for) defaults to the memory rule's own.
    """
    if objective not in OBJECTIVES:
        raise SuggestError(f"objective {objective!r}: use one of {', '.join(OBJECTIVES)}")
    if limit < 1:
        raise SuggestError(f"{ref('limit')} must be at least 1")
    cons = constraints or Constraints()
    if objective == "price" and prices is None:
        raise SuggestError(f"{ref('objective', 'price')} needs a price list ({ref('prices')})")
    if cons.budget is not None and prices is None:
        raise SuggestError(f"{ref('budget')} needs a price list ({ref('prices')})")
    from slotwise.engine.estimate.checkpoint import served_precision

    if arch is None:
        from slotwise.engine.model.resolve import resolve_arch

        arch = resolve_arch(workload, catalog)
    ctx = SearchContext(
        workload=workload,
        catalog=catalog,
        cons=cons,
        objective=objective,
        prices=prices,
        estimator=estimator or default_estimator(),
        evaluator=evaluator or default_evaluator(),
        arch=arch,
        memory_ratio=default_memory_ratio() if memory_ratio is None else memory_ratio,
        placer=catalog_placer(catalog),
    )
    ctx.per_server_kw = takes_per_server(ctx.estimator)
    ctx.real = estimator is None and evaluator is None
    chassis = select_chassis(catalog, cons)
    notes: list[str] = []
    if not chassis:
        notes.append("No chassis in the catalog matches the chassis/cooling constraints.")
    found, validated = best_first(ctx, single_node_candidates(ctx, chassis), limit)
    multi = False
    if not found and chassis:
        notes.append(
            "No single-server build runs this workload within the constraints; "
            "sizing a cluster of identical nodes."
        )
        multi = True
        more, v2 = best_first(ctx, multi_node_candidates(ctx, chassis), limit)
        found, validated = more, validated + v2
    ranked = tuple(dataclasses.replace(s, rank=i + 1) for i, s in enumerate(found))
    if ctx.capped and not found:
        past, per, gpu = min(ctx.capped)
        notes.append(
            f"The search stopped at {ref('max_nodes', str(cons.max_nodes))}: the fewest that "
            f"would run the workload is {past:,} nodes of {per} x {gpu} (raise the limit to "
            f"{past} to see them)."
        )
    if found:
        notes.append(
            f"Completed builds: a mirrored pair of boot drives in the chassis' drive bays; DIMMs "
            f"in every memory channel at the speed the CPU runs them, sized to at least "
            f"{ctx.memory_ratio:g} x the GPU memory (rule of thumb from NVIDIA's DGX H100 / H200: "
            "2 TB of host memory for 640 GB / 1,128 GB of GPU memory, 3.2x / 1.8x; DGX H100/H200 "
            "user guide, hardware overview); one NIC of 200 Gb/s or more per GPU for multi-node "
            "training."
        )
    if prices is not None and prices.any_example:
        notes.append(
            f"Prices come from {prices.origin or 'the price list'}, which is marked EXAMPLE: "
            "they are not quotes."
        )
    return SuggestResult(
        suggestions=ranked,
        objective=objective,
        multi_node=multi,
        notes=tuple(notes),
        rejected=tuple(ctx.rejected.most_common()),
        validated=validated,
        precision=served_precision(workload, arch)[0],
    )
