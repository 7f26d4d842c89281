"""Keep one-key fixes honest about power: an edit that adds parts (CPUs, DIMMs, a baseboard, a
GPU) also adds watts.  When the edited build would draw more than the PSUs deliver under the
policy, the fix gains the PSU count that covers it, or, when no count in the bays does, the edit
is withdrawn and the fix text says why (the engine never offers an edit that trades one error
for another)."""

from __future__ import annotations

from slotwise.engine.build.edits import EditError, Place, SetBaseboard, SetCount, apply_all
from slotwise.engine.check.report import Finding
from slotwise.engine.check.rules.common import watts
from slotwise.engine.check.rules.context import Ctx
from slotwise.engine.check.rules.power import draw, psus_needed, unit_watts, usable_units


def _adds_load(edits) -> bool:
    return any(
        isinstance(e, Place | SetBaseboard) or (isinstance(e, SetCount) and e.what != "psu")
        for e in edits
    )


def guard(ctx: Ctx, make_context) -> None:
    """Rewrite findings in ``ctx.findings`` whose edits would overload the PSUs."""
    if ctx.power_limit is None or ctx.psu is None or ctx.power_w is None:
        return
    if ctx.power_w > ctx.power_limit:
        return  # already short: power.redundancy says so and offers its own fix
    b = ctx.build
    for i, f in enumerate(ctx.findings):
        if not f.edit or not _adds_load(f.edit):
            continue
        if any(isinstance(e, SetCount) and e.what == "psu" for e in f.edit):
            continue
        try:
            edited = apply_all(b, f.edit)
        except (EditError, ValueError):
            continue
        ctx2 = make_context(edited, ctx.catalog, ctx.workload)
        if ctx2 is None:
            continue
        after, _, _ = draw(ctx2)
        if after <= ctx.power_limit:
            continue
        ctx.findings[i] = _with_psus(ctx, f, after)


def _with_psus(ctx: Ctx, f: Finding, after: float) -> Finding:
    b = ctx.build
    psu = ctx.psu
    env = b.env
    if psu is None:
        return f
    need = psus_needed(psu, after, env, ctx.chassis.psu_bays)
    unit = unit_watts(psu, env.input_voltage)
    if need is not None and unit is not None:
        cap = usable_units(need, env.redundancy) * unit
        return f.model_copy(
            update={
                "edit": f.edit + (SetCount(what="psu", sku=psu.sku, count=need),),
                "fix": (f.fix or "") + f"; with {need} x {psu.sku} ({watts(cap)} "
                f"{env.redundancy}) for the extra load",
            }
        )
    return f.model_copy(
        update={
            "edit": (),
            "fix": (f.fix or "")
            + f" (not offered as one edit: the build would then draw {watts(after)}, more than "
            f"the PSUs deliver under {env.redundancy}; fix power first)",
        }
    )
