"""How a workload's weights are served: the one decision on "auto" precision.

A workload whose precision is ``"auto"`` (not chosen by the user: the CLI without
``--precision``, the app's "auto", a BOM saying ``precision = "auto"``) is estimated in

* FP8 for inference of a checkpoint stored in FP8 (its config.json ``quantization_config``,
  read by :mod:`engine.model.checkpoint` when the model is resolved): vLLM, SGLang and
  transformers keep such weights in FP8 on the GPU (vLLM ``Fp8Config`` / fbgemm_fp8 / the
  compressed-tensors FP8 scheme);
* bf16 otherwise, and always for training: fine-tuning recipes load an FP8 checkpoint
  dequantized to bf16 (transformers ``FineGrainedFP8`` dequantizes for training; torchtune and
  Unsloth load the bf16 weights).

A precision the user chose is kept.  :func:`engine.estimate.estimate` and
:func:`engine.estimate.suggest_changes` call :func:`served_workload` first, so ``validate``,
``estimate``, ``suggest``, ``compare``, the app and the exports all estimate the same thing, and
the estimate's assumptions say what was decided and why.
"""

from __future__ import annotations

from typing import Any

from slotwise.engine.inputs import ref
from slotwise.engine.model.checkpoint import CheckpointFormat, checkpoint_format

__all__ = ["CheckpointFormat", "checkpoint_format", "served_precision", "served_workload"]


def served_precision(workload: Any, arch: Any) -> tuple[str, str | None]:
    """(the precision ``workload`` is estimated in, the decision in words or None)."""
    if workload.precision != "auto":
        return workload.precision, None
    stored = getattr(arch, "stored_precision", None)
    found = getattr(arch, "stored_format", None)
    if workload.training:
        if stored:
            return "bf16", (
                f"precision auto: trained in bf16 (the {found or stored + ' checkpoint'} is "
                f"loaded dequantized for training; set {ref('precision')} to choose)"
            )
        return "bf16", None
    if stored:
        return stored, (
            f"served in {stored.upper()} because the checkpoint is stored in {stored.upper()} "
            f"({found}); set {ref('precision')} to override"
        )
    if found:
        return "bf16", (
            f"{found}: slotwise has no 4-bit serving precision, so the weights are estimated "
            "in bf16 (several times what the checkpoint needs)"
        )
    return "bf16", None


def served_workload(workload: Any, arch: Any) -> tuple[Any, str | None]:
    """(the workload as it is estimated, the decision in words or None): ``"auto"`` precision
    resolved against the model's stored format (see the module docstring)."""
    precision, note = served_precision(workload, arch)
    if precision != workload.precision:
        workload = workload.model_copy(update={"precision": precision})
    return workload, note
