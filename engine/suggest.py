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
identical nodes (engine.cluster): per chassis and GPU, the most GPUs a node can hold with one NIC
each, and the fewest nodes that fit the model and meet --target-days (give a target to trade
money for time: more nodes are never added just to go faster).  Cluster node builds carry no
workload, because the rules judge one server and the job needs all of them.

The estimator and the evaluator are parameters, so tests on a small catalog can inject their own.
"""

from __future__ import annotations

import dataclasses
import heapq
import inspect
import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from slotwise.engine.build import BridgeFit, Build, DriveFit, Environment, InputVoltage, Redundancy
from slotwise.engine.cluster import DEFAULT_KW_PER_RACK, ClusterPlan, plan_cluster
from slotwise.engine.edits import AddBridge, Move, RemoveBridge, SetCount, SetDrives
from slotwise.engine.estimate import Estimate
from slotwise.engine.inputs import ref
from slotwise.engine.node_search import fewest_passing
from slotwise.engine.power_model import FANS_BOARD_SHARE, usable_units
from slotwise.engine.pricing import PriceList, Quote, quote_build
from slotwise.engine.report import Report
from slotwise.engine.verdict import target_check
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import Baseboard, Bridge, Chassis, Cpu, Dimm, Gpu, Nic, Psu, Slot

Objective = Literal["gpus", "power", "price", "time"]
OBJECTIVES: tuple[str, ...] = ("gpus", "power", "price", "time")
FAMILIES = ("X13", "X14", "H13", "H14")
INF = math.inf

Estimator = Callable[..., Estimate]  # estimate(workload, gpu, gpus, *, arch) -> Estimate
Evaluator = Callable[[Build, Catalog], Report]

# Edits from findings the repair loop may apply: they change parts around the GPUs, never the
# GPU count or the chassis.
_REPAIR_EDITS = (SetCount, SetDrives, AddBridge, RemoveBridge, Move)
_MAX_REPAIRS = 8
# Up to this many usable slots the placer enumerates every non-colliding subset (2^16 = 65k sets,
# ~1 s worst case); beyond it, it grows one set greedily.
EXHAUSTIVE_SLOTS = 16


class SuggestError(ValueError):
    """Bad constraints (unknown chassis, GPU, ...); the message says what is known."""


class Constraints(BaseModel):
    """What the customer fixes; every field is optional."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    chassis: tuple[str, ...] = Field((), description="chassis SKUs or families (X13, H14...)")
    gpus: tuple[str, ...] = Field((), description="GPU SKUs allowed")
    cooling: Literal["air", "liquid"] | None = None
    voltage: InputVoltage = "200-240"
    max_power_w: float | None = Field(None, gt=0, description="per server")
    budget: float | None = Field(None, gt=0, description="total, in the price list's currency")
    redundancy: Redundancy = "N+1"
    kw_per_rack: float = Field(DEFAULT_KW_PER_RACK, gt=0)
    max_nodes: int = Field(1024, ge=1)
    min_nic_gbps: int = Field(200, ge=1, description="per GPU NIC speed for multi-node")


@dataclass(frozen=True)
class Suggestion:
    rank: int
    build: Build
    report: Report
    estimate: Estimate
    gpu: str
    gpus: int  # per node
    nodes: int
    power_w: float | None  # per node, the engine's power budget
    quote: Quote | None  # per node
    cluster: ClusterPlan | None
    key: tuple

    @property
    def total_gpus(self) -> int:
        return self.gpus * self.nodes

    @property
    def price(self) -> float | None:
        if self.quote is None or self.quote.total is None:
            return None
        return self.quote.total * self.nodes

    @property
    def train_hours(self) -> float | None:
        return self.estimate.train_hours

    def to_json(self) -> dict:
        est = self.estimate
        est_json = est.to_json()
        b = self.build
        return {
            "rank": self.rank,
            "chassis": b.chassis,
            "gpu": self.gpu,
            "gpus": self.gpus,
            "nodes": self.nodes,
            "total_gpus": self.total_gpus,
            "errors": self.report.errors,
            "warnings": self.report.warnings,
            "power_w": self.power_w,
            "memory_per_gpu": est_json.get("memory_per_gpu"),
            "train_hours": self.train_hours,
            "train_tokens_per_s": est_json.get("train_tokens_per_s"),
            "train_tokens_per_s_per_gpu": est_json.get("train_tokens_per_s_per_gpu"),
            "mfu_effective": est_json.get("mfu_effective"),
            "step_seconds": est_json.get("step_seconds"),
            "gpu_hours": est_json.get("gpu_hours"),
            "time_breakdown": est_json.get("time_breakdown"),
            "interconnect": (est_json.get("assumptions") or {}).get("interconnect"),
            "decode_tokens_per_s": est.decode_tokens_per_s,
            "serving": est_json.get("serving"),
            "price": self.price,
            "currency": self.quote.currency if self.quote else None,
            "price_missing": list(self.quote.missing) if self.quote else [],
            "price_is_example": bool(self.quote and self.quote.example),
            "build": {
                "cpu": b.cpu,
                "cpu_count": b.cpu_count,
                "dimm": b.dimm,
                "dimm_count": b.dimm_count,
                "baseboard": b.baseboard,
                "slots": dict(b.slots),
                "bridges": [br.model_dump() for br in b.bridges],
                "drives": [d.model_dump() for d in b.drives],
                "psu": b.psu,
                "psu_count": b.psu_count,
                "env": b.env.model_dump(),
            },
            "cluster": self.cluster.to_json() if self.cluster else None,
        }


