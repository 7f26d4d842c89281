"""The workload verdicts, decided once: does it fit, does training meet the target, how many
servers.  The estimator (:mod:`slotwise.engine.estimate`) computes the figures; this module turns
them into the decisions that the CLI, the app and the Markdown export only word.

A target applies to a training run with a token count and ``target_days``: training meets it when
the estimated hours are at most ``target_days x 24``; when the estimator has no time (a GPU
without a dense BF16 figure) the check is *unknown* (``met`` is None), never a pass.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from slotwise.engine.estimate import Estimate
from slotwise.engine.estimate.serving import Serving
from slotwise.engine.workload import Workload


class TargetCheck(BaseModel):
    """Training time against the workload's ``target_days``."""

    model_config = ConfigDict(frozen=True)

    target_days: float
    train_hours: float | None = None

    @property
    def target_hours(self) -> float:
        return self.target_days * 24

    @property
    def met(self) -> bool | None:
        """True within the target, False over it, None when the time is unknown."""
        if self.train_hours is None:
            return None
        return self.train_hours <= self.target_hours

    @property
    def days(self) -> float | None:
        return None if self.train_hours is None else self.train_hours / 24


def target_check(workload: Workload | None, train_hours: float | None) -> TargetCheck | None:
    """The target check for ``workload`` (None: no target applies to it)."""
    if workload is None or not workload.training or not workload.tokens:
        return None
    if not workload.target_days:
        return None
    return TargetCheck(target_days=workload.target_days, train_hours=train_hours)


def servers_for_target(check: TargetCheck, gpus_for_target: int | None, gpus_here: int) -> int:
    """Servers like this one (``gpus_here`` GPUs each) that finish within the target: from the
    estimator's GPU count for the target when it has one, else scaled from the time (training
    time falls about linearly with data-parallel GPUs)."""
    if gpus_for_target:
        return -(-gpus_for_target // max(gpus_here, 1))
    hours = check.train_hours or 0.0
    return int(-(-hours // check.target_hours))


class Verdict(BaseModel):
    """What a workload estimate means for the build it ran on."""

    model_config = ConfigDict(frozen=True)

    fits: bool
    gpu: str
    gpus: int
    need_bytes: float
    capacity_bytes: float
    usable_bytes: float
    min_gpus: int | None
    train_hours: float | None = None
    target: TargetCheck | None = None
    decode_tokens_per_s: float | None = None
    serving: Serving | None = None

    @property
    def misses_target(self) -> bool:
        """Training is known to take longer than the target."""
        return self.target is not None and self.target.met is False

    @property
    def more_gpus_needed(self) -> int | None:
        """How many GPUs the memory needs beyond this build's, when it does not fit."""
        if self.fits or not self.min_gpus or self.min_gpus <= self.gpus:
            return None
        return self.min_gpus - self.gpus


def verdict(est: Estimate, workload: Workload | None) -> Verdict:
    return Verdict(
        fits=est.fits,
        gpu=est.gpu,
        gpus=est.gpus,
        need_bytes=est.memory_per_gpu.total_bytes,
        capacity_bytes=est.gpu_memory_bytes,
        usable_bytes=est.usable_bytes,
        min_gpus=est.min_gpus,
        train_hours=est.train_hours,
        target=target_check(workload, est.train_hours),
        decode_tokens_per_s=est.decode_tokens_per_s,
        serving=est.serving,
    )
