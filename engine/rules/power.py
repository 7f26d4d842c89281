"""Power rules: worst-case draw vs what the PSUs deliver under the redundancy policy.

Worst case = every GPU at its maximum configurable TDP, the HGX baseboard's own power (NVSwitch,
retimers) where published, CPUs at TDP, DIMMs, drives and NICs at their rated power, plus the
chassis' fans/board/BMC figure where the vendor publishes it.  Figures that are unknown are left
out *and listed* in an info finding, so the sum is a lower bound of the true worst case.

Capacity under the policy (the usual definition of redundant PSU sets, e.g. Supermicro's
"2+2 redundant" 4 x 2700 W in SYS-421GE-TNRT3 / SYS-521GE-TNRT, shared reference S1/S7):
N+1 -> (n - 1) x W (any one unit may fail); N+N -> floor(n / 2) x W (one of two feeds may fail).
W is the unit's output at the chosen input: ``watts_high_line`` at 200-240 V, ``watts_low_line``
at 100-127 V (server PSUs derate at low line; when the rating is unknown we say so and do not
pass the check).

Even when a PSU's low-line rating is unknown, physics bounds it: a PSU cannot deliver more than
it draws from its inlet.  At 100-127 V one inlet carries at most 16 A continuously (IEC 60320
C19/C20 couplers are rated 16 A; on a North American 20 A branch circuit the NEC 80 % rule for
continuous loads also gives 16 A), so a unit's low-line output is at most 127 V x 16 A =
2,032 W.  A build that needs more than that bound times the usable units is reported as an error
without knowing the exact rating.
"""

from __future__ import annotations

from engine.build import Environment
from engine.edits import SetCount, SetEnv
from engine.report import Budget
from engine.rules.common import finding, watts
from engine.rules.context import Ctx
from parts.schema import Psu

LOW_LINE_MAX_V = 127
LOW_LINE_MAX_A = 16
LOW_LINE_BOUND_W = LOW_LINE_MAX_V * LOW_LINE_MAX_A  # 2,032 W per inlet


def usable_units(n: int, redundancy: str) -> int:
    """PSUs whose output counts under the policy: N+1 -> n-1, N+N -> n//2."""
    if n <= 0:
        return 0
    return n - 1 if redundancy == "N+1" else n // 2


def unit_watts(psu: Psu, input_voltage: str) -> int | None:
    return psu.watts_high_line if input_voltage == "200-240" else psu.watts_low_line


def draw(ctx: Ctx) -> tuple[float, list[tuple[str, float]], list[str]]:
    """(worst-case watts, breakdown by component, figures left out)."""
    b = ctx.build
    parts: list[tuple[str, float]] = []
    unknown: list[str] = []

    def add(label: str, w: float) -> None:
        parts.append((label, float(w)))

    gpu_w: dict[str, list[int]] = {}
    for g in ctx.gpus.values():
        gpu_w.setdefault(g.sku, []).append(1)
    for sku, ones in gpu_w.items():
        g = ctx.catalog.gpus[sku]
        if g.tdp_w is None:
            unknown.append(f"{len(ones)} x {sku} (TDP unknown)")
        else:
            add(f"{len(ones)} x {sku}", g.tdp_w * len(ones))
    if ctx.baseboard is not None:
        bb = ctx.baseboard
        bg = ctx.baseboard_gpu
        if bg is None or bg.tdp_w is None:
            unknown.append(f"{bb.gpu_count} x {bb.gpu_sku} on {bb.sku} (TDP unknown)")
        else:
            add(f"{bb.gpu_count} x {bg.sku} on {bb.sku}", bg.tdp_w * bb.gpu_count)
        if bb.board_power_w is None:
            unknown.append(f"{bb.sku} NVSwitch/board power")
        else:
            add(f"{bb.sku} board (NVSwitch, retimers)", bb.board_power_w)
    if ctx.cpu is not None and ctx.cpu_count:
        if ctx.cpu.tdp_w is None:
            unknown.append(f"{ctx.cpu_count} x {ctx.cpu.sku} (TDP unknown)")
        else:
            add(f"{ctx.cpu_count} x {ctx.cpu.sku}", ctx.cpu.tdp_w * ctx.cpu_count)
    if ctx.dimm is not None and b.dimm_count:
        if ctx.dimm.power_w is None:
            unknown.append(f"{b.dimm_count} x {ctx.dimm.sku} (power unknown)")
        else:
            add(f"{b.dimm_count} x {ctx.dimm.sku}", ctx.dimm.power_w * b.dimm_count)
    for d in b.drives:
        drv = ctx.catalog.drives.get(d.sku)
        if drv is None:
            continue  # storage reports unknown drives
        if drv.power_w is None:
            unknown.append(f"{d.count} x {drv.sku} (power unknown)")
        else:
            add(f"{d.count} x {drv.sku}", drv.power_w * d.count)
    nic_n: dict[str, int] = {}
    for n in ctx.nics.values():
        nic_n[n.sku] = nic_n.get(n.sku, 0) + 1
    for sku, cnt in nic_n.items():
        nic = ctx.catalog.nics[sku]
        if nic.power_w is None:
            unknown.append(f"{cnt} x {sku} (power unknown)")
        else:
            add(f"{cnt} x {sku}", nic.power_w * cnt)
    ch = ctx.chassis
    if ch.system_overhead_w is None:
        unknown.append(f"{ch.sku} fans, board and BMC (not published)")
    else:
        add(f"{ch.sku} fans, board, BMC", ch.system_overhead_w)
    return sum(w for _, w in parts), parts, unknown


