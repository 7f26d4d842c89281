"""Power rules: worst-case draw vs what the PSUs deliver under the redundancy policy, and the
same draw as AC at the wall (worst case and typical).

Worst case (DC, what the PSUs must deliver) = every GPU at its maximum configurable TDP, the HGX
baseboard's own power (NVSwitch chips), CPUs at TDP, DIMMs, drives and NICs at their rated
power, plus the chassis' fans/board/BMC: the vendor's figure where published, else the derived
share of the other load (engine.check.power_model.FANS_BOARD_SHARE, tier C, from DGX H100's published
maximum).  A figure that is unknown is listed and the result is "power not verified" (a
warning): the sum is then a lower bound.

AC at the wall = DC / PSU efficiency at the load point (DC over the rating of all fitted units,
which share the load), from the 80 PLUS curve of the PSU's class (engine.check.power_model).

Capacity under the policy (the usual definition of redundant PSU sets, e.g. Supermicro's
"2+2 redundant" 4 x 2700 W in SYS-421GE-TNRT3 / SYS-521GE-TNRT, shared reference S1/S7):
N+1 -> (n - 1) x W (any one unit may fail); N+N -> floor(n / 2) x W (one of two feeds may fail);
"chassis" -> the chassis record's own scheme (4+2 -> n - 2, 3+3 -> n / 2).
W is the unit's output at the chosen input: ``watts_high_line`` at 200-240 V, ``watts_low_line``
at 100-127 V (server PSUs derate at low line; when the rating is unknown we say so: a warning,
"power not verified", never a pass).

Inlet limits (IEC 60320 C19/C20 couplers are rated 16 A; on a North American 20 A branch
circuit the NEC 80 % rule for continuous loads also gives 16 A): at 100-127 V a unit's output is
at most 127 V x 16 A = 2,032 W whatever its rating, so a build that needs more than that bound
times the usable units is an error without knowing the exact rating.  At 200-240 V a unit whose
record names a C19/C20 inlet gives at most 200 V x 16 A = 3,200 W (its rating must hold over the
whole band); the cap is applied and stated.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from slotwise.engine.build import Environment
from slotwise.engine.build.edits import SetCount, SetEnv
from slotwise.engine.check.power_model import (
    FANS_BOARD_SHARE,
    FANS_BOARD_SOURCE,
    HELD_OUT_MAX_ABS_ERR,
    TYPICAL_BASIS,
    TYPICAL_CPU_SHARE,
    TYPICAL_GPU_UTILISATION,
    efficiency_at,
    efficiency_class,
    parse_scheme,
)
from slotwise.engine.check.power_model import usable_units as _usable
from slotwise.engine.check.report import PowerFigures
from slotwise.engine.check.rules.common import budget, finding, watts
from slotwise.engine.check.rules.context import Ctx
from slotwise.engine.check.rules.family import RuleFamily
from slotwise.parts.schema import Nic, Psu

#: The rule ids this family emits (stable: the CLI's JSON, saved reports and the UI key on them)
#: and what each checks.
FAMILY = RuleFamily(
    "power",
    rules={
        "power.unknown_figures": "power not verified: parts whose power is unknown were left out",
        "power.no_psu": "no power supply",
        "power.unknown_psu": "PSU SKU not in the catalog",
        "power.unknown_psu_list": "chassis' PSU options unknown",
        "power.psu_not_allowed": "PSU the chassis does not take",
        "power.psu_bays": "more PSUs than power bays",
        "power.unknown_bays": "chassis' power bay count unknown",
        "power.low_line_unknown": "power not verified: PSU rating at 100-127 V unknown",
        "power.redundancy": "worst-case draw above PSU capacity under the redundancy policy",
        "power.unknown_scheme": "chassis' PSU redundancy scheme unknown (counted as N+1)",
        "power.scheme_looser": "the chosen policy counts more PSUs than the chassis' own scheme",
    },
)

LOW_LINE_MAX_V = 127
LOW_LINE_MAX_A = 16
LOW_LINE_BOUND_W = LOW_LINE_MAX_V * LOW_LINE_MAX_A  # 2,032 W per inlet
HIGH_LINE_MIN_V = 200
C20_MAX_A = 16
HIGH_LINE_C20_BOUND_W = HIGH_LINE_MIN_V * C20_MAX_A  # 3,200 W per C19/C20 inlet at 200 V


def usable_units(n: int, redundancy: str, scheme: str | None = None) -> int:
    """PSUs whose output counts under the policy (engine.check.power_model.usable_units)."""
    return _usable(n, redundancy, scheme)


def unit_watts(psu: Psu, input_voltage: str) -> int | None:
    """A unit's output at the input band, capped by its inlet where the record names one."""
    if input_voltage == "200-240":
        w = psu.watts_high_line
        if psu.inlet == "C19/C20":
            w = min(w, HIGH_LINE_C20_BOUND_W)
        return w
    return psu.watts_low_line


