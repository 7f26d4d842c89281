"""Memory per GPU under a layout, and the fewest GPUs that hold the workload.

The glue between the workload and the memory model: the layout a workload gets on ``gpus`` GPUs
(rules: :mod:`engine.estimate.layout`), the memory per GPU under it
(:mod:`engine.estimate.memory`, serving's KV cache per running user from
:mod:`engine.estimate.serving`), its low-high range over the plausible trainers
(:mod:`engine.estimate.memory_range`) and the usable capacity it is compared with.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from slotwise.engine.estimate.constants import (
    CUDA_CONTEXT_BYTES,
    DEFAULT_GPUS_PER_SERVER,
    FRAGMENTATION_MARGIN,
    GIB,
    MAX_GPUS,
)
from slotwise.engine.estimate.layout import Layout, choose_layout
from slotwise.engine.estimate.links import Links
from slotwise.engine.estimate.memory import MemoryBreakdown, memory_per_gpu
from slotwise.engine.estimate.memory_range import memory_range
from slotwise.engine.estimate.serving import kv_cache_dtype, kv_scale, max_users_per_replica
from slotwise.engine.inputs import ref
from slotwise.engine.model.params import ParamCounts, count_params
from slotwise.engine.workload import Workload, hashable_key
from slotwise.engine.workload.trainers import plausible_trainers, resolve_trainer
from slotwise.parts.schema import Gpu, ModelPreset


def gpu_capacity_bytes(gpu: Gpu) -> float:
    """HBM capacity in bytes.  Catalog ``memory_gb`` is NVIDIA's marketing "GB", which for HBM
    parts is binary: an H100 80GB has five 16 GiB HBM3 stacks (nvidia-smi: 81,559 MiB usable),
    so we read it as GiB."""
    return gpu.memory_gb * GIB


#: A memo of memory per GPU (:func:`memory_memo`): the caller owns it (the catalog's engine cache
#: for a suggest run or a build's checks), so equal inputs are computed once.  None: no memo.
MemoryMemo = dict[tuple, tuple[MemoryBreakdown, list[str]]]


def memory_memo_prefix(arch: ModelPreset, counts: ParamCounts) -> tuple:
    """The part of a memo key fixed for one estimate: the model (its JSON; a preset with a dict
    field does not hash) and its parameter counts."""
    return (arch.model_dump_json(), counts)


_MEMO_MAX = 4096


def _memory(
    arch: ModelPreset,
    workload: Workload,
    *,
    tp: int,
    dp: int,
    parallel: str,
    counts: ParamCounts,
    memo: tuple[MemoryMemo, tuple] | None,
) -> tuple[MemoryBreakdown, list[str]]:
    """:func:`engine.estimate.memory.memory_per_gpu`, remembered in ``memo`` (dict, key prefix)
    when one is given.  The breakdown is frozen; the notes list is copied (callers extend it)."""
    if memo is None:
        return memory_per_gpu(arch, workload, tp=tp, dp=dp, parallel=parallel, counts=counts)
    table, prefix = memo
    key = (prefix, hashable_key(workload), tp, dp, parallel)
    hit = table.get(key)
    if hit is None:
        if len(table) >= _MEMO_MAX:
            table.clear()
        hit = table[key] = memory_per_gpu(
            arch, workload, tp=tp, dp=dp, parallel=parallel, counts=counts
        )
    return hit[0], list(hit[1])


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


def layout_memory(
    workload: Workload,
    gpus: int,
    arch: ModelPreset,
    counts: ParamCounts,
    *,
    fast_group: int | None = None,
    gpus_per_server: int = DEFAULT_GPUS_PER_SERVER,
    cap: float | None = None,
    memo: tuple[MemoryMemo, tuple] | None = None,
) -> tuple[MemoryBreakdown, int, int, str, list[str]]:
    """Memory per GPU under the chosen layout; ``cap`` (usable bytes) lets serving pick a
    layout whose replica holds the model (None: the widest split, the old behaviour)."""
    fits = None
    if cap is not None and not workload.training:

        def fits(t: int, p: int) -> bool:
            at = _memory_at(workload, t * p, max(1, gpus // (t * p)), arch, counts, memo)
            return at <= cap

    lay, parallel, notes = plan_layout(
        workload, gpus, arch=arch, fast_group=fast_group, gpus_per_server=gpus_per_server,
        fits=fits,
    )  # fmt: skip
    tp, dp = lay.tp * lay.pp, lay.dp
    if not workload.training and workload.users:
        # Each replica holds the KV cache of its users; prompts are prefilled one (chunk) at a
        # time, so activations are those of one sequence (vLLM / TensorRT-LLM chunked prefill).
        one = workload.model_copy(update={"micro_batch": 1})
        mem, mem_notes = _memory(
            arch, one, tp=tp, dp=dp, parallel=parallel, counts=counts, memo=memo
        )
        kv_one = mem.kv_cache_bytes * kv_scale(workload)
        per_replica = math.ceil(workload.users / dp)
        running = per_replica
        if cap is not None and kv_one > 0:
            # The running batch is what the KV cache holds; the other users queue
            # (engine.estimate.serving).  At least one user is counted, for the verdict.
            room = cap - (mem.total_bytes - mem.kv_cache_bytes)
            running = max(1, min(per_replica, max_users_per_replica(room, kv_one)))
        mem = mem.with_kv_cache(
            kv_one * running,
            f"{kv_cache_dtype(workload)} KV cache of {running} running user(s) x "
            f"{workload.seq_len} tokens per replica (serving.kv_cache_dtype; vLLM / "
            "TensorRT-LLM continuous batching)",
        )
        mem_notes.append(
            f"serving: KV cache ({kv_cache_dtype(workload)}) of {running} running user(s) x "
            f"{workload.seq_len} tokens per replica"
            + (f" ({per_replica - running} more queue)" if running < per_replica else "")
            + ", activations of one prompt at a time"
        )
        return mem, tp, dp, parallel, notes + mem_notes
    mem, mem_notes = _memory(
        arch, workload, tp=tp, dp=dp, parallel=parallel, counts=counts, memo=memo
    )
    if not workload.training and kv_scale(workload) != 1.0:
        mem = mem.with_kv_cache(
            mem.kv_cache_bytes * kv_scale(workload),
            f"{workload.micro_batch} sequence(s) x {workload.seq_len} tokens in "
            f"{kv_cache_dtype(workload)} (serving.kv_cache_dtype)",
        )
        mem_notes.append(f"serving: KV cache in {kv_cache_dtype(workload)}")
    return mem, tp, dp, parallel, notes + mem_notes


def pipeline_stages(
    workload: Workload,
    gpus: int,
    arch: ModelPreset,
    counts: ParamCounts,
    links: Links,
    gpus_per_server: int,
    cap: float,
    memo: tuple[MemoryMemo, tuple] | None = None,
) -> int:
    """Pipeline stages of the serving layout (1 unless the model needs them)."""
    if workload.training:
        return 1

    def fits(t: int, p: int) -> bool:
        return _memory_at(workload, t * p, max(1, gpus // (t * p)), arch, counts, memo) <= cap

    lay, _, _ = plan_layout(
        workload, gpus, arch=arch, fast_group=links.island, gpus_per_server=gpus_per_server,
        fits=fits,
    )  # fmt: skip
    return lay.pp


def _memory_at(
    workload: Workload,
    split: int,
    dp: int,
    arch: ModelPreset,
    counts: ParamCounts,
    memo: tuple[MemoryMemo, tuple] | None = None,
) -> float:
    """Total bytes per GPU of a serving replica split over ``split`` GPUs (``dp`` replicas)."""
    if workload.users:
        one = workload.model_copy(update={"micro_batch": 1})
        mem, _ = _memory(arch, one, tp=split, dp=dp, parallel="tp", counts=counts, memo=memo)
        per_replica = math.ceil(workload.users / dp)
        kv = mem.kv_cache_bytes * kv_scale(workload)
        return mem.total_bytes - mem.kv_cache_bytes + kv * per_replica
    mem, _ = _memory(arch, workload, tp=split, dp=dp, parallel="tp", counts=counts, memo=memo)
    return mem.total_bytes


def memory_spread(
    workload: Workload,
    gpus: int,
    *,
    arch: ModelPreset,
    counts: ParamCounts | None = None,
    memo: tuple[MemoryMemo, tuple] | None = None,
    fast_group: int | None = None,
    gpus_per_server: int = DEFAULT_GPUS_PER_SERVER,
    cap: float | None = None,
) -> tuple[list[float], float, tuple[str, ...]]:
    """(totals, paged optimizer bytes, profiles): the peak memory per GPU under the named
    trainer, or, with none named, under every trainer a user could be running for the method
    (``[plausible]`` in engine/workload/trainers.toml; generic first).  ``fast_group``,
    ``gpus_per_server`` and ``cap`` are the estimate's own (:func:`layout_memory`), so every
    total is taken on the layout the estimate chose (a serving replica of TP 2 on 8 GPUs, not
    the widest split)."""
    counts = counts or count_params(arch)

    def at(wl: Workload) -> MemoryBreakdown:
        return layout_memory(
            wl, gpus, arch, counts, fast_group=fast_group, gpus_per_server=gpus_per_server,
            cap=cap, memo=memo,
        )[0]  # fmt: skip

    mem = at(workload)
    totals = [mem.total_bytes]
    paged = mem.paged_optimizer_bytes
    profiles: tuple[str, ...] = (workload.trainer or "generic",)
    if workload.trainer is None and workload.training:
        others = [p for p in plausible_trainers(workload.method) if p != "generic"]
        # The spread is over what the trainers do on their own (their internals and loss);
        # gradient checkpointing is the user's own switch (trainers.USER_LEVEL_FIELDS), so when
        # the user did not state it every profile runs with the estimate's (generic's) value
        # instead of its own default: the plain Trainer's default off would otherwise set the
        # high end at ~7x the estimate (a 70B LoRA at 4k: 234 vs 34.5 GiB), the overestimate
        # issue 23 names for a recipe that turned recompute off unasked.  Named trainers keep
        # their own default (trainers.resolve_trainer).
        pinned = {"grad_checkpointing": resolve_trainer(workload, gpus).grad_checkpointing}
        for name in others:
            alt_workload = workload.model_copy(update={"trainer": name, **pinned})
            alt = at(alt_workload)
            totals.append(alt.total_bytes)
            paged = max(paged, alt.paged_optimizer_bytes)
        profiles = ("generic", *others)
    return totals, paged, profiles


def with_range(
    mem: MemoryBreakdown,
    workload: Workload,
    gpus: int,
    arch: ModelPreset,
    counts: ParamCounts,
    memo: tuple[MemoryMemo, tuple] | None = None,
    *,
    fast_group: int | None = None,
    gpus_per_server: int = DEFAULT_GPUS_PER_SERVER,
    cap: float | None = None,
) -> MemoryBreakdown:
    """``mem`` with its low and high ends (engine/estimate/memory_range.py), taken on the
    layout ``mem`` was (the same ``fast_group``, ``gpus_per_server`` and ``cap``)."""
    totals, paged, profiles = memory_spread(
        workload, gpus, arch=arch, counts=counts, memo=memo, fast_group=fast_group,
        gpus_per_server=gpus_per_server, cap=cap,
    )  # fmt: skip
    rng = memory_range(
        totals,
        named=workload.trainer is not None,
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
    workload: Workload,
    gpu: Gpu,
    *,
    arch: ModelPreset,
    counts: ParamCounts | None = None,
    memo: tuple[MemoryMemo, tuple] | None = None,
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
        return layout_memory(workload, n, arch, counts, cap=cap, memo=memo)[0].total_bytes <= cap

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
