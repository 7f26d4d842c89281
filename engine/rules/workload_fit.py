"""Workload fit: does the customer's job fit the GPUs of the build, and in the time they want?

Uses the estimator (engine.estimate: memory per GPU with its breakdown, minimum GPUs, time to
train; its formulas and their sources are documented there).  The model is resolved offline
(bundled presets, cached config.json): evaluate() never touches the network.  The estimate is
memoized per (workload, GPU, count) on the catalog's engine cache, so re-evaluating a build after
an edit that does not change GPUs or workload costs a dict lookup.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from engine.report import Budget
from engine.rules.common import finding
from engine.rules.context import Ctx, engine_cache
from parts.schema import Gpu

_MEMO_MAX = 512
GiB = 1024**3


def _workload_key(wl) -> Any:
    try:
        return hash(wl), wl
    except TypeError:  # arch dicts are not hashable
        return wl.model_dump_json()


def _run_estimate(ctx: Ctx, gpu: Gpu, count: int) -> tuple[Any, str | None]:
    """(Estimate or None, problem message or None), memoized."""
    cache = engine_cache(ctx.catalog)
    memo = cache.setdefault("estimate_memo", {})
    key = (_workload_key(ctx.workload), gpu.sku, count)
    hit = memo.get(key)
    if hit is not None:
        return hit
    result = _compute(ctx, gpu, count)
    if len(memo) >= _MEMO_MAX:
        memo.clear()
    memo[key] = result
    return result


def _compute(ctx: Ctx, gpu: Gpu, count: int) -> tuple[Any, str | None]:
    try:
        from engine.estimate import estimate
        from engine.estimate.resolve import ModelResolveError, resolve_arch
    except ImportError as exc:  # estimator package incomplete in this checkout
        return None, f"the workload estimator is not available ({exc})"
    try:
        arch = resolve_arch(ctx.workload, ctx.catalog, offline=True)
    except ModelResolveError as exc:
        return None, str(exc)
    try:
        return estimate(ctx.workload, gpu, count, arch=arch), None
    except (ValueError, ArithmeticError) as exc:
        return None, f"could not estimate the workload on {count} x {gpu.sku}: {exc}"


def _main_gpu(ctx: Ctx) -> tuple[Gpu | None, int]:
    if ctx.baseboard is not None and ctx.baseboard_gpu is not None:
        return ctx.baseboard_gpu, ctx.baseboard.gpu_count
    usable = [g for g in ctx.gpus.values() if g.form == "pcie"]
    if not usable:
        return None, 0
    counts = Counter(g.sku for g in usable)
    sku, _ = counts.most_common(1)[0]
    # Mixed models: a data/tensor-parallel job is sized by the smallest card's memory.
    smallest = min(usable, key=lambda g: (g.memory_gb, g.sku))
    gpu = smallest if len(counts) > 1 else ctx.catalog.gpus[sku]
    return gpu, len(usable)


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
    est, problem = _run_estimate(ctx, gpu, n)
    if est is None:
        ctx.add(
            finding(
                "workload_fit.unresolved",
                "warning",
                f"could not check the workload: {problem}",
                fix="pick a model preset (--model) or a config.json that is cached locally",
            )
        )
        return
    ctx.estimate = est
    ctx.estimate_gpu = gpu
    mem = est.memory_per_gpu
    have = float(getattr(est, "gpu_memory_bytes", 0) or gpu.memory_gb * 1e9)
    parts = tuple(
        (name, float(getattr(mem, f"{name}_bytes", 0.0) or 0.0))
        for name in ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
    )
    need = float(mem.total_bytes)
    ctx.budgets.append(
        Budget(
            name="gpu_memory",
            used=need,
            available=have,
            unit="B",
            group="workload",
            detail=f"per GPU, {n} x {gpu.sku}: need {need / GiB:,.1f} GiB of {have / GiB:,.1f} GiB",
            parts=parts,
        )
    )
    if not est.fits:
        min_gpus = getattr(est, "min_gpus", None)
        ideas = []
        if min_gpus and min_gpus > n:
            ideas.append(f"{min_gpus} x {gpu.sku} (the build has {n})")
        if wl.method in ("full", "lora"):
            ideas.append("QLoRA (4-bit base weights)")
        if wl.training and wl.offload == "none":
            ideas.append("ZeRO-3 with optimizer offload to CPU memory")
        if wl.method == "inference":
            ideas.append("a shorter context or fewer concurrent requests (smaller KV cache)")
        ctx.add(
            finding(
                "workload_fit.gpu_memory",
                "error",
                f"the workload needs {need / GiB:,.1f} GiB per GPU; {gpu.sku} has "
                f"{have / GiB:,.1f} GiB",
                parts=(gpu.sku,),
                fix="use " + ", or ".join(ideas) if ideas else "use GPUs with more memory",
            )
        )
    hours = getattr(est, "train_hours", None)
    if hours is not None:
        target = wl.target_days * 24 if wl.target_days else None
        ctx.budgets.append(
            Budget(
                name="train_time",
                used=float(hours),
                available=target,
                unit="h",
                group="workload",
                detail=f"{hours / 24:,.1f} days on {n} x {gpu.sku}"
                + (f" (target {wl.target_days:g} days)" if target else ""),
            )
        )
        if target is not None and hours > target:
            nodes = -(-hours // target)
            ctx.add(
                finding(
                    "workload_fit.train_time",
                    "warning",
                    f"training takes about {hours / 24:,.1f} days on {n} x {gpu.sku}; the target "
                    f"is {wl.target_days:g} days",
                    parts=(gpu.sku,),
                    fix=f"about {int(nodes)} such servers (multi-node), faster GPUs, or fewer "
                    "tokens",
                )
            )