@dataclass(frozen=True)
class SuggestResult:
    suggestions: tuple[Suggestion, ...]
    objective: str
    multi_node: bool
    notes: tuple[str, ...] = ()
    rejected: tuple[tuple[str, int], ...] = ()  # (reason, how many candidates)
    validated: int = 0

    @property
    def ok(self) -> bool:
        return bool(self.suggestions)


# ============================================================================ metrics


def _power_of(part: Any) -> float | None:
    return getattr(part, "tdp_w", None) or getattr(part, "power_w", None)


def _part_metric(part: Any, objective: str, prices: PriceList | None, qty: int = 1) -> tuple:
    """Sort key for choosing a supporting part: price first for 'price', else power first."""
    price = prices.price(part.sku) if prices else None
    p = INF if price is None else price * qty
    w = _power_of(part)
    w = INF if w is None else w * qty
    return (p, w, part.sku) if objective == "price" else (w, p, part.sku)


def _psu_watts(psu: Psu, voltage: str) -> int | None:
    return psu.watts_high_line if voltage == "200-240" else psu.watts_low_line


def psu_count_for(
    draw_w: float, watts: int, policy: str, bays: int | None, scheme: str | None = None
) -> int | None:
    """Fewest PSUs so the load survives the policy: N+1 -> (n-1)*W >= draw; N+N -> n/2*W >= draw;
    "chassis" -> the chassis' a+b scheme (engine.power_model.usable_units)."""
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


# ============================================================================ placement


@dataclass(frozen=True)
class Placement:
    gpu_slots: tuple[str, ...]
    nic_slots: tuple[str, ...] = ()


def _gpu_fits(slot: Slot, gpu: Gpu) -> bool:
    if slot.purpose == "nic" or slot.kind == "ocp3":
        return False
    if (gpu.width_slots or 1) >= 2 and not slot.double_width:
        return False
    if gpu.length == "FHFL" and not slot.full_length:
        return False
    if gpu.length in ("FHFL", "FHHL") and not slot.full_height:
        return False
    return not (gpu.pcie_lanes is not None and gpu.pcie_lanes > slot.mechanical)


def _nic_fits(slot: Slot, nic: Nic) -> bool:
    if slot.purpose == "gpu" or nic.form == "onboard":
        return False
    if (slot.kind == "ocp3") != (nic.form == "OCP3"):
        return False
    if nic.width_slots >= 2 and not slot.double_width:
        return False
    if nic.form == "FHFL" and not slot.full_length:
        return False
    if nic.form in ("FHFL", "FHHL") and not slot.full_height:
        return False
    return not (nic.pcie_lanes is not None and nic.pcie_lanes > slot.mechanical)


def _slot_socket(ch: Chassis, slot: Slot) -> int:
    root = next((r for r in ch.roots if r.id == slot.root), None)
    sock = root.socket if root else 1
    return max(sock, slot.requires_socket or 1)


