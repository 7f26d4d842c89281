"""Training time and throughput for an estimate: the step model
(:mod:`engine.estimate.throughput`) at the chosen layout, or the 6ND rule with ``--mfu``, and the
fewest GPUs that finish in ``--target-days``.
"""

from __future__ import annotations

import functools
import math

from pydantic import BaseModel, ConfigDict

from slotwise.engine.estimate.compute import Flops, six_nd_seconds
from slotwise.engine.estimate.constants import DEFAULT_MFU, MAX_GPUS
from slotwise.engine.estimate.fit import layout
from slotwise.engine.estimate.links import Links
from slotwise.engine.estimate.throughput import (
    CUDNN_ATTENTION_SPEEDUP,
    DP_OVERLAP,
    STEP_FIXED_S,
    StepTime,
    attention_efficiency,
    fused_launch,
    host_layer_s,
    long_step_mfu,
    step_time,
    tp_overlap,
)
from slotwise.engine.inputs import ref
from slotwise.engine.model.params import ParamCounts
from slotwise.engine.workload import Workload
from slotwise.parts.schema import Gpu, ModelPreset


class TrainTiming(BaseModel):
    model_config = ConfigDict(frozen=True)

    hours: float | None = None
    gpus_for_target: int | None = None
    tokens_per_s: float | None = None
    tokens_per_s_per_gpu: float | None = None
    step_s: float | None = None
    mfu: float = DEFAULT_MFU
    mfu_effective: float | None = None
    basis: str = "default"
    breakdown: dict[str, float] | None = None
    six_nd: dict[str, float | int] | None = None


def _step(
    workload: Workload,
    gpu: Gpu,
    arch: ModelPreset,
    counts: ParamCounts,
    flops: Flops,
    n: int,
    gpus_per_server: int,
    links: Links,
) -> StepTime | None:
    tp, dp, parallel, _ = layout(
        workload, n, arch=arch, fast_group=links.island, gpus_per_server=gpus_per_server
    )
    return step_time(
        arch=arch, workload=workload, counts=counts, gpu=gpu, tp=tp, dp=dp, parallel=parallel,
        gpus_per_server=gpus_per_server, links=links, linear_flops=flops.linear,
        attention_flops=flops.attention, recompute_linear_flops=flops.recompute_linear,
    )  # fmt: skip


