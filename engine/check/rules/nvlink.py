"""NVLink bridge rules for PCIe GPUs.

A bridge joins only the GPU model(s) it is made for (``Bridge.gpu_skus``), spans exactly its
number of cards (2-way or 4-way), sits on a slot group the chassis allows (``nvlink_groups``) and
a group needs ``Bridge.per_group`` bridges (H100 NVL: three per pair, "all three required",
NVIDIA product brief PB-11773-001; shared reference section 4).  H200 NVL 4-way groups must
join GPUs under the same CPU socket (NVIDIA AI Enterprise RA, compute node hardware: "pairing of
GPU cards under the same CPU socket is best"; measured on SYS-521GE-TNRT: two 4-GPU islands, one
per socket, reference S9/S46).  An NVLink-capable GPU left unbridged talks to its peers over
PCIe only (64-128 GB/s instead of 600-900 GB/s, reference S39).
"""

from __future__ import annotations

from slotwise.engine.build import BridgeFit
from slotwise.engine.build.edits import AddBridge, RemoveBridge
from slotwise.engine.check.report import Severity
from slotwise.engine.check.rules.common import finding, slot_list
from slotwise.engine.check.rules.context import Ctx, engine_cache
from slotwise.engine.check.rules.family import RuleFamily
from slotwise.parts.schema import Bridge, Gpu

#: The rule ids this family emits (stable: the CLI's JSON, saved reports and the UI key on them)
#: and what each checks.
FAMILY = RuleFamily(
    "nvlink",
    rules={
        "nvlink.unknown_bridge": "bridge SKU not in the catalog",
        "nvlink.unknown_slot": "bridge joins a slot the chassis does not have",
        "nvlink.overlap": "two bridge sets on one slot",
        "nvlink.wrong_ways": "bridge set on a group of the wrong size",
        "nvlink.empty_slot": "bridge joins a slot without a GPU",
        "nvlink.no_nvlink": "bridge on GPUs without an NVLink connector",
        "nvlink.wrong_gpu": "bridge made for another GPU model",
        "nvlink.group_not_allowed": "bridge across slots the chassis cannot bridge",
        "nvlink.unknown_groups": "chassis' bridgeable slot groups unknown",
        "nvlink.cross_socket": "bridge joins GPUs under different CPUs",
        "nvlink.bridge_count": "wrong number of bridges on a group (H100 NVL: 3 per pair)",
        "nvlink.unbridged": "NVLink-capable GPUs left without a bridge",
    },
)


def bridges_for(ctx: Ctx, gpu_sku: str) -> list[Bridge]:
    """Catalog bridges made for ``gpu_sku``, larger groups first."""
    cache_key = ("bridges_for", gpu_sku)
    cache = engine_cache(ctx.catalog)
    hit = cache.get(cache_key)
    if hit is None:
        hit = sorted(
            (br for br in ctx.catalog.bridges.values() if gpu_sku in br.gpu_skus),
            key=lambda br: (-br.ways, br.sku),
        )
        cache[cache_key] = hit
    return hit


def _remove_error(
    ctx: Ctx, bf: BridgeFit, group: tuple[str, ...], rule: str, message: str, fix: str
) -> None:
    """An error on the bridge set ``bf`` (on the slots ``group``) that removing it fixes."""
    edit = (RemoveBridge(slots=bf.slots),)
    ctx.add(finding(rule, "error", message, parts=(bf.sku,), slots=group, fix=fix, edit=edit))


