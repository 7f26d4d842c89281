"""The workload model: GPU memory per GPU, FLOPs, training time and inference speed.

``estimate(workload, gpu, gpus, arch=...)`` is pure arithmetic (no I/O) and fast enough to run on
every keystroke.  Each formula names its origin in the module that implements it:
:mod:`engine.estimate.memory` (weights, gradients, optimizer, KV cache, offload, sharding),
:mod:`engine.estimate.activations` (saved activations, logits) and
:mod:`engine.estimate.compute` (FLOPs, time, tokens/s); constants and their sources live in
:mod:`engine.estimate.constants`.

This package's entry points, by job: :mod:`engine.estimate.run` (:func:`estimate`),
:mod:`engine.estimate.result` (:class:`Estimate`, :class:`Assumptions`),
:mod:`engine.estimate.fit` (layout, memory under it, :func:`min_gpus`, capacity),
:mod:`engine.estimate.timing` (training time) and :mod:`engine.estimate.advice`
(:func:`suggest_changes`, :class:`Advice`).  They are re-exported here.
"""

from __future__ import annotations

from slotwise.engine.estimate.advice import Advice, suggest_changes
from slotwise.engine.estimate.fit import (
    gpu_capacity_bytes,
    layout,
    memory_spread,
    min_gpus,
    plan_layout,
    serving_workload,
    usable_bytes,
)
from slotwise.engine.estimate.links import Links
from slotwise.engine.estimate.memory import MemoryBreakdown
from slotwise.engine.estimate.result import Assumptions, Estimate
from slotwise.engine.estimate.run import estimate

__all__ = [
    "Advice",
    "Assumptions",
    "Estimate",
    "Links",
    "MemoryBreakdown",
    "estimate",
    "gpu_capacity_bytes",
    "layout",
    "memory_spread",
    "min_gpus",
    "plan_layout",
    "serving_workload",
    "suggest_changes",
    "usable_bytes",
]
