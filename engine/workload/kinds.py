"""The choices a workload field takes, as types, and how a count is read ("1T", "300B") (the CLI's choices and the app's selects are
read from them in ``engine.workload``). Apart from the Workload model so that the trainer
profiles (``engine.workload.trainers``) can use them without importing the model that uses the
profiles: no import cycle."""

from __future__ import annotations

from typing import Literal

Method = Literal["inference", "lora", "qlora", "full", "pretrain"]
Precision = Literal["bf16", "fp16", "fp32", "fp8"]
#: A workload's precision as given: one of ``Precision``, or "auto" (not chosen: inference of a
#: checkpoint stored in FP8 serves FP8, everything else bf16; engine.estimate.checkpoint decides).
PrecisionChoice = Literal["auto", "bf16", "fp16", "fp32", "fp8"]
Optimizer = Literal["adamw", "adamw-8bit", "paged-adamw-8bit", "sgd"]
Offload = Literal["none", "optimizer", "params"]
Parallel = Literal["ddp", "zero1", "zero2", "zero3"]
#: How a model is served: "optimized" = an engine replaying CUDA graphs (TensorRT-LLM, vLLM,
#: SGLang defaults); "eager" = such an engine without CUDA graphs (vLLM --enforce-eager);
#: "transformers" = plain PyTorch model code (Hugging Face ``generate``), host-bound.
ServingEngine = Literal["optimized", "eager", "transformers"]
KvCacheDtype = Literal["auto", "fp8", "bf16", "fp16", "fp32"]
Loss = Literal["full", "chunked", "fused", "full-16bit"]
CheckpointMode = Literal["full", "selective"]
Nf4Backend = Literal["bitsandbytes", "torchao"]
LoraInputCast = Literal["none", "fp32", "autocast"]
#: How attention runs in training: "fused" = SDPA / FlashAttention (no s x s scores kept);
#: "eager" = matmul + fp32 softmax + matmul, the s x s probabilities saved for the backward.
Attention = Literal["fused", "eager"]
#: The fused attention kernel a trainer runs on Hopper / Blackwell: "flash2" = FlashAttention-2
#: (flash-attn, PyTorch SDPA's flash backend, Triton ports); "cudnn" = a Hopper-native kernel
#: (Transformer Engine's cuDNN fused attention, FlashAttention-3), engine/estimate/throughput.py.
AttentionKernel = Literal["flash2", "cudnn"]
#: How a trainer's layers are launched: "eager" = Python dispatches each op (transformers,
#: PEFT); "fused" = a framework of fused kernels (Megatron-Core + Transformer Engine), whose host
#: time per layer is the pre-training stacks' (engine/estimate/throughput.py ``host_layer_s``).
HostLaunch = Literal["eager", "fused"]


_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}


def parse_count(text: str) -> float:
    """'1T' -> 1e12, '300B' -> 3e11, '2.5M' -> 2.5e6, '1000' -> 1000."""
    t = text.strip().replace("_", "").replace(",", "")
    if not t:
        raise ValueError("empty number")
    mult = 1.0
    if t[-1].lower() in _SUFFIX:
        mult = _SUFFIX[t[-1].lower()]
        t = t[:-1]
    value = float(t) * mult
    if value <= 0:
        raise ValueError(f"{text!r} must be positive")
    return value