class _Placer:
    """Enumerates every non-colliding set of GPU slots once per (chassis, card shape), scores them
    (full lanes, whole NVLink groups, balance across sockets and roots) and keeps the best per
    size.  Chassis have at most a few dozen slots and double-width cards halve the choices, so
    exhaustive enumeration is exact and fast enough; results are cached per suggest() call."""

    def __init__(self) -> None:
        self._cache: dict[tuple, dict[int, list[tuple[tuple, tuple[str, ...]]]]] = {}

    def sets(
        self, ch: Chassis, gpu: Gpu, cpu_count: int, groups: tuple[tuple[str, ...], ...]
    ) -> dict[int, list[tuple[tuple, tuple[str, ...]]]]:
        wide = (gpu.width_slots or 1) >= 2
        key = (ch.sku, wide, gpu.pcie_lanes, gpu.pcie_gen, gpu.length, cpu_count, groups)
        if key not in self._cache:
            self._cache[key] = self._enumerate(ch, gpu, cpu_count, wide, groups)
        return self._cache[key]

    def _enumerate(self, ch, gpu, cpu_count, wide, groups):
        slots = [s for s in ch.slots if _slot_socket(ch, s) <= cpu_count and _gpu_fits(s, gpu)]
        ids = [s.id for s in slots]
        pos = {sid: i for i, sid in enumerate(ids)}
        conflict = [0] * len(slots)  # bitmask of slots a card here excludes
        if wide:
            for i, s in enumerate(slots):
                if s.covers in pos:
                    j = pos[s.covers]
                    conflict[i] |= 1 << j
                    conflict[j] |= 1 << i
        order = {s.id: i for i, s in enumerate(ch.slots)}
        roots = {r.id: r for r in ch.roots}
        lanes = gpu.pcie_lanes or 16
        best: dict[int, list[tuple[tuple, tuple[str, ...]]]] = {}
        n = len(slots)
        limit = ch.max_gpus if ch.max_gpus is not None else n
        group_idx = [tuple(pos[x] for x in g) for g in groups if all(x in pos for x in g)]

        def score(chosen: list[int]) -> tuple:
            lane_short = gen_short = 0
            per_root: Counter[str] = Counter()
            per_sock: Counter[int] = Counter()
            used_lanes: Counter[str] = Counter()
            for i in chosen:
                s = slots[i]
                lane_short += max(0, lanes - s.lanes)
                if gpu.pcie_gen and s.gen < gpu.pcie_gen:
                    gen_short += 1
                per_root[s.root] += 1
                per_sock[_slot_socket(ch, s)] += 1
                used_lanes[s.root] += min(lanes, s.lanes)
            over = sum(
                max(0, used - (roots[r].lanes or used))
                for r, used in used_lanes.items()
                if r in roots
            )
            chosen_set = set(chosen)
            covered: set[int] = set()
            for g in sorted(group_idx, key=len, reverse=True):
                if set(g) <= chosen_set and not (set(g) & covered):
                    covered |= set(g)
            socks = [per_sock.get(k, 0) for k in range(1, cpu_count + 1)]
            root_counts = [per_root.get(r, 0) for r in {slots[i].root for i in range(n)}]
            return (
                over,
                lane_short,
                len(chosen) - len(covered),
                gen_short,
                max(socks) - min(socks),
                max(root_counts) - min(root_counts),
                tuple(sorted(order[slots[i].id] for i in chosen)),
            )

        chosen: list[int] = []
        if n > EXHAUSTIVE_SLOTS:
            # Too many slots to enumerate every subset: grow one set greedily, each step adding
            # the free slot that scores best (still non-colliding and balanced, not proven best).
            blocked = 0
            while len(chosen) < limit:
                free = [i for i in range(n) if not blocked >> i & 1 and i not in chosen]
                if not free:
                    break
                pick = min(free, key=lambda i: score([*chosen, i]))
                chosen.append(pick)
                blocked |= conflict[pick]
                best[len(chosen)] = [(score(chosen), tuple(ids[i] for i in sorted(chosen)))]
            return best

        def dfs(start: int, blocked: int) -> None:
            if chosen:
                sc = score(chosen)
                best.setdefault(len(chosen), []).append((sc, tuple(ids[i] for i in sorted(chosen))))
            if len(chosen) >= limit:
                return
            for i in range(start, n):
                if blocked >> i & 1:
                    continue
                chosen.append(i)
                dfs(i + 1, blocked | conflict[i])
                chosen.pop()

        dfs(0, 0)
        for k in best:
            best[k].sort()
        return best


