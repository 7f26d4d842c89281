"""Drive-bay rules: each drive group sits in bays that exist, that number enough bays, and whose
form factor and interface (NVMe / SATA / SAS backplane) match the drive."""

from __future__ import annotations

from slotwise.engine.build.edits import SetDrives
from slotwise.engine.check.rules.common import finding
from slotwise.engine.check.rules.context import Ctx
from slotwise.engine.check.rules.family import RuleFamily

#: The rule ids this family emits (stable: the CLI's JSON, saved reports and the UI key on them)
#: and what each checks.
FAMILY = RuleFamily(
    "storage",
    rules={
        "storage.unknown_bays": "chassis' drive-bay layout unknown",
        "storage.unknown_bay": "drives in a bay group the chassis does not have",
        "storage.unknown_drive": "drive SKU not in the catalog",
        "storage.bay_mismatch": "drive form factor or interface does not match the bays",
        "storage.too_many": "more drives than bays",
    },
)


def check(ctx: Ctx) -> None:
    b = ctx.build
    ch = ctx.chassis
    bays = {bay.id: bay for bay in ch.drive_bays}
    used: dict[str, int] = {}
    for d in b.drives:
        used[d.bay] = used.get(d.bay, 0) + d.count

    if b.drives and not bays:
        ctx.add(
            finding(
                "storage.unknown_bays",
                "info",
                f"could not check the drives: {ch.sku}'s drive-bay layout is not in the catalog",
                parts=tuple(d.sku for d in b.drives),
                fix="check the bays against the system's manual; add drive_bays (with their "
                "source) to the chassis record",
            )
        )
        return
    for d in b.drives:
        bay = bays.get(d.bay)
        if bay is None:
            known = ", ".join(bays) or "none"
            ctx.add(
                finding(
                    "storage.unknown_bay",
                    "error",
                    f"{ch.sku} has no drive bay group {d.bay!r} (its bays: {known})",
                    parts=(d.sku,),
                    fix="put the drives in one of the chassis' bay groups",
                    edit=_move(ctx, d, used) or (SetDrives(bay=d.bay, sku=None, count=0),),
                )
            )
            continue
        drv = ctx.catalog.drives.get(d.sku)
        if drv is None:
            ctx.add(
                finding(
                    "storage.unknown_drive",
                    "error",
                    f"drive {d.sku!r} in bays {d.bay} is not in the parts catalog",
                    parts=(d.sku,),
                    fix="remove it, or add the drive to a catalog overlay",
                    edit=(SetDrives(bay=d.bay, sku=None, count=0),),
                )
            )
            continue
        problems = []
        if drv.form_factor != bay.form_factor:
            problems.append(f"it is a {drv.form_factor} drive, the bays take {bay.form_factor}")
        if drv.interface not in bay.interfaces:
            problems.append(
                f"it is a {drv.interface.upper()} drive, the bays are wired for "
                + "/".join(i.upper() for i in bay.interfaces)
                + (f" ({bay.note})" if bay.note else "")
            )
        if problems:
            ctx.add(
                finding(
                    "storage.bay_mismatch",
                    "error",
                    f"{drv.sku} cannot go in bays {d.bay}: " + "; ".join(problems),
                    parts=(drv.sku,),
                    fix="move the drives to matching bays, or choose a matching drive",
                    edit=_move(ctx, d, used) or (SetDrives(bay=d.bay, sku=None, count=0),),
                )
            )
            continue
        if used[d.bay] > bay.count:
            keep = max(bay.count - (used[d.bay] - d.count), 0)
            ctx.add(
                finding(
                    "storage.too_many",
                    "error",
                    f"{used[d.bay]} drives in bay group {d.bay}, which has {bay.count} bays",
                    parts=(drv.sku,),
                    fix=f"fit {keep} x {drv.sku} in bays {d.bay}"
                    if keep
                    else f"remove {drv.sku} from bays {d.bay}",
                    edit=(SetDrives(bay=d.bay, sku=drv.sku if keep else None, count=keep),),
                )
            )


def _move(ctx: Ctx, d, used: dict[str, int]) -> tuple:
    """Edits moving drive group ``d`` to a bay group that takes it and has room, or ()."""
    drv = ctx.catalog.drives.get(d.sku)
    if drv is None:
        return ()
    for bay in ctx.chassis.drive_bays:
        if bay.id == d.bay or bay.id in used:
            continue
        fits = bay.form_factor == drv.form_factor and drv.interface in bay.interfaces
        if fits and d.count <= bay.count:
            return (
                SetDrives(bay=d.bay, sku=None, count=0),
                SetDrives(bay=bay.id, sku=drv.sku, count=d.count),
            )
    return ()
