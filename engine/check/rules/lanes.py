"""PCIe lane rules: lanes used vs available on every root (CPU root complex or PCIe switch), and
how much a switch's uplink is oversubscribed.

A card uses min(card lanes, slot lanes) lanes (it trains to the narrower width).  A switch's
uplink counts against the root it hangs off.  A CPU root can serve no more lanes than the chassis
record gives it, nor more than the fitted CPU has (``Cpu.pcie_lanes``).  A switch shares its
uplink among everything below it: downstream:upstream above 1:1 means cards compete for host
bandwidth when they all talk to the CPU at once (peer-to-peer traffic under the switch does not
use the uplink).  2:1 is the usual design for two x16 GPUs per switch (measured topology of the
X13DEG-OA board in SYS-521GE-TNRT: 4 switches, 2 GPUs each; see shared reference S9), so it is
reported as information; above 2:1 as a warning.  A NIC in the switch's own NIC slot (the
chassis record's ``purpose = "nic"`` slot under a GPU switch) is the vendor's GPUDirect RDMA
layout: the NIC reads and writes the GPUs beside it peer-to-peer under the switch, not through
the uplink, so its lanes are not counted against the uplink when it decides the severity; the
layout is stated once, as information.
"""

from __future__ import annotations

from dataclasses import dataclass

from slotwise.engine.build.edits import Move
from slotwise.engine.check.report import Severity
from slotwise.engine.check.rules.common import budget, finding
from slotwise.engine.check.rules.context import Ctx
from slotwise.engine.check.rules.family import RuleFamily
from slotwise.engine.check.rules.slots import find_destination
from slotwise.parts.schema import Gpu, Nic

#: The rule ids this family emits (stable: the CLI's JSON, saved reports and the UI key on them)
#: and what each checks.
FAMILY = RuleFamily(
    "lanes",
    rules={
        "lanes.root_over": "cards and switches need more lanes than a root (or its CPU) has",
        "lanes.switch_oversubscribed": "switch downstream lanes exceed its uplink",
        "lanes.unknown_root": "root lane count unknown",
    },
)

OVERSUB_WARN = 2.0


def card_lanes(ctx: Ctx) -> dict[str, int]:
    """Slot id -> the lanes its card takes, for every card in a known slot: min(card lanes, slot
    lanes), the whole slot when the card's lanes are unknown (the worst case).  Computed once
    per context."""
    use = ctx.memo.get("card_lanes")
    if use is None:
        slot = ctx.idx.slot
        use = {}
        for cards in (ctx.gpus, ctx.nics):
            for sid, part in cards.items():
                lanes = slot[sid].lanes
                need = part.pcie_lanes
                use[sid] = lanes if need is None or need > lanes else need
        ctx.memo["card_lanes"] = use
    return use


@dataclass(frozen=True, slots=True)
class _Root:
    """One PCIe root of the chassis as the rule reads it on every call (plain fields)."""

    id: str
    kind: str
    socket: int
    lanes: int | None
    upstream: int | None
    head: str  # "<label or id>: ", the start of its budget's detail
    budget_name: str
    # (slot id, "slot <label> x", its electrical lanes) of the slots on it
    slots: tuple[tuple[str, str, int], ...]
    uplinks: tuple[tuple[int, str], ...]  # (lanes, words) of the switch uplinks below it
    children: tuple[str, ...]
    nic_slots: tuple[str, ...]  # its slots meant for a NIC (``purpose = "nic"``)


def _roots(ctx: Ctx) -> tuple[_Root, ...]:
    """The chassis' roots in record order, derived once per chassis index."""
    idx = ctx.idx
    plan = idx.derived.get("lanes")
    if plan is None:
        out = []
        for root in ctx.chassis.roots:
            rid = root.id
            on = idx.slots_of_root.get(rid, ())
            children = idx.children_of_root.get(rid, ())
            uplinks = []
            for child in children:
                up = idx.root[child].upstream_lanes
                if up is not None:
                    uplinks.append((up, f"switch {child} uplink x{up}"))
            out.append(
                _Root(
                    id=rid,
                    kind=root.kind,
                    socket=root.socket,
                    lanes=root.lanes,
                    upstream=root.upstream_lanes,
                    head=(root.label or rid) + ": ",
                    budget_name=f"lanes:{rid}",
                    slots=tuple((s, f"slot {idx.slot[s].label} x", idx.slot[s].lanes) for s in on),
                    uplinks=tuple(uplinks),
                    children=children,
                    nic_slots=tuple(s for s in on if idx.slot[s].purpose == "nic"),
                )
            )
        plan = idx.derived["lanes"] = tuple(out)
    return plan


