"""What a config.json says about the stored weights (the precision inference serves them in).

A checkpoint quantized ahead of time says so in its config.json ``quantization_config``; the
serving stacks (vLLM, SGLang, transformers) then keep the weights in that format on the GPU:

* ``"quant_method": "fp8"`` (DeepSeek-V3 / R1 block-wise FP8, transformers ``FineGrainedFP8``,
  vLLM ``Fp8Config``) and ``"fbgemm_fp8"`` (Meta's Llama 3.1 405B FP8): 1 byte per weight;
* ``"compressed-tensors"`` (llm-compressor, Neural Magic / Red Hat) with 8-bit float weights in
  its ``config_groups`` (``{"weights": {"type": "float", "num_bits": 8}}``): 1 byte per weight;
* 4-bit formats (``gptq``, ``awq``, ``bitsandbytes`` 4-bit, compressed-tensors int4) have no
  ``--precision`` in slotwise; the caller is told the estimate is for the precision it used.

Read once when the model is resolved (engine.model.resolve puts it on the architecture as
``stored_precision`` / ``stored_format``); engine.estimate.checkpoint.served_workload decides
from it how inference serves the weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FP8_METHODS = frozenset({"fp8", "fbgemm_fp8"})
FOUR_BIT_METHODS = frozenset({"gptq", "awq", "aqlm", "hqq", "eetq", "bitnet"})


@dataclass(frozen=True)
class CheckpointFormat:
    """``precision`` is the slotwise precision the weights are stored in (None: not one of ours
    or not stated); ``note`` says what was found, for the user."""

    precision: str | None
    note: str | None


def _compressed_tensors_bits(qc: dict[str, Any]) -> tuple[str | None, int | None]:
    groups = qc.get("config_groups")
    if not isinstance(groups, dict):
        return None, None
    for group in groups.values():
        weights = group.get("weights") if isinstance(group, dict) else None
        if isinstance(weights, dict):
            kind = weights.get("type")
            bits = weights.get("num_bits")
            return (kind if isinstance(kind, str) else None), (
                bits if isinstance(bits, int) else None
            )
    return None, None


def checkpoint_format(cfg: dict[str, Any]) -> CheckpointFormat:
    """The stored-weight format of a config.json (see the module docstring)."""
    qc = cfg.get("quantization_config")
    if not isinstance(qc, dict):
        text = cfg.get("text_config")
        if isinstance(text, dict) and isinstance(text.get("quantization_config"), dict):
            qc = text["quantization_config"]
        else:
            return CheckpointFormat(None, None)
    method = str(qc.get("quant_method") or "").lower()
    if method in FP8_METHODS:
        return CheckpointFormat("fp8", f"config.json quantization_config: {method} weights")
    if method == "compressed-tensors":
        kind, bits = _compressed_tensors_bits(qc)
        if kind == "float" and bits == 8:
            return CheckpointFormat("fp8", "config.json quantization_config: FP8 weights")
        if bits is not None and bits <= 4:
            return CheckpointFormat(None, f"config.json quantization_config: {bits}-bit weights")
        return CheckpointFormat(None, None)
    if method == "bitsandbytes" and qc.get("load_in_4bit"):
        return CheckpointFormat(None, "config.json quantization_config: bitsandbytes 4-bit")
    if method in FOUR_BIT_METHODS:
        bits = qc.get("bits") or qc.get("w_bit") or qc.get("nbits")
        shown = f"{bits}-bit " if isinstance(bits, int) else ""
        return CheckpointFormat(None, f"config.json quantization_config: {shown}{method} weights")
    return CheckpointFormat(None, None)