def _place(
    placer: _Placer,
    ch: Chassis,
    gpu: Gpu,
    n: int,
    cpu_count: int,
    groups: tuple[tuple[str, ...], ...],
    nic: Nic | None,
    nics: int,
) -> Placement | None:
    """The best GPU slot set of size n that leaves room for ``nics`` NICs (None: impossible)."""
    options = placer.sets(ch, gpu, cpu_count, groups).get(n, [])
    wide = (gpu.width_slots or 1) >= 2
    for _score, gpu_slots in options:
        if not nics:
            return Placement(gpu_slots)
        nic_slots = _place_nics(ch, gpu_slots, wide, nic, nics, cpu_count)
        if nic_slots is not None:
            return Placement(gpu_slots, nic_slots)
    return None


def _place_nics(ch, gpu_slots, wide, nic, count, cpu_count) -> tuple[str, ...] | None:
    taken = set(gpu_slots)
    blocked = {s.covers for s in ch.slots if s.id in taken and wide and s.covers}
    free = [
        s
        for s in ch.slots
        if s.id not in taken
        and s.id not in blocked
        and _slot_socket(ch, s) <= cpu_count
        and _nic_fits(s, nic)
    ]
    if len(free) < count:
        return None
    # Balance NICs like the GPUs: prefer roots and sockets that hold GPUs, fewest NICs so far.
    gpu_roots = Counter(s.root for s in ch.slots if s.id in taken)
    gpu_socks = Counter(_slot_socket(ch, s) for s in ch.slots if s.id in taken)
    chosen: list[Slot] = []
    per_root: Counter[str] = Counter()
    per_sock: Counter[int] = Counter()
    order = {s.id: i for i, s in enumerate(ch.slots)}
    for _ in range(count):
        best = min(
            (s for s in free if s not in chosen),
            key=lambda s: (
                per_root[s.root] - gpu_roots.get(s.root, 0),
                per_sock[_slot_socket(ch, s)] - gpu_socks.get(_slot_socket(ch, s), 0),
                -s.lanes,
                order[s.id],
            ),
        )
        chosen.append(best)
        per_root[best.root] += 1
        per_sock[_slot_socket(ch, best)] += 1
    return tuple(s.id for s in sorted(chosen, key=lambda s: order[s.id]))


def _bridge_options(catalog: Catalog, gpu: Gpu, ch: Chassis) -> dict[int, Bridge]:
    """Bridge SKU per group size (2 or 4 ways) for this GPU, when the chassis has such groups."""
    sizes = {len(g) for g in ch.nvlink_groups}
    out: dict[int, Bridge] = {}
    for br in sorted(catalog.bridges.values(), key=lambda b: b.sku):
        if gpu.sku in br.gpu_skus and br.ways in sizes and br.ways not in out:
            out[br.ways] = br
    return out


def _bridges_for(
    ch: Chassis, gpu_slots: Iterable[str], options: dict[int, Bridge]
) -> tuple[BridgeFit, ...]:
    chosen = set(gpu_slots)
    used: set[str] = set()
    fits: list[BridgeFit] = []
    for ways in sorted(options, reverse=True):
        br = options[ways]
        for g in ch.nvlink_groups:
            if len(g) == ways and set(g) <= chosen and not (set(g) & used):
                used |= set(g)
                fits.append(BridgeFit(sku=br.sku, slots=tuple(g), count=br.per_group))
    return tuple(fits)


# ============================================================================ fill-in


@dataclass
class _Cand:
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


def _cpu_choice(ch: Chassis, catalog: Catalog, objective: str, prices) -> Cpu | None:
    cpus = [catalog.cpus[s] for s in ch.cpu_skus if s in catalog.cpus]
    if ch.cpu_max_tdp_w is not None:
        cpus = [c for c in cpus if c.tdp_w is None or c.tdp_w <= ch.cpu_max_tdp_w]
    if not cpus:
        return None
    return min(cpus, key=lambda c: _part_metric(c, objective, prices))


def _dimm_options(
    ch: Chassis, cpu: Cpu, sockets: int, catalog: Catalog, objective: str, prices
) -> list[tuple[Dimm, int]]:
    """(DIMM, count) that fill every channel evenly, cheapest first in the objective's terms."""
    dimms = [catalog.dimms[s] for s in ch.dimm_skus if s in catalog.dimms]
    if not dimms:
        dimms = [d for d in catalog.dimms.values() if d.type.startswith("DDR5")]
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

    def key(o: tuple[Dimm, int]) -> tuple:
        d, n = o
        m = _part_metric(d, objective, prices, n)
        return (*m[:2], d.capacity_gb * n, n, -d.speed_mts, d.sku)

    return sorted(opts, key=key)


