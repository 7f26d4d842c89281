"""Workload fit: does the customer's job fit the GPUs of the build, and in the time they want?

Uses the estimator (engine.estimate: memory per GPU with its breakdown, minimum GPUs, time to
train; its formulas and their sources are documented there).  The model is resolved offline
(bundled presets, cached config.json): evaluate() never touches the network.  The estimate is
memoized per (workload, GPU, count) on the catalog's engine cache, so re-evaluating a build after
an edit that does not change GPUs or workload costs a dict lookup.
"""

from __future__ import annotations

import math
from typing import Any

from slotwise.engine.build.edits import Place
from slotwise.engine.check.rules.common import budget, finding
from slotwise.engine.check.rules.context import (
    Ctx,
    engine_cache,
    fields_key,
    is_wide,
    memory_memo,
    workload_key,
)
from slotwise.engine.check.rules.family import RuleFamily
from slotwise.engine.check.rules.slots import find_destination
from slotwise.engine.check.scale_out import build_sizing, fabric_of
from slotwise.engine.check.sizing import Sizing
from slotwise.engine.check.verdict import context_overrun, target_check
from slotwise.engine.estimate import Advice, Estimate, estimate, suggest_changes
from slotwise.engine.estimate.layout import tp_problem
from slotwise.engine.estimate.links import Links, build_links
from slotwise.engine.inputs import ref
from slotwise.engine.model.resolve import ModelResolveError, resolve_arch
from slotwise.parts.safe_io import shorten_text
from slotwise.parts.schema import Gpu

#: The rule ids this family emits (stable: the CLI's JSON, saved reports and the UI key on them)
#: and what each checks.
FAMILY = RuleFamily(
    "workload_fit",
    rules={
        "workload_fit.no_gpu": "workload set but no GPU in the build",
        "workload_fit.unresolved": "workload model could not be resolved offline",
        "workload_fit.gpu_memory": "workload does not fit the GPUs' memory",
        "workload_fit.train_time": "training takes longer than the target",
        "workload_fit.serving_users": "the KV cache of the concurrent users does not fit",
        "workload_fit.serving_rate": "each user gets fewer tokens/s than asked",
        "workload_fit.context_length": "the sequence is longer than the model's positions",
        "workload_fit.servers": "the workload needs more servers than this one (or cannot be "
        "sized: no scale-out NIC, out of reach)",
        "workload_fit.tensor_parallel": "the tensor-parallel size does not fit the GPUs or heads",
    },
)

_MEMO_MAX = 512
GiB = 1024**3


# (estimate, problem, alternatives, failed, max positions): ``failed`` is True when the
# estimator itself broke (a bug or an input it cannot handle) rather than the model being
# unavailable offline; the last item is the model's ``max_position_embeddings`` (None: unstated).
Outcome = tuple[Estimate | None, str | None, tuple[Advice, ...], bool, int | None]


def build_links_of(ctx: Ctx, gpu: Gpu, count: int, nic_gbps_total: float | None = None) -> Links:
    """The links the build gives its GPUs: the HGX baseboard's NVSwitch, or the NVLink bridges
    fitted on PCIe cards and whether the GPU slots sit behind PCIe switches; the NICs fitted in
    the build shared by its GPUs (engine.estimate.links)."""
    groups: list[tuple[int, float | None]] = []
    gpus = ctx.gpus
    gpu_slots = ctx.gpu_slots_by_sku().get(gpu.sku, ())
    if ctx.build.bridges:
        bridges = ctx.catalog.bridges
        for bf in ctx.build.bridges:
            br = bridges.get(bf.sku)
            if br is None or not gpus.keys() >= {*bf.slots}:
                continue
            groups.append((len(bf.slots), br.bw_gbs))
    # every slot in ctx.gpus is one of the chassis' slots (make_context)
    behind_switch = bool(gpu_slots) and ctx.idx.switch_slots.issuperset(gpu_slots)
    nic_gbps = (
        float(sum([n.ports * n.port_gbps for n in ctx.nics.values()]))
        if nic_gbps_total is None
        else nic_gbps_total
    )
    return build_links(
        gpu,
        count,
        baseboard=ctx.baseboard is not None,
        bridge_groups=groups,
        behind_switch=behind_switch,
        nic_gbps_total=nic_gbps,
    )


