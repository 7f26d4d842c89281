"""System memory rules: DIMMs fitted, within the slots, balanced over every channel of every CPU,
the speed they run at, and how much host memory there is next to the GPUs.

Balance: Xeon memory controllers interleave across channels; bandwidth is only fully used when
every channel of every socket holds the same DIMMs (Intel/Supermicro population guides: fill
channels symmetrically, one DIMM per channel before two).  At two DIMMs per channel the CPU's
supported speed drops (``Cpu.memory_mts_2dpc``, e.g. 4400 MT/s on 4th Gen Xeon, reference S50).

MRDIMMs (MCR DIMMs) run only on Xeon 6 P-core memory controllers, at the CPU's own MRDIMM speed
(``Cpu.mrdimm_mts``: 8800 MT/s on the 6900P parts, 8000 on the 6776P, heise's Xeon 6 table,
https://heise.de/-10395118); a CPU recorded as taking none (4th/5th Gen Xeon) makes one an error.

Host vs GPU memory: NVIDIA's DGX H100 / H200 carry 2 TB of system memory (32 DIMMs) for 640 GB
(DGX H100, 3.2x) or 1,128 GB (DGX H200, 1.8x) of GPU memory (NVIDIA DGX H100/H200 user guide,
hardware overview: https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html).
Below 1x the host cannot hold one copy of what the GPUs hold (checkpoint load/save, pinned
staging buffers, ZeRO/FSDP CPU offload), which we flag as a warning; between 1x and 2x as
information, naming both DGX ratios so the reader can judge.
"""

from __future__ import annotations

from slotwise.engine.build.edits import SetCount
from slotwise.engine.check.report import Severity
from slotwise.engine.check.rules.common import finding
from slotwise.engine.check.rules.context import Ctx, engine_cache
from slotwise.engine.check.rules.family import RuleFamily
from slotwise.parts.schema import Cpu, Dimm

#: The rule ids this family emits (stable: the CLI's JSON, saved reports and the UI key on them)
#: and what each checks.
FAMILY = RuleFamily(
    "memory",
    rules={
        "memory.no_dimms": "no system memory",
        "memory.unknown_dimm": "DIMM SKU not in the catalog",
        "memory.dimm_not_listed": "DIMM not on the chassis' validated list",
        "memory.wrong_type": "DIMM type the platform does not take (DDR4, or MRDIMM without Xeon 6)",
        "memory.unknown_slots": "chassis DIMM slot count unknown",
        "memory.too_many_dimms": "more DIMMs than slots",
        "memory.unknown_channels": "CPU memory channel count unknown",
        "memory.unbalanced": "DIMMs do not fill every channel of every CPU equally",
        "memory.2dpc_speed": "two DIMMs per channel lower the memory speed",
        "memory.speed_capped": "DIMM faster than the CPU runs memory",
        "memory.host_vs_gpu": "system memory small next to total GPU memory",
    },
)

RATIO_WARN = 1.0  # below: warning
RATIO_GOOD = 2.0  # below: info (DGX H100 3.2x, DGX H200 1.8x)


def balanced_counts(channels: int, sockets: int, slots: int | None) -> list[int]:
    """DIMM counts that fill every channel of every socket equally (1, 2 DPC...), within slots."""
    step = channels * sockets
    top = slots if slots is not None else step * 2
    return [n for n in range(step, top + 1, step)]


def _speed_cap(cpu: Cpu, dimm: Dimm) -> int | None:
    """The speed ``cpu`` runs this kind of DIMM at one per channel: its MRDIMM speed for an
    MRDIMM (``Cpu.mrdimm_mts``), else its DDR5 1DPC speed; None when unknown."""
    if dimm.type == "DDR5 MRDIMM":
        return cpu.mrdimm_mts or None
    return cpu.memory_mts_1dpc


