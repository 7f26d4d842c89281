"""The compute fabric of a cluster, rail-optimised as NVIDIA's DGX SuperPOD RAs build it.

Rules (derived; they reproduce the published tables in shared/reference/fabric.md, which the
tests check: H100 SuperPOD RA-11333-001 compute-fabric table for 1-4 SU and its 4-SU optics;
the B300 XDR RA's Table 3 for 1-18 SU; the B300 Spectrum-X RA's Table 3):

* one rail per GPU (per NIC link): GPU *i* of every node goes to the rail-*i* leaf of its unit;
  a dual-plane NIC (two links per GPU) doubles the rails, each plane a fabric of its own;
* a scalable unit (SU) holds R/2 nodes (R = switch ports at the link speed); the reference
  design's UFM links take one node position from the first unit (H100: 31 nodes in the first SU,
  node+UFM->leaf cables = nodes x 8 + 4);
* leaves = rails x units; every leaf sends R/2 links up;
* spines (two tiers) = the smallest divisor d of R/2 with d x R >= leaves x R/2, so every leaf
  has R/2 / d links to every spine (H100 1-4 SU: 4, 8, 16, 16; Q3400 4 SU: 18, 18 SU: 72);
* two tiers hold at most R leaves per plane (R^2/2 endpoints); past that a core tier: pods of
  R/2 leaves with R/2 spines each, cores = spines x (R/2) / R (Al-Fares et al., SIGCOMM 2008;
  NVIDIA's 16/32/64-SU points: 128/128/64, 256/256/128, 512/512/256);
* when every endpoint fits one switch, one switch per plane and no spine (smaller than an SU);
* links: node->leaf = nodes x rails, UFM->leaf = the UFM links, leaf->spine = leaves x R/2,
  spine->core = spines x R/2; a cable runs at the switch's native port speed, so split links
  share one (SN5600 at 400G: two links a cable, the B300 Spectrum-X table's nodes x 8);
* switch-side modules = used cages (one twin-port module per cage with a used port); node side =
  links / links per node module (2 on a DGX's twin-port cages, 1 on a single-port card).

Management networks beside the compute fabric are scaled from the H100 4-SU BOM (127 nodes) and
floored at BasePOD's smallest counts; NVIDIA publishes points only, so the plan says "scaled".
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from slotwise.engine.plan.switches import (
    H100_RA,
    QM9700,
    SN2201,
    SN4600C,
    UFM_APPLIANCE,
    Device,
    Switch,
)


class FabricError(ValueError):
    """The fabric cannot be planned (speed the switch does not run, too many endpoints)."""


class ComputeFabric(BaseModel):
    model_config = ConfigDict(frozen=True)

    switch: Switch
    gbps: int
    radix: int
    nodes: int
    rails: int = Field(description="links per node per plane (one per GPU)")
    planes: int = 1
    nodes_per_unit: int
    units: int
    tiers: int = Field(description="1 one switch per plane, 2 leaf/spine, 3 leaf/spine/core")
    leaf: int
    spine: int
    core: int
    cables: dict[str, int]
    transceivers_switch: int | None
    transceivers_node: int
    links_per_node_module: int

    @property
    def switches(self) -> int:
        return self.leaf + self.spine + self.core

    @property
    def power_typical_w(self) -> float | None:
        p = self.switch.power_typical_w
        return None if p is None else p * self.switches

    @property
    def power_max_w(self) -> float | None:
        p = self.switch.power_max_w
        return None if p is None else p * self.switches

    @property
    def cable_total(self) -> int:
        return sum(self.cables.values())


def _spines(leaves: int, half: int, radix: int) -> int:
    """Smallest divisor d of R/2 with d x R >= leaves x R/2 (equal links leaf to spine)."""
    for d in range(1, half + 1):
        if half % d == 0 and d * radix >= leaves * half:
            return d
    raise FabricError(f"{leaves} leaves exceed a two-tier fabric of {radix}-port switches")


def _cages(total_ports: int, switches: int, per_cage: int) -> int:
    """Cages in use when ``total_ports`` spread evenly over ``switches``."""
    if switches == 0:
        return 0
    q, r = divmod(total_ports, switches)
    return r * math.ceil((q + 1) / per_cage) + (switches - r) * math.ceil(q / per_cage)


def plan_compute_fabric(
    nodes: int,
    rails: int,
    switch: Switch,
    gbps: int,
    *,
    planes: int = 1,
    links_per_node_module: int = 1,
) -> ComputeFabric:
    """The rail-optimised fabric for ``nodes`` nodes with ``rails`` links each (see module doc)."""
    if nodes < 1 or rails < 1 or planes < 1:
        raise FabricError("a fabric needs at least one node, one rail and one plane")
    radix = switch.radix(gbps)
    if radix is None:
        speeds = ", ".join(f"{g}G" for g in sorted(switch.ports))
        raise FabricError(f"{switch.name} has no {gbps} Gb/s ports (it runs {speeds})")
    half = radix // 2
    ufm = switch.ufm_links
    per_cage = switch.ports_per_cage(gbps)
    endpoints = nodes * rails + ufm  # per plane
    per_cable = max(switch.ports) // gbps

    def cabled(links: int) -> int:
        return math.ceil(links / per_cable)

    cables = {"node_leaf": cabled(nodes * rails * planes), "ufm_leaf": ufm, "leaf_spine": 0}
    node_modules = math.ceil(nodes * rails * planes / links_per_node_module)
    if endpoints <= radix:
        cages = None if per_cage is None else math.ceil(endpoints / per_cage) * planes
        return ComputeFabric(
            switch=switch,
            gbps=gbps,
            radix=radix,
            nodes=nodes,
            rails=rails,
            planes=planes,
            nodes_per_unit=half,
            units=1,
            tiers=1,
            leaf=planes,
            spine=0,
            core=0,
            cables={**cables, "leaf_spine": 0, "spine_core": 0},
            transceivers_switch=cages,
            transceivers_node=node_modules,
            links_per_node_module=links_per_node_module,
        )
    slots = nodes + (1 if ufm else 0)
    units = math.ceil(slots / half)
    leaves_pp = rails * units
    if math.ceil(leaves_pp / half) > radix:
        raise FabricError(
            f"{nodes:,} nodes exceed a three-tier fabric of {radix}-port switches "
            f"({radix**3 // 4:,} endpoints per plane)"
        )
    leaf_spine_pp = leaves_pp * half
    # node ports per leaf, unit by unit (the last unit may be part-filled; UFM in the first)
    per_unit = [min(half, slots - u * half) for u in range(units)]
    per_unit[0] -= 1 if ufm else 0
    leaf_ports = [n + half for n in per_unit for _ in range(rails)]
    for i in range(min(ufm, rails)):
        leaf_ports[i] += 1
    if leaves_pp <= radix:
        tiers, spine_pp, core_pp, spine_core_pp = 2, _spines(leaves_pp, half, radix), 0, 0
        spine_ports = leaf_spine_pp
    else:
        pods = math.ceil(leaves_pp / half)
        tiers, spine_pp = 3, pods * half
        spine_core_pp = spine_pp * half
        core_pp = math.ceil(spine_core_pp / radix)
        spine_ports = leaf_spine_pp + spine_core_pp
    cages = None
    if per_cage is not None:
        per_plane = (
            sum(math.ceil(p / per_cage) for p in leaf_ports)
            + _cages(spine_ports, spine_pp, per_cage)
            + _cages(spine_core_pp, core_pp, per_cage)
        )
        cages = per_plane * planes
    return ComputeFabric(
        switch=switch,
        gbps=gbps,
        radix=radix,
        nodes=nodes,
        rails=rails,
        planes=planes,
        nodes_per_unit=half,
        units=units,
        tiers=tiers,
        leaf=leaves_pp * planes,
        spine=spine_pp * planes,
        core=core_pp * planes,
        cables={
            **cables,
            "leaf_spine": cabled(leaf_spine_pp * planes),
            "spine_core": cabled(spine_core_pp * planes),
        },
        transceivers_switch=cages,
        transceivers_node=node_modules,
        links_per_node_module=links_per_node_module,
    )


class ManagementGroup(BaseModel):
    """One management network's devices, scaled from a published BOM."""

    model_config = ConfigDict(frozen=True)

    role: str
    device: Device
    count: int
    basis: str


