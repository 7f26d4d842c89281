"""What every rule family reads: the build with its catalog records resolved, once per evaluate().

The per-chassis lookups (slot by id, which slot covers which, the NVLink groups as sets, the CPU
socket each slot hangs off) depend only on the chassis record, so :func:`chassis_index` builds them
once per (catalog, chassis) and keeps them in a cache that lives on the Catalog instance itself:
no module-level mutable state, and a new catalog (a user overlay) never sees stale indexes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from slotwise.engine.build import Build
from slotwise.engine.check.report import Budget, Finding, PowerFigures
from slotwise.engine.estimate import Estimate
from slotwise.engine.estimate.fit import MemoryMemo
from slotwise.engine.workload import Workload, hashable_key
from slotwise.parts.catalog import Catalog, onboard_nics
from slotwise.parts.schema import Baseboard, Chassis, Cpu, Dimm, Gpu, Nic, Psu, Root, Slot

_CACHE_KEY = "_slotwise_engine_cache"


def engine_cache(catalog: Catalog) -> dict[Any, Any]:
    """A dict owned by this Catalog instance for derived, immutable lookups (indexes, memos)."""
    cache = catalog.__dict__.get(_CACHE_KEY)
    if cache is None:
        cache = {}
        catalog.__dict__[_CACHE_KEY] = cache
    return cache


@dataclass(frozen=True)
class ChassisIndex:
    """Lookups derived from one Chassis record."""

    chassis: Chassis
    slot: dict[str, Slot]
    root: dict[str, Root]
    slot_order: dict[str, int]
    bay_order: dict[str, int]  # drive bay id -> its place in the chassis record
    slot_key: dict[str, tuple[int, str]]  # slot id -> (its place, id): the sort key of a slot
    slots_of_root: dict[str, tuple[str, ...]]
    children_of_root: dict[str, tuple[str, ...]]
    covered_by: dict[str, tuple[str, ...]]  # slot -> slots whose double-width card covers it
    socket_of_slot: dict[str, int]  # the CPU socket a slot needs (root socket, requires_socket)
    switch_slots: frozenset[str]  # slots whose root is a PCIe switch
    root_of_slot: dict[str, str]  # slot id -> the id of the root it hangs off
    # NICs built into the chassis, one entry per device (parts.catalog.onboard_nics)
    onboard_nics: tuple[tuple[str | None, Nic], ...]
    nvlink_groups: frozenset[frozenset[str]]
    groups_by_size: dict[int, tuple[tuple[str, ...], ...]]
    # What a rule family derives from the chassis alone, by family name (e.g. the lanes rule's
    # per-root plan): computed on first use, kept for the catalog's life like the rest.
    derived: dict[str, Any] = field(default_factory=dict, compare=False)
    # (slot id, part SKU) -> (the slot and part records, why the part does not fit the slot): a
    # card's physical fit depends only on the two records (engine.check.rules.slots.fit_errors).
    fit_memo: dict[tuple[str, str], tuple[Any, Any, tuple[tuple[str, str, str], ...]]] = field(
        default_factory=dict, compare=False
    )
    # (slot id, part SKU) -> (the slot and part records, the slots rule's facts about that card
    # in that slot: engine.check.rules.slots._card_facts)
    card_memo: dict[tuple[str, str], tuple[Any, Any, Any]] = field(
        default_factory=dict, compare=False
    )


def _build_index(catalog: Catalog, ch: Chassis) -> ChassisIndex:
    slot = {s.id: s for s in ch.slots}
    root = {r.id: r for r in ch.roots}
    slots_of_root: dict[str, list[str]] = {r.id: [] for r in ch.roots}
    children: dict[str, list[str]] = {r.id: [] for r in ch.roots}
    covered_by: dict[str, list[str]] = {}
    socket_of_slot: dict[str, int] = {}
    for s in ch.slots:
        slots_of_root.setdefault(s.root, []).append(s.id)
        if s.covers:
            covered_by.setdefault(s.covers, []).append(s.id)
        r = root.get(s.root)
        sock = r.socket if r else 1
        if s.requires_socket:
            sock = max(sock, s.requires_socket)
        socket_of_slot[s.id] = sock
    for r in ch.roots:
        if r.parent:
            children.setdefault(r.parent, []).append(r.id)
    by_size: dict[int, list[tuple[str, ...]]] = {}
    for g in ch.nvlink_groups:
        by_size.setdefault(len(g), []).append(tuple(g))
    return ChassisIndex(
        chassis=ch,
        slot=slot,
        root=root,
        slot_order={s.id: i for i, s in enumerate(ch.slots)},
        bay_order={b.id: i for i, b in enumerate(ch.drive_bays)},
        slot_key={s.id: (i, s.id) for i, s in enumerate(ch.slots)},
        slots_of_root={k: tuple(v) for k, v in slots_of_root.items()},
        children_of_root={k: tuple(v) for k, v in children.items()},
        covered_by={k: tuple(v) for k, v in covered_by.items()},
        socket_of_slot=socket_of_slot,
        switch_slots=frozenset(
            s.id for s in ch.slots if (r := root.get(s.root)) is not None and r.kind == "switch"
        ),
        root_of_slot={s.id: s.root for s in ch.slots},
        onboard_nics=onboard_nics(catalog, ch),
        nvlink_groups=frozenset(frozenset(g) for g in ch.nvlink_groups),
        groups_by_size={k: tuple(v) for k, v in by_size.items()},
    )


def chassis_index(catalog: Catalog, ch: Chassis) -> ChassisIndex:
    cache = engine_cache(catalog)
    key = ("chassis_index", ch.sku)
    idx = cache.get(key)
    if idx is None or idx.chassis is not ch:
        idx = _build_index(catalog, ch)
        cache[key] = idx
    return idx


def memory_memo(catalog: Catalog) -> MemoryMemo:
    """The memo of memory per GPU (engine.estimate.fit) on the catalog's engine cache: a suggest
    run or a build's checks estimate the same model under the same layouts for many GPUs and
    counts, and memory per GPU does not depend on the GPU."""
    memo: MemoryMemo = engine_cache(catalog).setdefault("memory_memo", {})
    return memo


def fields_key(model: Any) -> tuple:
    """A frozen pydantic model's field values as a plain tuple, for a memo key: equal exactly
    when the models are (pydantic compares the field dicts), but hashed and compared in C
    rather than by BaseModel's Python ``__hash__``/``__eq__``."""
    return tuple(model.__dict__.values())