@dataclass
class DrawDetail:
    """Worst-case DC draw by part, what is unknown, what is derived, and the typical draw."""

    total: float = 0.0
    parts: list[tuple[str, float]] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    derived: list[tuple[str, float, str]] = field(default_factory=list)  # label, W, method
    gpu_w: float = 0.0
    cpu_w: float = 0.0


def draw_detail(ctx: Ctx) -> DrawDetail:
    """The node's worst-case DC draw by part (module doc): the one engine function for a
    server's power.  The power rule, the fixes' load guard and suggest's PSU sizing (through
    engine.check.node_power.node_draw) all read it; the wall figures (``Report.power``,
    ``Report.wall_power_w``) are this draw over the PSU efficiency.  Computed once per context:
    the result is kept on ``ctx.draw``."""
    if ctx.draw is None:
        ctx.draw = _draw_detail(ctx)
    return ctx.draw


def _draw_detail(ctx: Ctx) -> DrawDetail:
    b = ctx.build
    d = DrawDetail()
    parts, unknown, derived = d.parts, d.unknown, d.derived

    def add(label: str, w: float, method: str | None = None) -> None:
        parts.append((label, float(w)))
        if method:
            derived.append((label, float(w), method))

    gpus = ctx.catalog.gpus
    for sku, slots in ctx.gpu_slots_by_sku().items():
        cnt = len(slots)
        tdp = gpus[sku].tdp_w
        if tdp is None:
            unknown.append(f"{cnt} x {sku} (TDP unknown)")
        else:
            parts.append((f"{cnt} x {sku}", float(tdp * cnt)))
            d.gpu_w += tdp * cnt
    if ctx.baseboard is not None:
        bb = ctx.baseboard
        bg = ctx.baseboard_gpu
        if bg is None or bg.tdp_w is None:
            unknown.append(f"{bb.gpu_count} x {bb.gpu_sku} on {bb.sku} (TDP unknown)")
        else:
            add(f"{bb.gpu_count} x {bg.sku} on {bb.sku}", bg.tdp_w * bb.gpu_count)
            d.gpu_w += bg.tdp_w * bb.gpu_count
        if bb.board_power_w is None:
            unknown.append(f"{bb.sku} NVSwitch/board power")
        else:
            add(f"{bb.sku} board (NVSwitch)", bb.board_power_w, bb.power_method)
    cpu, cpus = ctx.cpu, ctx.cpu_count
    if cpu is not None and cpus:
        if cpu.tdp_w is None:
            unknown.append(f"{cpus} x {cpu.sku} (TDP unknown)")
        else:
            parts.append((f"{cpus} x {cpu.sku}", float(cpu.tdp_w * cpus)))
            d.cpu_w += cpu.tdp_w * cpus
    dimm = ctx.dimm
    if dimm is not None and b.dimm_count:
        if dimm.power_w is None:
            unknown.append(f"{b.dimm_count} x {dimm.sku} (power unknown)")
        else:
            add(f"{b.dimm_count} x {dimm.sku}", dimm.power_w * b.dimm_count, dimm.power_method)
    if b.drives:
        drives = ctx.catalog.drives
        for dr in b.drives:
            drv = drives.get(dr.sku)
            if drv is None:
                continue  # storage reports unknown drives
            if drv.power_w is None:
                unknown.append(f"{dr.count} x {drv.sku} (power unknown)")
            else:
                add(f"{dr.count} x {drv.sku}", drv.power_w * dr.count, drv.power_method)
    nic_n: dict[str, int] = {}
    for n in ctx.nics.values():
        sku = n.sku
        nic_n[sku] = nic_n.get(sku, 0) + 1
    nics = ctx.catalog.nics
    for sku, cnt in nic_n.items():
        nic = nics[sku]
        if nic.power_w is None:
            unknown.append(f"{cnt} x {sku} (power unknown)")
        else:
            add(f"{cnt} x {sku}", nic.power_w * cnt, nic.power_method)
    # NICs built into the chassis (onboard_nics) draw power too; they are not in a slot.
    onb_n: dict[str, tuple[Nic, int]] = {}
    for _, nic in ctx.onboard_nics:
        onb_n[nic.sku] = (nic, onb_n.get(nic.sku, (nic, 0))[1] + 1)
    for sku, (nic, cnt) in onb_n.items():
        if nic.power_w is None:
            unknown.append(f"{cnt} x {sku} on board (power unknown)")
        else:
            add(f"{cnt} x {sku} (on board)", nic.power_w * cnt, nic.power_method)
    ch = ctx.chassis
    if ch.system_overhead_w is not None:
        parts.append((f"{ch.sku} fans, board, BMC", float(ch.system_overhead_w)))
    else:
        base = sum([w for _, w in parts])
        add(
            f"{ch.sku} fans, board, BMC (derived)",
            base * FANS_BOARD_SHARE,
            f"{FANS_BOARD_SHARE:.1%} of the other parts, " + FANS_BOARD_SOURCE,
        )
    d.total = sum([w for _, w in parts])
    return d


