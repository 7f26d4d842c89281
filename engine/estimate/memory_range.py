"""The range around a peak-memory estimate: what the estimate does not know, made visible.

Two sources of spread (issue 23):

* Without a trainer named, the user could be running any of the trainers that run this method
  today (``[plausible]`` in engine/workload/trainers.toml): the range spans the estimates under
  each of those profiles (with the user's stated options kept).
* The estimator's own error, measured on published peaks (tests/evidence/memory_cases.py):
  the low end is moved by the low ``RESIDUAL_QUANTILES`` of ``measured / lowest total - 1`` and
  the high end by the high quantile of ``measured / highest total - 1``, over every evidence
  case, training and inference pooled, for "trainer named" (through the named profile) and "no
  trainer" (through ``generic``).  The quantile pair was decided before any residual was looked
  at.  The point estimate has no constant fitted to the evidence (profile values come from the
  trainers' code and docs), so each case's residual is already one its source did not shape.
  ``python bench/memory_accuracy.py --fit-ranges --write`` writes the quantiles, with their
  method, to ``memory_residuals.toml`` beside this module; the bench's leave-one-source-out
  view computes them again without each organisation's cases and scores the ranges on that
  organisation.
  Why pooled: split by training / inference (the first version), the inference stratum held
  one organisation (Qwen: 55 of 61 cases), so with it held out its quantiles came from six
  cases of three others and covered 59 % of Qwen's peaks; one pool has every organisation in it.
* Paged optimizer state (bitsandbytes paged optimizers: CUDA unified memory, resident while
  the GPU has room and evicted to the host when it does not) is elastic: the estimate counts
  none of it, the high end counts all of it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

#: Quantiles of the residuals the range covers (a 90 % interval), fixed before fitting.
RESIDUAL_QUANTILES = (0.05, 0.95)

#: The quantiles the range ships, written by ``python bench/memory_accuracy.py --fit-ranges
#: --write`` (tests/engine/estimate/test_trainers.py checks they are what the bench computes).
RESIDUALS_FILE = Path(__file__).with_name("memory_residuals.toml")


class ResidualQuantiles(BaseModel):
    """(low, high) quantiles of measured / estimate - 1 for one way of estimating."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    low: float = Field(ge=-1.0, le=0.0)
    high: float = Field(ge=0.0, le=10.0)
    cases: int = Field(ge=1)
    organisations: int = Field(ge=1)


class ResidualsFile(BaseModel):
    """memory_residuals.toml: the shipped quantiles and how they were computed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method: str
    generator: str
    quantiles: tuple[float, float]
    named: ResidualQuantiles
    no_trainer: ResidualQuantiles


_REGENERATE = (
    "regenerate it with the memory bench (bench/memory_accuracy.py: fit the ranges, write)"
)


@cache
def load_residuals(path: Path = RESIDUALS_FILE) -> ResidualsFile:
    try:
        data = ResidualsFile.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    except (OSError, tomllib.TOMLDecodeError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}; {_REGENERATE}") from None
    if tuple(data.quantiles) != RESIDUAL_QUANTILES:
        raise ValueError(
            f"{path}: quantiles {data.quantiles}, this slotwise uses {RESIDUAL_QUANTILES}; "
            + _REGENERATE
        )
    return data


def shipped_residuals(named: bool) -> tuple[float, float]:
    """(low, high) residual quantiles the range applies, trainer named or not."""
    data = load_residuals()
    q = data.named if named else data.no_trainer
    return q.low, q.high


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
    paged_bytes: float = 0.0,
    profiles: Sequence[str] = (),
    residuals: tuple[float, float] | None = None,
) -> MemoryRange:
    """The range of an estimate whose totals under the spanned profiles are ``totals``
    (the estimate's own first).  ``residuals`` replaces the shipped quantiles (the bench's
    leave-one-source-out view)."""
    lo_r, hi_r = residuals if residuals is not None else shipped_residuals(named)
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
