"""Racks, power circuits and PDUs for a cluster's nodes and switches.

Rules (NVIDIA DGX B200 deployment guidance and SuperPOD RAs, transcribed with sources in
shared/reference/fabric.md):

* nodes per rack = the fewer of floor(rack power limit / the node's worst case at the wall) and
  floor(rack units / node height); rack power = nodes per rack x node maximum (B200: 2 per rack
  = 28.6 kW, 4 per rack = 57.2 kW at 14.3 kW a DGX B200);
* a circuit carries V x A (single phase) or sqrt(3) x V(line-line) x A (three phase), times the
  continuous-load derating, a site setting (80 % by default, as the US NEC's continuous-load
  rule; 1.0 where the site's code does not derate); power factor taken as 1;
* "N" provisioning (NVIDIA's guidance): the rack's peak is shared by an even number of circuits,
  at least two (A and B feeds; 2 x 14.3 kW racks on two 380 V 32 A circuits, 4 x 14.3 kW on two
  415 V 60 A); "2N": each side carries the whole rack, so twice the N count per side pair;
* one rack PDU per circuit (the H100 4-SU BOM: 96 PDUs in 32 compute racks on three circuits);
* switches go in network racks (the SuperPOD layout), sized by height and by the same power limit.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from slotwise.engine.inputs import ref
from slotwise.parts.bounds import CableMetres, CircuitAmps, CircuitVolts, RackHeightU, RackKw

W_TO_BTU_H = 3.412142  # 1 W = 3.412142 BTU/h (NIST SP 811)

B200_GUIDANCE = (
    "NVIDIA DGX B200 deployment guidance (shared/reference/fabric.md, 'B200 / B300'): 2 DGX "
    "B200 per rack = 28.6 kW on two 380 V three-phase 32 A circuits; 4 per rack = 57.2 kW on "
    "two 415 V three-phase 60 A circuits; N provisioning = two circuits each sized to half the "
    "rack peak"
)


class RackError(ValueError):
    """The racks cannot be planned (a node draws more than a rack may, or is taller)."""


class Feed(BaseModel):
    """A branch circuit as the site offers it."""

    model_config = ConfigDict(frozen=True)

    phases: Literal[1, 3] = 3
    volts: CircuitVolts = Field(415, description="line-to-line for three phase")
    amps: CircuitAmps = 60
    derating: float = Field(
        0.8, gt=0, le=1, allow_inf_nan=False, description="continuous-load factor"
    )

    @property
    def rated_w(self) -> float:
        k = math.sqrt(3) if self.phases == 3 else 1.0
        return k * self.volts * self.amps

    @property
    def usable_w(self) -> float:
        return self.rated_w * self.derating

    def label(self) -> str:
        phase = "3-phase" if self.phases == 3 else "1-phase"
        return f"{self.volts:g} V {phase} {self.amps:g} A"


class Site(BaseModel):
    """Site settings a plan is sized for."""

    model_config = ConfigDict(frozen=True)

    rack_kw: RackKw = Field(40.0, description="power limit per rack, kW")
    rack_u: RackHeightU = Field(48, description="usable rack units (B200 guidance: >= 48U)")
    feed: Feed = Feed()
    provisioning: Literal["N", "2N"] = "N"
    cable_m: CableMetres = Field(
        30,
        description="the longest fabric cable run, m: picks the reach class (the RA's 30 m)",
    )


class RackedDevice(BaseModel):
    """Something that goes in a network rack: name, count, height and its power."""

    model_config = ConfigDict(frozen=True)

    name: str
    count: int
    height_u: int | None
    power_w: float | None


class Rack(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Literal["compute", "network"]
    count: int
    peak_w: float
    used_u: int
    circuits: int
    pdus: int
    elevation: str


class RackPlan(BaseModel):
    model_config = ConfigDict(frozen=True)

    site: Site
    nodes_per_rack: int
    racks: tuple[Rack, ...]
    notes: tuple[str, ...] = ()

    @property
    def rack_count(self) -> int:
        return sum(r.count for r in self.racks)

    @property
    def circuits(self) -> int:
        return sum(r.count * r.circuits for r in self.racks)

    @property
    def pdus(self) -> int:
        return sum(r.count * r.pdus for r in self.racks)


def circuits_for(peak_w: float, site: Site) -> int:
    """Circuits a rack of ``peak_w`` needs on the site's feed (see module doc)."""
    if peak_w <= 0:
        return 0
    n = math.ceil(peak_w / site.feed.usable_w - 1e-9)
    n = max(2, n + (n % 2))  # A and B sides share the load: an even count, at least two
    return n if site.provisioning == "N" else 2 * n