def _run_estimate(ctx: Ctx, gpu: Gpu, count: int, links: Links, wkey: Any) -> Outcome:
    """(Estimate or None, problem or None, re-estimated alternatives when it does not fit);
    memoized per (workload, GPU, count, links)."""
    cache = engine_cache(ctx.catalog)
    memo = cache.setdefault("estimate_memo", {})
    key = (wkey, gpu.sku, count, fields_key(links))
    hit = memo.get(key)
    if hit is not None:
        return hit
    result = _compute(ctx, gpu, count, links)
    est, _, _, failed, _ = result
    if est is None and not failed:
        # The model could not be resolved (a config file or Hub cache entry missing): that
        # depends on the disk, not on the key, and a fetch may fill the cache next (the app's
        # Enter in the config field), so it is not remembered.
        return result
    if len(memo) >= _MEMO_MAX:
        memo.clear()
    memo[key] = result
    return result


def _compute(ctx: Ctx, gpu: Gpu, count: int, links: Links) -> Outcome:
    if ctx.workload is None:
        return None, "no workload is set", (), False, None
    try:
        arch = resolve_arch(ctx.workload, ctx.catalog, offline=True)
    except ModelResolveError as exc:
        return None, str(exc), (), False, None
    positions = arch.max_position_embeddings
    try:
        est = estimate(
            ctx.workload, gpu, count, arch=arch, gpus_per_server=max(count, 1), links=links,
            memo=memory_memo(ctx.catalog),
        )  # fmt: skip
        alts = () if est.fits else tuple(suggest_changes(ctx.workload, gpu, count, arch=arch))
        _check_finite(est)
    except Exception as exc:  # noqa: BLE001 - reported as an error finding, never as "OK"
        why = shorten_text(f"{type(exc).__name__}: {exc}", 300)
        problem = f"the workload estimate on {count} x {gpu.sku} failed ({why})"
        return None, problem, (), True, positions
    return est, None, alts, False, positions


def _check_finite(est: Estimate) -> None:
    """An estimate with an infinite or NaN figure is a failed estimate, not a verdict."""
    mem = est.memory_per_gpu
    figures = {"memory per GPU": mem.total_bytes, "GPU memory": est.gpu_memory_bytes}
    hours = est.train_hours
    if hours is not None:
        figures["training time"] = hours
    for name, value in figures.items():
        if not math.isfinite(float(value)):
            raise ArithmeticError(f"{name} came out as {value}")


def _main_gpu(ctx: Ctx) -> tuple[Gpu | None, int]:
    if ctx.baseboard is not None and ctx.baseboard_gpu is not None:
        return ctx.baseboard_gpu, ctx.baseboard.gpu_count
    # Mixed models (slots.mixed_gpus warns): the job runs on the largest group of identical
    # GPUs, the larger-memory model on a tie.
    counts: dict[str, int] = {}
    models: dict[str, Gpu] = {}
    gpus = ctx.gpus
    for sku, slots in ctx.gpu_slots_by_sku().items():
        g = gpus[slots[-1]]
        if g.form == "pcie":
            counts[sku] = len(slots)
            models[sku] = g
    if not counts:
        return None, 0
    if len(counts) == 1:
        sku, n = next(iter(counts.items()))
        return models[sku], n
    sku = max(counts, key=lambda s: (counts[s], models[s].memory_gb, s))
    return models[sku], counts[sku]


def _add_gpus(ctx: Ctx, gpu: Gpu, k: int) -> tuple:
    """Place edits for ``k`` more ``gpu`` in free slots that take them, or () if they do not fit.

    Only for PCIe builds: an HGX baseboard's GPU count is fixed."""
    if ctx.baseboard is not None or gpu.form != "pcie":
        return ()
    if ctx.chassis.max_gpus is not None and ctx.gpu_count() + k > ctx.chassis.max_gpus:
        return ()
    chosen: list[str] = []
    avoid: set[str] = set()
    for _ in range(k):
        dst = find_destination(ctx, gpu, "", avoid=frozenset(avoid))
        if dst is None:
            return ()
        chosen.append(dst)
        avoid.add(dst)
        covers = ctx.idx.slot[dst].covers
        if covers and is_wide(gpu):
            avoid.add(covers)
    return tuple(Place(slot=s, sku=gpu.sku) for s in chosen)


