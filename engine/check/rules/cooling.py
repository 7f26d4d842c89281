"""Cooling rules: can the chassis and the site take the heat the build makes?

Uses the chassis' cooling kind (air / liquid / either), its air-cooled GPU TDP limit and the
ambient temperature it is rated for, the baseboard's liquid-only flag, each GPU's cooling design
(passive cards rely on the chassis fans; open-air consumer coolers blow into the case) and the
site's cooling (``Environment.cooling``).  Heat: every watt drawn ends up as heat;
1 W = 3.412 BTU/h (the standard conversion, 1 BTU/h = 0.29307 W).
"""

from __future__ import annotations

from slotwise.engine.build.edits import Place, Remove, SetCount, SetEnv
from slotwise.engine.check.rules.common import budget, finding, slot_list, watts
from slotwise.engine.check.rules.context import Ctx
from slotwise.engine.check.rules.family import RuleFamily
from slotwise.engine.check.rules.platform import fitting_count
from slotwise.engine.check.rules.slots import datacenter_alternative

#: The rule ids this family emits (stable: the CLI's JSON, saved reports and the UI key on them)
#: and what each checks; it reads what power computed.
FAMILY = RuleFamily(
    "cooling",
    rules={
        "cooling.liquid_only": "liquid-only chassis or baseboard at an air-cooled site",
        "cooling.unknown_gpu_limit": "chassis' air-cooled GPU TDP limit unknown",
        "cooling.gpu_tdp_air": "GPU TDP above what the chassis cools with air",
        "cooling.open_air_gpu": "open-air (fan) cooled consumer card in a server",
        "cooling.liquid_gpu": "liquid-cooled card at an air-cooled site",
        "cooling.unknown_ambient": "chassis' rated ambient temperature unknown",
        "cooling.ambient": "inlet temperature above the chassis' rating",
        "cooling.ambient_class": "inlet above the ASHRAE class the chassis' family is rated for",
        "cooling.unknown_cpu_limit": "chassis' CPU TDP limit unknown",
        "cooling.cpu_tdp": "CPU TDP above what the chassis cools",
    },
    after=("power",),
)

BTU_PER_W = 3.412

#: ASHRAE TC 9.9, "Thermal Guidelines for Data Processing Environments" (5th ed., 2021): the
#: highest allowable inlet temperature of each air-cooled equipment class (A1 15-32 C, A2 10-35 C,
#: A3 5-40 C, A4 5-45 C).
ASHRAE_MAX_INLET_C: dict[str, float] = {"A1": 32.0, "A2": 35.0, "A3": 40.0, "A4": 45.0}


def family_class(ctx: Ctx) -> tuple[str, float, tuple[str, ...]] | None:
    """For a chassis whose own rating is unknown: (ASHRAE class, its highest inlet, the chassis
    it is derived from).  Derived, tier C: the published ratings (``max_ambient_c``) of the other
    chassis of the same family in the catalog, read as the highest ASHRAE class whose allowable
    inlet does not exceed the lowest of them (Supermicro's X13 and X14 GPU SuperServer
    datasheets state 10-35 C, class A2).  None when no chassis of the family states a rating."""
    ch = ctx.chassis
    rated = sorted(
        (c.max_ambient_c, c.sku)
        for c in ctx.catalog.chassis.values()
        if c.family == ch.family and c.max_ambient_c is not None and c.sku != ch.sku
    )
    if not rated:
        return None
    lowest = rated[0][0]
    fitting = [(v, k) for k, v in ASHRAE_MAX_INLET_C.items() if v <= lowest]
    if not fitting:
        return None
    limit, name = max(fitting)
    return name, limit, tuple(sku for value, sku in rated if value >= limit)