def check(ctx: Ctx) -> None:
    idx = ctx.idx
    occupied = ctx.build.slots
    gpus, nics = ctx.gpus, ctx.nics
    roots = _roots(ctx)
    use: dict[str, int] = {}  # card_lanes for the cards on the roots, made in the same pass
    used: dict[str, int] = {}
    detail: dict[str, list[str]] = {}
    downstream: dict[str, int] = {}
    for r in roots:
        n = 0
        items: list[str] = []
        for sid, words, lanes in r.slots:
            part: Gpu | Nic | None = gpus.get(sid)
            if part is None:
                part = nics.get(sid)
                if part is None:
                    continue
            need = part.pcie_lanes
            u = use[sid] = lanes if need is None or need > lanes else need
            n += u
            items.append(f"{words}{u}")
        downstream[r.id] = n
        for up, words in r.uplinks:
            n += up
            items.append(words)
        used[r.id] = n
        detail[r.id] = items

    unknown: list[str] = []
    overs: list[tuple[str, int, int]] = []
    shared: list[tuple[str, int, int, float]] = []  # switches at most 2:1
    gpudirect: list[tuple[str, int, int, float]] = []  # over 2:1 only by their own NIC slots
    avails: dict[str, int | None] = {}
    sockets = max(ctx.cpu_count, 1)
    cpu = ctx.cpu
    cpu_lanes = cpu.pcie_lanes if cpu is not None else None
    for r in roots:
        if r.socket > sockets:
            continue  # the socket is empty: slots.needs_cpu reports cards there
        rid = r.id
        avail = r.lanes
        why = ""
        if r.kind == "cpu" and cpu_lanes is not None and (avail is None or cpu_lanes < avail):
            avail = cpu_lanes
            why = f" ({cpu.sku if cpu else 'the CPU'} has {avail} PCIe lanes)"
        u = used[rid]
        avails[rid] = avail
        ctx.budgets.append(
            budget(
                name=r.budget_name,
                used=u,
                available=avail,
                unit="lanes",
                group="lanes",
                detail=r.head + (", ".join(detail[rid]) or "nothing fitted") + why,
            )
        )
        if avail is None:
            if u:
                unknown.append(f"{rid} ({u} lanes in use)")
        elif u > avail:
            overs.append((rid, u, avail))
        uplink = r.upstream
        if r.kind == "switch" and uplink:
            down = downstream[rid]
            if r.children:
                down += sum([used[c] for c in r.children])
            ratio = down / uplink
            own_nics = sum([use[s] for s in r.nic_slots if s in nics])
            host_bound = (down - own_nics) / uplink
            if 1.0 < ratio <= OVERSUB_WARN:
                shared.append((rid, down, uplink, ratio))
            elif own_nics and host_bound <= OVERSUB_WARN:
                gpudirect.append((rid, down, uplink, ratio))
            elif ratio > OVERSUB_WARN:
                sev: Severity = "warning"
                here = [s for s, _, _ in r.slots if s in occupied]
                ctx.add(
                    finding(
                        "lanes.switch_oversubscribed",
                        sev,
                        f"switch {rid} serves {down} downstream lanes over a "
                        f"x{uplink} uplink ({ratio:g}:1): cards under it share "
                        "host bandwidth",
                        slots=tuple(here),
                        parts=tuple([occupied[s] for s in here]),
                        fix="fine for GPU peer-to-peer traffic under the switch; for host-bound "
                        "traffic spread cards over more switches",
                    )
                )

    if shared:
        ctx.add(
            finding(
                "lanes.switch_oversubscribed",
                "info",
                "PCIe switches sharing their uplink: "
                + ", ".join(f"{r} {d} lanes over x{up} ({q:g}:1)" for r, d, up, q in shared)
                + ". Up to 2:1 is the usual design for two x16 GPUs per switch",
                slots=ctx.sort_slots(
                    s for r, *_ in shared for s in idx.slots_of_root.get(r, ()) if s in occupied
                ),
                fix="fine for GPU peer-to-peer traffic under a switch; for host-bound traffic "
                "spread cards over more switches",
            )
        )
    if gpudirect:
        ctx.add(
            finding(
                "lanes.switch_oversubscribed",
                "info",
                "NICs in the switches' own NIC slots, beside their GPUs (the vendor's GPUDirect "
                "RDMA layout): "
                + ", ".join(f"{r} {d} lanes over x{up} ({q:g}:1)" for r, d, up, q in gpudirect)
                + ". GPU-NIC traffic stays under the switch",
                slots=ctx.sort_slots(
                    [
                        s
                        for r, *_ in gpudirect
                        for s in idx.slots_of_root.get(r, ())
                        if s in occupied
                    ]
                ),
                fix="nothing to change: this is the chassis' reference layout",
            )
        )
    for root_id, u, avail in overs:
        _over(ctx, root_id, u, avail, used, avails)
    if unknown:
        ctx.add(
            finding(
                "lanes.unknown_root",
                "info",
                "could not check PCIe lanes on " + ", ".join(unknown) + ": the lane count of "
                "these roots is not in the catalog",
                fix="add each root's lane count (with its source) to the chassis record",
            )
        )


