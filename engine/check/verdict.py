"""The workload verdicts, decided once: does it fit, does training meet the target, how many
servers.  The estimator (:mod:`slotwise.engine.estimate`) computes the figures; this module turns
them into the decisions that the CLI, the app and the Markdown export only word.

A target applies to a training run with a token count and ``target_days``: training meets it when
the estimated hours are at most ``target_days x 24``; when the estimator has no time (a GPU
without a dense BF16 figure) the check is *unknown* (``met`` is None), never a pass.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from slotwise.engine.check.sizing import TIGHT_ADVICE as TIGHT_ADVICE  # re-exported
from slotwise.engine.check.sizing import Sizing, tight_advice
from slotwise.engine.estimate import Estimate
from slotwise.engine.estimate.memory_range import MemoryFit, memory_fit
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


def context_overrun(workload: Workload, positions: int | None, name: str) -> str | None:
    """What is wrong when the sequence is longer than the positions the model was trained for
    (None when it is not, or the model states no limit).  The limit is the config.json's
    ``max_position_embeddings`` (Hugging Face transformers: the longest sequence the model may
    be used with); beyond it the position encoding is extrapolated and quality degrades unless
    the model is extended (RoPE scaling and long-context fine-tuning)."""
    if positions is None or workload.seq_len <= positions:
        return None
    return (
        f"the sequence length {workload.seq_len:,} tokens is longer than {name}'s "
        f"{positions:,} positions (max_position_embeddings): use at most {positions:,} tokens, "
        "or a long-context variant of the model (RoPE scaling and long-context fine-tuning)"
    )


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
    #: GPUs the estimator says finish within the target (None: no target, or unknown).
    gpus_for_target: int | None = None
    #: The one sizing answer for the build (engine.check.sizing): servers and why.
    sizing: Sizing | None = None

    @property
    def servers(self) -> int | None:
        """Servers like this one the workload needs (None: unknown or cannot be sized)."""
        return self.sizing.servers if self.sizing is not None else None

    @property
    def status(self) -> str:
        """'ok' (one server meets everything with the margin), 'tight' (one server meets it
        only inside the margin), 'miss' (it does not fit, or more servers are needed, or none
        can be sized) or 'unknown' (a target's figure is unknown)."""
        sz = self.sizing
        if not self.fits:
            return "miss"
        if sz is None:
            return "unknown" if self.target is not None and self.target.met is None else "ok"
        if sz.servers is None:
            return "miss"
        if sz.servers > 1:
            return "tight" if all(n.bare == 1 for n in sz.needs if n.known) else "miss"
        if sz.unknown:
            return "unknown"
        # the three-way memory verdict: the estimate fits, the high end of its range does not
        return "tight" if self.memory == "tight" else "ok"

    @property
    def headline(self) -> str:
        """The workload verdict as a whole, in one line: memory, then each target, then the
        servers ("fits in memory · misses the 30-day target: 9 servers needed")."""
        return headline(self)

    low_bytes: float | None = None
    high_bytes: float | None = None
    #: Training (True) or serving: what the tight-memory advice speaks of.
    training: bool = False

    @property
    def memory(self) -> MemoryFit:
        """The three-way memory verdict over the estimate's range."""
        low = self.need_bytes if self.low_bytes is None else self.low_bytes
        high = self.need_bytes if self.high_bytes is None else self.high_bytes
        return memory_fit(low, self.need_bytes, high, self.usable_bytes)

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

    def to_json(self) -> dict:
        """The verdict as the CLI's ``validate --json`` ``workload`` object (docs/CLI.md)."""
        t = self.target
        sv = self.serving
        return {
            "fits": self.fits,
            "gpu": self.gpu,
            "gpus": self.gpus,
            "memory_per_gpu_bytes": self.need_bytes,
            "usable_bytes": self.usable_bytes,
            "min_gpus": self.min_gpus,
            "time": None
            if self.train_hours is None
            else {
                "train_hours": self.train_hours,
                "target_days": None if t is None else t.target_days,
                "meets_target": None if t is None else t.met,
            },
            "serving": None
            if sv is None
            else {
                "users": sv.users,
                "max_users": sv.max_users,
                "fits_users": sv.fits_users,
                "ttft_s": sv.ttft_s,
                "tokens_per_s_per_user": sv.tokens_per_s_per_user,
                "tokens_per_user_s_target": sv.tokens_per_user_s_target,
                "tokens_per_s_per_server": sv.tokens_per_s_per_server,
            },
            "servers": self.servers,
            "status": self.status,
            "headline": self.headline,
            "sizing": self.sizing.to_json() if self.sizing is not None else None,
        }


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def _memory_part(v: Verdict) -> tuple[str, bool]:
    """(words, missed on one server)."""
    sz = v.sizing
    need = sz.need("memory") if sz is not None else None
    if not v.fits:
        return "does not fit in memory", True
    if sz is not None and need is not None and need.servers is not None and need.servers > 1:
        return f"tight in memory (fits only inside the {_pct(sz.margin.memory)} margin)", True
    if v.memory == "tight":
        # the three-way verdict (engine.estimate.memory_range): never "fits" over a tight range
        high = v.need_bytes if v.high_bytes is None else v.high_bytes
        what = tight_advice(v.training)
        return (
            f"tight in memory (the estimate fits, the high end of its range, "
            f"{high / 2**30:,.1f} GiB, does not: {what})",
            False,
        )
    spare = 1 - v.need_bytes / v.usable_bytes if v.usable_bytes else 0.0
    return f"fits in memory ({_pct(spare)} spare)", False


def _target_part(v: Verdict, kind: str, what: str) -> tuple[str, bool] | None:
    """('meets WHAT with X % margin' / 'tight on WHAT' / 'misses WHAT', missed on one server)."""
    sz = v.sizing
    need = sz.need(kind) if sz is not None else None  # type: ignore[arg-type]
    if sz is None or need is None:
        return None
    if not need.known:
        return f"{what}: unknown", False
    if need.servers == 1:
        return f"meets {what}{_slack(v, kind)}", False
    if need.bare == 1:
        return f"tight on {what} (met only inside the {_pct(_margin(sz, kind))} margin)", True
    if need.servers is None and need.bare is None:
        return f"misses {what}: out of reach on servers like this", False
    return f"misses {what}", True


def _margin(sz: Sizing, kind: str) -> float:
    return {"memory": sz.margin.memory, "time": sz.margin.time}.get(kind, sz.margin.serving)


def _slack(v: Verdict, kind: str) -> str:
    """' with X % margin': how far the one-server estimate beats the target."""
    if kind == "time" and v.target is not None and v.train_hours:
        return f" with {_pct(v.target.target_hours / v.train_hours - 1)} margin"
    sv = v.serving
    if kind == "serving" and sv is not None and sv.tokens_per_user_s_target:
        return f" with {_pct(sv.tokens_per_s_per_user / sv.tokens_per_user_s_target - 1)} margin"
    return ""


def headline(v: Verdict) -> str:
    parts: list[tuple[str, bool] | None] = [_memory_part(v)]
    if v.target is not None:
        parts.append(_target_part(v, "time", f"the {v.target.target_days:g}-day target"))
    sv = v.serving
    if sv is not None and sv.tokens_per_user_s_target:
        what = f"{sv.tokens_per_user_s_target:g} tokens/s for {sv.users:,} users"
        parts.append(_target_part(v, "serving", what))
    elif sv is not None and v.sizing is not None and v.sizing.need("serving") is not None:
        parts.append(_target_part(v, "serving", f"{sv.users:,} users"))
    words = [p for p in parts if p is not None]
    sz = v.sizing
    tail = ""
    if sz is not None and sz.servers is None and sz.problem:
        tail = sz.short_problem or f"cannot size: {sz.problem}"
    elif sz is not None and sz.servers is not None and sz.servers > 1:
        count = f"{sz.servers:,} servers needed"
        missed = [i for i, (_, miss) in enumerate(words) if miss]
        if missed:
            i = missed[-1]
            words[i] = (f"{words[i][0]}: {count}", True)
        else:
            tail = count
    elif sz is not None and sz.servers == 1:
        tail = "1 server"
    texts = [t for t, _ in words] + ([tail] if tail else [])
    return " · ".join(texts)


def verdict(
    est: Estimate,
    workload: Workload | None,
    sizing: Sizing | None = None,
    *,
    target: TargetCheck | None = None,
) -> Verdict:
    """What ``est`` means for the build; ``target`` is ``target_check(workload,
    est.train_hours)`` when the caller already has it (None: worked out here)."""
    return Verdict(
        fits=est.fits,
        gpu=est.gpu,
        gpus=est.gpus,
        need_bytes=est.memory_per_gpu.total_bytes,
        capacity_bytes=est.gpu_memory_bytes,
        usable_bytes=est.usable_bytes,
        min_gpus=est.min_gpus,
        train_hours=est.train_hours,
        target=target if target is not None else target_check(workload, est.train_hours),
        decode_tokens_per_s=est.decode_tokens_per_s,
        serving=est.serving,
        gpus_for_target=est.gpus_for_target_days,
        sizing=sizing,
        low_bytes=est.memory_per_gpu.low_bytes,
        high_bytes=est.memory_per_gpu.high_bytes,
        training=bool(workload is not None and workload.training),
    )