def _allowed_psus(ctx: Ctx) -> list[Psu]:
    listed = [ctx.catalog.psus[s] for s in ctx.chassis.psu_skus if s in ctx.catalog.psus]
    return listed


def check(ctx: Ctx) -> None:
    b = ctx.build
    ch = ctx.chassis
    env = b.env
    total, parts, unknown = draw(ctx)
    ctx.power_w = total
    if unknown:
        ctx.add(
            finding(
                "power.unknown_figures",
                "info",
                "worst-case power leaves out figures that are not published or not in the "
                "catalog: " + "; ".join(unknown) + f". The {watts(total)} shown is a lower bound",
                fix="add the missing power figures (with their source) to the catalog",
            )
        )
    bays = ch.psu_bays
    allowed = _allowed_psus(ctx)
    psu = ctx.psu
    budget_detail = ""
    available: float | None = None

    if b.psu is None or b.psu_count == 0:
        edits, fix = _psu_choice(ctx, total)
        ctx.add(
            finding(
                "power.no_psu",
                "error",
                f"no power supply is fitted; the build draws up to {watts(total)}",
                parts=(ch.sku,),
                fix=fix,
                edit=edits,
            )
        )
    elif psu is None:
        edits, fix = _psu_choice(ctx, total)
        ctx.add(
            finding(
                "power.unknown_psu",
                "error",
                f"PSU {b.psu!r} is not in the parts catalog",
                parts=(b.psu,),
                fix=fix,
                edit=edits,
            )
        )
    else:
        n = b.psu_count
        if not ch.psu_skus:
            ctx.add(
                finding(
                    "power.unknown_psu_list",
                    "info",
                    f"could not check that {psu.sku} fits: {ch.sku}'s PSU options are not in the "
                    "catalog",
                    parts=(psu.sku,),
                    fix="confirm the PSU with the vendor; add psu_skus (with its source) to the "
                    "chassis record",
                )
            )
        if allowed and psu.sku not in ch.psu_skus:
            edits, fix = _psu_choice(ctx, total)
            ctx.add(
                finding(
                    "power.psu_not_allowed",
                    "error",
                    f"{psu.sku} is not a PSU {ch.sku} takes ({', '.join(ch.psu_skus)}): its "
                    "connector, size or firmware does not match the power bays",
                    parts=(psu.sku,),
                    fix=fix,
                    edit=edits,
                )
            )
        if bays is not None and n > bays:
            ctx.add(
                finding(
                    "power.psu_bays",
                    "error",
                    f"{n} PSUs fitted, but {ch.sku} has {bays} power bays",
                    parts=(psu.sku,),
                    fix=f"fit {bays} x {psu.sku}",
                    edit=(SetCount(what="psu", sku=psu.sku, count=bays),),
                )
            )
        elif bays is None:
            ctx.add(
                finding(
                    "power.unknown_bays",
                    "info",
                    f"could not check the PSU count: {ch.sku}'s number of power bays is unknown",
                    parts=(ch.sku,),
                    fix="add psu_bays (with its source) to the chassis record",
                )
            )
        unit = unit_watts(psu, env.input_voltage)
        usable = usable_units(min(n, bays) if bays else n, env.redundancy)
        bound = min(psu.watts_high_line, LOW_LINE_BOUND_W)
        ctx.power_limit = float(usable * (unit if unit is not None else bound))
        if unit is None and total > usable * bound:
            available = float(usable * bound)
            budget_detail = (
                f"{env.redundancy} at 100-127 V: {usable} of {n} x at most {watts(bound)} "
                f"(inlet limit; {psu.sku}'s low-line rating unknown)"
            )
            _short(ctx, psu, n, bound, usable, total, available, bound_only=True)
        elif unit is None:
            ctx.add(
                finding(
                    "power.low_line_unknown",
                    "info",
                    f"could not check low-line capacity of PSU {psu.sku}: rating unknown at "
                    f"100-127 V (it gives {watts(psu.watts_high_line)} at 200-240 V; server PSUs "
                    f"derate at low line). The build draws up to {watts(total)}",
                    parts=(psu.sku,),
                    fix="feed the PSUs from 200-240 V, or add the PSU's low-line rating",
                    edit=(SetEnv(env=env.model_copy(update={"input_voltage": "200-240"})),),
                )
            )
            budget_detail = f"{psu.sku} low-line rating unknown"
        else:
            available = float(usable * unit)
            budget_detail = (
                f"{env.redundancy} at {env.input_voltage} V: {usable} of {n} x {watts(unit)} count"
            )
            if total > available:
                _short(ctx, psu, n, unit, usable, total, available)
    ctx.budgets.append(
        Budget(
            name="power",
            used=total,
            available=available,
            unit="W",
            group="power",
            detail=budget_detail,
            parts=tuple(parts),
        )
    )


