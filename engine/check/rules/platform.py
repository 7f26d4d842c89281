"""CPU rules: a CPU is fitted, known, takes the chassis' socket, and the count fits the board."""

from __future__ import annotations

from collections.abc import Sequence

from slotwise.engine.build.edits import SetCount
from slotwise.engine.check.rules.common import finding, plural
from slotwise.engine.check.rules.context import Ctx
from slotwise.engine.check.rules.family import RuleFamily
from slotwise.parts.schema import Cpu, Dimm

#: The rule ids this family emits (stable: the CLI's JSON, saved reports and the UI key on them)
#: and what each checks.
FAMILY = RuleFamily(
    "platform",
    rules={
        "platform.no_cpu": "no CPU fitted",
        "platform.unknown_cpu": "CPU SKU not in the catalog",
        "platform.cpu_count": "more CPUs than the chassis has sockets",
        "platform.cpu_max_sockets": "more CPUs than the CPU model supports per system",
        "platform.cpu_socket": "CPU of another socket type than the chassis takes",
        "platform.cpu_not_listed": "CPU not on the chassis' supported list",
    },
)


def fitting_count(ctx: Ctx, cpu: Cpu) -> int:
    """How many of ``cpu`` to fit when swapping CPU models: the build's count, within the
    chassis' sockets and the CPU's own socket limit, at least one."""
    top = min(ctx.chassis.cpu_sockets, cpu.max_sockets or ctx.chassis.cpu_sockets)
    return max(1, min(ctx.build.cpu_count or top, top))


def _runs_mrdimms(cpu: Cpu) -> bool:
    return cpu.mrdimm_mts != 0  # 0: none (memory.wrong_type); None: not known (memory's info)


def _rdimm_for(ctx: Ctx, mrdimm: Dimm, cpu: Cpu) -> str | None:
    """A DDR5 RDIMM to fit instead of ``mrdimm`` on a CPU that runs none: the chassis' first
    validated RDIMM, else the catalog's RDIMM of the same capacity that ``cpu`` runs at full
    speed, the slowest such (as memory's own fix picks), then the nearest capacity."""
    listed = [
        s
        for s in ctx.chassis.dimm_skus
        if s in ctx.catalog.dimms and ctx.catalog.dimms[s].type == "DDR5 RDIMM"
    ]
    if listed:
        return listed[0]
    cap = cpu.memory_mts_1dpc

    def preference(d: Dimm) -> tuple[int, bool, int, str]:
        fast_enough = cap is not None and d.speed_mts >= cap
        speed = d.speed_mts if fast_enough else -d.speed_mts
        return (abs(d.capacity_gb - mrdimm.capacity_gb), not fast_enough, speed, d.sku)

    rdimms = [d for d in ctx.catalog.dimms.values() if d.type == "DDR5 RDIMM"]
    return min(rdimms, key=preference).sku if rdimms else None


def swap_cpu(ctx: Ctx, listed: Sequence[str]) -> tuple[str, tuple[SetCount, ...]]:
    """(fix text, edit) for swapping to a listed CPU: the first listed CPU that runs the fitted
    DIMM; when none runs it (an MRDIMM on a platform of 4th/5th Gen Xeons), the first listed CPU
    and DDR5 RDIMMs in the MRDIMMs' place, so that the swap never trades a CPU error for a
    memory.wrong_type one."""
    b = ctx.build
    dimm = ctx.catalog.dimms.get(b.dimm) if b.dimm else None
    mrdimm = dimm if dimm is not None and dimm.type == "DDR5 MRDIMM" else None
    runs = [s for s in listed if mrdimm is None or _runs_mrdimms(ctx.catalog.cpus[s])]
    sku = (runs or listed)[0]
    cpu = ctx.catalog.cpus[sku]
    edit: tuple[SetCount, ...] = (SetCount(what="cpu", sku=sku, count=fitting_count(ctx, cpu)),)
    if mrdimm is not None and not runs:
        rdimm = _rdimm_for(ctx, mrdimm, cpu)
        if rdimm is not None:
            edit += (SetCount(what="dimm", sku=rdimm, count=b.dimm_count or 1),)
            return f"use {sku} with {rdimm} in place of the MRDIMMs (it runs none)", edit
    return f"use {sku}", edit