def _pick_dimm(ctx: Ctx) -> str | None:
    """The DIMM a fix offers: the chassis' first validated one; else a DDR5 RDIMM (what every
    platform in the catalog takes) that the CPU runs at full speed, the slowest such (no speed
    paid for and lost), then the smallest; with no CPU speed known, the fastest."""
    listed = [s for s in ctx.chassis.dimm_skus if s in ctx.catalog.dimms]
    if listed:
        return listed[0]
    rdimms = [d for d in ctx.catalog.dimms.values() if d.type == "DDR5 RDIMM"]
    if not rdimms:
        return min(ctx.catalog.dimms, default=None)
    cap = ctx.cpu.memory_mts_1dpc if ctx.cpu is not None else None

    def preference(d: Dimm) -> tuple[bool, int, int, str]:
        fast_enough = cap is not None and d.speed_mts >= cap
        return (not fast_enough, d.speed_mts if fast_enough else -d.speed_mts, d.capacity_gb, d.sku)

    return min(rdimms, key=preference).sku


def _listed_dimms(ctx: Ctx) -> list[Dimm]:
    """The chassis' validated DIMMs that are in the catalog, in the chassis' order (derived once
    per chassis index)."""
    listed = ctx.idx.derived.get("listed_dimms")
    if listed is None:
        dimms = ctx.catalog.dimms
        listed = [dimms[s] for s in ctx.chassis.dimm_skus if s in dimms]
        ctx.idx.derived["listed_dimms"] = listed
    return list(listed)


def _dimms_like(ctx: Ctx, kind: Dimm) -> list[Dimm]:
    """The catalog's DIMMs of ``kind``'s type and speed, in catalog order (indexed once per
    catalog)."""
    by_kind = engine_cache(ctx.catalog).get("dimms_by_kind")
    if by_kind is None:
        by_kind = {}
        for d in ctx.catalog.dimms.values():
            by_kind.setdefault((d.type, d.speed_mts), []).append(d)
        engine_cache(ctx.catalog)["dimms_by_kind"] = by_kind
    return list(by_kind.get((kind.type, kind.speed_mts), ()))


def _sized(
    ctx: Ctx, counts: list[int], want_gb: float, kind: Dimm | None
) -> tuple[str, int] | None:
    """The DIMM and count a fix offers for ``want_gb`` of system memory: among the DIMMs the
    fix may offer (the chassis' validated ones; else DDR5 RDIMMs the CPU runs at full speed, or
    of ``kind``'s type and speed when one is fitted), the smallest total that reaches
    ``want_gb`` with a balanced count (every channel alike), then the slower and smaller part;
    when none reaches it, the largest total. None without a candidate or a count."""
    if not counts:
        return None
    listed = _listed_dimms(ctx)
    if listed:
        pool = listed
    elif kind is not None:
        pool = _dimms_like(ctx, kind)
    else:
        cap = ctx.cpu.memory_mts_1dpc if ctx.cpu is not None else None
        rdimms = [d for d in ctx.catalog.dimms.values() if d.type == "DDR5 RDIMM"]
        fast = [d for d in rdimms if cap is not None and d.speed_mts >= cap]
        slowest = min((d.speed_mts for d in fast), default=None)
        pool = [d for d in fast if d.speed_mts == slowest] or rdimms
    options = [
        (d.capacity_gb * n, d.speed_mts, d.capacity_gb, d.sku, n) for d in pool for n in counts
    ]
    if not options:
        return None
    enough = [o for o in options if o[0] >= want_gb]
    best = min(enough) if enough else max(options, key=lambda o: (o[0], -o[1], o[3]))
    return best[3], best[4]