def check(ctx: Ctx) -> None:
    b = ctx.build
    ch = ctx.chassis
    env = b.env
    site_air = env.cooling == "air"

    if ch.cooling == "liquid" and site_air:
        ctx.add(
            finding(
                "cooling.liquid_only",
                "error",
                f"{ch.sku} is liquid-cooled only (direct-to-chip cold plates), but the site "
                "provides air cooling only",
                parts=(ch.sku,),
                fix="provide a liquid loop (CDU and facility water), or choose the air-cooled "
                "version of the system",
                edit=(SetEnv(env=env.model_copy(update={"cooling": "liquid"})),),
            )
        )
    bb = ctx.baseboard
    if bb is not None and bb.liquid_only and site_air and ch.cooling != "liquid":
        ctx.add(
            finding(
                "cooling.liquid_only",
                "error",
                f"baseboard {bb.sku} is liquid-cooled only, but the site provides air cooling only",
                parts=(bb.sku,),
                fix="provide a liquid loop, or choose an air-cooled baseboard and system",
                edit=(SetEnv(env=env.model_copy(update={"cooling": "liquid"})),),
            )
        )

    air_cooled = ch.cooling == "air" or (ch.cooling == "air_or_liquid" and site_air)
    limit = ch.max_gpu_tdp_air_w
    by_sku = ctx.gpu_slots_by_sku()
    gpus = {s: ctx.catalog.gpus[s] for s in by_sku}
    if ctx.baseboard_gpu is not None:
        gpus.setdefault(ctx.baseboard_gpu.sku, ctx.baseboard_gpu)
    if air_cooled and gpus:
        if limit is None:
            ctx.add(
                finding(
                    "cooling.unknown_gpu_limit",
                    "info",
                    f"could not check GPU cooling: the highest GPU TDP {ch.sku} can cool with "
                    "air is not published in the catalog",
                    parts=(ch.sku,),
                    fix="add max_gpu_tdp_air_w (with its source) to the chassis record",
                )
            )
        else:
            for sku, g in gpus.items():
                if g.tdp_w is not None and g.tdp_w > limit:
                    edit = (
                        (SetEnv(env=env.model_copy(update={"cooling": "liquid"})),)
                        if ch.cooling == "air_or_liquid"
                        else ()
                    )
                    ctx.add(
                        finding(
                            "cooling.gpu_tdp_air",
                            "error",
                            f"{sku} draws up to {watts(g.tdp_w)}; {ch.sku} cools GPUs up to "
                            f"{watts(limit)} with air"
                            + (f" at {ch.max_ambient_c:g} C" if ch.max_ambient_c else ""),
                            parts=(sku,),
                            slots=ctx.sort_slots(by_sku.get(sku, ())),
                            fix=f"set the GPUs' power limit to {watts(limit)} or less (nvidia-smi "
                            "-pl), or use the chassis' liquid-cooling option",
                            edit=edit,
                        )
                    )

    for sku, slots in by_sku.items():
        g = gpus[sku]
        if g.cooling == "open_air":
            alt = datacenter_alternative(ctx, g)
            sl = ctx.sort_slots(slots)
            if alt is not None and (alt.width_slots or 9) <= (g.width_slots or 0):
                swap: tuple[Place, ...] | tuple[Remove, ...] = tuple(
                    Place(slot=s, sku=alt.sku) for s in sl
                )
                fix = f"replace it with {alt.sku} (passive/blower, on the supported list)"
            else:
                swap = tuple(Remove(slot=s) for s in sl)
                fix = "use a passive (or blower) data-centre GPU"
            ctx.add(
                finding(
                    "cooling.open_air_gpu",
                    "error",
                    f"{sku} has an open-air fan cooler: it recirculates hot air inside a server "
                    f"built for passive cards and front-to-back airflow ({slot_list(slots)})",
                    parts=(sku,),
                    slots=sl,
                    fix=fix,
                    edit=swap,
                )
            )
        elif g.cooling == "liquid" and site_air:
            ctx.add(
                finding(
                    "cooling.liquid_gpu",
                    "error",
                    f"{sku} is a liquid-cooled card, but the site provides air cooling only",
                    parts=(sku,),
                    slots=ctx.sort_slots(slots),
                    fix="use the air-cooled version, or provide a liquid loop",
                    edit=(SetEnv(env=env.model_copy(update={"cooling": "liquid"})),),
                )
            )

    if ch.max_ambient_c is None:
        _ambient_by_class(ctx)
    elif env.ambient_c > ch.max_ambient_c:
        ctx.add(
            finding(
                "cooling.ambient",
                "error",
                f"{env.ambient_c:g} C inlet air is above {ch.sku}'s rated {ch.max_ambient_c:g} C: "
                "GPUs and CPUs will throttle or shut down under load",
                parts=(ch.sku,),
                fix=f"keep the inlet at {ch.max_ambient_c:g} C or below",
                edit=(SetEnv(env=env.model_copy(update={"ambient_c": ch.max_ambient_c})),),
            )
        )

    cpu = ctx.cpu
    if cpu is not None and ch.cpu_max_tdp_w is None:
        ctx.add(
            finding(
                "cooling.unknown_cpu_limit",
                "info",
                f"could not check CPU cooling: the highest CPU TDP {ch.sku} supports is not in "
                "the catalog",
                parts=(ch.sku,),
                fix="add cpu_max_tdp_w (with its source) to the chassis record",
            )
        )
    if (
        cpu is not None
        and cpu.tdp_w is not None
        and ch.cpu_max_tdp_w is not None
        and cpu.tdp_w > ch.cpu_max_tdp_w
    ):
        ok = [
            ctx.catalog.cpus[s]
            for s in ch.cpu_skus
            if s in ctx.catalog.cpus and (ctx.catalog.cpus[s].tdp_w or 10**9) <= ch.cpu_max_tdp_w
        ]
        pick = max(ok, key=lambda c: (c.cores or 0, c.sku)) if ok else None
        ctx.add(
            finding(
                "cooling.cpu_tdp",
                "error",
                f"{cpu.sku} is a {watts(cpu.tdp_w)} CPU; {ch.sku} cools CPUs up to "
                f"{watts(ch.cpu_max_tdp_w)}",
                parts=(cpu.sku,),
                fix=f"use {pick.sku} ({watts(pick.tdp_w or 0)})" if pick else "use a lower-TDP CPU",
                edit=(SetCount(what="cpu", sku=pick.sku, count=fitting_count(ctx, pick)),)
                if pick
                else (),
            )
        )

    fig = ctx.power_figures
    if fig is not None:
        ctx.budgets.append(
            budget(
                name="heat",
                used=fig.worst_ac_w,
                available=None,
                unit="W",
                group="cooling",
                detail=heat_detail(ctx, fig.worst_ac_w),
            )
        )