def default_memory_ratio() -> float:
    """Host/GPU memory ratio the memory rule is content with (its RATIO_GOOD; the rule cites
    NVIDIA's DGX designs, which give the host over 2x the GPU memory)."""
    from slotwise.engine.rules.memory import RATIO_GOOD

    return RATIO_GOOD


def _first_dimm_meeting(opts: list[tuple[Dimm, int]], need_gb: float) -> tuple[Dimm, int] | None:
    """The best option (in the objective's order) with at least ``need_gb``; else the largest."""
    if not opts:
        return None
    for d, n in opts:
        if d.capacity_gb * n >= need_gb:
            return d, n
    return max(opts, key=lambda o: (o[0].capacity_gb * o[1], -opts.index(o)))


def _drives_for(ch: Chassis, catalog: Catalog, objective: str, prices) -> tuple[DriveFit, ...]:
    """Two drives (a mirrored pair for the OS) in the first bay a catalog drive fits, NVMe first."""
    bays = sorted(ch.drive_bays, key=lambda b: ("nvme" not in b.interfaces, b.id))
    for bay in bays:
        fits = [
            d
            for d in catalog.drives.values()
            if d.form_factor == bay.form_factor and d.interface in bay.interfaces
        ]
        if fits:
            d = min(fits, key=lambda d: (*_part_metric(d, objective, prices)[:2], d.capacity_tb))
            return (DriveFit(bay=bay.id, sku=d.sku, count=min(2, bay.count)),)
    return ()


def _psu_options(ch: Chassis, catalog: Catalog, voltage: str, objective: str, prices) -> list:
    psus = [catalog.psus[s] for s in ch.psu_skus if s in catalog.psus]
    psus = [p for p in psus if _psu_watts(p, voltage)]
    if objective == "price":
        return sorted(psus, key=lambda p: (_part_metric(p, objective, prices), p.sku))
    return sorted(psus, key=lambda p: (-(_psu_watts(p, voltage) or 0), p.sku))


def draw_estimate(build: Build, catalog: Catalog) -> float:
    """Worst-case draw for first PSU sizing: component TDP/power sums (unknown figures count 0).
    The engine's own power budget replaces this figure once the build is evaluated."""
    w = 0.0

    def add(sku: str | None, n: int) -> None:
        nonlocal w
        rec = catalog.get(sku) if sku else None
        p = _power_of(rec) if rec is not None else None
        if p:
            w += p * n

    add(build.cpu, build.cpu_count)
    add(build.dimm, build.dimm_count)
    for sku in build.slots.values():
        add(sku, 1)
    for d in build.drives:
        add(d.sku, d.count)
    if build.baseboard:
        bb = catalog.baseboards.get(build.baseboard)
        if bb:
            add(bb.gpu_sku, bb.gpu_count)
            w += bb.board_power_w or 0
    ch = catalog.chassis.get(build.chassis)
    if ch and ch.system_overhead_w:
        w += ch.system_overhead_w
    elif ch:
        w *= 1 + FANS_BOARD_SHARE  # the derived fans/board share, as engine.rules.power adds it
    return w


def _with_psu(
    build: Build, catalog: Catalog, psus: list[Psu], draw: float, prices: PriceList | None = None
) -> Build | None:
    """Fit the PSU set that covers ``draw`` under the build's policy at its input voltage: the
    cheapest set when prices are known (a bigger unit can win on count), else the fewest units."""
    ch = catalog.chassis[build.chassis]
    best: tuple | None = None
    for p in psus:
        watts = _psu_watts(p, build.env.input_voltage)
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


# ============================================================================ keys


def _time_metric(est: Estimate, workload: Workload) -> float:
    if workload.training:
        th = est.train_hours
        return INF if th is None else th
    tps = est.decode_tokens_per_s
    return INF if tps is None else -tps


def _key(objective: str, gpus: int, power: float, price: float, time: float, tie: tuple) -> tuple:
    if objective == "gpus":
        return (gpus, power, price, time, *tie)
    if objective == "power":
        return (power, gpus, price, time, *tie)
    if objective == "price":
        return (price, gpus, power, time, *tie)
    return (time, gpus, power, price, *tie)


def _gpu_power_floor(gpu: Gpu, n: int, nodes: int, bb: Baseboard | None) -> float:
    return ((gpu.tdp_w or 0) * n + ((bb.board_power_w or 0) if bb else 0)) * nodes


# ============================================================================ the solver


