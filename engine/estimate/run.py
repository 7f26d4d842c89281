"""The estimate entry: :func:`estimate` runs the memory, fit, time and serving models for one
workload on ``gpus`` GPUs and returns an :class:`engine.estimate.result.Estimate`."""

from __future__ import annotations

import math
from dataclasses import replace

from slotwise.engine.estimate.checkpoint import served_workload
from slotwise.engine.estimate.compute import flops_per_token, peak_flops
from slotwise.engine.estimate.constants import (
    CUDA_CONTEXT_BYTES,
    DEFAULT_GPUS_PER_SERVER,
    DEFAULT_MBU,
    DEFAULT_MFU,
    FRAGMENTATION_MARGIN,
)
from slotwise.engine.estimate.fit import (
    MemoryMemo,
    gpu_capacity_bytes,
    layout_memory,
    memory_memo_prefix,
    min_gpus,
    pipeline_stages,
    serving_workload,
    usable_bytes,
    with_range,
)
from slotwise.engine.estimate.links import Links, default_links
from slotwise.engine.estimate.result import Assumptions, Estimate
from slotwise.engine.estimate.serving import DEFAULTS as SERVING_DEFAULTS
from slotwise.engine.estimate.serving import make_replica, serving_estimate
from slotwise.engine.estimate.serving_constants import SERVING_MBU, SERVING_MFU
from slotwise.engine.estimate.throughput import tp_overlap
from slotwise.engine.estimate.timing import TrainTiming, train_timing
from slotwise.engine.model.params import count_params
from slotwise.engine.workload import Workload
from slotwise.engine.workload.trainers import resolve_trainer
from slotwise.parts.schema import Gpu, ModelPreset


def estimate(
    workload: Workload,
    gpu: Gpu,
    gpus: int,
    *,
    arch: ModelPreset,
    gpus_per_server: int = DEFAULT_GPUS_PER_SERVER,
    links: Links | None = None,
    memo: MemoryMemo | None = None,
) -> Estimate:
    """Memory per GPU, fit, minimum GPU count, FLOPs, time and speed for ``workload``.

        ``links`` are the build's GPU links (:func:`engine.estimate.links.build_links`); without
        them the GPU's own record decides (:func:`engine.estimate.links.default_links`).  ``memo``: a
    dict the caller keeps (the catalog's engine cache) where memory per GPU is remembered across
    calls; the answer is the same with or without it."""
    gpus = max(1, int(gpus))
    gpus_per_server = max(1, int(gpus_per_server))
    links = links or default_links(gpu, gpus_per_server)
    # "auto" precision: the checkpoint's stored format decides (engine.estimate.checkpoint)
    workload, served_note = served_workload(workload, arch)
    counts = count_params(arch)
    mm = None if memo is None else (memo, memory_memo_prefix(arch, counts))
    cap = gpu_capacity_bytes(gpu)
    usable = usable_bytes(gpu)
    mem, tp, dp, parallel, notes = layout_memory(
        workload, gpus, arch, counts, fast_group=links.island,
        gpus_per_server=gpus_per_server, cap=usable, memo=mm,
    )  # fmt: skip
    mem = with_range(
        mem, workload, gpus, arch, counts, mm, fast_group=links.island,
        gpus_per_server=gpus_per_server, cap=usable,
    )  # fmt: skip
    if served_note:
        notes.insert(0, served_note)
    fits = mem.total_bytes <= usable
    needed = (
        gpus if fits and gpus == 1 else min_gpus(workload, gpu, arch=arch, counts=counts, memo=mm)
    )
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
    timing = TrainTiming()
    basis = "inference"
    if workload.training and peak:
        timing = train_timing(
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
        pp = pipeline_stages(workload, gpus, arch, counts, links, gpus_per_server, usable, mm)
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
                one = layout_memory(
                    workload.model_copy(update={"micro_batch": 1}), gpus, arch, counts,
                    fast_group=links.island, gpus_per_server=gpus_per_server, cap=usable,
                    memo=mm,
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
            precision=workload.precision,
            precision_note=served_note,
            tp_overlap=tp_overlap(workload),
            interconnect=(links.describe(math.ceil(used / gpus_per_server)) if used > 1 else None),
        ),
    )