_TIME_PARTS = (
    ("compute", "compute_s"),
    ("memory", "memory_s"),
    ("tp_comm", "tp_comm_s"),
    ("dp_comm", "dp_comm_exposed_s"),
    ("overhead", "overhead_s"),
    ("dequant", "qlora_dequant_s"),
    ("optimizer", "optimizer_s"),
)


def _time_parts(est: Estimate, hours: float) -> tuple[tuple[str, float], ...]:
    """The training hours split like the step time (compute, communication, overheads)."""
    bd = est.time_breakdown
    if not bd:
        return ()
    shares = [bd.get(key, 0.0) for _, key in _TIME_PARTS]
    raw = sum(shares)
    if raw <= 0:
        return ()
    floor = 0.01 * hours
    out = []
    for (name, _), v in zip(_TIME_PARTS, shares, strict=True):
        h = hours * v / raw
        if h >= floor:
            out.append((name, h))
    return tuple(out)


def check(ctx: Ctx) -> None:
    wl = ctx.workload
    if wl is None:
        return
    gpu, n = _main_gpu(ctx)
    if gpu is None:
        ctx.add(
            finding(
                "workload_fit.no_gpu",
                "warning",
                "a workload is set but the build has no GPU to run it on",
                fix="place GPUs in the slots (or fit the HGX baseboard)",
            )
        )
        return
    _tensor_parallel(ctx, n)
    # The build's links and the workload's key, once for the estimate and the sizing.
    links = ctx.links = build_links_of(ctx, gpu, n)
    wkey = workload_key(ctx.catalog, wl)
    est, problem, alts, failed, positions = _run_estimate(ctx, gpu, n, links, wkey)
    _context_length(ctx, positions)
    if est is None and failed:
        ctx.add(
            finding(
                "engine.internal",
                "error",
                f"{problem}; the workload was not checked",
                fix="report the BOM file with this message; meanwhile check the workload's "
                "figures (sequence length, tokens, batch) are realistic",
            )
        )
        return
    if est is None:
        ctx.add(
            finding(
                "workload_fit.unresolved",
                "warning",
                f"could not check the workload: {problem}",
                fix="pick a model preset or a config.json that is cached locally",
            )
        )
        return
    ctx.estimate = est
    ctx.estimate_gpu = gpu
    ctx.sizing = _sizing(ctx, wl, gpu, n, links, wkey)
    mem = est.memory_per_gpu
    capacity = float(est.gpu_memory_bytes)
    # capacity less the allocator-fragmentation margin and the CUDA context
    have = float(est.usable_bytes)
    parts = tuple([(name, float(value or 0.0)) for name, value in mem.parts()])
    need = float(mem.total_bytes)
    ctx.budgets.append(
        budget(
            name="gpu_memory",
            used=need,
            available=have,
            unit="B",
            group="workload",
            detail=f"per GPU, {n} x {gpu.sku}: need {need / GiB:,.1f} GiB of "
            f"{have / GiB:,.1f} GiB usable ({capacity / GiB:,.0f} GiB on the card)",
            parts=parts,
        )
    )
    if not est.fits:
        min_gpus = est.min_gpus
        ideas = []
        edit: tuple = ()
        if min_gpus and min_gpus > n:
            edit = _add_gpus(ctx, gpu, min_gpus - n)
            where = (
                f" (add {min_gpus - n} in slots {', '.join(e.slot for e in edit)})" if edit else ""
            )
            ideas.append(f"{min_gpus} x {gpu.sku} instead of {n}{where}")
        elif min_gpus is None:
            ideas.append(f"far more GPUs: no count of {gpu.sku} the estimator tries fits")
        ideas += [f"{a.change} ({a.gib_per_gpu:,.1f} GiB per GPU)" for a in alts if a.fits]
        ctx.add(
            finding(
                "workload_fit.gpu_memory",
                "error",
                f"the workload needs {need / GiB:,.1f} GiB per GPU on {n} x {gpu.sku}, which "
                f"has {have / GiB:,.1f} GiB usable per GPU",
                parts=(gpu.sku,),
                fix="use " + ", or ".join(ideas) if ideas else "use GPUs with more memory",
                edit=edit,
            )
        )
    hours = est.train_hours
    if hours is not None:
        check = ctx.memo["target_check"] = target_check(wl, hours)  # the verdict reads it too
        target = check.target_hours if check is not None else None
        rate = est.train_tokens_per_s
        mfu = est.mfu_effective
        speed = (
            f"; {rate:,.0f} tokens/s, MFU {mfu:.0%}" if rate is not None and mfu is not None else ""
        )
        link = est.assumptions.interconnect
        ctx.budgets.append(
            budget(
                name="train_time",
                used=float(hours),
                available=target,
                unit="h",
                group="workload",
                detail=f"{hours / 24:,.1f} days on {n} x {gpu.sku}"
                + (f" (target {wl.target_days:g} days)" if target else "")
                + speed
                + (f"; links: {link}" if link else ""),
                parts=_time_parts(est, float(hours)),
            )
        )
        if check is not None and check.met is False:
            more = _servers_words(ctx.sizing, gpu, n)
            ctx.add(
                finding(
                    "workload_fit.train_time",
                    "warning",
                    f"training takes about {hours / 24:,.1f} days on {n} x {gpu.sku}; the target "
                    f"is {check.target_days:g} days",
                    parts=(gpu.sku,),
                    fix=f"{more}, faster GPUs, or fewer tokens",
                )
            )
    _serving(ctx, est, gpu, n)
    _sizing_finding(ctx, gpu, n)


