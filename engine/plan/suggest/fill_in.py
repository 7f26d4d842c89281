"""The parts around the GPUs: the CPU for every socket, DIMMs that fill every memory channel,
a mirrored pair of boot drives, and the PSU set that carries the draw under the redundancy policy
at the site's input voltage (sized from a first power estimate, then from the engine's budget)."""

from __future__ import annotations

import math

from slotwise.engine.build import Build, DriveFit
from slotwise.engine.check.node_power import node_draw
from slotwise.engine.check.power_model import usable_units
from slotwise.engine.check.rules.boot import boot_drives
from slotwise.engine.cost.pricing import PriceList
from slotwise.engine.plan.suggest.ranking import INF, part_metric
from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import Chassis, Cpu, Dimm, Psu


def psu_watts(psu: Psu, voltage: str) -> int | None:
    return psu.watts_high_line if voltage == "200-240" else psu.watts_low_line


def psu_count_for(
    draw_w: float, watts: int, policy: str, bays: int | None, scheme: str | None = None
) -> int | None:
    """Fewest PSUs so the load survives the policy: N+1 -> (n-1)*W >= draw; N+N -> n/2*W >= draw;
    "chassis" -> the chassis' a+b scheme (engine.check.power_model.usable_units)."""
    if policy == "N+N":
        n = 2 * max(1, math.ceil(draw_w / watts))
    elif policy == "chassis":
        top = bays or 16
        n = next(
            (k for k in range(2, top + 1) if usable_units(k, policy, scheme) * watts >= draw_w),
            top + 1,
        )
    else:
        n = max(1, math.ceil(draw_w / watts)) + 1
    if bays is not None and n > bays:
        return None
    return n


def cpu_choice(ch: Chassis, catalog: Catalog, objective: str, prices) -> Cpu | None:
    cpus = [catalog.cpus[s] for s in ch.cpu_skus if s in catalog.cpus]
    if ch.cpu_max_tdp_w is not None:
        cpus = [c for c in cpus if c.tdp_w is None or c.tdp_w <= ch.cpu_max_tdp_w]
    if not cpus:
        return None
    return min(cpus, key=lambda c: part_metric(c, objective, prices))


def dimm_options(
    ch: Chassis, cpu: Cpu, sockets: int, catalog: Catalog, objective: str, prices
) -> list[tuple[Dimm, int]]:
    """(DIMM, count) that fill every channel evenly, cheapest first in the objective's terms."""
    dimms = [catalog.dimms[s] for s in ch.dimm_skus if s in catalog.dimms]
    if not dimms:
        dimms = [d for d in catalog.dimms.values() if d.type.startswith("DDR5")]
    # MRDIMMs only where the CPU is known to run them (engine.check.rules.memory)
    dimms = [d for d in dimms if d.type != "DDR5 MRDIMM" or cpu.mrdimm_mts]
    slots = ch.dimm_slots
    per_fill = (cpu.memory_channels or 0) * sockets
    counts: list[int] = []
    if per_fill and slots:
        k = 1
        while per_fill * k <= slots:
            counts.append(per_fill * k)
            k += 1
        if not counts:  # fewer DIMM slots than channels: fill the slots, evenly per socket
            counts.append(slots - slots % sockets)
    elif slots:
        counts.append(slots)
    opts = [(d, n) for d in dimms for n in counts if n > 0]

    def runs_at(n: int) -> int | None:
        """MT/s the CPU runs ``n`` DIMMs at (2 per channel when more than the channels)."""
        two = bool(per_fill) and n > per_fill
        return cpu.memory_mts_2dpc if two else cpu.memory_mts_1dpc

    def key(o: tuple[Dimm, int]) -> tuple:
        d, n = o
        m = part_metric(d, objective, prices, n)
        cap = runs_at(n)
        # a DIMM faster than the CPU runs it buys nothing: the one at the CPU's speed first
        # (engine.check.rules.memory's memory.speed_capped says the same of a build)
        faster = int(cap is not None and d.speed_mts > cap)
        return (*m[:3], d.capacity_gb * n, n, faster, -d.speed_mts, d.sku)

    return sorted(opts, key=key)


def default_memory_ratio() -> float:
    """Host/GPU memory ratio the memory rule is content with (its RATIO_GOOD; the rule cites
    NVIDIA's DGX designs, which give the host over 2x the GPU memory)."""
    from slotwise.engine.check.rules.memory import RATIO_GOOD

    return RATIO_GOOD


def first_dimm_meeting(opts: list[tuple[Dimm, int]], need_gb: float) -> tuple[Dimm, int] | None:
    """The best option (in the objective's order) with at least ``need_gb``; else the largest."""
    if not opts:
        return None
    for d, n in opts:
        if d.capacity_gb * n >= need_gb:
            return d, n
    return max(opts, key=lambda o: (o[0].capacity_gb * o[1], -opts.index(o)))


def drives_for(ch: Chassis, catalog: Catalog, objective: str, prices) -> tuple[DriveFit, ...]:
    """The boot pair the ``boot`` rule would fit (engine.check.rules.boot.boot_drives), the
    drives ranked by the objective: the rule and the suggestions agree on what boots a chassis."""
    return boot_drives(ch, catalog, lambda d: part_metric(d, objective, prices)[:3])


def psu_options(ch: Chassis, catalog: Catalog, voltage: str, objective: str, prices) -> list:
    psus = [catalog.psus[s] for s in ch.psu_skus if s in catalog.psus]
    psus = [p for p in psus if psu_watts(p, voltage)]
    if objective == "price":
        return sorted(psus, key=lambda p: (part_metric(p, objective, prices), p.sku))
    return sorted(psus, key=lambda p: (-(psu_watts(p, voltage) or 0), p.sku))


def draw_estimate(build: Build, catalog: Catalog) -> float:
    """Worst-case DC draw for the first PSU sizing: the engine's node draw
    (engine.check.node_power.node_draw; unknown figures are left out, so it is a lower bound).
    The engine's power budget replaces this figure once the build is evaluated."""
    d = node_draw(build, catalog)
    return d.total if d is not None else 0.0


def with_psu(
    build: Build, catalog: Catalog, psus: list[Psu], draw: float, prices: PriceList | None = None
) -> Build | None:
    """Fit the PSU set that covers ``draw`` under the build's policy at its input voltage: the
    cheapest set when prices are known (a bigger unit can win on count), else the fewest units."""
    ch = catalog.chassis[build.chassis]
    best: tuple | None = None
    for p in psus:
        watts = psu_watts(p, build.env.input_voltage)
        n = (
            psu_count_for(draw, watts, build.env.redundancy, ch.psu_bays, ch.psu_redundancy)
            if watts
            else None
        )
        if n is None:
            continue
        unit = prices.price(p.sku) if prices is not None else None
        cost = INF if (prices is not None and unit is None) else (unit or 0.0) * n
        key = (cost, n, -(watts or 0), p.sku)
        if best is None or key < best[0]:
            best = (key, p, n)
    if best is None:
        return None
    return build.with_(psu=best[1].sku, psu_count=best[2])