def check(ctx: Ctx) -> None:
    b = ctx.build
    ch = ctx.chassis
    cpu = ctx.cpu
    sockets = ctx.cpu_count or 1
    channels = cpu.memory_channels if cpu is not None else None
    slots = ch.dimm_slots

    def good_count() -> int | None:
        if channels is None:
            return None
        options = balanced_counts(channels, sockets, slots)
        return options[0] if options else None

    if b.dimm is None or b.dimm_count == 0:
        sku = b.dimm if b.dimm in ctx.catalog.dimms else _pick_dimm(ctx)
        count = good_count()
        # sized to the GPUs (the host_vs_gpu rule of thumb below), so the fix does not leave a
        # warning behind: the smallest balanced fill of at least RATIO_GOOD x GPU memory
        gpu_gb = sum(g.memory_gb for g in ctx.all_gpus())
        if gpu_gb > 0 and channels is not None and b.dimm not in ctx.catalog.dimms:
            sized = _sized(
                ctx, balanced_counts(channels, sockets, slots), gpu_gb * RATIO_GOOD, None
            )
            if sized is not None:
                sku, count = sized
        edit = (SetCount(what="dimm", sku=sku, count=count),) if sku and count else ()
        ctx.add(
            finding(
                "memory.no_dimms",
                "error",
                "no system memory is fitted: the server will not boot without DIMMs",
                parts=(ch.sku,),
                fix=f"fit {count} x {sku} (one per channel)" if edit else "fit DIMMs",
                edit=edit,
            )
        )
        return
    dimm = ctx.dimm
    if dimm is None:
        sku = _pick_dimm(ctx)
        count = b.dimm_count
        ctx.add(
            finding(
                "memory.unknown_dimm",
                "error",
                f"DIMM {b.dimm!r} is not in the parts catalog",
                parts=(b.dimm,),
                fix=f"use {sku}" if sku else "choose a DIMM from the catalog",
                edit=(SetCount(what="dimm", sku=sku, count=count),) if sku else (),
            )
        )
        return
    n = b.dimm_count
    if ch.dimm_skus and dimm.sku not in ch.dimm_skus:
        listed = [s for s in ch.dimm_skus if s in ctx.catalog.dimms]
        ctx.add(
            finding(
                "memory.dimm_not_listed",
                "warning",
                f"{dimm.sku} is not on {ch.sku}'s validated memory list",
                parts=(dimm.sku,),
                fix=f"use {listed[0]}" if listed else "use a validated DIMM",
                edit=(SetCount(what="dimm", sku=listed[0], count=n),) if listed else (),
            )
        )
    if dimm.type == "DDR4 RDIMM":
        ctx.add(
            finding(
                "memory.wrong_type",
                "error",
                f"{dimm.sku} is DDR4; {ch.sku}'s {ch.family} platform takes DDR5 only",
                parts=(dimm.sku,),
                fix="use DDR5 RDIMMs",
            )
        )
    if dimm.type == "DDR5 MRDIMM" and cpu is not None and cpu.mrdimm_mts == 0:
        ctx.add(
            finding(
                "memory.wrong_type",
                "error",
                f"{dimm.sku} is an MRDIMM (MCR DIMM); {cpu.sku} ({cpu.family}) takes none: "
                "MRDIMMs need a Xeon 6 P-core memory controller",
                parts=(dimm.sku, cpu.sku),
                fix="use DDR5 RDIMMs",
            )
        )
    elif dimm.type == "DDR5 MRDIMM" and cpu is not None and cpu.mrdimm_mts is None:
        ctx.add(
            finding(
                "memory.speed_capped",
                "info",
                f"could not check {dimm.sku}: whether {cpu.sku} runs MRDIMMs, and at what "
                "speed, is not in the catalog (not verified)",
                parts=(cpu.sku, dimm.sku),
                fix="add mrdimm_mts (with its source) to the CPU record",
            )
        )
    if slots is None:
        ctx.add(
            finding(
                "memory.unknown_slots",
                "info",
                f"could not check the DIMM count: {ch.sku}'s DIMM slot count is unknown",
                parts=(ch.sku,),
                fix="add dimm_slots (with its source) to the chassis record",
            )
        )
    elif n > slots:
        fit = [c for c in balanced_counts(channels, sockets, slots)] if channels else []
        count = fit[-1] if fit else slots
        ctx.add(
            finding(
                "memory.too_many_dimms",
                "error",
                f"{n} DIMMs fitted, but {ch.sku} has {slots} DIMM slots",
                parts=(dimm.sku,),
                fix=f"fit {count} x {dimm.sku}",
                edit=(SetCount(what="dimm", sku=dimm.sku, count=count),),
            )
        )
    if channels is None:
        if cpu is not None:
            ctx.add(
                finding(
                    "memory.unknown_channels",
                    "info",
                    f"could not check DIMM balance: {cpu.sku}'s memory channel count is unknown",
                    parts=(cpu.sku,),
                    fix="add memory_channels (with its source) to the CPU record",
                )
            )
    elif slots is None or n <= slots:
        per_socket, rem = divmod(n, sockets)
        if rem or per_socket % channels:
            options = balanced_counts(channels, sockets, slots)
            up = [c for c in options if c >= n]
            count = up[0] if up else (options[-1] if options else None)
            ctx.add(
                finding(
                    "memory.unbalanced",
                    "warning",
                    f"{n} DIMMs over {sockets} CPU(s) with {channels} channels each do not fill "
                    "every channel equally: memory bandwidth drops to the slowest channel "
                    "pattern and some channels sit empty",
                    parts=(dimm.sku,),
                    fix=f"fit {count} x {dimm.sku} ({count // sockets} per CPU)"
                    if count
                    else "fit one DIMM per channel on every CPU",
                    edit=(SetCount(what="dimm", sku=dimm.sku, count=count),) if count else (),
                )
            )
        elif cpu is not None and per_socket > channels:
            mts = cpu.memory_mts_2dpc
            if mts is None:
                ctx.add(
                    finding(
                        "memory.2dpc_speed",
                        "info",
                        f"{per_socket // channels} DIMMs per channel: memory runs slower than at "
                        f"one per channel, but {cpu.sku}'s 2DPC speed is not in the catalog",
                        parts=(cpu.sku, dimm.sku),
                        fix="one DIMM per channel with larger DIMMs keeps full speed",
                    )
                )
            else:
                ctx.add(
                    finding(
                        "memory.2dpc_speed",
                        "info",
                        f"{per_socket // channels} DIMMs per channel: memory runs at {mts} MT/s "
                        f"({cpu.sku} at 2DPC) instead of "
                        f"{min(dimm.speed_mts, cpu.memory_mts_1dpc or dimm.speed_mts)} MT/s",
                        parts=(cpu.sku, dimm.sku),
                        fix="one DIMM per channel with larger DIMMs keeps full speed",
                    )
                )
        elif cpu is not None and (cap := _speed_cap(cpu, dimm)) and dimm.speed_mts > cap:
            ctx.add(
                finding(
                    "memory.speed_capped",
                    "info",
                    f"{dimm.sku} is rated {dimm.speed_mts} MT/s; {cpu.sku} runs "
                    f"{'MRDIMMs' if dimm.type == 'DDR5 MRDIMM' else 'memory'} at {cap} MT/s "
                    "(1 DIMM per channel)",
                    parts=(cpu.sku, dimm.sku),
                    fix="fine; a slower (cheaper) DIMM gives the same speed",
                )
            )

    gpu_gb = sum([g.memory_gb for g in ctx.all_gpus()])
    host_gb = dimm.capacity_gb * n
    if gpu_gb > 0:
        ratio = host_gb / gpu_gb
        if ratio < RATIO_GOOD:
            sev: Severity = "warning" if ratio < RATIO_WARN else "info"
            want = gpu_gb * RATIO_GOOD
            per = dimm.capacity_gb
            count_needed = -(-int(want) // per)
            options = balanced_counts(channels, sockets, slots) if channels else []
            fits = [c for c in options if c >= count_needed]
            edit = (SetCount(what="dimm", sku=dimm.sku, count=fits[0]),) if fits else ()
            larger = None if fits else _sized(ctx, options, want, dimm)
            fix = f"use larger DIMMs to reach about {want:,.0f} GB"
            if fits:
                fix = f"fit {fits[0]} x {dimm.sku} ({fits[0] * per:,} GB)"
            elif larger is not None and larger[0] != dimm.sku:
                big_sku, big_n = larger
                big_gb = ctx.catalog.dimms[big_sku].capacity_gb * big_n
                if big_gb > host_gb:
                    edit = (SetCount(what="dimm", sku=big_sku, count=big_n),)
                    fix = f"fit {big_n} x {big_sku} ({big_gb:,} GB)"
            ctx.add(
                finding(
                    "memory.host_vs_gpu",
                    sev,
                    f"{host_gb:,.0f} GB of system memory for {gpu_gb:,.0f} GB of GPU memory "
                    f"({ratio:.2f}x): NVIDIA's DGX H100 / H200 carry 2 TB of system memory for "
                    "640 GB / 1,128 GB of GPU memory (3.2x / 1.8x); the host needs room for "
                    "checkpoints, data loading and CPU offload",
                    parts=(dimm.sku,),
                    fix=fix,
                    edit=edit,
                )
            )