def _covering_count(psu: Psu, total: float, env: Environment, bays: int | None) -> int | None:
    """Like :func:`psus_needed`, but a PSU with an unknown low-line rating counts at the
    inlet bound (the level below which the engine does not report an error)."""
    need = psus_needed(psu, total, env, bays)
    if need is not None or unit_watts(psu, env.input_voltage) is not None:
        return need
    bound = min(psu.watts_high_line, LOW_LINE_BOUND_W)
    for n in range(2, (bays or 16) + 1):
        if usable_units(n, env.redundancy) * bound >= total:
            return n
    return None


def _psu_choice(ctx: Ctx, total: float) -> tuple[tuple, str]:
    """(edits, fix text) fitting an allowed PSU model and count that carries ``total``."""
    ch = ctx.chassis
    env = ctx.build.env
    allowed = _allowed_psus(ctx)
    if not allowed:
        return (), "choose a PSU the chassis takes (none is listed in the catalog)"

    def best(e: Environment) -> tuple[Psu, int] | None:
        options = []
        for p in allowed:
            need = _covering_count(p, total, e, ch.psu_bays)
            if need is not None:
                known = unit_watts(p, e.input_voltage) is not None
                options.append((not known, need, -p.watts_high_line, p.sku, p))
        if not options:
            return None
        o = min(options)
        return o[4], o[1]

    hit = best(env)
    if hit is not None:
        p, n = hit
        return (SetCount(what="psu", sku=p.sku, count=n),), f"fit {n} x {p.sku}"
    if env.input_voltage == "100-127":
        high = env.model_copy(update={"input_voltage": "200-240"})
        hit = best(high)
        if hit is not None:
            p, n = hit
            return (
                (SetCount(what="psu", sku=p.sku, count=n), SetEnv(env=high)),
                f"fit {n} x {p.sku} fed from 200-240 V",
            )
    return (), (
        f"no PSU this chassis takes carries {watts(total)} under {env.redundancy}: reduce the "
        "load (fewer GPUs, GPU power caps) or relax redundancy"
    )


def psus_needed(psu: Psu | None, total: float, env: Environment, bays: int | None) -> int | None:
    """Smallest PSU count (within the bays) that covers ``total`` under the policy, or None."""
    if psu is None:
        return None
    unit = unit_watts(psu, env.input_voltage)
    if unit is None:
        return None
    top = bays or 16
    for n in range(2, top + 1):
        if usable_units(n, env.redundancy) * unit >= total:
            return n
    return None


def _short(
    ctx: Ctx,
    psu: Psu,
    n: int,
    unit: int,
    usable: int,
    total: float,
    available: float,
    *,
    bound_only: bool = False,
) -> None:
    env = ctx.build.env
    bays = ctx.chassis.psu_bays
    edits: tuple = ()
    fixes: list[str] = []
    need = None if bound_only else psus_needed(psu, total, env, bays)
    if need is not None and need > n:
        edits = (SetCount(what="psu", sku=psu.sku, count=need),)
        fixes.append(f"fit {need} x {psu.sku}")
    elif env.input_voltage == "100-127":
        high = env.model_copy(update={"input_voltage": "200-240"})
        need_high = psus_needed(psu, total, high, bays)
        if need_high is not None:
            edits = (SetEnv(env=high),)
            if need_high > n:
                edits += (SetCount(what="psu", sku=psu.sku, count=need_high),)
            fixes.append(
                f"feed the PSUs from 200-240 V ({watts(psu.watts_high_line)} each)"
                + (f" with {need_high} units" if need_high > n else "")
            )
    if not edits:
        fixes.append(
            "no PSU count in this chassis covers it: cap the GPUs' power limit, fit fewer GPUs, "
            "or accept less redundancy"
        )
    without = n * unit
    tail = (
        f"; without redundancy {n} x {watts(unit)} = {watts(without)} would carry it, but after "
        f"a {'PSU' if env.redundancy == 'N+1' else 'feed'} failure the rest cannot (the "
        "server throttles or shuts down)"
        if without >= total
        else f"; even all {n} PSUs together ({watts(without)}) are short"
    )
    if bound_only:
        tail = (
            f" ({psu.sku}'s low-line rating is unknown, but no PSU delivers more than "
            f"{LOW_LINE_MAX_V} V x {LOW_LINE_MAX_A} A = {watts(LOW_LINE_BOUND_W)} from one "
            "100-127 V inlet)"
        )
    ctx.add(
        finding(
            "power.redundancy",
            "error",
            f"worst-case draw {watts(total)} exceeds the {env.redundancy} capacity of "
            f"{n} x {psu.sku} at {env.input_voltage} V: {usable} x "
            f"{'at most ' if bound_only else ''}{watts(unit)} = "
            f"{watts(available)}" + tail,
            parts=(psu.sku,),
            fix="; or ".join(fixes),
            edit=edits,
        )
    )