def train_timing(
    workload: Workload,
    gpu: Gpu,
    arch: ModelPreset,
    counts: ParamCounts,
    flops: Flops,
    peak: float,
    peak_field: str,
    used: int,
    tp: int,
    dp: int,
    parallel: str,
    gpus_per_server: int,
    links: Links,
    notes: list[str],
) -> TrainTiming:
    """Training throughput and time (engine.estimate.throughput), or the 6ND rule with --mfu."""
    long_mfu = long_step_mfu(
        gpu, workload.precision, arch, flops.linear, flops.attention, peak, workload
    )
    quoted = f"{peak / 1e12:,.1f} TFLOP/s ({peak_field})"
    if workload.mfu:
        mfu = workload.mfu
        per_gpu = peak * mfu / flops.model
        out: dict = dict(
            mfu=mfu, basis="override", mfu_effective=mfu, tokens_per_s_per_gpu=per_gpu,
            tokens_per_s=per_gpu * used,
        )  # fmt: skip
        notes.append(f"time from {ref('mfu')} {mfu:g}: model FLOPs / (GPUs x {quoted} x MFU)")
    else:
        st = _step(workload, gpu, arch, counts, flops, used, gpus_per_server, links)
        if st is None or long_mfu is None:
            notes.append(f"{gpu.sku}: memory bandwidth unknown, so training time not estimated")
            return TrainTiming()
        per_gpu = st.tokens_per_s_per_gpu
        eff = per_gpu * flops.model / peak
        out = dict(
            mfu=round(long_mfu, 4), basis="default", mfu_effective=eff,
            tokens_per_s_per_gpu=per_gpu, tokens_per_s=per_gpu * used, step_s=st.total_s,
            breakdown={k: round(v, 6) for k, v in st.breakdown().items()},
        )  # fmt: skip
        notes.append(
            f"MFU (model FLOPs, PaLM definition) for {gpu.sku} {workload.precision} "
            f"{workload.method}: {long_mfu:.0%} on long steps with no communication, "
            f"{eff:.0%} end to end here; the step model and the published runs it is fitted to "
            "are in engine/estimate/throughput.py"
        )
        notes.append(
            f"step {st.total_s:.3g} s = compute {st.compute_s:.3g} + memory-bound "
            f"{st.memory_s:.3g} + tensor-parallel comm {st.tp_comm_s:.3g}"
            + (f" (the exposed {1 - tp_overlap(workload):.0%} of it)" if st.tp_comm_s else "")
            + " + exposed "
            f"data-parallel comm {st.dp_exposed_s:.3g} (of {st.dp_comm_s:.3g}, "
            f"{DP_OVERLAP:.0%} overlapped) + fixed/launch {st.overhead_s:.3g}"
            + (f" + NF4 dequant {st.dequant_s:.3g}" if st.dequant_s else "")
            + f" + optimizer {st.optimizer_s:.3g}"
            + (
                f", / multi-node efficiency {st.scale_efficiency:.2f}"
                if st.scale_efficiency < 1
                else ""
            )
        )
        if used > 1:
            notes.append(f"links: {links.describe(math.ceil(used / gpus_per_server))}")
        if attention_efficiency(gpu, workload) > attention_efficiency(gpu):
            notes.append(
                f"attention: the trainer's Hopper-native kernel (cuDNN fused attention / "
                f"FlashAttention-3), {CUDNN_ATTENTION_SPEEDUP:g}x FlashAttention-2's speed"
            )
        if workload.precision == "fp8":
            notes.append(
                "fp8: only the linear layers' FLOPs run in FP8 (attention and memory-bound "
                "work stay BF16), about 1.3x BF16 end to end, not 2x"
            )
        if workload.method == "qlora":
            notes.append("qlora: NF4 dequantisation of every base weight per matmul pass")
        if st.overhead_s > 2 * STEP_FIXED_S:
            host_ms = host_layer_s(workload) * 1e3
            fused = fused_launch(workload)
            stack = "compiled / pre-training stack" if fused else "eager PyTorch, no torch.compile"
            notes.append(
                f"host-bound: the CPU launching the kernels ({host_ms:.2g} ms per layer per "
                f"micro-batch, {stack}) takes longer than the GPU's work; longer micro-batches "
                f"or {ref('compile')} hide it"
            )
    if flops.recompute:
        notes.append(
            f"activation recompute: +{flops.recompute:.3g} hardware FLOPs per token, not counted "
            "in MFU (the published MFUs include the recompute those runs used)"
        )
    tokens = workload.tokens
    hours = None
    if tokens:
        hours = tokens / out["tokens_per_s"] / 3600
        total = tokens * flops.model
        mfu_e = out["mfu_effective"]
        out["hours"] = hours
        out["six_nd"] = {  # the 6ND arithmetic, term by term
            "model_flops_per_token": flops.model,
            "tokens": tokens,
            "total_flops": total,
            "gpus": used,
            "peak_flops": peak,
            "mfu": mfu_e,
            "hours": hours,
        }
        notes.append(
            f"6ND: {flops.model:.3g} model FLOPs/token x {tokens:.3g} tokens = {total:.3g} FLOPs; "
            f"/ ({used} GPUs x {quoted} x MFU {mfu_e:.3f}) = {hours:,.1f} h"
        )
        if workload.target_days:
            target_h = workload.target_days * 24
            n = _gpus_for_hours(
                workload, gpu, arch, counts, flops, peak, gpus_per_server, links, target_h
            )
            out["gpus_for_target"] = n
            if n:
                at_n = _hours_at(
                    workload, gpu, arch, counts, flops, peak, gpus_per_server, links, n
                )
                mfu_n = total / (n * peak * at_n * 3600) if at_n else mfu_e
                exact = total / (target_h * 3600 * peak * mfu_n)
                notes.append(
                    f"for {workload.target_days:g} days: {total:.3g} FLOPs / "
                    f"({target_h * 3600:.3g} s x {quoted} x MFU {mfu_n:.3f} at that size) = "
                    f"{exact:.1f} GPUs -> {n} (multiples of {ref('tp')}, whole servers past one)"
                )
    return TrainTiming(**out)


def _hours_at(
    workload: Workload,
    gpu: Gpu,
    arch: ModelPreset,
    counts: ParamCounts,
    flops: Flops,
    peak: float,
    gpus_per_server: int,
    links: Links,
    n: int,
) -> float | None:
    tokens = workload.tokens or 0.0
    tp, dp, _, _ = layout(
        workload, n, arch=arch, fast_group=links.island, gpus_per_server=gpus_per_server
    )
    if workload.mfu:
        return six_nd_seconds(tokens, flops.model, peak, tp * dp, workload.mfu) / 3600
    st = _step(workload, gpu, arch, counts, flops, n, gpus_per_server, links)
    if st is None or st.tokens_per_s_per_gpu <= 0:
        return None
    return tokens / (st.tokens_per_s_per_gpu * tp * dp) / 3600


def _gpus_for_hours(
    workload: Workload,
    gpu: Gpu,
    arch: ModelPreset,
    counts: ParamCounts,
    flops: Flops,
    peak: float,
    gpus_per_server: int,
    links: Links,
    target_h: float,
) -> int | None:
    """Fewest GPUs (multiples of ``--tp``; whole servers past one) that finish in time."""
    per = max(1, gpus_per_server)
    # Counts below one server that ``tp`` divides, then whole servers whose GPU count it
    # divides (every ``tp / gcd(per, tp)``-th server), built as ranges: the list runs to
    # thousands of counts and this runs for every estimate.
    tp = workload.tp_or_1
    step = per * (tp // math.gcd(per, tp))
    cands = [*range(tp, per, tp), *range(step, MAX_GPUS * 16 + 1, step)]
    hours = functools.partial(
        _hours_at, workload, gpu, arch, counts, flops, peak, gpus_per_server, links
    )
    # Time falls with GPUs except for the slow multi-node efficiency loss: bisect, then step.
    lo, hi = 0, len(cands) - 1
    last = hours(cands[hi])
    if last is None or last > target_h:
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        h = hours(cands[mid])
        if h is not None and h <= target_h:
            hi = mid
        else:
            lo = mid + 1
    return cands[lo]