def _ambient_by_class(ctx: Ctx) -> None:
    """The chassis' own rating is unknown: check the inlet against the ASHRAE class its family
    is sold for (:func:`family_class`, tier C), and say so."""
    ch = ctx.chassis
    env = ctx.build.env
    cls = family_class(ctx)
    if cls is None:
        ctx.add(
            finding(
                "cooling.unknown_ambient",
                "info",
                f"could not check the {env.ambient_c:g} C ambient: {ch.sku}'s rated operating "
                f"temperature is not in the catalog, nor that of any other {ch.family} chassis",
                parts=(ch.sku,),
                fix="add max_ambient_c (with its source) to the chassis record",
            )
        )
        return
    name, limit, basis = cls
    derived = (
        f"ASHRAE class {name} (inlet up to {limit:g} C), the class {ch.family} GPU servers are "
        f"rated for ({', '.join(basis[:3])}: {limit:g} C); derived, tier C: {ch.sku}'s own "
        "rating is not in the catalog"
    )
    if env.ambient_c > limit:
        ctx.add(
            finding(
                "cooling.ambient_class",
                "error",
                f"{env.ambient_c:g} C inlet air is above {derived}: GPUs and CPUs will throttle "
                "or shut down under load",
                parts=(ch.sku,),
                fix=f"keep the inlet at {limit:g} C or below, or add {ch.sku}'s published "
                "max_ambient_c (with its source) to the chassis record",
                edit=(SetEnv(env=env.model_copy(update={"ambient_c": limit})),),
            )
        )
        return
    ctx.add(
        finding(
            "cooling.unknown_ambient",
            "info",
            f"{env.ambient_c:g} C inlet checked against {derived}",
            parts=(ch.sku,),
            fix="add max_ambient_c (with its source) to the chassis record",
        )
    )


def heat_detail(ctx: Ctx, heat_w: float) -> str:
    """BTU/h at the worst-case wall draw, where the heat goes, airflow and ambient, in words.

    Every watt drawn at the wall ends up as heat (PSU losses included); 1 W = 3.412 BTU/h.  For
    a liquid-cooled system the cold plates take ``liquid_heat_share`` of it where the vendor
    publishes that share; otherwise the split is "not verified"."""
    ch = ctx.chassis
    env = ctx.build.env
    parts = [f"{heat_w * BTU_PER_W:,.0f} BTU/h at worst-case wall draw (1 W = {BTU_PER_W} BTU/h)"]
    liquid = ch.cooling == "liquid" or (ch.cooling == "air_or_liquid" and env.cooling == "liquid")
    if liquid:
        if ch.liquid_heat_share is not None:
            to_liquid = heat_w * ch.liquid_heat_share
            parts.append(
                f"to liquid {watts(to_liquid)} ({ch.liquid_heat_share:.0%} cold-plate share), "
                f"to air {watts(heat_w - to_liquid)}"
            )
        else:
            parts.append("air/liquid split not verified: the cold-plate share is not published")
    else:
        parts.append(f"all {watts(heat_w)} to air")
    if ch.airflow_cfm is not None:
        parts.append(f"airflow {ch.airflow_cfm:,.0f} CFM (published)")
    if ch.max_ambient_c is not None:
        parts.append(f"inlet {env.ambient_c:g} C of {ch.max_ambient_c:g} C rated")
    elif (cls := family_class(ctx)) is not None:
        parts.append(
            f"inlet {env.ambient_c:g} C of {cls[1]:g} C (ASHRAE {cls[0]}, the {ch.family} class; "
            "tier C, the chassis' own rating not verified)"
        )
    else:
        parts.append(f"inlet {env.ambient_c:g} C (rated maximum not verified)")
    return "; ".join(parts)