def check(ctx: Ctx) -> None:
    b = ctx.build
    idx = ctx.idx
    ch = ctx.chassis
    bridged: set[str] = set()
    told_unknown_groups = False

    for bf in b.bridges:
        group = ctx.sort_slots(bf.slots)
        br = ctx.catalog.bridges.get(bf.sku)
        if br is None:
            _remove_error(
                ctx,
                bf,
                group,
                "nvlink.unknown_bridge",
                f"bridge {bf.sku!r} on {slot_list(group)} is not in the parts catalog",
                fix="remove it and add a bridge made for these GPUs",
            )
            continue
        on = {*bf.slots}
        missing = [] if idx.slot.keys() >= on else [s for s in bf.slots if s not in idx.slot]
        if missing:
            _remove_error(
                ctx,
                bf,
                group,
                "nvlink.unknown_slot",
                f"{bf.sku} joins {slot_list(missing)}, which {ch.sku} does not have",
                fix="remove the bridge",
            )
            continue
        overlap = [] if bridged.isdisjoint(on) else [s for s in bf.slots if s in bridged]
        if overlap:
            _remove_error(
                ctx,
                bf,
                group,
                "nvlink.overlap",
                f"{slot_list(overlap)} already carries another bridge set; {bf.sku} on "
                f"{slot_list(group)} cannot be fitted too",
                fix="remove one of the bridge sets",
            )
        bridged.update(bf.slots)
        if len(set(bf.slots)) != br.ways:
            _remove_error(
                ctx,
                bf,
                group,
                "nvlink.wrong_ways",
                f"{bf.sku} is a {br.ways}-way bridge but is set on "
                f"{len(set(bf.slots))} slots ({', '.join(group)})",
                fix=f"remove it; a {br.ways}-way bridge joins {br.ways} GPUs",
            )
            continue
        empty = [] if ctx.gpus.keys() >= on else [s for s in group if s not in ctx.gpus]
        if empty:
            _remove_error(
                ctx,
                bf,
                group,
                "nvlink.empty_slot",
                f"{bf.sku} on {slot_list(group)}: {slot_list(empty)} holds no GPU",
                fix="remove the bridge, or put the bridged GPU model in every slot it joins",
            )
            continue
        gpus: list[Gpu] = [ctx.gpus[s] for s in group]
        models = sorted({g.sku for g in gpus})
        no_link = [g.sku for g in gpus if g.nvlink in ("none", "nvswitch")]
        if no_link:
            ctx.add(
                finding(
                    "nvlink.no_nvlink",
                    "error",
                    f"{', '.join(sorted(set(no_link)))} has no NVLink bridge connector; "
                    f"{bf.sku} on {slot_list(group)} cannot be fitted",
                    parts=(bf.sku, *sorted(set(no_link))),
                    slots=group,
                    fix="remove the bridge (these GPUs talk over PCIe)",
                    edit=(RemoveBridge(slots=bf.slots),),
                )
            )
            continue
        wrong = [m for m in models if m not in br.gpu_skus]
        if wrong:
            remove = RemoveBridge(slots=bf.slots)
            edits: tuple = (remove,)
            fix = f"remove it; {bf.sku} is made for {', '.join(br.gpu_skus)}"
            if len(models) == 1:
                right = [x for x in bridges_for(ctx, models[0]) if x.ways == br.ways]
                # Offer the right bridge only where the chassis allows a bridge on this group.
                placeable = not idx.nvlink_groups or frozenset(group) in idx.nvlink_groups
                if right and placeable:
                    edits = (
                        remove,
                        AddBridge(sku=right[0].sku, slots=group, count=right[0].per_group),
                    )
                    fix = f"replace it with {right[0].per_group} x {right[0].sku}"
            ctx.add(
                finding(
                    "nvlink.wrong_gpu",
                    "error",
                    f"{bf.sku} is made for {', '.join(br.gpu_skus)}; {slot_list(group)} "
                    f"hold{'s' if len(group) == 1 else ''} {', '.join(models)}",
                    parts=(bf.sku, *models),
                    slots=group,
                    fix=fix,
                    edit=edits,
                )
            )
            continue
        if idx.nvlink_groups:
            if frozenset(group) not in idx.nvlink_groups:
                allowed = ["+".join(g) for g in ch.nvlink_groups if len(g) == br.ways] or ["none"]
                _remove_error(
                    ctx,
                    bf,
                    group,
                    "nvlink.group_not_allowed",
                    f"{ch.sku} does not support an NVLink bridge across "
                    f"{'+'.join(group)} (slot spacing/height does not match); "
                    f"{br.ways}-way groups it supports: {', '.join(allowed)}",
                    fix="remove it and bridge GPUs in a supported slot group",
                )
                continue
        elif not told_unknown_groups:
            told_unknown_groups = True
            ctx.add(
                finding(
                    "nvlink.unknown_groups",
                    "info",
                    f"could not check bridge placement: {ch.sku}'s bridgeable slot groups are "
                    "not in the catalog",
                    parts=(ch.sku,),
                    fix="add nvlink_groups (with their source) to the chassis record",
                )
            )
        sockets = {idx.socket_of_slot.get(s, 1) for s in group}
        if len(sockets) > 1:
            ctx.add(
                finding(
                    "nvlink.cross_socket",
                    "error" if br.ways == 4 else "info",
                    f"{bf.sku} on {slot_list(group)} joins GPUs under different CPU sockets "
                    + (
                        "(a 4-way island must sit under one CPU)"
                        if br.ways == 4
                        else "(NVIDIA: acceptable, but pairing under one CPU is best)"
                    ),
                    parts=(bf.sku,),
                    slots=group,
                    fix="bridge GPUs that sit under the same CPU",
                    edit=(RemoveBridge(slots=bf.slots),) if br.ways == 4 else (),
                )
            )
        if bf.count != br.per_group:
            few = bf.count < br.per_group
            ctx.add(
                finding(
                    "nvlink.bridge_count",
                    "error" if few else "warning",
                    f"{slot_list(group)} carr{'ies' if len(group) == 1 else 'y'} "
                    f"{bf.count} x {bf.sku}; {models[0]} needs "
                    f"{'exactly ' if not few else ''}{br.per_group} per "
                    f"{'pair' if br.ways == 2 else 'group'}"
                    + (" (NVIDIA specifies the full set per group)" if few else ""),
                    parts=(bf.sku, models[0]),
                    slots=group,
                    fix=f"fit {br.per_group} x {bf.sku} on {slot_list(group)}",
                    edit=(AddBridge(sku=bf.sku, slots=bf.slots, count=br.per_group),),
                )
            )

    _unbridged(ctx, bridged)