def nodes_per_rack(node_w: float, node_u: int | None, site: Site) -> int:
    limit = site.rack_kw * 1000
    if node_w > limit:
        raise RackError(
            f"one node draws {node_w:,.0f} W at the wall, over the rack limit of "
            f"{site.rack_kw:g} kW; raise {ref('kw_per_rack')}"
        )
    by_power = math.floor(limit / node_w + 1e-9)
    if node_u is None:
        return by_power
    if node_u > site.rack_u:
        raise RackError(
            f"a {node_u}U node does not fit a {site.rack_u}U rack; raise {ref('rack_u')}"
        )
    return min(by_power, site.rack_u // node_u)


def _elevation(rack_u: int, blocks: list[tuple[int, str]]) -> str:
    """Plain-text elevation, top first: (height, label) blocks stacked from U1 up."""
    rows = []
    u = 1
    for height, label in blocks:
        top = u + height - 1
        span = f"U{u:02d}" if height == 1 else f"U{u:02d}-U{top:02d}"
        rows.append(f"{span:<8} {label}")
        u = top + 1
    if u <= rack_u:
        rows.append(f"{f'U{u:02d}-U{rack_u:02d}':<8} (empty)")
    return "\n".join(reversed(rows))


def plan_racks(
    *,
    nodes: int,
    node_w: float,
    node_u: int | None,
    node_name: str,
    devices: tuple[RackedDevice, ...],
    site: Site,
) -> RackPlan:
    """Compute racks for the nodes, network racks for the switches, circuits and PDUs."""
    per = nodes_per_rack(node_w, node_u, site)
    notes: list[str] = []
    full, rest = divmod(nodes, per)
    racks: list[Rack] = []
    for count, n in ((full, per), (1 if rest else 0, rest)):
        if not count:
            continue
        peak = n * node_w
        circ = circuits_for(peak, site)
        h = node_u or 0
        blocks = [(h, f"node {i + 1}: {node_name} ({node_w:,.0f} W)") for i in range(n)]
        racks.append(
            Rack(
                kind="compute",
                count=count,
                peak_w=peak,
                used_u=n * h,
                circuits=circ,
                pdus=circ,
                elevation=_elevation(site.rack_u, blocks) if node_u else "",
            )
        )
    if node_u is None:
        notes.append("The node's height is unknown: racks are sized by power only.")
    placed = [d for d in devices if d.count and d.height_u is not None]
    for d in devices:
        if d.count and d.height_u is None:
            notes.append(f"{d.name}: height not published; not placed in a network rack.")
        if d.count and d.power_w is None:
            notes.append(f"{d.name}: power not published; not counted (not verified).")
    units = sum(d.count * (d.height_u or 0) for d in placed)
    watts = sum(d.count * (d.power_w or 0) for d in devices)
    if units or watts:
        by_u = math.ceil(units / site.rack_u)
        by_w = math.ceil(watts / (site.rack_kw * 1000))
        count = max(1, by_u, by_w)
        peak = watts / count
        circ = circuits_for(peak, site)
        racks.append(
            Rack(
                kind="network",
                count=count,
                peak_w=peak,
                used_u=math.ceil(units / count),
                circuits=circ,
                pdus=circ,
                elevation=_network_elevation(placed, count),
            )
        )
    return RackPlan(site=site, nodes_per_rack=per, racks=tuple(racks), notes=tuple(notes))


def _network_elevation(placed: list[RackedDevice], count: int) -> str:
    """Network racks as a listing (switch positions follow the site's cabling plan)."""
    lines = [f"{count} network rack(s), holding together:"]
    lines += [
        f"  {d.count:>4} x {d.name} ({d.height_u}U each, {d.count * (d.height_u or 0)}U)"
        for d in placed
    ]
    return "\n".join(lines)
