"""Cluster sizing and TCO for one saved build (the Markdown export's extra sections).

``cluster_for_build(build, catalog, report, kw_per_rack)`` says whether the build's workload needs
more than this one server and, if so, lays out a cluster of identical copies of it with
:func:`engine.plan.cluster.plan_nodes` (the one cluster plan).  The node count is the report's
one sizing answer (``report.verdict.sizing``, :mod:`engine.check.sizing`: memory, time and
serving targets with the planning margin, and the build's scale-out NICs); nothing here decides
a count.

Training across nodes gets one high-speed NIC per GPU (rail-optimised fabric, NVIDIA DGX
SuperPOD reference architecture); the NIC is the build's own fast NIC, else the catalog NIC the
``network`` rule would recommend.

``tco_for_build(...)`` prices the build (from the line items) and feeds engine.cost.tco; with any SKU
unpriced it returns the SKUs that lack a price and no result (no partial totals).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict

from slotwise.engine.build import Build
from slotwise.engine.build.items import gpu_inventory, line_items
from slotwise.engine.check.report import Report
from slotwise.engine.cost.tco import TcoInputs, TcoResult, compute_tco
from slotwise.engine.plan.cluster import (
    DEFAULT_KW_PER_RACK,
    DEFAULT_RACK_U,
    ClusterPlan,
    NodeSpec,
    plan_nodes,
)
from slotwise.engine.plan.racks import Site
from slotwise.parts.catalog import Catalog, onboard_nics
from slotwise.parts.schema import Nic

# Minimum per-port speed of an east-west training NIC: the network rule's thresholds.
PCIE_MIN_GBPS = 200
HGX_MIN_GBPS = 400
DEFAULT_MAX_NODES = 1024


def needs_cluster(build: Build, report: Report) -> str | None:
    """Why the build's workload needs more than this server (the one sizing answer's deciding
    need, or its problem), or None."""
    sz = report.verdict.sizing if report.verdict is not None else None
    if build.workload is None or sz is None or sz.servers == 1:
        return None
    d = sz.deciding
    if sz.servers is not None and d is not None and (d.servers or 0) > 1:
        return d.text
    return sz.problem


def _fast_nic(build: Build, catalog: Catalog, min_gbps: int) -> tuple[Nic | None, int]:
    """(NIC model, how many the build has): the build's own fast NIC, else the catalog's slowest
    stand-up NIC that meets ``min_gbps`` (as the network rule recommends; 0 in the build)."""
    own = [catalog.nics[s] for s in build.slots.values() if s in catalog.nics]
    ch = catalog.chassis.get(build.chassis)
    own += [n for _, n in onboard_nics(catalog, ch)] if ch is not None else []
    fast = [n for n in own if n.port_gbps >= min_gbps and n.form != "OCP3"]
    if fast:
        nic = min(fast, key=lambda n: n.sku)
        return nic, sum(1 for n in own if n.sku == nic.sku)
    options = [
        n
        for n in catalog.nics.values()
        if n.port_gbps >= min_gbps and n.form not in ("OCP3", "onboard", None) and n.pcie_lanes
    ]
    return (min(options, key=lambda n: (n.port_gbps, n.sku)) if options else None), 0


class BuildCluster(BaseModel):
    """The cluster a saved build needs, or why it could not be sized."""

    model_config = ConfigDict(frozen=True)

    reason: str
    plan: ClusterPlan | None = None
    problem: str | None = None


def cluster_for_build(
    build: Build,
    catalog: Catalog,
    report: Report,
    kw_per_rack: float = DEFAULT_KW_PER_RACK,
    max_nodes: int = DEFAULT_MAX_NODES,
    prices: Mapping[str, float] | None = None,
) -> BuildCluster | None:
    """None when one server runs the workload; else the plan (or the problem sizing it).
    ``prices`` (SKU / part number -> price) price the node (the sum of its line items, when
    every one has a price) and the cluster BOM lines whose part number the list has."""
    reason = needs_cluster(build, report)
    if reason is None:
        return None
    sized = nodes_for_workload(build, catalog, report, max_nodes)
    if isinstance(sized, str):
        return BuildCluster(reason=reason, problem=sized)
    node_price = None
    if prices:
        items = line_items(build, catalog, prices)
        # the parts decide whether the node is priced; unpriced companion lines (cords,
        # transceivers) are left out of the node price, as in tco_for_build
        if all(i.unit_price is not None for i in items if not i.companion):
            node_price = sum(i.extended_price or 0.0 for i in items)
    spec, notes = node_spec(build, catalog, report, price=node_price)
    try:
        site = Site(rack_kw=kw_per_rack, rack_u=DEFAULT_RACK_U)
        plan = plan_nodes(spec, sized, site, prices=prices)
    except ValueError as exc:  # FabricError / RackError: the message names what to change
        return BuildCluster(reason=reason, problem=str(exc))
    if notes:
        plan = plan.model_copy(update={"notes": (*plan.notes, *notes)})
    return BuildCluster(reason=reason, plan=plan)


def nodes_for_workload(
    build: Build, catalog: Catalog, report: Report, max_nodes: int = DEFAULT_MAX_NODES
) -> int | str:
    """Copies of ``build`` its workload needs: the report's one sizing answer
    (:mod:`engine.check.sizing`), or why it cannot be sized (no scale-out NIC, out of reach,
    over ``max_nodes``)."""
    per_node, _mem = gpu_inventory(build, catalog)
    if not per_node:
        return "the build has no GPUs to copy"
    sz = report.verdict.sizing if report.verdict is not None else None
    if sz is None:
        return "the workload estimate is unknown"
    if sz.servers is None:
        why = sz.problem or "it could not be sized"
        return why + (f" (fix: {sz.fix})" if sz.fix else "")
    if sz.servers > max_nodes:
        return f"it takes {sz.servers:,} servers, more than the limit of {max_nodes:,}"
    return sz.servers


def node_spec(
    build: Build,
    catalog: Catalog,
    report: Report,
    price: float | None = None,
) -> tuple[NodeSpec, tuple[str, ...]]:
    """What a cluster needs of this node build, and notes on what was assumed.  Training across
    nodes gets one fast NIC per GPU (rail-optimised fabric, NVIDIA DGX SuperPOD RA): the build's
    own fast NIC, else the catalog NIC the ``network`` rule would recommend (the plan's notes say
    how many to add)."""
    per_node, _mem = gpu_inventory(build, catalog)
    gpu_sku = next(iter(g for g in build.slots.values() if g in catalog.gpus), None)
    if build.baseboard and build.baseboard in catalog.baseboards:
        gpu_sku = catalog.baseboards[build.baseboard].gpu_sku
    est = report.estimate
    if est is not None:
        gpu_sku = est.gpu
    min_gbps = HGX_MIN_GBPS if build.baseboard else PCIE_MIN_GBPS
    nic, have = _fast_nic(build, catalog, min_gbps)
    notes: list[str] = []
    nics = have
    if nic is not None and have < per_node:
        nics = per_node
        notes.append(
            f"A rail-optimised fabric wants one NIC of {min_gbps} Gb/s or more per GPU: "
            f"{per_node} x {nic.sku} per node; the build has {have}, add {per_node - have}.  "
            "Node power is the build as saved (without the added NICs)."
        )
    ch = catalog.chassis.get(build.chassis)
    spec = NodeSpec(
        chassis=build.chassis,
        gpu=gpu_sku or "unknown GPU",
        gpus_per_node=max(1, per_node),
        nic=nic.sku if nic is not None and nics else None,
        nic_gbps=nic.port_gbps if nic is not None and nics else None,
        nics_per_node=nics,
        nic_ports=nic.ports if nic is not None else 1,
        power_w=wall_power(report),
        height_u=ch.form_factor_u if ch is not None else None,
        price=price,
    )
    return spec, tuple(notes)


def wall_power(report: Report) -> float | None:
    """A server's worst-case draw at the wall: ``Report.wall_power_w`` (the one node power)."""
    return report.wall_power_w