@dataclass
class _Ctx:
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
    placer: _Placer = field(default_factory=_Placer)
    rejected: Counter = field(default_factory=Counter)
    seq: int = 0


def _estimate(ctx: _Ctx, gpu: Gpu, gpus: int, per_server: int) -> Estimate:
    """Call the estimator; pass ``gpus_per_server`` when it takes one (the real one does: it
    decides where tensor parallelism and the intra-node links apply)."""
    if ctx.per_server_kw:
        return ctx.estimator(ctx.workload, gpu, gpus, arch=ctx.arch, gpus_per_server=per_server)
    return ctx.estimator(ctx.workload, gpu, gpus, arch=ctx.arch)


def _takes_per_server(fn: Estimator) -> bool:
    try:
        return "gpus_per_server" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _default_estimator() -> Estimator:
    from slotwise.engine.estimate import estimate

    return estimate


def _default_evaluator() -> Evaluator:
    from slotwise.engine.evaluate import evaluate

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


def _gpu_options(ctx: _Ctx, ch: Chassis) -> list[tuple[Gpu, Baseboard | None]]:
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


def _env_for(ctx: _Ctx, ch: Chassis, bb: Baseboard | None) -> Environment:
    cooling = ctx.cons.cooling
    if cooling is None:
        cooling = "liquid" if (ch.cooling == "liquid" or (bb and bb.liquid_only)) else "air"
    return Environment(
        input_voltage=ctx.cons.voltage, redundancy=ctx.cons.redundancy, cooling=cooling
    )


def _nic_choice(ctx: _Ctx) -> list[Nic]:
    nics = [
        n
        for n in ctx.catalog.nics.values()
        if n.port_gbps >= ctx.cons.min_nic_gbps
        and n.form not in ("OCP3", "onboard")
        and n.role != "dpu"
    ]
    if ctx.objective in ("price", "power"):
        return sorted(nics, key=lambda n: _part_metric(n, ctx.objective, ctx.prices))
    # gpus/time: the common 400G rail per GPU first, then faster, then lower power
    return sorted(
        nics,
        key=lambda n: (abs(n.port_gbps - 400), -n.port_gbps, n.power_w or INF, n.sku),
    )


def _make_candidate(
    ctx: _Ctx,
    ch: Chassis,
    gpu: Gpu,
    bb: Baseboard | None,
    n: int,
    nodes: int,
    est: Estimate,
    nic: Nic | None,
    cpu: Cpu,
    placement: Placement | None,
) -> _Cand | None:
    cat = ctx.catalog
    env = _env_for(ctx, ch, bb)
    slots: dict[str, str] = {}
    bridges: tuple[BridgeFit, ...] = ()
    if placement is not None:
        slots.update({s: gpu.sku for s in placement.gpu_slots})
        slots.update({s: nic.sku for s in placement.nic_slots if nic})
        bridges = _bridges_for(ch, placement.gpu_slots, _bridge_options(cat, gpu, ch))
    dimm_opts = _dimm_options(ch, cpu, ch.cpu_sockets, cat, ctx.objective, ctx.prices)
    gpu_gb = gpu.memory_gb * n
    first = _first_dimm_meeting(dimm_opts, ctx.memory_ratio * gpu_gb)
    psu_opts = _psu_options(ch, cat, ctx.cons.voltage, ctx.objective, ctx.prices)
    if not psu_opts:
        if not any(s in cat.psus for s in ch.psu_skus):
            why = "the catalog lists no PSU for it"
        else:
            why = f"none of its PSUs has a published rating at {ctx.cons.voltage} V input"
        ctx.rejected[f"{ch.sku}: {why}"] += 1
        return None
    build = Build(
        chassis=ch.sku,
        cpu=cpu.sku,
        cpu_count=ch.cpu_sockets,
        dimm=first[0].sku if first else None,
        dimm_count=first[1] if first else 0,
        slots=slots,
        baseboard=bb.sku if bb else None,
        bridges=bridges,
        drives=_drives_for(ch, cat, ctx.objective, ctx.prices),
        env=env,
        workload=ctx.workload if nodes == 1 else None,
    )
    sized = _with_psu(build, cat, psu_opts, draw_estimate(build, cat), ctx.prices)
    if sized is None:
        ctx.rejected[f"{ch.sku}: not enough PSU bays for the draw under {env.redundancy}"] += 1
        return None
    ctx.seq += 1
    cand = _Cand(ch, gpu, n, nodes, est, sized, dimm_opts, psu_opts, nic, seq=ctx.seq)
    # Lower bound of the ranking key: parts the repair loop may change (DIMMs, PSUs) are left
    # out of the price floor, and the power floor counts the GPUs alone.
    price_floor = 0.0
    if ctx.prices is not None:
        fixed = build.with_(dimm=None, dimm_count=0, psu=None, psu_count=0)
        price_floor = quote_build(fixed, ctx.prices).known_total * nodes
    power_floor = _gpu_power_floor(gpu, n, nodes, bb)
    cand.bound = _key(
        ctx.objective,
        n * nodes,
        power_floor,
        price_floor,
        _time_metric(est, ctx.workload),
        (),
    )
    return cand