def _sizing(ctx: Ctx, wl, gpu: Gpu, n: int, links: Links, wkey: Any) -> Sizing | None:
    """The one sizing answer for this build (engine.check.sizing via engine.check.scale_out)."""
    try:
        arch = resolve_arch(wl, ctx.catalog, offline=True)
    except ModelResolveError:
        return None
    fabric = fabric_of(ctx, gpu, n, lambda total: build_links_of(ctx, gpu, n, total))
    return build_sizing(ctx, wl, gpu, n, arch, links, fabric, wkey)


def _servers_words(sizing: Sizing | None, gpu: Gpu, n: int) -> str:
    """'N servers like this one (with the margin)', or the sizing's problem and fix."""
    if sizing is None:
        return "more servers like this one"
    if sizing.servers is None and sizing.would_take and sizing.fix:
        return (
            f"{sizing.would_take} servers like this one once each can join the cluster: "
            f"{sizing.fix}"
        )
    if sizing.servers is None:
        return sizing.fix or sizing.problem or "more servers"
    return (
        f"{sizing.servers} servers like this one ({sizing.servers * n} x {gpu.sku}; "
        f"{sizing.margin.describe()})"
    )


def _sizing_finding(ctx: Ctx, gpu: Gpu, n: int) -> None:
    """What the one sizing answer says beyond this server: a warning when the workload needs
    more servers than one and this one cannot be a node of that cluster (no scale-out NIC), or
    when no count of these servers reaches the target."""
    sz = ctx.sizing
    if sz is None or sz.servers is not None or sz.problem is None:
        return
    ctx.add(
        finding(
            "workload_fit.servers",
            "warning",
            f"sizing on {n} x {gpu.sku} per server: {sz.problem}",
            parts=(gpu.sku,),
            fix=sz.fix or "faster GPUs, a smaller model or a relaxed target",
        )
    )


