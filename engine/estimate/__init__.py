"""The workload model: GPU memory per GPU, FLOPs, training time and inference speed.

``estimate(workload, gpu, gpus, arch=...)`` is pure arithmetic (no I/O) and fast enough to run on
every keystroke.  Each formula names its origin in the module that implements it:
:mod:`engine.estimate.memory` (weights, gradients, optimizer, KV cache, offload, sharding),
:mod:`engine.estimate.activations` (saved activations, logits) and
:mod:`engine.estimate.compute` (FLOPs, time, tokens/s); constants and their sources live in
:mod:`engine.estimate.constants`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import replace

from pydantic import BaseModel, ConfigDict, Field

from slotwise.engine.estimate.compute import (
    Flops,
    flops_per_token,
    peak_flops,
    six_nd_seconds,
)
from slotwise.engine.estimate.constants import (
    CUDA_CONTEXT_BYTES,
    DEFAULT_GPUS_PER_SERVER,
    DEFAULT_MBU,
    DEFAULT_MFU,
    FRAGMENTATION_MARGIN,
    GIB,
    MAX_GPUS,
)
from slotwise.engine.estimate.layout import Layout, choose_layout
from slotwise.engine.estimate.links import Links, default_links
from slotwise.engine.estimate.memory import MemoryBreakdown, memory_per_gpu
from slotwise.engine.estimate.memory_range import memory_fit, memory_range
from slotwise.engine.estimate.serving import DEFAULTS as SERVING_DEFAULTS
from slotwise.engine.estimate.serving import (
    Serving,
    kv_cache_dtype,
    kv_scale,
    make_replica,
    max_users_per_replica,
    serving_estimate,
)
from slotwise.engine.estimate.serving_constants import SERVING_MBU, SERVING_MFU
from slotwise.engine.estimate.throughput import (
    DP_OVERLAP,
    TP_OVERLAP,
    StepTime,
    long_step_mfu,
    step_time,
)
from slotwise.engine.inputs import ref
from slotwise.engine.model.params import ParamCounts, count_params
from slotwise.engine.workload import Workload
from slotwise.engine.workload.trainers import plausible_trainers, resolve_trainer
from slotwise.parts.schema import Gpu, ModelPreset

__all__ = [
    "Assumptions",
    "Estimate",
    "Links",
    "MemoryBreakdown",
    "estimate",
    "gpu_capacity_bytes",
    "layout",
    "memory_spread",
    "min_gpus",
    "suggest_changes",
]


class Assumptions(BaseModel):
    model_config = ConfigDict(frozen=True)

    mfu: float
    mbu: float
    notes: tuple[str, ...] = ()
    #: Where the MFU comes from: "default" (per GPU, precision and method: the time model's
    #: long-step figure), "override" (--mfu) or "inference".
    mfu_basis: str = "default"
    interconnect: str | None = None
    dp_overlap: float = DP_OVERLAP
    tp_overlap: float = TP_OVERLAP


class Estimate(BaseModel):
    """What the workload needs on ``gpus`` GPUs of model ``gpu``."""

    model_config = ConfigDict(frozen=True)

    gpu: str
    gpus: int
    gpu_memory_bytes: float
    usable_bytes: float = Field(
        description="capacity minus the fragmentation margin and the CUDA context"
    )
    memory_per_gpu: MemoryBreakdown
    fits: bool
    min_gpus: int | None
    servers: int
    gpus_per_server: int
    tp: int
    dp: int
    parallel: str
    #: Pipeline stages per model copy (serving layouts that need them; ``tp x pp x dp`` GPUs).
    pp: int = 1
    params: int
    active_params: int
    flops_per_token: float
    recompute_flops_per_token: float = 0.0
    train_hours: float | None = None
    train_tokens_per_s: float | None = None
    train_tokens_per_s_per_gpu: float | None = None
    step_seconds: float | None = None
    mfu_effective: float | None = None
    time_breakdown: dict[str, float] | None = None
    six_nd: dict[str, float | int] | None = None
    gpus_for_target_days: int | None = None
    decode_tokens_per_s: float | None = None
    prefill_tokens_per_s: float | None = None
    serving: Serving | None = None
    assumptions: Assumptions

    @property
    def memory_fit(self) -> str:
        """The three-way memory verdict over the range (engine.check.verdict.memory_fit)."""
        m = self.memory_per_gpu
        low = m.total_bytes if m.low_bytes is None else m.low_bytes
        high = m.total_bytes if m.high_bytes is None else m.high_bytes
        return memory_fit(low, m.total_bytes, high, self.usable_bytes)

    def to_json(self) -> dict:
        """The ``estimate --json`` object (CLI.md keys first, then extras)."""
        return {
            "gpu": self.gpu,
            "gpus": self.gpus,
            "gpu_memory_bytes": round(self.gpu_memory_bytes),
            "memory_per_gpu": self.memory_per_gpu.to_json(),
            "fits": self.fits,
            "memory_fit": self.memory_fit,
            "min_gpus": self.min_gpus,
            "flops_per_token": self.flops_per_token,
            "train_hours": self.train_hours,
            "decode_tokens_per_s": self.decode_tokens_per_s,
            "assumptions": {
                "mfu": self.assumptions.mfu,
                "mbu": self.assumptions.mbu,
                "notes": list(self.assumptions.notes),
                "mfu_basis": self.assumptions.mfu_basis,
                "interconnect": self.assumptions.interconnect,
                "dp_overlap": self.assumptions.dp_overlap,
                "tp_overlap": self.assumptions.tp_overlap,
            },
            "usable_bytes": round(self.usable_bytes),
            "servers": self.servers,
            "gpus_per_server": self.gpus_per_server,
            "tp": self.tp,
            "pp": self.pp,
            "dp": self.dp,
            "parallel": self.parallel,
            "params": self.params,
            "active_params": self.active_params,
            "recompute_flops_per_token": self.recompute_flops_per_token,
            "prefill_tokens_per_s": self.prefill_tokens_per_s,
            "gpus_for_target_days": self.gpus_for_target_days,
            "serving": self.serving.to_json() if self.serving else None,
            "model_flops_per_token": self.flops_per_token,
            "hardware_flops_per_token": self.flops_per_token + self.recompute_flops_per_token,
            "train_tokens_per_s": self.train_tokens_per_s,
            "train_tokens_per_s_per_gpu": self.train_tokens_per_s_per_gpu,
            "step_seconds": self.step_seconds,
            "mfu_effective": self.mfu_effective,
            "gpu_hours": (
                self.train_hours * self.tp * self.dp if self.train_hours is not None else None
            ),
            "time_breakdown": self.time_breakdown,
            "six_nd": self.six_nd,
        }


def gpu_capacity_bytes(gpu: Gpu) -> float:
    """HBM capacity in bytes.  Catalog ``memory_gb`` is NVIDIA's marketing "GB", which for HBM
    parts is binary: an H100 80GB has five 16 GiB HBM3 stacks (nvidia-smi: 81,559 MiB usable),
    so we read it as GiB."""
    return gpu.memory_gb * GIB


def layout(
    workload: Workload,
    gpus: int,
    *,
    arch: ModelPreset | None = None,
    fast_group: int | None = None,
    gpus_per_server: int = DEFAULT_GPUS_PER_SERVER,
    fits: Callable[[int, int], bool] | None = None,
) -> tuple[int, int, str, list[str]]:
    """(tp, dp, parallel, notes) for ``gpus`` GPUs; see :func:`plan_layout` (pipeline stages,
    when serving needs them, count into ``tp`` here: the GPUs one model copy is split over)."""
    lay, parallel, notes = plan_layout(
        workload, gpus, arch=arch, fast_group=fast_group, gpus_per_server=gpus_per_server,
        fits=fits,
    )  # fmt: skip
    return lay.tp * lay.pp, lay.dp, parallel, notes


def plan_layout(
    workload: Workload,
    gpus: int,
    *,
    arch: ModelPreset | None = None,
    fast_group: int | None = None,
    gpus_per_server: int = DEFAULT_GPUS_PER_SERVER,
    fits: Callable[[int, int], bool] | None = None,
) -> tuple[Layout, str, list[str]]:
    """(layout, parallel, notes) for ``gpus`` GPUs (rules: :mod:`engine.estimate.layout`).

    Training: tensor parallel ``--tp`` (default 1), data parallel over the rest.  Serving: an
    explicit ``--tp`` is kept (``--tp 1 --gpus 8`` = 8 replicas); without it the largest size
    that divides the heads inside the fast-link group ``fast_group`` (default: every GPU of a
    server, the old behaviour when no topology is known), replicas for the rest, TP across
    slower links or pipeline stages only where the model does not fit (``fits(tp, pp)``).
    """
    gpus = max(1, gpus)
    fast = gpus_per_server if fast_group is None else fast_group
    if arch is None:  # no heads known: any tp is accepted
        tp = min(workload.tp_or_1, gpus) if workload.training or workload.tp else gpus
        lay = Layout(tp=tp, dp=max(1, gpus // tp))
        if workload.training and tp < workload.tp_or_1:
            lay = lay.model_copy(
                update={"reason": f"{ref('tp')} {workload.tp} needs {workload.tp} GPUs"}
            )
    else:
        lay = choose_layout(
            arch, gpus, tp=workload.tp, training=workload.training, fast_group=fast,
            gpus_per_server=gpus_per_server, fits=fits,
        )  # fmt: skip
    notes = [f"layout: {lay.reason}"] if lay.reason else []
    if workload.training and lay.tp * lay.dp != gpus and "multiple" not in lay.reason:
        notes.append(
            f"{gpus} GPUs is not a multiple of tp={lay.tp}: {lay.tp * lay.dp} of them are used"
        )
    parallel = workload.parallel_for(gpus) if workload.training else "tp"
    return lay, parallel, notes


def serving_workload(workload: Workload, dp: int) -> Workload:
    """Inference for ``--users N``: each replica decodes its share of the users at once
    (engine.estimate.serving), so that is the batch of the decode step."""
    if workload.training or not workload.users:
        return workload
    return workload.model_copy(update={"micro_batch": math.ceil(workload.users / max(1, dp))})


def _memory(
    workload: Workload,
    gpus: int,
    arch: ModelPreset,
    counts: ParamCounts,
    *,
    fast_group: int | None = None,
    gpus_per_server: int = DEFAULT_GPUS_PER_SERVER,
    cap: float | None = None,
) -> tuple[MemoryBreakdown, int, int, str, list[str]]:
    """Memory per GPU under the chosen layout; ``cap`` (usable bytes) lets serving pick a
    layout whose replica holds the model (None: the widest split, the old behaviour)."""
    fits = None
    if cap is not None and not workload.training:

        def fits(t: int, p: int) -> bool:
            return _memory_at(workload, t * p, max(1, gpus // (t * p)), arch, counts) <= cap

    lay, parallel, notes = plan_layout(
        workload, gpus, arch=arch, fast_group=fast_group, gpus_per_server=gpus_per_server,
        fits=fits,
    )  # fmt: skip
    tp, dp = lay.tp * lay.pp, lay.dp
    if not workload.training and workload.users:
        # Each replica holds the KV cache of its users; prompts are prefilled one (chunk) at a
        # time, so activations are those of one sequence (vLLM / TensorRT-LLM chunked prefill).
        one = workload.model_copy(update={"micro_batch": 1})
        mem, mem_notes = memory_per_gpu(arch, one, tp=tp, dp=dp, parallel=parallel, counts=counts)
        kv_one = mem.kv_cache_bytes * kv_scale(workload)
        per_replica = math.ceil(workload.users / dp)
        running = per_replica
        if cap is not None and kv_one > 0:
            # The running batch is what the KV cache holds; the other users queue
            # (engine.estimate.serving).  At least one user is counted, for the verdict.
            room = cap - (mem.total_bytes - mem.kv_cache_bytes)
            running = max(1, min(per_replica, max_users_per_replica(room, kv_one)))
        mem = mem.model_copy(update={"kv_cache_bytes": kv_one * running})
        mem_notes.append(
            f"serving: KV cache ({kv_cache_dtype(workload)}) of {running} running user(s) x "
            f"{workload.seq_len} tokens per replica"
            + (f" ({per_replica - running} more queue)" if running < per_replica else "")
            + ", activations of one prompt at a time"
        )
        return mem, tp, dp, parallel, notes + mem_notes
    mem, mem_notes = memory_per_gpu(arch, workload, tp=tp, dp=dp, parallel=parallel, counts=counts)
    if not workload.training and kv_scale(workload) != 1.0:
        mem = mem.model_copy(update={"kv_cache_bytes": mem.kv_cache_bytes * kv_scale(workload)})
        mem_notes.append(f"serving: KV cache in {kv_cache_dtype(workload)}")
    return mem, tp, dp, parallel, notes + mem_notes


def _pipeline_stages(
    workload: Workload,
    gpus: int,
    arch: ModelPreset,
    counts: ParamCounts,
    links: Links,
    gpus_per_server: int,
    cap: float,
) -> int:
    """Pipeline stages of the serving layout (1 unless the model needs them)."""
    if workload.training:
        return 1

    def fits(t: int, p: int) -> bool:
        return _memory_at(workload, t * p, max(1, gpus // (t * p)), arch, counts) <= cap

    lay, _, _ = plan_layout(
        workload, gpus, arch=arch, fast_group=links.island, gpus_per_server=gpus_per_server,
        fits=fits,
    )  # fmt: skip
    return lay.pp


def _memory_at(
    workload: Workload, split: int, dp: int, arch: ModelPreset, counts: ParamCounts
) -> float:
    """Total bytes per GPU of a serving replica split over ``split`` GPUs (``dp`` replicas)."""
    if workload.users:
        one = workload.model_copy(update={"micro_batch": 1})
        mem, _ = memory_per_gpu(arch, one, tp=split, dp=dp, parallel="tp", counts=counts)
        per_replica = math.ceil(workload.users / dp)
        kv = mem.kv_cache_bytes * kv_scale(workload)
        return mem.total_bytes - mem.kv_cache_bytes + kv * per_replica
    mem, _ = memory_per_gpu(arch, workload, tp=split, dp=dp, parallel="tp", counts=counts)
    return mem.total_bytes


def memory_spread(
    workload: Workload,
    gpus: int,
    *,
    arch: ModelPreset,
    counts: ParamCounts | None = None,
) -> tuple[list[float], float, tuple[str, ...]]:
    """(totals, paged optimizer bytes, profiles): the peak memory per GPU under the named
    trainer, or, with none named, under every trainer a user could be running for the method
    (``[plausible]`` in engine/workload/trainers.toml; generic first)."""
    counts = counts or count_params(arch)
    mem = _memory(workload, gpus, arch, counts)[0]
    totals = [mem.total_bytes]
    paged = mem.paged_optimizer_bytes
    profiles: tuple[str, ...] = (workload.trainer or "generic",)
    if workload.trainer is None and workload.training:
        others = [p for p in plausible_trainers(workload.method) if p != "generic"]
        for name in others:
            alt = _memory(workload.model_copy(update={"trainer": name}), gpus, arch, counts)[0]
            totals.append(alt.total_bytes)
            paged = max(paged, alt.paged_optimizer_bytes)
        profiles = ("generic", *others)
    return totals, paged, profiles


def _with_range(
    mem: MemoryBreakdown, workload: Workload, gpus: int, arch: ModelPreset, counts: ParamCounts
) -> MemoryBreakdown:
    """``mem`` with its low and high ends (engine/estimate/memory_range.py)."""
    totals, paged, profiles = memory_spread(workload, gpus, arch=arch, counts=counts)
    rng = memory_range(
        totals,
        named=workload.trainer is not None,
        training=workload.training,
        paged_bytes=paged,
        profiles=profiles,
    )
    return mem.model_copy(update={"low_bytes": rng.low_bytes, "high_bytes": rng.high_bytes})


def usable_bytes(gpu: Gpu) -> float:
    """What PyTorch's allocator may use: capacity less the fragmentation margin and the CUDA
    context (which lives outside the allocator, see ``MemoryBreakdown``)."""
    return gpu_capacity_bytes(gpu) * (1.0 - FRAGMENTATION_MARGIN) - CUDA_CONTEXT_BYTES


def _candidates() -> list[int]:
    """GPU counts ``min_gpus`` considers: 1-8, then whole 8-GPU servers up to MAX_GPUS."""
    return list(range(1, 8)) + list(range(8, MAX_GPUS + 1, 8))


def min_gpus(
    workload: Workload, gpu: Gpu, *, arch: ModelPreset, counts: ParamCounts | None = None
) -> int | None:
    """Smallest GPU count of this model that fits, or None if none up to MAX_GPUS.

    Memory per GPU never grows with more GPUs (sharding and model splitting only divide), so a
    binary search over the candidate counts finds the first that fits.  Counts that are not a
    multiple of ``--tp`` are skipped.
    """
    counts = counts or count_params(arch)
    cap = usable_bytes(gpu)
    cands = [n for n in _candidates() if not workload.training or n % workload.tp_or_1 == 0]
    if not cands:
        return None

    def fits(n: int) -> bool:
        return _memory(workload, n, arch, counts, cap=cap)[0].total_bytes <= cap

    if not fits(cands[-1]):
        return None
    lo, hi = 0, len(cands) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if fits(cands[mid]):
            hi = mid
        else:
            lo = mid + 1
    return cands[lo]


def estimate(
    workload: Workload,
    gpu: Gpu,
    gpus: int,
    *,
    arch: ModelPreset,
    gpus_per_server: int = DEFAULT_GPUS_PER_SERVER,
    links: Links | None = None,
) -> Estimate:
    """Memory per GPU, fit, minimum GPU count, FLOPs, time and speed for ``workload``.

    ``links`` are the build's GPU links (:func:`engine.estimate.links.build_links`); without
    them the GPU's own record decides (:func:`engine.estimate.links.default_links`)."""
    gpus = max(1, int(gpus))
    gpus_per_server = max(1, int(gpus_per_server))
    links = links or default_links(gpu, gpus_per_server)
    counts = count_params(arch)
    cap = gpu_capacity_bytes(gpu)
    usable = usable_bytes(gpu)
    mem, tp, dp, parallel, notes = _memory(
        workload, gpus, arch, counts, fast_group=links.island,
        gpus_per_server=gpus_per_server, cap=usable,
    )  # fmt: skip
    mem = _with_range(mem, workload, gpus, arch, counts)
    fits = mem.total_bytes <= usable
    needed = gpus if fits and gpus == 1 else min_gpus(workload, gpu, arch=arch, counts=counts)
    if fits and (needed is None or needed > gpus):
        needed = gpus  # the counts min_gpus scans may skip this one (tp not dividing 8)
    workload = resolve_trainer(workload, gpus)  # the trainer's settings for time and speed
    notes.append(
        f"total = PyTorch allocator peak; fit needs total <= "
        f"{100 * (1 - FRAGMENTATION_MARGIN):.0f}% of the GPU's memory (allocator fragmentation) "
        f"less {CUDA_CONTEXT_BYTES / 2**30:g} GiB of CUDA context"
    )

    if workload.training:
        mfu, mbu = workload.mfu or DEFAULT_MFU, DEFAULT_MBU
    else:  # serving constants (engine.estimate.serving_constants); --mfu still overrides
        mfu, mbu = workload.mfu or SERVING_MFU, SERVING_MBU
    flops = flops_per_token(arch, workload, counts)
    peak, peak_field = peak_flops(gpu, workload.precision)
    if peak is None:
        notes.append(f"{gpu.sku}: {peak_field} unknown, so time and speed were not estimated")

    used = tp * dp
    timing = _TrainTiming()
    basis = "inference"
    if workload.training and peak:
        timing = _train_timing(
            workload, gpu, arch, counts, flops, peak, peak_field, used, tp, dp, parallel,
            gpus_per_server, links, notes,
        )  # fmt: skip
        mfu, basis = timing.mfu, timing.basis

    decode = prefill = None
    serving = None
    pp = 1
    if not workload.training and peak is not None:
        prefill = used * peak * mfu / flops.forward
    if not workload.training:
        served = serving_workload(workload, dp)
        constants = replace(SERVING_DEFAULTS, mfu=mfu)
        pp = _pipeline_stages(workload, gpus, arch, counts, links, gpus_per_server, usable)
        replica = make_replica(
            arch, counts, served, gpu, tp // pp, peak=peak, constants=constants, links=links,
            gpus_per_server=gpus_per_server,
        )  # fmt: skip
        if replica is not None and pp > 1:
            replica = replace(replica, pp=pp)
        if replica is not None:
            # Every decode step reads this GPU's weights and the KV cache at full context;
            # serving.py adds compute, tensor-parallel all-reduces and the latency floor.
            free = usable - (mem.total_bytes - mem.kv_cache_bytes)
            if not workload.users:  # activations above are for micro_batch whole prompts
                one = _memory(
                    workload.model_copy(update={"micro_batch": 1}), gpus, arch, counts,
                    fast_group=links.island, gpus_per_server=gpus_per_server, cap=usable,
                )  # fmt: skip
                free = usable - (one[0].total_bytes - one[0].kv_cache_bytes)
            serving, serving_notes = serving_estimate(
                replica, dp=dp, gpus_per_server=gpus_per_server, free_bytes_per_gpu=free
            )
            notes += serving_notes
            # Every decode step reads this GPU's weights and the KV cache of the running batch
            # at full context; serving.py adds compute, all-reduces and the latency floor.
            batch = min(served.micro_batch, max(1, serving.running_users_per_replica))
            decode = dp * batch / replica.decode_step(batch, served.seq_len).total
        else:
            notes.append(
                f"{gpu.sku}: memory bandwidth or peak FLOP/s unknown, decode speed not estimated"
            )

    servers = math.ceil(gpus / max(1, gpus_per_server))
    return Estimate(
        gpu=gpu.sku,
        gpus=gpus,
        gpu_memory_bytes=cap,
        usable_bytes=usable,
        memory_per_gpu=mem,
        fits=fits,
        min_gpus=needed,
        servers=servers,
        gpus_per_server=gpus_per_server,
        tp=tp // pp,
        pp=pp,
        dp=dp,
        parallel=parallel,
        params=counts.total,
        active_params=counts.active,
        flops_per_token=flops.model,
        recompute_flops_per_token=flops.recompute,
        train_hours=timing.hours,
        gpus_for_target_days=timing.gpus_for_target,
        train_tokens_per_s=timing.tokens_per_s,
        train_tokens_per_s_per_gpu=timing.tokens_per_s_per_gpu,
        step_seconds=timing.step_s,
        mfu_effective=timing.mfu_effective,
        time_breakdown=timing.breakdown,
        six_nd=timing.six_nd,
        decode_tokens_per_s=decode,
        prefill_tokens_per_s=prefill,
        serving=serving,
        assumptions=Assumptions(
            mfu=mfu,
            mbu=mbu,
            notes=tuple(notes),
            mfu_basis=basis,
            interconnect=(links.describe(math.ceil(used / gpus_per_server)) if used > 1 else None),
        ),
    )


