"""The estimator's defaults before trainer profiles (issue 23), for the mechanism tests written
against them: the Hugging Face stack of 2024 (``trl@2024``: full fp32-upcast loss, no per-module
input cast, fp32 adapters) with recompute on and a LoRA dropout assumed on.  Tests that build
workloads with ``W(...)`` / ``PRE`` test one mechanism against that fixed baseline, so a change
of the ``generic`` profile does not move them."""

from __future__ import annotations

from slotwise.engine.workload import Workload
from slotwise.engine.workload.trainers import resolve_trainer

PRE: dict = {
    "trainer": "trl@2024",
    "trainer_overrides": {"gradient_checkpointing": "always", "lora_dropout": 0.05},
}


def pre(**kw) -> dict:
    """``kw`` on the pre-profile baseline (``kw`` wins; its overrides are merged)."""
    out = {**PRE, **kw}
    out["trainer_overrides"] = {**PRE["trainer_overrides"], **kw.get("trainer_overrides", {})}
    return out


def W(gpus: int = 1, **kw) -> Workload:
    """A resolved workload on the pre-profile baseline (for the estimator's inner functions)."""
    return resolve_trainer(Workload(**pre(**kw)), gpus)
