"""Boot device: a server needs a drive to install its operating system on.

A build without any drive is flagged (a warning, not an error: a server may boot from the
network, PXE / iSCSI, which slotwise does not model), with a one-key fix that fits the boot pair
:func:`boot_drives` chooses from the chassis' own bays (``drive_bays`` in its catalog record,
each with the note and source it was read from) and the catalog's drives.  ``suggest`` completes
its builds with the same function (engine.plan.suggest.fill_in.drives_for), so the rule and the
suggestions agree on what boots this chassis.

The pair is two identical drives, mirrored for the OS (the common practice for servers: e.g.
Dell's BOSS and HPE's NS204i boot devices are a RAID 1 pair of M.2 drives; Supermicro's GPU
servers list 2 M.2 or front bays for boot), in the first bay group a catalog drive fits: M.2 slots first (the
servers' boot device), then NVMe before SATA/SAS, then by bay id; a group with one bay gets one
drive.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from slotwise.engine.build import DriveFit
from slotwise.engine.build.edits import SetDrives
from slotwise.engine.check.rules.common import finding
from slotwise.engine.check.rules.context import Ctx
from slotwise.engine.check.rules.family import RuleFamily
from slotwise.parts.catalog import Catalog
from slotwise.parts.safe_io import shorten_text
from slotwise.parts.schema import Chassis, Drive

#: The rule ids this family emits (stable: the CLI's JSON, saved reports and the UI key on them)
#: and what each checks.
FAMILY = RuleFamily(
    "boot",
    rules={
        "boot.no_drive": "no drive to boot from (the fix fits the chassis' boot pair)",
        "boot.not_verified": "no drive fitted, and no boot pair is known for the chassis (its "
        "drive bays are not in the catalog, or no catalog drive fits them)",
    },
)

#: Drives in a boot pair (mirrored for the operating system).
BOOT_PAIR = 2


def _default_rank(d: Drive) -> tuple:
    """Without an objective: the lowest power first (unknown last), then the smallest drive."""
    return (math.inf if d.power_w is None else d.power_w,)


def boot_drives(
    ch: Chassis, catalog: Catalog, rank: Callable[[Drive], tuple] | None = None
) -> tuple[DriveFit, ...]:
    """The boot pair for ``ch``: two of the best-ranked catalog drive that fits the first bay
    group one fits (M.2 first, then NVMe, then by bay id); ``rank`` orders the drives that fit (the
    suggest objective's metric; default: power), the smaller capacity on a tie.  () when no
    catalog drive fits any known bay."""
    key = rank or _default_rank
    bays = sorted(
        ch.drive_bays, key=lambda b: (b.form_factor != "M.2", "nvme" not in b.interfaces, b.id)
    )
    for bay in bays:
        fits = [
            d
            for d in catalog.drives.values()
            if d.form_factor == bay.form_factor and d.interface in bay.interfaces
        ]
        if fits:
            d = min(fits, key=lambda d: (*key(d), d.capacity_tb, d.sku))
            return (DriveFit(bay=bay.id, sku=d.sku, count=min(BOOT_PAIR, bay.count)),)
    return ()


def check(ctx: Ctx) -> None:
    b = ctx.build
    if b.drives:
        return
    ch = ctx.chassis
    pair = boot_drives(ch, ctx.catalog)
    if not pair:
        why = (
            f"{ch.sku}'s drive bays are not in the catalog"
            if not ch.drive_bays
            else f"no catalog drive fits {ch.sku}'s drive bays"
        )
        ctx.add(
            finding(
                "boot.not_verified",
                "info",
                f"no drive is fitted and {why}, so the boot device is not verified",
                fix="fit a boot drive per the system's manual, or add "
                + ("drive_bays" if not ch.drive_bays else "a drive that fits them")
                + " (with the source) to the catalog",
            )
        )
        return
    fit = pair[0]
    bay = next(x for x in ch.drive_bays if x.id == fit.bay)
    drv = ctx.catalog.drives[fit.sku]
    where = f"{bay.count} x {bay.form_factor} {'/'.join(i.upper() for i in bay.interfaces)}"
    said = f"; {bay.note}" if bay.note else ""
    ctx.add(
        finding(
            "boot.no_drive",
            "warning",
            f"no drive is fitted: {ch.sku} has nothing to install the operating system on "
            "(unless it boots from the network)",
            fix=f"fit {fit.count} x {drv.sku} ({drv.capacity_tb:g} TB "
            f"{drv.interface.upper()}{', mirrored' if fit.count > 1 else ''}) in bays {bay.id} "
            f"({where}{said}; bays per {shorten_text(ch.source, 120)})",
            edit=(SetDrives(bay=fit.bay, sku=fit.sku, count=fit.count),),
        )
    )
