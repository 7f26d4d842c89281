"""Slot rules: does each card fit its slot, electrically and mechanically, in this chassis?

Facts used (all from the catalog records): the slot's electrical and mechanical width, height,
length and whether a double-width card fits; which neighbour a double-width card covers; which
CPU socket the slot needs; the card's lanes, width, length, form (PCIe or SXM), whether NVIDIA
sells it for the data centre; the chassis' supported-GPU list and its HGX baseboards.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter

from slotwise.engine.build.edits import Move, Place, Remove, SetBaseboard, SetCount
from slotwise.engine.check.rules.common import finding, plural, slot_list
from slotwise.engine.check.rules.context import Ctx, is_wide
from slotwise.engine.check.rules.family import RuleFamily
from slotwise.engine.inputs import ref
from slotwise.parts.schema import Gpu, Nic, Slot

#: The rule ids this family emits (stable: the CLI's JSON, saved reports and the UI key on them)
#: and what each checks.
FAMILY = RuleFamily(
    "slots",
    rules={
        "slots.unknown_slot": "a card in a slot id the chassis does not have",
        "slots.unknown_part": "a slot holds a SKU that is not in the catalog",
        "slots.not_a_card": "a slot holds a part that is not a GPU or NIC",
        "slots.needs_cpu": "slot wired to a CPU socket that is empty",
        "slots.sxm_in_pcie": "SXM module placed in a PCIe slot",
        "slots.ocp_nic": "OCP 3.0 NIC placed in a PCIe slot",
        "slots.not_ocp": "GPU or stand-up card placed in an OCP 3.0 / AIOM slot",
        "slots.onboard_nic": "an on-board NIC (not a card) placed in a slot",
        "slots.too_wide": "double-width card in a single-width slot",
        "slots.too_long": "full-length card in a half-length slot",
        "slots.too_tall": "full-height card in a low-profile slot",
        "slots.mechanical": "card edge wider than the slot's mechanical size",
        "slots.double_width_blocked": "double-width card covers an occupied neighbour slot",
        "slots.runs_narrow": "card runs with fewer lanes than it has (e.g. x16 card at x8)",
        "slots.runs_slower_gen": "card links at an older PCIe generation",
        "slots.purpose": "GPU in a slot meant for a NIC",
        "slots.unknown_figures": "card width/length/lanes unknown: fit not fully checked",
        "slots.gpu_not_listed": "GPU not on the vendor's supported list for the chassis",
        "slots.unknown_gpu_list": "chassis' supported-GPU list unknown",
        "slots.consumer_gpu": "consumer (non-data-centre) GPU in a server",
        "slots.mixed_gpus": "different GPU models in one build",
        "slots.too_many_gpus": "more GPUs than the chassis supports",
        "slots.unknown_max_gpus": "chassis' GPU limit unknown",
        "slots.no_baseboard": "HGX system without its GPU baseboard",
        "slots.unknown_baseboard": "baseboard SKU not in the catalog",
        "slots.baseboard_not_supported": "baseboard the chassis does not take",
        "slots.baseboard_in_pcie_chassis": "HGX baseboard set on a PCIe-GPU chassis",
    },
)

_FULL_HEIGHT = {"FHFL", "FHHL"}
_FIT_MEMO_MAX = 4096
_FULL_LENGTH = {"FHFL"}


# ------------------------------------------------------------------ physical fit of one card


def fit_errors(ctx: Ctx, slot: Slot, part: Gpu | Nic) -> tuple[tuple[str, str, str], ...]:
    """(rule, message, fix) for every reason ``part`` cannot work in ``slot`` (errors only).

    Neighbour blocking is not included: it depends on the other cards (see :func:`_check_card`).
    The answer depends only on the two records, so it is kept on the chassis index (one per
    catalog and chassis) for the very records it was computed for.
    """
    memo = ctx.idx.fit_memo
    key = (slot.id, part.sku)
    hit = memo.get(key)
    if hit is not None and hit[0] is slot and hit[1] is part:
        return hit[2]
    problems = tuple(card_fit_problems(slot, part))
    if len(memo) >= _FIT_MEMO_MAX:
        memo.clear()
    memo[key] = (slot, part, problems)
    return problems


@dataclass(frozen=True, slots=True)
class _CardFacts:
    """What :func:`_check_card` reads of one card in one slot that depends only on the two
    records (the rest depends on the build: CPUs fitted, neighbours, free slots)."""

    problems: tuple[tuple[str, str, str], ...]  # fit_errors
    covers: str | None  # the neighbour a wide card blocks, when the slot has one
    narrow: bool  # slots.runs_narrow
    slow_gen: bool  # slots.runs_slower_gen
    nic_slot: bool  # slots.purpose: a GPU in a NIC slot
    unknown: tuple[str, ...]  # slots.unknown_figures items, in the order they are listed
    quiet: bool  # none of the above: only the CPU socket is left to check


def _card_facts(ctx: Ctx, slot: Slot, part: Gpu | Nic) -> _CardFacts:
    memo = ctx.idx.card_memo
    key = (slot.id, part.sku)
    hit = memo.get(key)
    if hit is not None and hit[0] is slot and hit[1] is part:
        facts: _CardFacts = hit[2]
        return facts
    sku = part.sku
    lanes = part.pcie_lanes
    unknown = []
    if lanes is None:
        unknown.append(f"{sku}: PCIe lanes unknown")
    if part.width_slots is None:
        unknown.append(f"{sku}: card width unknown")
    if (part.length if isinstance(part, Gpu) else part.form) is None:
        unknown.append(f"{sku}: card length/height unknown")
    problems = fit_errors(ctx, slot, part)
    covers = slot.covers if is_wide(part) and slot.covers else None
    narrow = lanes is not None and slot.lanes < lanes <= slot.mechanical
    slow_gen = part.pcie_gen is not None and slot.gen < part.pcie_gen
    nic_slot = isinstance(part, Gpu) and slot.purpose == "nic"
    facts = _CardFacts(
        problems=problems,
        covers=covers,
        narrow=narrow,
        slow_gen=slow_gen,
        nic_slot=nic_slot,
        unknown=tuple(unknown),
        quiet=not (problems or covers or narrow or slow_gen or nic_slot or unknown),
    )
    if len(memo) >= _FIT_MEMO_MAX:
        memo.clear()
    memo[key] = (slot, part, facts)
    return facts


def card_fit_problems(slot: Slot, part: Gpu | Nic) -> list[tuple[str, str, str]]:
    """Why a card does not physically go in a slot: the one card-in-slot fit, read by the
    rules (errors) and by the build search (engine.plan.suggest.placement)."""
    out: list[tuple[str, str, str]] = []
    sku = part.sku
    if isinstance(part, Gpu) and part.form == "sxm":
        out.append(
            (
                "slots.sxm_in_pcie",
                f"{sku} is an SXM module: it mounts on an HGX baseboard, not in PCIe slot "
                f"{slot.label}",
                "remove it; for SXM GPUs choose an HGX system and its baseboard",
            )
        )
        return out
    if isinstance(part, Nic) and part.form == "onboard":
        out.append(
            (
                "slots.onboard_nic",
                f"{sku} is a device built into a system board, not a card: it cannot go in "
                f"slot {slot.label}",
                "remove it here; choose a stand-up or OCP 3.0 NIC for a slot",
            )
        )
        return out
    if slot.kind == "ocp3":
        if not (isinstance(part, Nic) and part.form == "OCP3"):
            what = "a GPU" if isinstance(part, Gpu) else "a stand-up PCIe card"
            out.append(
                (
                    "slots.not_ocp",
                    f"slot {slot.label} is an OCP 3.0 / AIOM mezzanine: it takes only OCP 3.0 "
                    f"NICs, and {sku} is {what}",
                    "move it to a PCIe slot, or use the OCP 3.0 version of the NIC here",
                )
            )
            return out
    elif isinstance(part, Nic) and part.form == "OCP3":
        out.append(
            (
                "slots.ocp_nic",
                f"{sku} is an OCP 3.0 card: it goes in the OCP/AIOM mezzanine, not in PCIe slot "
                f"{slot.label}",
                "move it to the chassis' OCP/AIOM slot, or choose the PCIe (stand-up) version "
                "of the NIC for this slot",
            )
        )
        return out
    width = part.width_slots
    if width is not None and width >= 2 and not slot.double_width:
        out.append(
            (
                "slots.too_wide",
                f"{sku} is {width} slots wide; slot {slot.label} only takes single-width cards",
                "move it to a slot that takes a double-width card",
            )
        )
    form = part.length if isinstance(part, Gpu) else part.form
    if form in _FULL_LENGTH and not slot.full_length:
        out.append(
            (
                "slots.too_long",
                f"{sku} is a full-length card; slot {slot.label} is half-length",
                "move it to a full-length slot",
            )
        )
    if form in _FULL_HEIGHT and not slot.full_height:
        out.append(
            (
                "slots.too_tall",
                f"{sku} is a full-height card; slot {slot.label} is low-profile",
                "move it to a full-height slot",
            )
        )
    lanes = part.pcie_lanes
    if lanes is not None and lanes > slot.mechanical:
        out.append(
            (
                "slots.mechanical",
                f"{sku} has a x{lanes} edge connector; slot {slot.label} is mechanically "
                f"x{slot.mechanical}, so the card does not go in",
                f"move it to a slot that is mechanically x{lanes}",
            )
        )
    return out


def _fit_warnings(slot: Slot, part: Gpu | Nic) -> int:
    """How many soft drawbacks ``part`` has in ``slot`` (fewer is a better destination)."""
    n = 0
    if part.pcie_lanes is not None and slot.lanes < part.pcie_lanes:
        n += 2
    if part.pcie_gen is not None and slot.gen < part.pcie_gen:
        n += 1
    if isinstance(part, Gpu) and slot.purpose == "nic":
        n += 2
    return n


def destinations(
    ctx: Ctx, part: Gpu | Nic, src: str, *, avoid: frozenset[str] = frozenset()
) -> list[str]:
    """Free slots where ``part`` (now in ``src``, or "" for a new card) can go without a new
    error, best first.

    Free means: empty, not claimed by a bridge, not covered by another double-width card, and
    when ``part`` is double-width its own ``covers`` neighbour is empty (or is ``src``, which the
    move empties).  The slot must be powered by a fitted CPU.  Among those, prefer full lanes and
    the same CPU socket.
    """
    base = ctx.memo.get(("destinations", part.sku, src))
    if base is None:
        base = ctx.memo[("destinations", part.sku, src)] = _destinations(ctx, part, src)
    if not avoid:
        return [sid for sid, _ in base]
    wide = is_wide(part)
    return [sid for sid, covers in base if sid not in avoid and not (wide and covers in avoid)]


def _destinations(ctx: Ctx, part: Gpu | Nic, src: str) -> list[tuple[str, str | None]]:
    """(slot, the slot it covers) of :func:`destinations` before ``avoid``, best first."""
    occ = ctx.build.slots
    idx = ctx.idx
    src_socket = idx.socket_of_slot.get(src)
    # a slot a bridge set already claims (an empty end of a bridge) is not free
    claimed = {s for br in ctx.build.bridges for s in br.slots}
    scored: list[tuple[tuple, str, str | None]] = []
    for s in ctx.chassis.slots:
        sid = s.id
        if sid == src or sid in occ or sid in claimed:
            continue
        if idx.socket_of_slot.get(sid, 1) > max(ctx.cpu_count, 1):
            continue
        if any(
            c != src and c in occ and is_wide(ctx.part_in(c)) for c in idx.covered_by.get(sid, ())
        ):
            continue
        if is_wide(part) and s.covers and s.covers != src and s.covers in occ:
            continue
        if fit_errors(ctx, s, part):
            continue
        score = (
            _fit_warnings(s, part),
            0 if idx.socket_of_slot.get(sid) == src_socket else 1,
            idx.slot_order[sid],
        )
        scored.append((score, sid, s.covers))
    scored.sort()
    return [(sid, covers) for _, sid, covers in scored]


def find_destination(
    ctx: Ctx, part: Gpu | Nic, src: str, *, avoid: frozenset[str] = frozenset()
) -> str | None:
    """The best of :func:`destinations`, or None."""
    found = destinations(ctx, part, src, avoid=avoid)
    return found[0] if found else None


# ------------------------------------------------------------------ the rule family


def check(ctx: Ctx) -> None:
    b = ctx.build
    idx = ctx.idx
    ch = ctx.chassis
    unknown_fig: list[str] = []

    gpus, nics = ctx.gpus, ctx.nics
    # Slots make_context resolved hold a GPU or NIC record in one of the chassis' slots: only
    # the others can be wrong here (none when every slot was resolved).
    unresolved = () if len(gpus) + len(nics) == len(b.slots) else b.slots.items()
    for sid, sku in unresolved:
        if sid in gpus or sid in nics:
            continue
        slot = idx.slot.get(sid)
        if slot is None:
            known = ", ".join(s.id for s in ch.slots) or "none"
            ctx.add(
                finding(
                    "slots.unknown_slot",
                    "error",
                    f"{ch.sku} has no slot {sid!r} (its slots: {known}); {sku} there is not "
                    "part of the build",
                    parts=(sku,),
                    slots=(sid,),
                    fix=f"empty slot {sid} and place the card in one of the chassis' slots",
                    edit=(Remove(slot=sid),),
                )
            )
            continue
        rec = ctx.catalog.get(sku)
        if rec is None:
            ctx.add(
                finding(
                    "slots.unknown_part",
                    "error",
                    f"slot {slot.label} holds {sku!r}, which is not in the parts catalog",
                    parts=(sku,),
                    slots=(sid,),
                    fix="empty the slot, or add the part to a catalog overlay (known parts: "
                    f"{ref('part_list', 'gpu')}, {ref('part_list', 'nic')})",
                    edit=(Remove(slot=sid),),
                )
            )
            continue
        if not isinstance(rec, Gpu | Nic):
            ctx.add(
                finding(
                    "slots.not_a_card",
                    "error",
                    f"slot {slot.label} holds {sku}, a {rec.kind}: only GPUs and NICs go in "
                    "PCIe slots",
                    parts=(sku,),
                    slots=(sid,),
                    fix="empty the slot; set CPUs, memory, drives and PSUs in their own fields",
                    edit=(Remove(slot=sid),),
                )
            )
            continue

    cpus = ctx.cpu_count
    memo, slot_of, socket_of = idx.card_memo, idx.slot, idx.socket_of_slot
    cards: dict[str, Gpu] | dict[str, Nic]
    for cards in (gpus, nics):
        for sid, part in cards.items():
            # the usual card, read here from _card_facts' memo: nothing about it to report
            hit = memo.get((sid, part.sku))
            if (
                hit is not None
                and hit[0] is slot_of[sid]
                and hit[1] is part
                and hit[2].quiet
                and not (cpus and socket_of.get(sid, 1) > cpus)
            ):
                continue
            _check_card(ctx, sid, part, unknown_fig, cpus)

    _check_gpu_models(ctx)
    _check_baseboard(ctx)

    if unknown_fig:
        ctx.add(
            finding(
                "slots.unknown_figures",
                "info",
                "could not fully check card fit: " + "; ".join(dict.fromkeys(unknown_fig)),
                fix="add the missing figures to the catalog (with their source) to check them",
            )
        )


def _check_card(ctx: Ctx, sid: str, part: Gpu | Nic, unknown_fig: list[str], cpus: int) -> None:
    """One card in its slot; ``cpus`` is ``ctx.cpu_count``."""
    idx = ctx.idx
    slot = idx.slot[sid]
    hit = idx.card_memo.get((sid, part.sku))  # _card_facts' memo, read inline: once per card
    if hit is not None and hit[0] is slot and hit[1] is part:
        facts: _CardFacts = hit[2]
    else:
        facts = _card_facts(ctx, slot, part)
    need_socket = idx.socket_of_slot.get(sid, 1)
    if facts.quiet and not (cpus and need_socket > cpus):
        return  # the usual card: nothing about it to report
    sku = part.sku
    if cpus and need_socket > cpus:
        edit: tuple = ()
        cands = [ctx.cpu] + [
            ctx.catalog.cpus[s] for s in ctx.chassis.cpu_skus if s in ctx.catalog.cpus
        ]
        for cpu in cands:
            if cpu is not None and (cpu.max_sockets or need_socket) >= need_socket:
                edit = (SetCount(what="cpu", sku=cpu.sku, count=need_socket),)
                break
        else:
            dst = find_destination(ctx, part, sid)
            if dst is not None and ctx.idx.socket_of_slot.get(dst, 1) <= ctx.cpu_count:
                edit = (Move(src=sid, dst=dst),)
        ctx.add(
            finding(
                "slots.needs_cpu",
                "error",
                f"slot {slot.label} is wired to CPU {need_socket}, but the build has "
                f"{plural(ctx.cpu_count, 'CPU')}: {sku} there would not be seen",
                parts=(sku,),
                slots=(sid,),
                fix=f"fit {need_socket} CPUs, or move the card to a slot on CPU 1",
                edit=edit,
            )
        )
    for rule, msg, fix in facts.problems:
        edit = ()
        if rule in ("slots.sxm_in_pcie", "slots.onboard_nic"):
            edit = (Remove(slot=sid),)
        else:
            dst = find_destination(ctx, part, sid)
            if dst is not None:
                edit = (Move(src=sid, dst=dst),)
                fix = f"move {sku} from slot {slot.label} to slot {ctx.idx.slot[dst].label}"
            else:
                edit = (Remove(slot=sid),)
                fix += f"; no free slot takes it, so empty slot {sid}"
        ctx.add(finding(rule, "error", msg, parts=(sku,), slots=(sid,), fix=fix, edit=edit))

    # double-width card covering an occupied neighbour
    if facts.covers is not None and facts.covers in ctx.build.slots:
        other = facts.covers
        other_sku = ctx.build.slots[other]
        other_part = ctx.part_in(other)
        edit = ()
        fix = f"move the card in slot {other} elsewhere or empty it"
        dst = find_destination(ctx, other_part, other) if other_part is not None else None
        if dst is not None:
            edit = (Move(src=other, dst=dst),)
            fix = f"move {other_sku} from slot {other} to slot {ctx.idx.slot[dst].label}"
        else:
            dst = find_destination(ctx, part, sid, avoid=frozenset({other}))
            if dst is not None:
                edit = (Move(src=sid, dst=dst),)
                fix = f"move {sku} from slot {slot.label} to slot {ctx.idx.slot[dst].label}"
            else:
                edit = (Remove(slot=other),)
                fix = f"no free slot takes it: empty slot {other}"
        ctx.add(
            finding(
                "slots.double_width_blocked",
                "error",
                f"{sku} in slot {slot.label} is {part.width_slots} slots wide and covers slot "
                f"{other}, which holds {other_sku}",
                parts=(sku, other_sku),
                slots=(sid, other),
                fix=fix,
                edit=edit,
            )
        )

    if facts.unknown:
        unknown_fig.extend(facts.unknown)
    if facts.narrow:
        lanes = part.pcie_lanes
        ctx.add(
            finding(
                "slots.runs_narrow",
                "warning",
                f"{sku} is a x{lanes} card; slot {slot.label} is wired x{slot.lanes}, so it runs "
                f"at x{slot.lanes} (half or less of its host bandwidth)",
                parts=(sku,),
                slots=(sid,),
                fix=_narrow_fix(ctx, sid, part),
                edit=_narrow_edit(ctx, sid, part),
            )
        )
    if facts.slow_gen:
        ctx.add(
            finding(
                "slots.runs_slower_gen",
                "info",
                f"{sku} is a PCIe Gen{part.pcie_gen} card in a Gen{slot.gen} slot "
                f"({slot.label}): it links at Gen{slot.gen}",
                parts=(sku,),
                slots=(sid,),
                fix="fine for most uses; a Gen-matched slot gives full host bandwidth",
            )
        )
    if facts.nic_slot:
        ctx.add(
            finding(
                "slots.purpose",
                "warning",
                f"slot {slot.label} is a NIC slot in the chassis layout; GPU power cables and "
                f"airflow are planned for the GPU slots, and {sku} sits here",
                parts=(sku,),
                slots=(sid,),
                fix="move the GPU to a GPU slot",
                edit=_move_edit(ctx, sid, part, lambda s: s.purpose != "nic"),
            )
        )


def _move_edit(ctx: Ctx, sid: str, part, ok) -> tuple:
    dst = find_destination(ctx, part, sid)
    if dst is not None and ok(ctx.idx.slot[dst]):
        return (Move(src=sid, dst=dst),)
    return ()


def _narrow_edit(ctx: Ctx, sid: str, part) -> tuple:
    lanes = part.pcie_lanes or 16
    return _move_edit(ctx, sid, part, lambda s: s.lanes >= lanes)


def _narrow_fix(ctx: Ctx, sid: str, part) -> str:
    e = _narrow_edit(ctx, sid, part)
    if e:
        return e[0].describe() + f" (x{part.pcie_lanes} wired)"
    return "no free full-width slot: accept the narrower link or free a x16 slot"


def _check_gpu_models(ctx: Ctx) -> None:
    ch = ctx.chassis
    by_model = ctx.gpu_slots_by_sku()
    for sku, slots in by_model.items():
        g = ctx.catalog.gpus[sku]
        if g.form == "sxm":
            continue  # reported per slot as slots.sxm_in_pcie
        listed = not ch.gpu_skus or sku in ch.gpu_skus
        if listed and g.datacenter:
            continue
        slots_t = ctx.sort_slots(slots)
        if not listed:
            ctx.add(
                finding(
                    "slots.gpu_not_listed",
                    "warning",
                    f"{sku} is not on the vendor's supported-GPU list for {ch.sku} "
                    f"({', '.join(ch.gpu_skus)}): power cabling, airflow and firmware are not "
                    "validated for it",
                    parts=(sku,),
                    slots=slots_t,
                    fix="use a listed GPU, or get the configuration qualified by Supermicro",
                )
            )
        if not g.datacenter:
            why = ["NVIDIA does not sell it for servers (not a data-centre product)"]
            if "geforce" in g.name.lower():
                why.append(
                    "the GeForce driver licence excludes data-centre deployment (NVIDIA GeForce "
                    "software licence, 'No Datacenter Deployment')"
                )
            if g.ecc is False:
                why.append("its memory has no ECC")
            elif g.ecc is None:
                why.append("ECC support is not documented")
            if g.cooling == "open_air":
                why.append(
                    "its open-air fans exhaust into the case and fight the chassis' front-to-back "
                    "airflow"
                )
            alt = datacenter_alternative(ctx, g)
            fix = "replace it with a data-centre GPU from the chassis' supported list"
            edit: tuple = ()
            if alt:
                fix = f"replace it with {alt.sku} (data-centre, on the supported list)"
                if (alt.width_slots or 9) <= (g.width_slots or 0):
                    edit = tuple(Place(slot=s, sku=alt.sku) for s in slots_t)
            ctx.add(
                finding(
                    "slots.consumer_gpu",
                    "error",
                    f"{sku} in {slot_list(slots_t)} is not a data-centre GPU: " + "; ".join(why),
                    parts=(sku,),
                    slots=slots_t,
                    fix=fix,
                    edit=edit,
                )
            )
    pcie = {k: v for k, v in by_model.items() if ctx.catalog.gpus[k].form == "pcie"}
    if len(pcie) > 1:
        counts = {k: len(v) for k, v in pcie.items()}
        # most used first, ties in the order met (as Counter.most_common ranks them)
        ranked = sorted(counts.items(), key=itemgetter(1), reverse=True)
        desc = ", ".join(f"{n} x {k}" for k, n in ranked)
        ctx.add(
            finding(
                "slots.mixed_gpus",
                "warning",
                f"the build mixes GPU models ({desc}): tensor/data parallel jobs run at the pace "
                "of the slowest card and NVLink bridges only join identical GPUs",
                parts=tuple(counts),
                slots=ctx.sort_slots([s for v in pcie.values() for s in v]),
                fix=f"use one model, e.g. {ranked[0][0]} in every GPU slot",
            )
        )
    n = ctx.gpu_count()
    if by_model and not ch.gpu_skus and ch.gpu_form == "pcie":
        ctx.add(
            finding(
                "slots.unknown_gpu_list",
                "info",
                f"could not check GPU support: {ch.sku}'s supported-GPU list is not in the catalog",
                parts=tuple(by_model),
                fix="confirm the GPUs with the vendor; add gpu_skus (with its source) to the "
                "chassis record",
            )
        )
    if ch.max_gpus is None and n:
        ctx.add(
            finding(
                "slots.unknown_max_gpus",
                "info",
                f"could not check the GPU count: {ch.sku}'s maximum number of GPUs is not in "
                "the catalog",
                parts=(ch.sku,),
                fix="add max_gpus (with its source) to the chassis record",
            )
        )
    if ch.max_gpus is not None and n > ch.max_gpus:
        ctx.add(
            finding(
                "slots.too_many_gpus",
                "error",
                f"the build has {n} GPUs; {ch.sku} supports at most {ch.max_gpus}"
                + (f" (GPUs in {slot_list(ctx.sort_slots(ctx.gpus))})" if ctx.gpus else ""),
                parts=(ch.sku,),
                fix=f"remove {n - ch.max_gpus} GPU(s)",
            )
        )


def datacenter_alternative(ctx: Ctx, g: Gpu) -> Gpu | None:
    """The smallest supported data-centre PCIe GPU with at least the card's memory and (when both
    figures are known) its dense BF16 throughput."""
    cands = [
        ctx.catalog.gpus[s]
        for s in ctx.chassis.gpu_skus
        if s in ctx.catalog.gpus
        and ctx.catalog.gpus[s].datacenter
        and ctx.catalog.gpus[s].form == "pcie"
        and ctx.catalog.gpus[s].cooling in ("passive", "blower")
    ]
    limit = ctx.chassis.max_gpu_tdp_air_w
    if limit is not None:
        cands = [c for c in cands if (c.tdp_w or 0) <= limit]
    cands = [c for c in cands if c.memory_gb >= g.memory_gb] or cands
    if g.bf16_tflops_dense is not None:
        cands = [c for c in cands if (c.bf16_tflops_dense or 0) >= g.bf16_tflops_dense] or cands
    if not cands:
        return None
    return min(cands, key=lambda c: (c.memory_gb, c.tdp_w or 0, c.sku))


def _check_baseboard(ctx: Ctx) -> None:
    b = ctx.build
    ch = ctx.chassis
    first = ch.baseboard_skus[0] if ch.baseboard_skus else None
    if ch.gpu_form == "pcie":
        if b.baseboard is not None:
            ctx.add(
                finding(
                    "slots.baseboard_in_pcie_chassis",
                    "error",
                    f"{ch.sku} takes PCIe GPUs; an HGX baseboard ({b.baseboard}) does not fit it",
                    parts=(b.baseboard,),
                    fix="remove the baseboard and place PCIe GPUs in the slots",
                    edit=(SetBaseboard(sku=None),),
                )
            )
        return
    # SXM (HGX) system
    if b.baseboard is None:
        ctx.add(
            finding(
                "slots.no_baseboard",
                "error",
                f"{ch.sku} is an HGX system: its GPUs come on an HGX baseboard, and none is set",
                parts=(ch.sku,),
                fix=f"fit {first}" if first else "fit one of the chassis' HGX baseboards",
                edit=(SetBaseboard(sku=first),) if first else (),
            )
        )
        return
    if ctx.baseboard is None:
        ctx.add(
            finding(
                "slots.unknown_baseboard",
                "error",
                f"baseboard {b.baseboard!r} is not in the parts catalog",
                parts=(b.baseboard,),
                fix=f"use {first}" if first else "use a baseboard from the catalog",
                edit=(SetBaseboard(sku=first),) if first else (),
            )
        )
        return
    if ch.baseboard_skus and b.baseboard not in ch.baseboard_skus:
        # Prefer a supported board whose GPUs have at least the memory of the ones chosen.
        have = ctx.baseboard_gpu.memory_gb if ctx.baseboard_gpu else 0.0

        def mem(sku: str) -> float:
            bb = ctx.catalog.baseboards.get(sku)
            g = ctx.catalog.gpus.get(bb.gpu_sku) if bb else None
            return g.memory_gb if g else 0.0

        first = min(ch.baseboard_skus, key=lambda s: (mem(s) < have, -mem(s), s))
        ctx.add(
            finding(
                "slots.baseboard_not_supported",
                "error",
                f"{ch.sku} takes {', '.join(ch.baseboard_skus)}; {b.baseboard} is not one of them",
                parts=(b.baseboard,),
                fix=f"use {first}",
                edit=(SetBaseboard(sku=first),),
            )
        )
