"""The range around a peak-memory estimate: what the estimate does not know, made visible.

Two sources of spread (issue 23):

* Without a trainer named, the user could be running any of the trainers that run this method
  today (``[plausible]`` in engine/workload/trainers.toml): the range spans the estimates under
  each of those profiles (with the user's stated options kept).
* The estimator's own error, measured on published peaks (tests/evidence/memory_cases.py):
  the low end is moved by the low ``RESIDUAL_QUANTILES`` of ``measured / lowest total - 1`` and
  the high end by the high quantile of ``measured / highest total - 1`` over that evidence, separately for training and inference and for "trainer named" (through
  the named profile) and "no trainer" (through ``generic``).  The quantiles were decided before
  any residual was looked at; ``python bench/memory_accuracy.py --fit-ranges`` computes the
  constants below, and the bench's leave-one-source-out view computes them again without each
  organisation's cases to score the ranges on a source they never saw.
* Paged optimizer state (bitsandbytes paged optimizers: CUDA unified memory, resident while
  the GPU has room and evicted to the host when it does not) is elastic: the estimate counts
  none of it, the high end counts all of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

#: Quantiles of the residuals the range covers (a 90 % interval), fixed before fitting.
RESIDUAL_QUANTILES = (0.05, 0.95)

#: (low, high) quantiles of measured / estimate - 1 over every memory evidence case, by
#: (trainer named, training).  Produced by ``python bench/memory_accuracy.py --fit-ranges``;
#: tests/test_memory_range.py checks that these are what the bench computes today.
RESIDUALS: dict[tuple[bool, bool], tuple[float, float]] = {
    (True, True): (-0.131, 0.283),
    (True, False): (-0.117, 0.060),
    (False, True): (-0.029, 0.594),
    (False, False): (-0.117, 0.262),
}


class MemoryRange(BaseModel):
    """Low and high ends of the peak memory per GPU, and what they span."""

    model_config = ConfigDict(frozen=True)

    low_bytes: float
    high_bytes: float
    #: The trainer profiles the range spans (one when a trainer is named).
    profiles: tuple[str, ...]
    residuals: tuple[float, float]


def memory_range(
    totals: Sequence[float],
    *,
    named: bool,
    training: bool,
    paged_bytes: float = 0.0,
    profiles: Sequence[str] = (),
    residuals: tuple[float, float] | None = None,
) -> MemoryRange:
    """The range of an estimate whose totals under the spanned profiles are ``totals``
    (the estimate's own first).  ``residuals`` replaces the shipped quantiles (the bench's
    leave-one-source-out view)."""
    lo_r, hi_r = residuals if residuals is not None else RESIDUALS[(named, training)]
    low = min(totals) * (1.0 + lo_r)
    high = (max(totals) + paged_bytes) * (1.0 + hi_r)
    return MemoryRange(
        low_bytes=max(0.0, low),
        high_bytes=max(high, low),
        profiles=tuple(profiles),
        residuals=(lo_r, hi_r),
    )


#: The three-way memory verdict (issue 23): the whole range fits, only part of it fits, or not
#: even its low end fits.  engine.check.verdict words it; decided here so the estimate carries it.
MemoryFit = Literal["fits", "tight", "does not fit"]


def memory_fit(low: float, total: float, high: float, usable: float) -> MemoryFit:
    """``fits`` when the high end of the range fits in the usable memory; ``tight`` when only
    the estimate or the low end does (what the trainer does decides it); ``does not fit`` when
    not even the low end does."""
    if high <= usable:
        return "fits"
    if min(low, total) <= usable:
        return "tight"
    return "does not fit"