_KEYS_MAX = 256

#: Ctx.memo key of :meth:`Ctx.gpu_slots_by_sku` (engine.check.evaluate fills it as it resolves
#: the slots).
GPU_SLOTS_KEY = "gpu_slots_by_sku"


def workload_key(catalog: Catalog, wl: Workload) -> Any:
    """A hashable key equal for equal workloads (the estimate and sizing memos key on it): the
    workload itself when it hashes, else its JSON (a workload with a dict field, such as trainer
    overrides, does not hash).  The JSON is remembered per workload *instance* on the catalog's
    engine cache (the instance is held, so its id is not reused): a build re-evaluated after an
    edit keeps its workload object, and serialising it on every keystroke is the costly part."""
    keys = engine_cache(catalog).setdefault("workload_keys", {})
    hit = keys.get(id(wl))
    if hit is not None and hit[0] is wl:
        return hit[1]
    key = hashable_key(wl)
    if len(keys) >= _KEYS_MAX:
        keys.clear()
    keys[id(wl)] = (wl, key)
    return key


@dataclass
class Ctx:
    """The build with its records looked up.  Rules only read it and append findings/budgets."""

    build: Build
    catalog: Catalog
    chassis: Chassis
    idx: ChassisIndex
    workload: Workload | None
    gpus: dict[str, Gpu] = field(default_factory=dict)  # slot id -> GPU in a known slot
    nics: dict[str, Nic] = field(default_factory=dict)  # slot id -> NIC in a known slot
    # NICs built into the chassis (one entry per device): (PCIe root id or None, record).
    onboard_nics: tuple[tuple[str | None, Nic], ...] = ()
    cpu: Cpu | None = None
    dimm: Dimm | None = None
    psu: Psu | None = None
    baseboard: Baseboard | None = None
    baseboard_gpu: Gpu | None = None
    # Filled by workload_fit, read by network: the estimator's result and the GPU it used.
    estimate: Estimate | None = None
    estimate_gpu: Gpu | None = None
    # Filled by workload_fit: the links (topology) of the GPUs it sized, derived once per call.
    links: Any = None
    # Filled by workload_fit: the one sizing answer (engine.check.sizing.Sizing) for this build.
    sizing: Any = None
    # Per-call memo for what several rules derive from the same build (free destinations of a
    # card...): it lives and dies with this context, never across builds.
    memo: dict[Any, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    budgets: list[Budget] = field(default_factory=list)
    # The node's worst-case DC draw by part (engine.check.rules.power.draw_detail), derived once
    # per call and kept here.
    draw: Any = None
    # Worst-case watts by component, filled by power, read by cooling (heat).
    power_w: float | None = None
    # The draw above which power.redundancy fires (known capacity, or the low-line inlet bound).
    power_limit: float | None = None
    # Worst-case / typical AC at the wall, filled by power, read by cooling and the report.
    power_figures: PowerFigures | None = None

    @property
    def cpu_count(self) -> int:
        """CPUs that are actually fitted and known (0 when the CPU SKU is missing/unknown)."""
        return self.build.cpu_count if self.cpu is not None else 0

    def add(self, finding: Finding) -> None:
        self.findings.append(finding)

    def gpu_count(self) -> int:
        n = len(self.gpus)
        if self.baseboard is not None:
            n += self.baseboard.gpu_count
        return n

    def gpu_slots_by_sku(self) -> dict[str, list[str]]:
        """GPU SKU -> the slots holding it, both in the build's slot order: derived once per call
        for the rules that group the cards by model (read it, never change it)."""
        by = self.memo.get(GPU_SLOTS_KEY)
        if by is None:
            by = {}
            for sid, g in self.gpus.items():
                slots = by.get(g.sku)
                if slots is None:
                    by[g.sku] = [sid]
                else:
                    slots.append(sid)
            self.memo[GPU_SLOTS_KEY] = by
        return by

    def all_gpus(self) -> list[Gpu]:
        out = list(self.gpus.values())
        if self.baseboard is not None and self.baseboard_gpu is not None:
            out += [self.baseboard_gpu] * self.baseboard.gpu_count
        return out

    def sort_slots(self, slots) -> tuple[str, ...]:
        """Slot ids in the chassis' order, unknown ids after, by name."""
        items = tuple(slots)
        try:
            # The usual case, every id the chassis': its place alone orders it (places are
            # unique), and the lookup runs in C.
            return tuple(sorted(items, key=self.idx.slot_order.__getitem__))
        except KeyError:
            key = self.idx.slot_key
            return tuple(sorted(items, key=lambda s: key.get(s) or (10_000, s)))

    def part_in(self, slot_id: str) -> Gpu | Nic | None:
        return self.gpus.get(slot_id) or self.nics.get(slot_id)


def is_wide(part: Gpu | Nic | None) -> bool:
    """A card two or more slots wide (blocks the slot's ``covers`` neighbour)."""
    return part is not None and (part.width_slots or 1) >= 2