def _tensor_parallel(ctx: Ctx, gpus: int) -> None:
    """The workload's tensor-parallel size against the build's GPUs and the model's heads
    (engine.estimate.layout.tp_problem: vLLM, TensorRT-LLM and Megatron-LM refuse a size that
    does not split the heads evenly; ``tp`` GPUs must exist and divide the GPU count)."""
    wl = ctx.workload
    tp = wl.tp if wl is not None else None
    if wl is None or tp is None or tp <= 1:  # unset: the estimator chooses a valid one
        return
    why = None
    if tp > gpus:
        why = f"tensor parallel {tp} needs {tp} GPUs; the build has {gpus}"
    elif gpus % tp:
        why = f"tensor parallel {tp} does not divide the build's {gpus} GPUs"
    else:
        try:
            arch = resolve_arch(wl, ctx.catalog, offline=True)
        except ModelResolveError:
            return  # said by workload_fit.unresolved
        why = tp_problem(arch, tp)
    if why is not None:
        ctx.add(
            finding(
                "workload_fit.tensor_parallel",
                "error",
                why + "; engines refuse this layout",
                fix=f"set {ref('tp')} to a size that divides the GPUs and the heads (or leave "
                "it unset: the estimator then chooses one)",
            )
        )


def _context_length(ctx: Ctx, positions: int | None) -> None:
    """The sequence length against the model's positions (engine.check.verdict)."""
    wl = ctx.workload
    if wl is None:
        return
    problem = context_overrun(wl, positions, wl.model or wl.config or "the model")
    if problem is None:
        return
    what, _, fix = problem.partition(": ")
    ctx.add(finding("workload_fit.context_length", "warning", what, fix=fix))


def _serving(ctx: Ctx, est: Estimate, gpu: Gpu, n: int) -> None:
    """Serving budgets (engine.estimate.serving): concurrent users against the most whose KV
    cache fits, and the tokens/s each user gets against the tokens/s asked for."""
    sv = est.serving
    wl = ctx.workload
    if sv is None or wl is None or wl.training:
        return
    speed = (
        f"first token {sv.ttft_s * 1e3:,.0f} ms, {sv.tokens_per_s_per_user:,.1f} tokens/s per "
        f"user, {sv.tokens_per_s_per_server:,.0f} tokens/s per server"
    )
    ctx.budgets.append(
        budget(
            name="serving_users",
            used=float(sv.users),
            available=float(sv.max_users),
            unit="users",
            group="workload",
            detail=f"{speed}; KV cache {sv.kv_cache_bytes_for_users / GiB:,.1f} GiB for "
            f"{sv.users} x {wl.seq_len} tokens on {n} x {gpu.sku}",
        )
    )
    if wl.users and not sv.fits_users:
        ctx.add(
            finding(
                "workload_fit.serving_users",
                "error",
                f"the KV cache of {sv.users} users x {wl.seq_len} tokens does not fit "
                f"{n} x {gpu.sku}: at most {sv.max_users} users",
                parts=(gpu.sku,),
                fix=(
                    _servers_words(ctx.sizing, gpu, n) + ", "
                    if ctx.sizing is not None and ctx.sizing.servers
                    else "more GPUs or servers, "
                )
                + "FP8 weights, a shorter context, or fewer users",
            )
        )
    target = sv.tokens_per_user_s_target
    if not target:
        return
    ctx.budgets.append(
        budget(
            name="serving_rate",
            used=float(target),
            available=float(sv.tokens_per_s_per_user),
            unit="tokens/s",
            group="workload",
            detail=f"asked per user vs what each of {sv.users} users gets; "
            + (
                f"{ctx.sizing.servers} server(s) like this serve {sv.users} users at "
                f"{target:g} tokens/s with the planning margin"
                if ctx.sizing is not None and ctx.sizing.servers
                else f"no count of these servers gives {sv.users} users {target:g} tokens/s"
            ),
        )
    )
    if sv.tokens_per_s_per_user < target:
        ctx.add(
            finding(
                "workload_fit.serving_rate",
                "warning",
                f"{sv.users} users get about {sv.tokens_per_s_per_user:,.1f} tokens/s each on "
                f"{n} x {gpu.sku}; {target:g} tokens/s was asked",
                parts=(gpu.sku,),
                fix=(
                    _servers_words(ctx.sizing, gpu, n)
                    if ctx.sizing is not None and ctx.sizing.servers
                    else "faster GPUs, FP8 weights or more tensor parallelism (no count of "
                    "these servers reaches the rate)"
                ),
            )
        )
