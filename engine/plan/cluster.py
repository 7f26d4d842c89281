"""The one cluster plan: N identical nodes, their rail-optimised fabric, racks, power and BOM.

``plan_cluster(...)`` composes :mod:`engine.plan.fabric` (compute fabric and the management
networks beside it, rules reproducing NVIDIA's DGX SuperPOD tables) and :mod:`engine.plan.racks`
(nodes per rack, circuits, PDUs, elevation).  Suggest, the BOM's cluster section, compare and
``slotwise cluster`` all call it; :mod:`engine.bom.cluster_doc` saves it as a document.

Power: nodes at their worst case at the wall (AC, PSU losses included) plus the fabric: every
compute switch at its published maximum with optics, or its typical figure where no maximum is
published (the plan says which), plus the management devices at the RA's figures.  A switch with
no published power is counted as nothing and the plan says "not verified".
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from slotwise.engine.cost.tco import TcoResult, servers_tco
from slotwise.engine.inputs import ref
from slotwise.engine.plan.fabric import (
    ComputeFabric,
    FabricError,
    ManagementGroup,
    plan_compute_fabric,
    plan_management,
)
from slotwise.engine.plan.racks import (
    W_TO_BTU_H,
    Feed,
    RackedDevice,
    RackError,
    RackPlan,
    Site,
    plan_racks,
)
from slotwise.engine.plan.switches import (
    REACHES,
    Reach,
    Switch,
    default_switch,
    optic,
    reach_for,
    switch_by_key,
)
from slotwise.parts.bounds import (
    ClusterNodes,
    NicPorts,
    NodeGpus,
    NodeHeightU,
    NodeNics,
    NodeWatts,
    PortGbps,
    Price,
)

DEFAULT_KW_PER_RACK = 40.0
DEFAULT_RACK_U = 48
PN_NEEDED = "PN needed"
MAX_NODES = 100_000  # parts.bounds.ClusterNodes


class NodeSpec(BaseModel):
    """What a cluster needs to know of its node build."""

    model_config = ConfigDict(frozen=True)

    chassis: str = Field(min_length=1, max_length=200)
    gpu: str = Field(min_length=1, max_length=200)
    gpus_per_node: NodeGpus
    nic: str | None = Field(None, max_length=200)
    nic_gbps: PortGbps | None = None
    nics_per_node: NodeNics = 0
    nic_ports: NicPorts = 1
    links_per_module: int = Field(
        1,
        ge=1,
        le=8,
        description="fabric links per node-side module (2 on a DGX's twin-port cages)",
    )
    power_w: NodeWatts | None = Field(None, description="worst case at the wall, W")
    height_u: NodeHeightU | None = None
    price: Price | None = None


class Line(BaseModel):
    """One line of the cluster BOM."""

    model_config = ConfigDict(frozen=True)

    item: str
    pn: str | None
    qty: int
    unit_w: float | None = None
    unit_price: float | None = None
    source: str = ""

    @property
    def extended_price(self) -> float | None:
        return None if self.unit_price is None else self.unit_price * self.qty

    def to_json(self) -> dict:
        return {
            "item": self.item,
            "pn": self.pn or PN_NEEDED,
            "qty": self.qty,
            "unit_w": self.unit_w,
            "unit_price": self.unit_price,
            "extended_price": self.extended_price,
            "source": self.source,
        }


class ClusterPlan(BaseModel):
    """How many nodes of one node build, the fabric between them, racks, power and BOM."""

    model_config = ConfigDict(frozen=True)

    node: NodeSpec
    nodes: ClusterNodes
    site: Site
    switch_key: str | None = None
    planes: int = 1
    fabric: ComputeFabric | None = None
    management: tuple[ManagementGroup, ...] = ()
    rack_plan: RackPlan | None = None
    lines: tuple[Line, ...] = ()
    notes: tuple[str, ...] = ()

    # --- the node, as older callers read it
    @property
    def gpus_per_node(self) -> int:
        return self.node.gpus_per_node

    @property
    def gpu(self) -> str:
        return self.node.gpu

    @property
    def chassis(self) -> str:
        return self.node.chassis

    @property
    def nic(self) -> str | None:
        return self.node.nic

    @property
    def nic_gbps(self) -> int | None:
        return self.node.nic_gbps

    @property
    def nics_per_node(self) -> int:
        return self.node.nics_per_node

    @property
    def node_power_w(self) -> float | None:
        return self.node.power_w

    @property
    def node_u(self) -> int | None:
        return self.node.height_u

    @property
    def kw_per_rack(self) -> float:
        return self.site.rack_kw

    @property
    def rack_u(self) -> int:
        return self.site.rack_u

    @property
    def total_gpus(self) -> int:
        return self.nodes * self.node.gpus_per_node

    # --- power and racks
    @property
    def servers_power_w(self) -> float | None:
        return None if self.node.power_w is None else self.nodes * self.node.power_w

    @property
    def fabric_power_w(self) -> float:
        """Compute switches (max, else typical) + management devices; unknowns count 0."""
        w = 0.0
        if self.fabric is not None:
            w += self.fabric.power_max_w or self.fabric.power_typical_w or 0.0
        w += sum(g.count * (g.device.power_w or 0.0) for g in self.management)
        return w

    @property
    def fabric_power_verified(self) -> bool:
        if self.fabric is not None and self.fabric.switch.power_max_w is None:
            return False
        return all(g.device.power_w is not None for g in self.management)

    @property
    def total_power_w(self) -> float | None:
        s = self.servers_power_w
        return None if s is None else s + self.fabric_power_w

    @property
    def racks(self) -> int | None:
        return None if self.rack_plan is None else self.rack_plan.rack_count

    @property
    def nodes_per_rack(self) -> int | None:
        return None if self.rack_plan is None else self.rack_plan.nodes_per_rack

    def to_json(self) -> dict:
        fab = self.fabric
        rp = self.rack_plan
        feed = self.site.feed
        total = self.total_power_w
        return {
            "nodes": self.nodes,
            "gpus": self.total_gpus,
            "gpus_per_node": self.gpus_per_node,
            "gpu": self.gpu,
            "chassis": self.chassis,
            "nic": self.nic,
            "nic_gbps": self.nic_gbps,
            "nics_per_node": self.nics_per_node,
            "fabric": {
                "compute": None if fab is None else _fabric_json(fab, self.site.cable_m),
                "management": [
                    {
                        "role": g.role,
                        "model": g.device.name,
                        "pn": g.device.pn or PN_NEEDED,
                        "count": g.count,
                        "power_w": g.device.power_w,
                        "basis": g.basis,
                    }
                    for g in self.management
                ],
            },
            "racks": self.racks,
            "nodes_per_rack": self.nodes_per_rack,
            "rack_kw": self.site.rack_kw,
            "rack_u": self.site.rack_u,
            "rack_layout": []
            if rp is None
            else [
                {
                    "kind": r.kind,
                    "count": r.count,
                    "peak_w": r.peak_w,
                    "used_u": r.used_u,
                    "circuits": r.circuits,
                    "pdus": r.pdus,
                    "elevation": r.elevation,
                }
                for r in rp.racks
            ],
            "power": {
                "node_w": self.node_power_w,
                "nodes_w": self.servers_power_w,
                "fabric_w": self.fabric_power_w,
                "fabric_verified": self.fabric_power_verified,
                "total_w": total,
                "btu_h": None if total is None else total * W_TO_BTU_H,
            },
            "circuits": None
            if rp is None
            else {
                "feed": feed.label(),
                "phases": feed.phases,
                "volts": feed.volts,
                "amps": feed.amps,
                "derating": feed.derating,
                "usable_w": feed.usable_w,
                "provisioning": self.site.provisioning,
                "per_compute_rack": rp.racks[0].circuits if rp.racks else 0,
                "total": rp.circuits,
                "pdus": rp.pdus,
            },
            "lines": [ln.to_json() for ln in self.lines],
            "notes": list(self.notes),
        }


def _fabric_json(fab: ComputeFabric, cable_m: float) -> dict:
    sw = fab.switch
    reach: Reach | None = reach_for(fab.gbps, cable_m)
    return {
        "switch_model": sw.name,
        "switch_key": sw.key,
        "switch_pn": sw.pn or PN_NEEDED,
        "protocol": sw.protocol,
        "port_gbps": fab.gbps,
        "radix": fab.radix,
        "rails": fab.rails,
        "planes": fab.planes,
        "nodes_per_unit": fab.nodes_per_unit,
        "units": fab.units,
        "tiers": fab.tiers,
        "leaf": fab.leaf,
        "spine": fab.spine,
        "core": fab.core,
        "switches": fab.switches,
        "cables": dict(fab.cables),
        "cable_m": cable_m,
        "cable_reach": None if reach is None else reach.name,
        "transceivers_switch": fab.transceivers_switch,
        "transceivers_node": fab.transceivers_node,
        "power_typical_w": fab.power_typical_w,
        "power_max_w": fab.power_max_w,
        "source": sw.source,
        "confidence": sw.confidence,
    }


def _price(pn: str | None, prices: Mapping[str, float] | None) -> float | None:
    return None if pn is None or prices is None else prices.get(pn)


def _lines(
    node: NodeSpec,
    nodes: int,
    fab: ComputeFabric | None,
    mgmt: tuple[ManagementGroup, ...],
    rp: RackPlan | None,
    site: Site,
    prices: Mapping[str, float] | None,
) -> tuple[Line, ...]:
    out = [
        Line(
            item=f"node: {node.chassis}, {node.gpus_per_node} x {node.gpu}",
            pn=node.chassis,
            qty=nodes,
            unit_w=node.power_w,
            unit_price=node.price,
            source="the node BOM (its quote's total where priced)",
        )
    ]
    if fab is not None:
        sw = fab.switch
        reach = reach_for(fab.gbps, site.cable_m) or REACHES[-1]
        unit_w = sw.power_max_w if sw.power_max_w is not None else sw.power_typical_w
        tiers = ["leaf", "spine", "core"][: fab.tiers if fab.tiers > 1 else 1]
        out.append(
            Line(
                item=f"compute switch ({'/'.join(tiers)}): {sw.name}",
                pn=sw.pn,
                qty=fab.switches,
                unit_w=unit_w,
                unit_price=_price(sw.pn, prices),
                source=sw.source,
            )
        )
        if fab.transceivers_switch:
            o = optic(fab.gbps, "switch", reach)
            out.append(
                Line(
                    item=f"compute {o.name}",
                    pn=o.pn,
                    qty=fab.transceivers_switch,
                    unit_price=_price(o.pn, prices),
                    source=o.source,
                )
            )
        role = "node" if fab.links_per_node_module > 1 else "node-single"
        o = optic(fab.gbps, role, reach)
        out.append(
            Line(
                item=f"compute {o.name}",
                pn=o.pn,
                qty=fab.transceivers_node,
                unit_price=_price(o.pn, prices),
                source=o.source,
            )
        )
        cable = optic(fab.gbps, "cable", reach)
        for key, label in (
            ("node_leaf", "node to leaf"),
            ("leaf_spine", "leaf to spine"),
            ("spine_core", "spine to core"),
        ):
            if fab.cables.get(key):
                out.append(
                    Line(
                        item=f"cable, {label}: {cable.name} ({cable.reach})",
                        pn=cable.pn,
                        qty=fab.cables[key],
                        unit_price=_price(cable.pn, prices),
                        source=cable.source,
                    )
                )
        if fab.cables.get("ufm_leaf"):
            out.append(
                Line(
                    item="cable, UFM to leaf (not in the RA's NDR cable count)",
                    pn=None,
                    qty=fab.cables["ufm_leaf"],
                    source=sw.source,
                )
            )
    for g in mgmt:
        out.append(
            Line(
                item=f"{g.role}: {g.device.name}"
                + (" (scaled)" if g.basis.startswith("scaled") else ""),
                pn=g.device.pn,
                qty=g.count,
                unit_w=g.device.power_w,
                unit_price=_price(g.device.pn, prices),
                source=g.basis,
            )
        )
    if rp is not None:
        out.append(
            Line(
                item=f"rack PDU, {site.feed.label()} input",
                pn=None,
                qty=rp.pdus,
                source="one PDU per circuit (engine.plan.racks)",
            )
        )
        out.append(
            Line(
                item=f"rack, {site.rack_u}U, at least 600 x 1100 mm",
                pn=None,
                qty=rp.rack_count,
                source="NVIDIA DGX B200 deployment guidance: racks >= 600 x 1100 mm, >= 48U",
            )
        )
    return tuple(out)


def plan_cluster(
    *,
    nodes: int,
    gpus_per_node: int,
    gpu: str,
    chassis: str,
    nic: str | None,
    nic_gbps: int | None,
    nics_per_node: int,
    node_power_w: float | None,
    node_u: int | None,
    kw_per_rack: float = DEFAULT_KW_PER_RACK,
    nic_ports: int = 1,
    node_price: float | None = None,
    site: Site | None = None,
    switch: str | None = None,
    planes: int = 1,
    links_per_module: int = 1,
    prices: Mapping[str, float] | None = None,
) -> ClusterPlan:
    """Plan ``nodes`` copies of a node (keyword form kept for suggest and the BOM's section)."""
    node = NodeSpec(
        chassis=chassis,
        gpu=gpu,
        gpus_per_node=gpus_per_node,
        nic=nic,
        nic_gbps=nic_gbps,
        nics_per_node=nics_per_node,
        nic_ports=nic_ports,
        links_per_module=links_per_module,
        power_w=node_power_w,
        height_u=node_u,
        price=node_price,
    )
    if site is None:
        site = Site(rack_kw=kw_per_rack, rack_u=DEFAULT_RACK_U)
    return plan_nodes(node, nodes, site, switch=switch, planes=planes, prices=prices)


def choose_switch(node: NodeSpec, key: str | None) -> Switch | None:
    if key is not None:
        return switch_by_key(key)
    return None if node.nic_gbps is None else default_switch(node.nic_gbps)


def plan_nodes(
    node: NodeSpec,
    nodes: int,
    site: Site,
    *,
    switch: str | None = None,
    planes: int = 1,
    prices: Mapping[str, float] | None = None,
) -> ClusterPlan:
    """The cluster of ``nodes`` copies of ``node`` (see the module doc).  Raises FabricError or
    RackError (both ValueError) with a message naming what to change."""
    if not 1 <= nodes <= MAX_NODES:
        raise FabricError(f"{nodes:,} nodes: a cluster plan takes 1 to {MAX_NODES:,}")
    notes: list[str] = [
        "Node power is each server's worst case at the wall (AC, PSU losses included)."
    ]
    fab = None
    links = node.nics_per_node * node.nic_ports
    if node.nic_gbps and node.nics_per_node:
        sw = choose_switch(node, switch)
        if sw is None:
            raise FabricError(
                f"no switch '{switch}': set {ref('switch')} to qm9700, q3400 or sn5600"
                if switch is not None
                else f"no listed switch runs {node.nic_gbps} Gb/s ports; fabric not sized"
            )
        want = node.gpus_per_node * planes
        if links != want:
            fix = (
                f"add {math.ceil((want - links) / node.nic_ports)} x {node.nic}"
                if links < want
                else f"remove {(links - want) // node.nic_ports} x {node.nic}"
            )
            notes.append(
                f"One rail per GPU wants {want} fabric links a node; the node has {links} "
                f"({node.nics_per_node} x {node.nic}): {fix}.  The fabric is sized for {want}."
            )
        if reach_for(node.nic_gbps, site.cable_m) is None:
            raise FabricError(
                f"a {site.cable_m:g} m cable run is past the longest optical reach class "
                f"({REACHES[-1].max_m:g} m)"
            )
        fab = plan_compute_fabric(
            nodes,
            node.gpus_per_node,
            sw,
            node.nic_gbps,
            planes=planes,
            links_per_node_module=node.links_per_module,
        )
        if sw.power_max_w is None:
            notes.append(
                f"Fabric power not verified: {sw.name}'s maximum power is not published; "
                + (
                    f"counted at its typical {sw.power_typical_w:,.0f} W."
                    if sw.power_typical_w is not None
                    else "counted as 0 W."
                )
            )
    elif nodes > 1:
        notes.append("The node build has no high-speed NIC; fabric not sized.")
    mgmt = plan_management(nodes, fab) if nodes > 1 else ()
    if mgmt:
        notes.append(
            "Storage, in-band and out-of-band networks are scaled from NVIDIA's H100 SuperPOD "
            "4-SU BOM (NVIDIA publishes points, not a rule)."
        )
    rp = None
    if node.power_w is None:
        notes.append("Node power is unknown, so racks, circuits and total power are unknown.")
    else:
        devices: list[RackedDevice] = []
        if fab is not None:
            sw = fab.switch
            devices.append(
                RackedDevice(
                    name=sw.name,
                    count=fab.switches,
                    height_u=sw.height_u,
                    power_w=sw.power_max_w or sw.power_typical_w,
                )
            )
        devices += [
            RackedDevice(
                name=g.device.name,
                count=g.count,
                height_u=g.device.height_u,
                power_w=g.device.power_w,
            )
            for g in mgmt
        ]
        rp = plan_racks(
            nodes=nodes,
            node_w=node.power_w,
            node_u=node.height_u,
            node_name=node.chassis,
            devices=tuple(devices),
            site=site,
        )
        notes += list(rp.notes)
    return ClusterPlan(
        node=node,
        nodes=nodes,
        site=site,
        switch_key=switch,
        planes=planes,
        fabric=fab,
        management=mgmt,
        rack_plan=rp,
        lines=_lines(node, nodes, fab, mgmt, rp, site, prices),
        notes=tuple(notes),
    )


__all__ = [
    "DEFAULT_KW_PER_RACK",
    "ClusterPlan",
    "FabricError",
    "Feed",
    "Line",
    "NodeSpec",
    "RackError",
    "Site",
    "cluster_markdown",
    "plan_cluster",
    "plan_nodes",
]


def cluster_tco(
    plan: ClusterPlan,
    *,
    years: int = 3,
    utilization: float = 1.0,
    pue: float = 1.0,
    kwh_price: float | None = None,
    cloud_gpu_hour: float | None = None,
    currency: str = "USD",
) -> TcoResult | None:
    """TCO of the whole cluster (engine.cost.tco): power = nodes at the wall + the fabric and
    management networks (``total_power_w``); purchase = the sum of the BOM lines, unknown (no
    break-even month) while any line has no price, never a partial total.  None when the node
    power is unknown."""
    node_w = plan.node_power_w
    if node_w is None:
        return None
    priced = all(ln.unit_price is not None for ln in plan.lines)
    purchase = sum(ln.extended_price or 0.0 for ln in plan.lines) if priced else None
    return servers_tco(
        purchase_price=purchase,
        node_power_w=node_w,
        nodes=plan.nodes,
        gpus=plan.total_gpus,
        fabric_power_w=plan.fabric_power_w,
        fabric_priced=True,
        years=years,
        utilization=utilization,
        pue=pue,
        kwh_price=kwh_price,
        cloud_gpu_hour=cloud_gpu_hour,
        currency=currency,
    )


def unpriced_lines(plan: ClusterPlan) -> tuple[str, ...]:
    """The items of the cluster BOM without a price (their part number, or the item)."""
    return tuple(dict.fromkeys(ln.pn or ln.item for ln in plan.lines if ln.unit_price is None))


def cluster_markdown(plan: ClusterPlan) -> str:
    """A Markdown section describing the cluster (the BOM export, suggest, `cluster --format md`)."""
    lines = [
        "## Cluster",
        "",
        "| item | value |",
        "| --- | --- |",
        f"| nodes | {plan.nodes} x {plan.chassis} |",
        f"| GPUs | {plan.total_gpus} x {plan.gpu} ({plan.gpus_per_node} per node) |",
    ]
    if plan.nic:
        lines.append(
            f"| NICs | {plan.nics_per_node} per node x {plan.nic} "
            f"({plan.nic_gbps} Gb/s), {plan.nodes * plan.nics_per_node} in all |"
        )
    fab = plan.fabric
    if fab is not None:
        tiers = {1: "single switch", 2: "two-tier leaf/spine", 3: "three-tier leaf/spine/core"}
        sw = f"{fab.leaf} leaf"
        if fab.spine:
            sw += f" + {fab.spine} spine"
        if fab.core:
            sw += f" + {fab.core} core"
        lines.append(
            f"| compute fabric | rail-optimised, {tiers[fab.tiers]}, non-blocking: {sw} = "
            f"{fab.switches} x {fab.switch.name} ({fab.radix} ports of {fab.gbps} Gb/s; "
            f"{fab.units} unit(s) of {fab.nodes_per_unit} nodes, {fab.rails} rails"
            + (f" x {fab.planes} planes" if fab.planes > 1 else "")
            + ") |"
        )
        cab = ", ".join(f"{k.replace('_', '→')} {v:,}" for k, v in fab.cables.items() if v)
        reach = reach_for(fab.gbps, plan.site.cable_m)
        lines.append(
            f"| cables | {cab}; {reach.name if reach else 'unknown reach'} "
            f"(longest run {plan.site.cable_m:g} m) |"
        )
        ts = "unknown" if fab.transceivers_switch is None else f"{fab.transceivers_switch:,}"
        lines.append(f"| transceivers | {ts} switch side, {fab.transceivers_node:,} node side |")
    for g in plan.management:
        how = "scaled" if g.basis.startswith("scaled") else "as the 4-SU BOM"
        lines.append(f"| {g.role} | {g.count} x {g.device.name} ({how}) |")
    total = plan.total_power_w
    if total is not None:
        verified = "" if plan.fabric_power_verified else " (not verified)"
        lines.append(
            f"| power | {total / 1000:,.1f} kW at the wall, {total * W_TO_BTU_H:,.0f} BTU/h "
            f"({plan.node_power_w:,.0f} W per node; fabric {plan.fabric_power_w / 1000:,.1f} kW"
            f"{verified}) |"
        )
    else:
        lines.append("| power | unknown |")
    rp = plan.rack_plan
    if rp is not None:
        feed = plan.site.feed
        lines.append(
            f"| racks | {rp.rack_count} ({rp.nodes_per_rack} nodes per rack at "
            f"{plan.site.rack_kw:g} kW, {plan.site.rack_u}U) |"
        )
        lines.append(
            f"| circuits | {rp.circuits} x {feed.label()} ({feed.derating:.0%} continuous "
            f"load, {plan.site.provisioning} provisioning), {rp.pdus} PDUs |"
        )
    lines.append("")
    lines += [f"- {n}" for n in plan.notes]
    return "\n".join(lines) + "\n"