def check(ctx: Ctx) -> None:
    b = ctx.build
    ch = ctx.chassis
    listed = ctx.idx.derived.get("listed_cpus")
    if listed is None:  # the chassis' CPUs that are in the catalog, once per chassis index
        listed = ctx.idx.derived["listed_cpus"] = tuple(
            s for s in ch.cpu_skus if s in ctx.catalog.cpus
        )
    default = b.cpu if b.cpu in ctx.catalog.cpus else (listed[0] if listed else None)
    if b.cpu is None or b.cpu_count == 0:
        ctx.add(
            finding(
                "platform.no_cpu",
                "error",
                f"no CPU is fitted: {ch.sku} needs at least one to boot and to drive its slots",
                parts=(ch.sku,),
                fix=f"fit {ch.cpu_sockets} x {default}" if default else "choose a CPU",
                edit=(SetCount(what="cpu", sku=default, count=ch.cpu_sockets),) if default else (),
            )
        )
        return
    cpu = ctx.cpu
    if cpu is None:
        ctx.add(
            finding(
                "platform.unknown_cpu",
                "error",
                f"CPU {b.cpu!r} is not in the parts catalog",
                parts=(b.cpu,),
                fix=f"use {listed[0]}" if listed else "choose a CPU from the catalog",
                edit=(
                    SetCount(
                        what="cpu",
                        sku=listed[0],
                        count=fitting_count(ctx, ctx.catalog.cpus[listed[0]]),
                    ),
                )
                if listed
                else (),
            )
        )
        return
    if b.cpu_count > ch.cpu_sockets:
        ctx.add(
            finding(
                "platform.cpu_count",
                "error",
                f"{plural(b.cpu_count, 'CPU')} fitted, but {ch.sku} has "
                f"{plural(ch.cpu_sockets, 'socket')}",
                parts=(cpu.sku,),
                fix=f"fit {ch.cpu_sockets} x {cpu.sku}",
                edit=(SetCount(what="cpu", sku=cpu.sku, count=ch.cpu_sockets),),
            )
        )
    if cpu.max_sockets is not None and b.cpu_count > cpu.max_sockets:
        # Keep the sockets the cards need: swap to a multi-socket CPU when a card sits on CPU 2.
        want = max((ctx.idx.socket_of_slot.get(s, 1) for s in b.slots), default=1)
        want = min(max(want, 1), ch.cpu_sockets)
        edit = (SetCount(what="cpu", sku=cpu.sku, count=cpu.max_sockets),)
        fix = f"fit {cpu.max_sockets} x {cpu.sku}, or a CPU made for multi-socket systems"
        if want > cpu.max_sockets:
            multi = [
                ctx.catalog.cpus[s]
                for s in listed
                if (ctx.catalog.cpus[s].max_sockets or want) >= want
                and ctx.catalog.cpus[s].socket == cpu.socket
            ]
            if multi:
                edit = (SetCount(what="cpu", sku=multi[0].sku, count=want),)
                fix = f"fit {want} x {multi[0].sku} (cards sit on CPU {want})"
        ctx.add(
            finding(
                "platform.cpu_max_sockets",
                "error",
                f"{cpu.sku} supports {plural(cpu.max_sockets, 'socket')} per system; the build "
                f"has {b.cpu_count}",
                parts=(cpu.sku,),
                fix=fix,
                edit=edit,
            )
        )
    if ch.cpu_skus and cpu.sku not in ch.cpu_skus:
        swap_fix, swap_edit = swap_cpu(ctx, listed) if listed else ("", ())
        sockets = {ctx.catalog.cpus[s].socket for s in listed}
        if sockets and cpu.socket not in sockets:
            ctx.add(
                finding(
                    "platform.cpu_socket",
                    "error",
                    f"{cpu.sku} is a {cpu.socket} CPU; {ch.sku} has "
                    f"{' / '.join(sorted(sockets))} sockets",
                    parts=(cpu.sku,),
                    fix=swap_fix,
                    edit=swap_edit,
                )
            )
        else:
            ctx.add(
                finding(
                    "platform.cpu_not_listed",
                    "warning",
                    f"{cpu.sku} is not on {ch.sku}'s supported-CPU list: BIOS support and cooling "
                    "are not validated for it",
                    parts=(cpu.sku,),
                    fix=swap_fix.replace("use", "use a listed CPU such as", 1) if listed else None,
                    edit=swap_edit,
                )
            )
