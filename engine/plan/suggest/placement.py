"""Where the GPUs and NICs go: every non-colliding set of GPU slots per chassis and card shape,
scored for full lanes, whole NVLink groups and balance across sockets and PCIe roots; NICs in the
slots left free; NVLink bridges on every fully populated group."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from slotwise.engine.build import BridgeFit
from slotwise.engine.check.rules.context import engine_cache
from slotwise.engine.check.rules.slots import card_fit_problems
from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import Bridge, Chassis, Gpu, Nic, Slot

# Up to this many usable slots the placer enumerates every non-colliding subset (2^16 = 65k sets,
# ~1 s worst case); beyond it, it grows one set greedily.
EXHAUSTIVE_SLOTS = 16


@dataclass(frozen=True)
class Placement:
    gpu_slots: tuple[str, ...]
    nic_slots: tuple[str, ...] = ()


def gpu_fits(slot: Slot, gpu: Gpu) -> bool:
    """A GPU in a slot the manual does not reserve for NICs, where the rules' card-in-slot fit
    (engine.check.rules.slots.card_fit_problems) finds nothing wrong."""
    return slot.purpose != "nic" and not card_fit_problems(slot, gpu)


def nic_fits(slot: Slot, nic: Nic) -> bool:
    """A NIC in a slot the manual does not reserve for GPUs, where the rules' card-in-slot fit
    finds nothing wrong."""
    return slot.purpose != "gpu" and not card_fit_problems(slot, nic)


def slot_socket(ch: Chassis, slot: Slot) -> int:
    root = next((r for r in ch.roots if r.id == slot.root), None)
    sock = root.socket if root else 1
    return max(sock, slot.requires_socket or 1)


class Placer:
    """Enumerates every non-colliding set of GPU slots once per (chassis, card shape), scores them
    (full lanes, whole NVLink groups, balance across sockets and roots) and keeps the best per
    size.  Chassis have at most a few dozen slots and double-width cards halve the choices, so
    exhaustive enumeration is exact and fast enough.  The answers depend only on the chassis,
    card and NIC records, so one Placer lives on each Catalog instance (:func:`catalog_placer`)
    and every suggest() on that catalog shares it."""

    def __init__(self) -> None:
        self._cache: dict[tuple, dict[int, list[tuple[tuple, tuple[str, ...]]]]] = {}
        # place_nics answers, per (chassis, GPU slots, card shape, NIC, count, CPUs): the same
        # slot set is tried for many candidates (every GPU model of a shape, every NIC count).
        self.nic_cache: dict[tuple, tuple[str, ...] | None] = {}

    def sets(
        self, ch: Chassis, gpu: Gpu, cpu_count: int, groups: tuple[tuple[str, ...], ...]
    ) -> dict[int, list[tuple[tuple, tuple[str, ...]]]]:
        wide = (gpu.width_slots or 1) >= 2
        key = (ch.sku, wide, gpu.pcie_lanes, gpu.pcie_gen, gpu.length, cpu_count, groups)
        if key not in self._cache:
            self._cache[key] = self._enumerate(ch, gpu, cpu_count, wide, groups)
        return self._cache[key]

    def _enumerate(self, ch, gpu, cpu_count, wide, groups):
        slots = [s for s in ch.slots if slot_socket(ch, s) <= cpu_count and gpu_fits(s, gpu)]
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
        sock_of = [slot_socket(ch, s) for s in slots]  # per usable slot, derived once
        all_roots = {s.root for s in slots}
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
                per_sock[sock_of[i]] += 1
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
            root_counts = [per_root.get(r, 0) for r in all_roots]
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


def catalog_placer(catalog: Catalog) -> Placer:
    """The Placer kept in this catalog's engine cache (a new catalog, e.g. a user overlay, gets
    its own: no slot set outlives the records it was derived from)."""
    cache = engine_cache(catalog)
    placer = cache.get("placer")
    if not isinstance(placer, Placer):
        placer = cache["placer"] = Placer()
    return placer


def place(
    placer: Placer,
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
        key = (ch.sku, gpu_slots, wide, nic.sku if nic is not None else None, nics, cpu_count)
        if key in placer.nic_cache:
            nic_slots = placer.nic_cache[key]
        else:
            nic_slots = placer.nic_cache[key] = place_nics(
                ch, gpu_slots, wide, nic, nics, cpu_count
            )
        if nic_slots is not None:
            return Placement(gpu_slots, nic_slots)
    return None


def place_nics(ch, gpu_slots, wide, nic, count, cpu_count) -> tuple[str, ...] | None:
    taken = set(gpu_slots)
    sock = {s.id: slot_socket(ch, s) for s in ch.slots}
    blocked = {s.covers for s in ch.slots if s.id in taken and wide and s.covers}
    free = [
        s
        for s in ch.slots
        if s.id not in taken
        and s.id not in blocked
        and sock[s.id] <= cpu_count
        and nic_fits(s, nic)
    ]
    if len(free) < count:
        return None
    # Balance NICs like the GPUs: prefer roots and sockets that hold GPUs, fewest NICs so far.
    gpu_roots = Counter(s.root for s in ch.slots if s.id in taken)
    gpu_socks = Counter(sock[s.id] for s in ch.slots if s.id in taken)
    chosen: list[Slot] = []
    per_root: Counter[str] = Counter()
    per_sock: Counter[int] = Counter()
    order = {s.id: i for i, s in enumerate(ch.slots)}
    for _ in range(count):
        best = min(
            (s for s in free if s not in chosen),
            key=lambda s: (
                per_root[s.root] - gpu_roots.get(s.root, 0),
                per_sock[sock[s.id]] - gpu_socks.get(sock[s.id], 0),
                -s.lanes,
                order[s.id],
            ),
        )
        chosen.append(best)
        per_root[best.root] += 1
        per_sock[sock[best.id]] += 1
    return tuple(s.id for s in sorted(chosen, key=lambda s: order[s.id]))


def bridge_options(catalog: Catalog, gpu: Gpu, ch: Chassis) -> dict[int, Bridge]:
    """Bridge SKU per group size (2 or 4 ways) for this GPU, when the chassis has such groups."""
    sizes = {len(g) for g in ch.nvlink_groups}
    out: dict[int, Bridge] = {}
    for br in sorted(catalog.bridges.values(), key=lambda b: b.sku):
        if gpu.sku in br.gpu_skus and br.ways in sizes and br.ways not in out:
            out[br.ways] = br
    return out


def bridges_for(
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