def draw(ctx: Ctx) -> tuple[float, list[tuple[str, float]], list[str]]:
    """(worst-case DC watts, breakdown by component, figures left out)."""
    d = draw_detail(ctx)
    return d.total, d.parts, d.unknown


def typical_dc(ctx: Ctx, d: DrawDetail, mode: str) -> float:
    """The typical DC draw: GPUs and CPUs at the stated shares, fans/board scaled with the
    rest when they are the derived share (engine.check.power_model)."""
    util = TYPICAL_GPU_UTILISATION[mode]
    lower = d.gpu_w * (1 - util) + d.cpu_w * (1 - TYPICAL_CPU_SHARE)
    if ctx.chassis.system_overhead_w is None:
        return d.total - lower * (1 + FANS_BOARD_SHARE)
    return d.total - lower


def _mode(ctx: Ctx) -> str:
    w = ctx.workload
    if w is not None and not getattr(w, "training", True):
        return "inference"
    return "training"


def _allowed_psus(ctx: Ctx) -> list[Psu]:
    listed = [ctx.catalog.psus[s] for s in ctx.chassis.psu_skus if s in ctx.catalog.psus]
    return listed


def check(ctx: Ctx) -> None:
    b = ctx.build
    ch = ctx.chassis
    env = b.env
    detail = draw_detail(ctx)
    total, parts, unknown = detail.total, detail.parts, detail.unknown
    ctx.power_w = total
    not_verified: list[str] = []
    if unknown:
        not_verified.append("part figures unknown")
        ctx.add(
            finding(
                "power.unknown_figures",
                "warning",
                "power not verified: the worst case leaves out figures that are not published "
                "or not in the catalog: " + "; ".join(unknown) + f". The {watts(total)} shown "
                "is a lower bound",
                fix="add the missing power figures (with their source) to the catalog",
            )
        )
    scheme = ch.psu_redundancy
    if env.redundancy == "chassis" and parse_scheme(scheme) is None:
        ctx.add(
            finding(
                "power.unknown_scheme",
                "info",
                f"{ch.sku}'s PSU redundancy scheme is not in the catalog: counted as N+1",
                parts=(ch.sku,),
                fix="add psu_redundancy (with its source) to the chassis record, or pick N+1 / N+N",
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
        fitted = min(n, bays) if bays else n
        usable = usable_units(fitted, env.redundancy, scheme)
        policy = _policy_name(env.redundancy, scheme)
        _scheme_note(ctx, fitted, usable)
        bound = min(psu.watts_high_line, LOW_LINE_BOUND_W)
        ctx.power_limit = float(usable * (unit if unit is not None else bound))
        if unit is None and total > usable * bound:
            available = float(usable * bound)
            budget_detail = (
                f"{policy} at 100-127 V: {usable} of {n} x at most {watts(bound)} "
                f"(C19/C20 inlet limit 127 V x 16 A; {psu.sku}'s low-line rating unknown)"
            )
            _short(ctx, psu, n, bound, usable, total, available, bound_only=True)
        elif unit is None:
            not_verified.append(f"{psu.sku} low-line rating unknown")
            ctx.add(
                finding(
                    "power.low_line_unknown",
                    "warning",
                    f"power not verified: {psu.sku}'s output at 100-127 V is not published (it "
                    f"gives {watts(psu.watts_high_line)} at 200-240 V; server PSUs derate at low "
                    f"line, and one 100-127 V inlet carries at most {watts(LOW_LINE_BOUND_W)}). "
                    f"The build draws up to {watts(total)} under {policy}",
                    parts=(psu.sku,),
                    fix="feed the PSUs from 200-240 V, or get the PSU's low-line rating from the "
                    "vendor and add it to the catalog",
                    edit=(SetEnv(env=env.model_copy(update={"input_voltage": "200-240"})),),
                )
            )
            budget_detail = f"{psu.sku} low-line rating unknown: not verified"
        else:
            available = float(usable * unit)
            capped = (
                f" (C19/C20 inlet: 200 V x 16 A caps each unit at {watts(HIGH_LINE_C20_BOUND_W)})"
                if env.input_voltage == "200-240"
                and psu.inlet == "C19/C20"
                and psu.watts_high_line > HIGH_LINE_C20_BOUND_W
                else ""
            )
            budget_detail = (
                f"{policy} at {env.input_voltage} V: {usable} of {n} x {watts(unit)} count{capped}"
            )
            if total > available:
                _short(ctx, psu, n, unit, usable, total, available)
    figures = _figures(ctx, detail, not_verified)
    ctx.power_figures = figures
    wall = (
        f"; at the wall {watts(figures.worst_ac_w)} worst case, {watts(figures.typical_ac_w)} "
        f"typical ({figures.typical_mode}); PSU efficiency {figures.efficiency:.1%} "
        f"({figures.efficiency_basis})"
    )
    ctx.budgets.append(
        budget(
            name="power",
            used=total,
            available=available,
            unit="W",
            group="power",
            detail=(budget_detail + wall).lstrip("; "),
            parts=tuple(parts),
        )
    )


def _policy_name(redundancy: str, scheme: str | None) -> str:
    if redundancy == "chassis":
        return f"chassis {scheme}" if parse_scheme(scheme) else "N+1 (chassis scheme unknown)"
    return redundancy


def _scheme_note(ctx: Ctx, fitted: int, usable: int) -> None:
    """Say when the user's policy counts more PSUs than the chassis' own scheme does."""
    ch = ctx.chassis
    env = ctx.build.env
    ab = parse_scheme(ch.psu_redundancy)
    if ab is None or env.redundancy == "chassis":
        return
    theirs = usable_units(fitted, "chassis", ch.psu_redundancy)
    if usable > theirs:
        ctx.add(
            finding(
                "power.scheme_looser",
                "info",
                f"{ch.sku} is specified {ch.psu_redundancy} redundant; {env.redundancy} counts "
                f"{usable} of {fitted} PSUs, the vendor's scheme {theirs}",
                parts=(ch.sku,),
                fix=f"choose the chassis' {ch.psu_redundancy} scheme to size as the vendor does",
                edit=(SetEnv(env=env.model_copy(update={"redundancy": "chassis"})),),
            )
        )


def _figures(ctx: Ctx, d: DrawDetail, not_verified: list[str]) -> PowerFigures:
    """Worst case and typical at the wall (module doc), with what is derived."""
    psu = ctx.psu
    b = ctx.build
    cls = efficiency_class(psu.efficiency) if psu is not None else None
    rating = unit_watts(psu, b.env.input_voltage) if psu is not None else None
    if psu is not None and rating is None:
        rating = psu.watts_high_line
    n = b.psu_count if psu is not None else 0
    if ctx.chassis.psu_bays:
        n = min(n, ctx.chassis.psu_bays)
    load = d.total / (n * rating) if n and rating else 1.0
    eff = efficiency_at(cls, load)
    if cls is None:
        basis = "efficiency class unknown: 90% assumed, the lowest 80 PLUS Titanium/Platinum point"
    else:
        basis = f"80 PLUS {cls.capitalize()} curve at {load:.0%} load"
    mode = _mode(ctx)
    typ_dc = typical_dc(ctx, d, mode)
    typ_load = typ_dc / (n * rating) if n and rating else 1.0
    typ_eff = efficiency_at(cls, typ_load)
    derived_w = sum(w for _, w, _ in d.derived)
    return PowerFigures(
        worst_dc_w=d.total,
        worst_ac_w=d.total / eff,
        typical_ac_w=typ_dc / typ_eff,
        typical_mode=mode,
        typical_basis=TYPICAL_BASIS[mode],
        efficiency=eff,
        efficiency_basis=basis,
        derived_w=derived_w,
        derived=tuple(f"{label} {w:,.0f} W: {method}" for label, w, method in d.derived),
        could_move_pct=HELD_OUT_MAX_ABS_ERR * 100,
        verified=not not_verified,
        not_verified=tuple(not_verified),
    )


def _covering_count(
    psu: Psu, total: float, env: Environment, bays: int | None, scheme: str | None = None
) -> int | None:
    """Like :func:`psus_needed`, but a PSU with an unknown low-line rating counts at the
    inlet bound (the level below which the engine does not report an error)."""
    need = psus_needed(psu, total, env, bays, scheme)
    if need is not None or unit_watts(psu, env.input_voltage) is not None:
        return need
    bound = min(psu.watts_high_line, LOW_LINE_BOUND_W)
    for n in range(2, (bays or 16) + 1):
        if usable_units(n, env.redundancy, scheme) * bound >= total:
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
            need = _covering_count(p, total, e, ch.psu_bays, ch.psu_redundancy)
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


def psus_needed(
    psu: Psu | None,
    total: float,
    env: Environment,
    bays: int | None,
    scheme: str | None = None,
) -> int | None:
    """Smallest PSU count (within the bays) that covers ``total`` under the policy, or None."""
    if psu is None:
        return None
    unit = unit_watts(psu, env.input_voltage)
    if unit is None:
        return None
    top = bays or 16
    for n in range(2, top + 1):
        if usable_units(n, env.redundancy, scheme) * unit >= total:
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
    scheme = ctx.chassis.psu_redundancy
    need = None if bound_only else psus_needed(psu, total, env, bays, scheme)
    if need is not None and need > n:
        edits = (SetCount(what="psu", sku=psu.sku, count=need),)
        fixes.append(f"fit {need} x {psu.sku}")
    elif env.input_voltage == "100-127":
        high = env.model_copy(update={"input_voltage": "200-240"})
        need_high = psus_needed(psu, total, high, bays, scheme)
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
        f"a {'feed' if env.redundancy == 'N+N' else 'PSU'} failure the rest cannot (the "
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
            f"worst-case draw {watts(total)} exceeds the "
            f"{_policy_name(env.redundancy, ctx.chassis.psu_redundancy)} capacity of "
            f"{n} x {psu.sku} at {env.input_voltage} V: {usable} x "
            f"{'at most ' if bound_only else ''}{watts(unit)} = "
            f"{watts(available)}" + tail,
            parts=(psu.sku,),
            fix="; or ".join(fixes),
            edit=edits,
        )
    )
