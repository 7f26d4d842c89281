"""Size a multi-node cluster when no single server can run the workload.

A plan answers: how many nodes of a given node build, how many GPUs in all, one high-speed NIC
per GPU (rail-optimised training fabrics give every GPU its own NIC), the leaf/spine switch count
of a non-blocking fat tree for the NIC speed, total power and racks at a given kW per rack.

Fabric sizing (folded Clos / fat tree, Leiserson 1985; Al-Fares et al., "A Scalable, Commodity
Data Center Network Architecture", SIGCOMM 2008): with switches of radix ``k`` a non-blocking
two-tier leaf/spine tree gives each leaf ``k/2`` host ports and ``k/2`` uplinks and serves at most
``k**2 / 2`` hosts; a three-tier tree serves at most ``k**3 / 4``.  Switch radix per NIC speed
comes from the vendor pages in :data:`SWITCHES`.

Power: nodes x the node's worst case at the wall, plus the fabric: each switch's optics (cages x
the per-cage power class the switch supports, from its user manual) and the switch's own power
where a source gives it.  A switch whose own power is not published is counted without it and
the plan says "not verified".  Racks hold the nodes and the fabric's watts (the switches' rack
space is not modelled).
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field


class SwitchModel(BaseModel):
    """A fabric switch: how many ports it offers at one port speed."""

    model_config = ConfigDict(frozen=True)

    name: str
    port_gbps: int
    radix: int
    source: str
    sku: str = Field(description="vendor part number, the key a price list prices it by")
    power_w: float | None = Field(None, description="the switch's own maximum, optics excluded")
    optics_cages: int | None = None
    optics_w_per_cage: float | None = Field(None, description="the cage power class it supports")
    power_source: str = ""

    @property
    def optics_w(self) -> float | None:
        if self.optics_cages is None or self.optics_w_per_cage is None:
            return None
        return self.optics_cages * self.optics_w_per_cage


# Port count at each speed, from NVIDIA's product pages.  Quantum-2 (QM9700/QM9790) has 32 OSFP
# cages = 64 ports of NDR 400 Gb/s, or 128 ports of NDR200 200 Gb/s in split mode; its user manual
# says the system supports Class 8 (17 W) OSFP transceivers in every cage (optics up to
# 32 x 17 = 544 W).  Quantum-X800 (Q3400) has 144 ports of XDR 800 Gb/s.  Neither switch's own
# maximum power was in a reachable source, so power_w stays unknown ("not verified").
_QM97_POWER = (
    "https://docs.nvidia.com/networking/display/QM97X0PUB/Interfaces: 'The system offers Class 8 "
    "(17W) OSFP112 transceivers support' (32 OSFP cages); the switch's own power: not found"
)
SWITCHES: tuple[SwitchModel, ...] = (
    SwitchModel(
        name="NVIDIA Quantum-2 QM9700 (NDR200 split mode)",
        port_gbps=200,
        radix=128,
        source="https://www.nvidia.com/en-us/networking/infiniband/qm9700/",
        sku="MQM9700-NS2F",
        optics_cages=32,
        optics_w_per_cage=17,
        power_source=_QM97_POWER,
    ),
    SwitchModel(
        name="NVIDIA Quantum-2 QM9700",
        port_gbps=400,
        radix=64,
        source="https://www.nvidia.com/en-us/networking/infiniband/qm9700/",
        sku="MQM9700-NS2F",
        optics_cages=32,
        optics_w_per_cage=17,
        power_source=_QM97_POWER,
    ),
    SwitchModel(
        name="NVIDIA Quantum-X800 Q3400",
        port_gbps=800,
        radix=144,
        source="https://www.nvidia.com/en-us/networking/products/infiniband/quantum-x800/",
        sku="Q3400-RA",
        power_source="switch and optics power: not found in a reachable source",
    ),
)

DEFAULT_KW_PER_RACK = 40.0
DEFAULT_RACK_U = 42


def switch_for(gbps: int) -> SwitchModel | None:
    """The listed switch whose port speed matches the NIC speed (the smallest one not slower)."""
    fitting = [s for s in SWITCHES if s.port_gbps >= gbps]
    return min(fitting, key=lambda s: s.port_gbps) if fitting else None


class Fabric(BaseModel):
    model_config = ConfigDict(frozen=True)

    switch: SwitchModel
    endpoints: int
    tiers: int = Field(description="1 = one switch, 2 = leaf/spine, 3 = leaf/spine/core")
    leaves: int
    spines: int
    cores: int = 0

    @property
    def switches(self) -> int:
        return self.leaves + self.spines + self.cores

    @property
    def power_w(self) -> float:
        """What is known of the fabric's draw: switches' own power and optics where published."""
        per = (self.switch.power_w or 0) + (self.switch.optics_w or 0)
        return self.switches * per

    @property
    def power_verified(self) -> bool:
        return self.switch.power_w is not None and self.switch.optics_w is not None


def size_fabric(endpoints: int, switch: SwitchModel) -> Fabric:
    """Switch counts of a non-blocking fat tree for ``endpoints`` host ports (see module doc)."""
    if endpoints < 1:
        raise ValueError("a fabric needs at least one endpoint")
    k = switch.radix
    half = k // 2
    if endpoints <= k:
        return Fabric(switch=switch, endpoints=endpoints, tiers=1, leaves=1, spines=0)
    leaves = math.ceil(endpoints / half)
    if endpoints <= k * k // 2:
        # every leaf sends half its ports up; each spine port takes one leaf uplink
        spines = math.ceil(leaves * half / k)
        return Fabric(switch=switch, endpoints=endpoints, tiers=2, leaves=leaves, spines=spines)
    if endpoints > k**3 // 4:
        raise ValueError(
            f"{endpoints} endpoints exceed a three-tier fat tree of {k}-port switches "
            f"({k**3 // 4} max)"
        )
    # three tiers: pods of k/2 leaves + k/2 spines; core switches take the spines' uplinks
    pods = math.ceil(leaves / half)
    spines = pods * half
    cores = math.ceil(spines * half / k)
    return Fabric(
        switch=switch, endpoints=endpoints, tiers=3, leaves=leaves, spines=spines, cores=cores
    )


class ClusterPlan(BaseModel):
    """How many nodes of one node build, the fabric between them, power and racks."""

    model_config = ConfigDict(frozen=True)

    nodes: int = Field(ge=1)
    gpus_per_node: int = Field(ge=1)
    gpu: str
    chassis: str
    nic: str | None = None
    nic_gbps: int | None = None
    nics_per_node: int = 0
    fabric: Fabric | None = None
    node_power_w: float | None = None
    node_u: int | None = None
    kw_per_rack: float = DEFAULT_KW_PER_RACK
    rack_u: int = DEFAULT_RACK_U
    notes: tuple[str, ...] = ()

    @property
    def total_gpus(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def servers_power_w(self) -> float | None:
        return None if self.node_power_w is None else self.nodes * self.node_power_w

    @property
    def total_power_w(self) -> float | None:
        """Servers at their worst case at the wall plus what is known of the fabric."""
        if self.servers_power_w is None:
            return None
        return self.servers_power_w + (self.fabric.power_w if self.fabric else 0.0)

    @property
    def racks(self) -> int | None:
        """Racks needed for power (kW per rack) and for space (rack units), whichever is more."""
        if self.total_power_w is None:
            return None
        by_power = math.ceil(self.total_power_w / (self.kw_per_rack * 1000))
        if self.node_u is None:
            return by_power
        per_rack = max(1, self.rack_u // self.node_u)
        return max(by_power, math.ceil(self.nodes / per_rack))

    def to_json(self) -> dict:
        fab = self.fabric
        return {
            "nodes": self.nodes,
            "gpus_per_node": self.gpus_per_node,
            "total_gpus": self.total_gpus,
            "gpu": self.gpu,
            "chassis": self.chassis,
            "nic": self.nic,
            "nic_gbps": self.nic_gbps,
            "nics_per_node": self.nics_per_node,
            "fabric": None
            if fab is None
            else {
                "switch": fab.switch.name,
                "switch_radix": fab.switch.radix,
                "port_gbps": fab.switch.port_gbps,
                "source": fab.switch.source,
                "endpoints": fab.endpoints,
                "tiers": fab.tiers,
                "leaves": fab.leaves,
                "spines": fab.spines,
                "cores": fab.cores,
                "switches": fab.switches,
                "switch_sku": fab.switch.sku,
                "switch_power_w": fab.switch.power_w,
                "switch_optics_w": fab.switch.optics_w,
                "switch_power_source": fab.switch.power_source,
            },
            "node_power_w": self.node_power_w,
            "servers_power_w": self.servers_power_w,
            "fabric_power_w": None if fab is None else fab.power_w,
            "fabric_power_verified": None if fab is None else fab.power_verified,
            "total_power_w": self.total_power_w,
            "kw_per_rack": self.kw_per_rack,
            "racks": self.racks,
            "notes": list(self.notes),
        }


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
) -> ClusterPlan:
    notes: list[str] = [
        "Node power is each server's worst case at the wall (AC, PSU losses included)."
    ]
    fabric = None
    if nic_gbps and nics_per_node:
        switch = switch_for(nic_gbps)
        if switch is None:
            notes.append(f"No listed switch runs {nic_gbps} Gb/s ports; fabric not sized.")
        else:
            fabric = size_fabric(nodes * nics_per_node, switch)
            if not fabric.power_verified:
                known = (
                    f"optics counted at {switch.optics_w:,.0f} W per switch"
                    if switch.optics_w is not None
                    else "nothing of it counted"
                )
                notes.append(
                    f"Fabric power not verified: {switch.name}'s own power is not published in "
                    f"a source we could reach ({known}); cabling and host-side optics are in "
                    "the NICs' figures or not counted."
                )
            notes.append(
                f"Switch price: price list entry {switch.sku} x {fabric.switches} (not in the "
                "server quote)."
            )
    elif nodes > 1:
        notes.append("The node build has no high-speed NIC; fabric not sized.")
    if node_power_w is None:
        notes.append("Node power is unknown, so total power and racks are unknown.")
    return ClusterPlan(
        nodes=nodes,
        gpus_per_node=gpus_per_node,
        gpu=gpu,
        chassis=chassis,
        nic=nic,
        nic_gbps=nic_gbps,
        nics_per_node=nics_per_node,
        fabric=fabric,
        node_power_w=node_power_w,
        node_u=node_u,
        kw_per_rack=kw_per_rack,
        notes=tuple(notes),
    )


def cluster_markdown(plan: ClusterPlan) -> str:
    """A Markdown section for the BOM export describing the cluster."""
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
        tiers = {1: "single switch", 2: "two-tier leaf/spine", 3: "three-tier fat tree"}
        sw = f"{fab.leaves} leaf"
        if fab.spines:
            sw += f" + {fab.spines} spine"
        if fab.cores:
            sw += f" + {fab.cores} core"
        lines.append(
            f"| fabric | {tiers[fab.tiers]}, non-blocking: {sw} = {fab.switches} x "
            f"{fab.switch.name} ({fab.switch.radix} ports of {fab.switch.port_gbps} Gb/s; "
            f"[source]({fab.switch.source})) |"
        )
    if plan.total_power_w is not None:
        fabric = ""
        if fab is not None:
            fabric = f", fabric {fab.power_w / 1000:,.1f} kW" + (
                "" if fab.power_verified else " (not verified)"
            )
        lines.append(
            f"| power | {plan.total_power_w / 1000:,.1f} kW at the wall "
            f"({plan.node_power_w:,.0f} W per node{fabric}) |"
        )
        lines.append(f"| racks | {plan.racks} at {plan.kw_per_rack:g} kW per rack |")
    else:
        lines.append("| power | unknown |")
    lines.append("")
    lines += [f"- {n}" for n in plan.notes]
    return "\n".join(lines) + "\n"