def _validate(ctx: _Ctx, cand: _Cand) -> tuple[Build, Report] | None:
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
            resized = _with_psu(new, ctx.catalog, cand.psu_options, draw, ctx.prices)
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


def _finish(ctx: _Ctx, cand: _Cand, build: Build, report: Report) -> Suggestion | None:
    # per node: the worst-case draw at the wall (what circuits, racks and TCO are sized on);
    # an evaluator without wall figures falls back to the power budget
    budget = report.budget("power")
    if report.power is not None:
        power: float | None = report.power.worst_ac_w
    else:
        power = budget.used if budget is not None else None
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
        cluster = plan_cluster(
            nodes=cand.nodes,
            gpus_per_node=cand.gpus,
            gpu=cand.gpu.sku,
            chassis=cand.chassis.sku,
            nic=cand.nic.sku if cand.nic else None,
            nic_gbps=cand.nic.port_gbps if cand.nic else None,
            nics_per_node=sum(1 for v in build.slots.values() if cand.nic and v == cand.nic.sku),
            node_power_w=power,
            node_u=cand.chassis.form_factor_u,
            kw_per_rack=cons.kw_per_rack,
        )
    key = _key(
        ctx.objective,
        cand.gpus * cand.nodes,
        INF if power is None else power * cand.nodes,
        INF if price is None else price,
        _time_metric(cand.est, ctx.workload),
        (cand.chassis.sku, cand.gpu.sku),
    )
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
    )


def _search(ctx: _Ctx, cands: list[_Cand], limit: int) -> tuple[list[Suggestion], int]:
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
        ok = _validate(ctx, cand)
        if ok is None:
            continue
        sug = _finish(ctx, cand, *ok)
        if sug is None:
            continue
        if sug.key[: len(bound)] < bound:
            exact = False  # a floor was wrong (evaluator counts power differently): no pruning
        found.append(sug)
    found.sort(key=lambda s: s.key)
    return found[:limit], validated


def _misses_target(est: Estimate, w: Workload) -> str | None:
    """Why an estimate does not meet --target-days (None: it does, or there is no target).
    An unknown time cannot be shown to meet it, so it misses."""
    check = target_check(w, est.train_hours)
    if check is None or check.met:
        return None
    if check.days is None:
        return "training time unknown (GPU lacks a dense BF16 figure), cannot meet " + ref(
            "target_days"
        )
    return f"{check.days:,.1f} days misses {ref('target_days')} {check.target_days:g}"


def _single_node(ctx: _Ctx, chassis: list[Chassis]) -> list[_Cand]:
    cands: list[_Cand] = []
    w = ctx.workload
    for ch in chassis:
        cpu = _cpu_choice(ch, ctx.catalog, ctx.objective, ctx.prices)
        if cpu is None:
            ctx.rejected[f"{ch.sku}: no CPU listed for it in the catalog"] += 1
            continue
        options = _gpu_options(ctx, ch)
        if not options:
            allowed = ", ".join(ctx.cons.gpus) or "any"
            ctx.rejected[f"{ch.sku}: supports none of the allowed GPUs ({allowed})"] += 1
        for gpu, bb in options:
            groups = tuple(ch.nvlink_groups) if _bridge_options(ctx.catalog, gpu, ch) else ()
            if bb is not None:
                counts = [bb.gpu_count]
            else:
                counts = sorted(ctx.placer.sets(ch, gpu, ch.cpu_sockets, groups))
            for n in counts:
                if n % w.tp:
                    continue
                est = _estimate(ctx, gpu, n, n)
                if not est.fits:
                    ctx.rejected[f"workload does not fit {n} x {gpu.sku}"] += 1
                    continue
                why = _misses_target(est, w)
                if why:
                    ctx.rejected[f"{n} x {gpu.sku}: {why}"] += 1
                    continue
                placement = None
                if bb is None:
                    placement = _place(ctx.placer, ch, gpu, n, ch.cpu_sockets, groups, None, 0)
                cand = _make_candidate(ctx, ch, gpu, bb, n, 1, est, None, cpu, placement)
                if cand is not None:
                    cands.append(cand)
    return cands