class TcoParams(BaseModel):
    """The user's TCO inputs (flags), before the build's price and power are known."""

    model_config = ConfigDict(frozen=True)

    years: int = 3
    utilization: float = 1.0
    pue: float = 1.0
    kwh_price: float | None = None
    cloud_gpu_hour: float | None = None


class BuildTco(BaseModel):
    model_config = ConfigDict(frozen=True)

    result: TcoResult | None = None
    missing_prices: tuple[str, ...] = ()
    problem: str | None = None
    # Companion lines (cords, transceivers, required lines) the price list does not price:
    # the purchase price leaves them out and says so.
    unpriced_companions: tuple[str, ...] = ()


def tco_for_build(
    build: Build,
    catalog: Catalog,
    report: Report,
    prices: Mapping[str, float],
    currency: str,
    params: TcoParams,
    *,
    unpriced_ok: bool = False,
) -> BuildTco:
    """TCO of the build as saved (one server): purchase = the sum of its priced line items.

    Companion lines the price list does not price (cords, transceivers, a DPU's required lines)
    are left out of the purchase price and named in ``unpriced_companions``.  A part without a
    price stops it (``missing_prices`` names them), unless ``unpriced_ok``:
    then the purchase price is unknown (no break-even month) and the running costs are still
    computed, with the unpriced parts named beside the result (the app's TCO screen).  Bad
    parameters raise pydantic's ValidationError on ``TcoInputs`` (field ranges).
    """
    items = line_items(build, catalog, prices)
    missing = tuple(i.sku for i in items if i.unit_price is None and not i.companion)
    left_out = tuple(i.sku for i in items if i.unit_price is None and i.companion)
    if missing and not unpriced_ok:
        return BuildTco(missing_prices=missing)
    node_w = wall_power(report)
    if node_w is None:
        return BuildTco(problem="the build's power draw is unknown")
    gpus, _mem = gpu_inventory(build, catalog)
    if gpus < 1:
        return BuildTco(problem="the build has no GPUs to compare with cloud GPU-hours")
    inp = TcoInputs(
        purchase_price=None if missing else sum(i.extended_price or 0.0 for i in items),
        power_w=node_w,
        gpus=gpus,
        years=params.years,
        utilization=params.utilization,
        pue=params.pue,
        kwh_price=params.kwh_price,
        cloud_gpu_hour=params.cloud_gpu_hour,
        currency=currency,
    )
    return BuildTco(result=compute_tco(inp), missing_prices=missing, unpriced_companions=left_out)
