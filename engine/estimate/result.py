"""What :func:`engine.estimate.estimate` returns: the estimate and the assumptions behind it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from slotwise.engine.estimate.memory import MemoryBreakdown
from slotwise.engine.estimate.memory_range import memory_fit
from slotwise.engine.estimate.serving import Serving
from slotwise.engine.estimate.throughput import DP_OVERLAP, TP_OVERLAP


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
    #: The precision the weights were estimated in: the workload's, or what "auto" resolved to
    #: (engine.estimate.checkpoint.served_workload; the decision is the first of ``notes``).
    precision: str = "bf16"
    #: Why, when "auto" was resolved against the checkpoint's stored format (None otherwise).
    precision_note: str | None = None


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
                "precision": self.assumptions.precision,
                "precision_note": self.assumptions.precision_note,
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