class _TrainTiming(BaseModel):
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


def _train_timing(
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
) -> _TrainTiming:
    """Training throughput and time (engine.estimate.throughput), or the 6ND rule with --mfu."""
    long_mfu = long_step_mfu(gpu, workload.precision, arch, flops.linear, flops.attention, peak)
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
            return _TrainTiming()
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
            f"{st.memory_s:.3g} + tensor-parallel comm {st.tp_comm_s:.3g} + exposed "
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
        if workload.precision == "fp8":
            notes.append(
                "fp8: only the linear layers' FLOPs run in FP8 (attention and memory-bound "
                "work stay BF16), about 1.3x BF16 end to end, not 2x"
            )
        if workload.method == "qlora":
            notes.append("qlora: NF4 dequantisation of every base weight per matmul pass")
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
    return _TrainTiming(**out)


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
    cands = list(range(1, per)) + list(range(per, MAX_GPUS * 16 + 1, per))
    cands = [n for n in cands if n % workload.tp_or_1 == 0]
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


def suggest_changes(
    workload: Workload, gpu: Gpu, gpus: int, *, arch: ModelPreset
) -> list[tuple[str, float, bool]]:
    """What to change when the workload does not fit: (change, GiB per GPU after, fits).

    Each alternative is re-estimated, so the advice is never a guess.
    """
    counts = count_params(arch)
    cap = usable_bytes(gpu)
    out: list[tuple[str, float, bool]] = []

    def trial(label: str, n: int = gpus, **changes) -> None:
        try:
            w = workload.model_copy(update=changes)
            w = Workload.model_validate(w.model_dump())
        except ValueError:
            return
        total = _memory(w, n, arch, counts)[0].total_bytes
        out.append((label, total / GIB, total <= cap))

    if workload.training and not workload.checkpointing:
        trial("turn on gradient checkpointing", grad_checkpointing=True)
    if workload.method in ("full", "pretrain"):
        trial("use LoRA instead of full fine-tuning", method="lora")
    if workload.method in ("full", "pretrain", "lora"):
        trial("use QLoRA (4-bit base)", method="qlora")
    if workload.training and workload.offload == "none":
        trial("offload optimizer state to CPU", offload="optimizer")
    if workload.training and gpus > 1 and workload.parallel_for(gpus) != "zero3":
        trial("shard everything with ZeRO-3 / FSDP", parallel="zero3")
    if workload.micro_batch > 1:
        trial("micro-batch 1", micro_batch=1)
    now = _memory(workload, gpus, arch, counts)[0]
    seq_heavy = now.activations_bytes + now.kv_cache_bytes > 0.3 * now.total_bytes
    if workload.seq_len >= 256 and (seq_heavy or workload.seq_len > 8192):
        trial(f"sequence length {workload.seq_len // 2}", seq_len=workload.seq_len // 2)
    if workload.training and workload.tp_or_1 == 1:
        n = max(gpus, 8)
        trial(f"tensor parallel 8 inside one server ({n} GPUs)", n=n, tp=8)
    if (
        workload.training
        and workload.loss != "chunked"
        and now.logits_bytes > 0.1 * now.total_bytes
    ):
        trial(
            f"chunked cross-entropy ({ref('loss', 'chunked')}, as torchtune computes it)",
            loss="chunked",
        )
    if not workload.training and workload.precision in ("bf16", "fp16", "fp32"):
        trial("serve in FP8", precision="fp8")
    return out