def _unbridged(ctx: Ctx, bridged: set[str]) -> None:
    wl = ctx.workload
    sev: Severity = "warning" if wl is not None and wl.tp_or_1 > 1 else "info"
    tp = wl.tp_or_1 if wl is not None else 1
    why = (
        f"tensor parallel (tp={tp}) all-reduces every layer, so it runs over PCIe"
        if sev == "warning"
        else "GPU-to-GPU traffic goes over PCIe instead of NVLink"
    )
    loose: dict[str, list[str]] = {}
    for sid, g in ctx.gpus.items():
        if g.nvlink == "bridge" and sid not in bridged:
            loose.setdefault(g.sku, []).append(sid)
    for sku, slots in loose.items():
        free = set(slots)
        options = bridges_for(ctx, sku)
        for br in options:
            for group in ctx.idx.groups_by_size.get(br.ways, ()):
                if not all(s in free and ctx.gpus.get(s) is not None for s in group):
                    continue
                if len({ctx.idx.socket_of_slot.get(s, 1) for s in group}) > 1 and br.ways == 4:
                    continue
                free.difference_update(group)
                grp = ctx.sort_slots(group)
                ctx.add(
                    finding(
                        "nvlink.unbridged",
                        sev,
                        f"{sku} in {slot_list(grp)} can be NVLink-bridged but is not: {why}",
                        parts=(sku,),
                        slots=grp,
                        fix=f"fit {br.per_group} x {br.sku} on {slot_list(grp)}",
                        edit=(AddBridge(sku=br.sku, slots=grp, count=br.per_group),),
                    )
                )
        if free:
            left = ctx.sort_slots(free)
            if not options:
                reason = "the catalog has no bridge for it"
            elif not ctx.idx.nvlink_groups:
                reason = "the chassis' bridgeable slot groups are not in the catalog"
            else:
                reason = "no supported slot group around it holds the same GPU model"
            ctx.add(
                finding(
                    "nvlink.unbridged",
                    sev,
                    f"{sku} in {slot_list(left)} supports NVLink bridges but none can be fitted "
                    f"({reason}): {why}",
                    parts=(sku,),
                    slots=left,
                    fix="move these GPUs into a supported bridge group with a same-model partner",
                )
            )