def _over(
    ctx: Ctx,
    root_id: str,
    used: int,
    avail: int,
    used_by_root: dict[str, int],
    avails: dict[str, int | None],
) -> None:
    """Report a root over its lanes; the edit moves one card to a root with room for it."""
    idx = ctx.idx
    here = [s for s in idx.slots_of_root.get(root_id, ()) if s in ctx.gpus or s in ctx.nics]
    edit: tuple = ()
    fix = f"move cards off {root_id} to slots on another root"
    if idx.root[root_id].kind == "cpu":
        avoid_roots = {root_id}  # a switch below keeps its uplink whatever it carries
    else:
        avoid_roots = {r for r in idx.root if _root_chain(ctx, r, root_id)}
    use = card_lanes(ctx)
    for sid in sorted(here, key=use.__getitem__):
        part = ctx.part_in(sid)
        if part is None or used - use[sid] > avail:
            continue
        need = min(part.pcie_lanes or 16, 16)
        full = frozenset(
            s.id
            for s in ctx.chassis.slots
            if s.root in avoid_roots
            or _no_room(ctx, s.root, min(need, s.lanes), used_by_root, avails)
        )
        dst = find_destination(ctx, part, sid, avoid=full)
        if dst is not None:
            edit = (Move(src=sid, dst=dst),)
            fix = edit[0].describe()
            break
    ctx.add(
        finding(
            "lanes.root_over",
            "error",
            f"{root_id} has {avail} PCIe lanes but the cards and switches on it need {used}: "
            "the devices beyond its lanes cannot all be addressed",
            slots=ctx.sort_slots(here),
            parts=tuple(ctx.build.slots[s] for s in ctx.sort_slots(here)),
            fix=fix,
            edit=edit,
        )
    )


def _no_room(
    ctx: Ctx, root_id: str, lanes: int, used: dict[str, int], avails: dict[str, int | None]
) -> bool:
    """True when ``root_id`` cannot take ``lanes`` more: it is over, or its CPU is not fitted.

    Only the root itself counts: a card added under a switch does not change the lanes the
    switch's uplink takes on its parent."""
    if root_id not in avails:
        return True
    avail = avails[root_id]
    return avail is not None and used.get(root_id, 0) + lanes > avail


def _root_chain(ctx: Ctx, root_id: str, ancestor: str) -> bool:
    """True when ``root_id`` is ``ancestor`` or hangs (via switches) below it."""
    seen = 0
    r: str | None = root_id
    while r is not None and seen < 16:
        if r == ancestor:
            return True
        rec = ctx.idx.root.get(r)
        r = rec.parent if rec is not None else None
        seen += 1
    return False