# The H100 SuperPOD 4-SU BOM (127 nodes): 16 storage QM9700, 8 SN4600C, 8 SN2201, 4 UFM.
_BOM_NODES = 127
_STORAGE_QM9700 = Device(
    key="qm9700-storage",
    name="NVIDIA Quantum-2 QM9700 (storage fabric)",
    pn=QM9700.pn,
    height_u=QM9700.height_u,
    power_w=QM9700.power_max_w,
    source=QM9700.source,
    confidence=QM9700.confidence,
)


def _scaled(per_bom: int, nodes: int, floor: int) -> int:
    return max(floor, math.ceil(per_bom * nodes / _BOM_NODES))


def plan_management(nodes: int, fabric: ComputeFabric | None) -> tuple[ManagementGroup, ...]:
    """Storage, in-band and out-of-band networks (and UFM on InfiniBand), scaled: NVIDIA gives
    the 4-SU BOM point; counts scale linearly with nodes from it, rounded up, never under
    BasePOD's smallest (2 SN4600C, 1 SN2201)."""
    scaled = f"scaled from the {H100_RA.split(':')[0]} 4-SU BOM ({_BOM_NODES} nodes)"
    groups = [
        ManagementGroup(
            role="in-band / storage Ethernet",
            device=SN4600C,
            count=_scaled(8, nodes, 2),
            basis=f"{scaled}: 8 per {_BOM_NODES} nodes, at least 2 (BasePOD)",
        ),
        ManagementGroup(
            role="out-of-band management",
            device=SN2201,
            count=_scaled(8, nodes, 1),
            basis=f"{scaled}: 8 per {_BOM_NODES} nodes, at least 1 (BasePOD)",
        ),
    ]
    if fabric is not None and fabric.switch.protocol == "infiniband":
        groups.insert(
            0,
            ManagementGroup(
                role="storage fabric (InfiniBand)",
                device=_STORAGE_QM9700,
                count=_scaled(16, nodes, 2),
                basis=f"{scaled}: 16 per {_BOM_NODES} nodes, at least 2",
            ),
        )
        groups.append(
            ManagementGroup(
                role="fabric management (UFM)",
                device=UFM_APPLIANCE,
                count=4,
                basis="held at the 4-SU BOM's 4 (the compute tables keep 4 UFM links from 1 "
                "to 4 SU); not scaled",
            )
        )
    return tuple(groups)