def _fewest_nodes(ctx: _Ctx, gpu: Gpu, per_node: int) -> tuple[int, Estimate] | str:
    """(nodes, estimate) for the fewest nodes (>= 2) that fit and meet the target, or why not.
    Memory per GPU and time both fall as GPUs are added, so doubling then bisecting is exact."""
    w = ctx.workload
    memo: dict[int, Estimate] = {}

    def est(k: int) -> Estimate:
        if k not in memo:
            memo[k] = _estimate(ctx, gpu, per_node * k, per_node)
        return memo[k]

    def ok(k: int) -> bool:
        e = est(k)
        return bool(e.fits) and not _misses_target(e, w)

    top = ctx.cons.max_nodes
    if top < 2:
        return f"{ref('max_nodes')} is below 2"

    def stuck(k: int) -> str | None:
        why = _misses_target(est(k), w)
        return why if why and est(k).train_hours is None else None

    found = fewest_passing(ok, stuck, top, per_node)
    return found if isinstance(found, str) else (found, est(found))


def _multi_node(ctx: _Ctx, chassis: list[Chassis]) -> list[_Cand]:
    cands: list[_Cand] = []
    w = ctx.workload
    nics = _nic_choice(ctx)
    if not nics:
        ctx.rejected[f"no NIC of >= {ctx.cons.min_nic_gbps} Gb/s in the catalog"] += 1
        return cands
    for ch in chassis:
        cpu = _cpu_choice(ch, ctx.catalog, ctx.objective, ctx.prices)
        if cpu is None:
            continue
        for gpu, bb in _gpu_options(ctx, ch):
            groups = (
                tuple(ch.nvlink_groups)
                if bb is None and _bridge_options(ctx.catalog, gpu, ch)
                else ()
            )
            best: tuple[int, Placement | None, Nic] | None = None
            for nic in nics:
                if bb is not None:
                    slots = _place_nics(ch, (), False, nic, bb.gpu_count, ch.cpu_sockets)
                    if slots is not None:
                        best = (bb.gpu_count, Placement((), slots), nic)
                        break
                    continue
                sizes = sorted(ctx.placer.sets(ch, gpu, ch.cpu_sockets, groups), reverse=True)
                for g in sizes:
                    if g % w.tp:
                        continue
                    pl = _place(ctx.placer, ch, gpu, g, ch.cpu_sockets, groups, nic, g)
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
            found = _fewest_nodes(ctx, gpu, g)
            if isinstance(found, str):
                ctx.rejected[f"{gpu.sku}: {found}"] += 1
                continue
            nodes, est = found
            cand = _make_candidate(ctx, ch, gpu, bb, g, nodes, est, nic, cpu, placement)
            if cand is not None:
                cands.append(cand)
    return cands


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

    ``estimator``/``evaluator`` default to engine.estimate.estimate / engine.evaluate.evaluate;
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
    if arch is None:
        from slotwise.engine.estimate.resolve import resolve_arch

        arch = resolve_arch(workload, catalog)
    ctx = _Ctx(
        workload=workload,
        catalog=catalog,
        cons=cons,
        objective=objective,
        prices=prices,
        estimator=estimator or _default_estimator(),
        evaluator=evaluator or _default_evaluator(),
        arch=arch,
        memory_ratio=default_memory_ratio() if memory_ratio is None else memory_ratio,
    )
    ctx.per_server_kw = _takes_per_server(ctx.estimator)
    chassis = select_chassis(catalog, cons)
    notes: list[str] = []
    if not chassis:
        notes.append("No chassis in the catalog matches the chassis/cooling constraints.")
    found, validated = _search(ctx, _single_node(ctx, chassis), limit)
    multi = False
    if not found and chassis:
        notes.append(
            "No single-server build runs this workload within the constraints; "
            "sizing a cluster of identical nodes."
        )
        multi = True
        more, v2 = _search(ctx, _multi_node(ctx, chassis), limit)
        found, validated = more, validated + v2
    ranked = tuple(dataclasses.replace(s, rank=i + 1) for i, s in enumerate(found))
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
    )
