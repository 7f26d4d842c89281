"""Compute per token, training time and inference speed.

Origins:

* Training FLOPs per token ``6N`` (forward 2N, backward 4N; Kaplan et al. 2020, "Scaling Laws
  for Neural Language Models", arXiv:2001.08361, section 2.1), where N counts the weights that
  take part in matmuls: every active parameter except the input embedding (a lookup), plus the
  output projection when it is tied to the embedding.  Attention adds ``12 L H Q T`` per token
  (PaLM, Chowdhery et al. 2022, arXiv:2204.02311, appendix B: the MFU definition Meta and
  others use), written here as ``6 L T (q_dim + o_dim)`` so MLA's unequal q/v head widths count
  right.
* LoRA / QLoRA: the frozen base still runs forward (2N) and backpropagates activation gradients
  (2N) but computes no weight gradients (the other 2N), so ``4N`` plus ``6 N_adapter``
  (LoRA paper, Hu et al. 2021, section 4.2 reports the resulting ~25 % speed-up on GPT-3 175B).
* Activation recompute re-runs the forward: ``+2N`` and a third of the attention term (Chen et
  al. 2016).  These are hardware FLOPs: they cost time but are not counted in MFU.
* Training time: :mod:`engine.estimate.throughput` (step time from compute, memory-bound work,
  communication and fixed costs); with ``--mfu`` given, time = tokens x model FLOPs /
  (GPUs x dense peak x MFU), the 6ND rule.  Peak is the GPU's dense BF16 figure (FP8 figure for
  ``--precision fp8``, FP32 for fp32).
* Decode is memory-bound: each generated token reads this GPU's share of the weights and the
  KV cache once, so step time = bytes / (bandwidth x MBU), bounded below by the step's FLOPs at
  the training MFU (Pope et al. 2022, "Efficiently Scaling Transformer Inference",
  arXiv:2211.05102, section 2).  Prefill is compute-bound: 2N + attention FLOPs per prompt
  token at the MFU.
"""

from __future__ import annotations

from dataclasses import dataclass

from slotwise.engine.estimate.activations import layer_dims
from slotwise.engine.model.params import ParamCounts, lora_params
from slotwise.engine.workload import Workload
from slotwise.parts.schema import Gpu, ModelPreset


@dataclass(frozen=True)
class Flops:
    """FLOPs per token: ``model`` (what MFU counts) and ``recompute`` (extra hardware FLOPs).
    ``attention`` is the part of ``model`` spent in attention scores (QK^T, AV); the rest are
    linear-layer (matmul) FLOPs, the part FP8 speeds up."""

    model: float
    recompute: float
    forward: float
    attention: float = 0.0

    @property
    def linear(self) -> float:
        return self.model - self.attention

    @property
    def recompute_linear(self) -> float:
        """The linear (matmul) part of the recompute FLOPs: the forward's 2N."""
        return max(0.0, self.recompute - self.attention / 3.0) if self.recompute else 0.0

    @property
    def hardware(self) -> float:
        return self.model + self.recompute


def matmul_params(arch: ModelPreset, counts: ParamCounts) -> float:
    """Weights that take part in matmuls for one token (see module docstring)."""
    n = counts.active - counts.embedding
    if arch.tie_word_embeddings:
        n += arch.vocab_size * arch.hidden_size
    return float(n)


def attention_flops_fwd(arch: ModelPreset, seq_len: int) -> float:
    """Forward attention FLOPs per token: QK^T and AV, ``2 L T (q_dim + o_dim)``, where ``L``
    counts the attention layers only: a Mamba mixer's scan is linear in the sequence and its
    matmuls are already in ``2N`` (Gu & Dao 2023, arXiv:2312.00752, section 3.3), and an
    MLP-only block (Nemotron-H ``-``) has no attention."""
    d = layer_dims(arch)
    return 2.0 * d.attention_layers * seq_len * (d.q_dim + d.o_dim)


def flops_per_token(arch: ModelPreset, workload: Workload, counts: ParamCounts) -> Flops:
    n = matmul_params(arch, counts)
    attn_fwd = attention_flops_fwd(arch, workload.seq_len)
    forward = 2.0 * n + attn_fwd
    if not workload.training:
        return Flops(model=forward, recompute=0.0, forward=forward, attention=attn_fwd)
    if workload.method in ("lora", "qlora"):
        adapter = lora_params(arch, workload.lora_targets, workload.lora_rank)
        model = 4.0 * n + 6.0 * adapter + 3.0 * attn_fwd
    else:
        model = 6.0 * n + 3.0 * attn_fwd
    recompute = forward if workload.checkpointing else 0.0
    return Flops(model=model, recompute=recompute, forward=forward, attention=3.0 * attn_fwd)


def decode_weight_params(arch: ModelPreset, counts: ParamCounts, sequences: int) -> float:
    """Weights one decode step reads: everything a token uses, and for MoE the routed experts
    any of the ``sequences`` tokens picks.  With uniform routing of top-k of E experts, a
    given expert is idle for all B tokens with probability (1 - k/E)^B, so the expected share
    of routed experts read is 1 - (1 - k/E)^B (all of them for large batches).  One routed
    expert's weights are ``counts.routed_expert`` as :func:`~engine.model.params.count_params`
    builds them: 3 h i for a SwiGLU expert, 2 h i for Nemotron-H's two-matrix ReLU² experts,
    plus gpt-oss's per-expert biases."""
    if not counts.moe_layers or not arch.num_experts:
        return float(counts.active)
    experts = arch.num_experts
    k = min(arch.num_experts_per_tok or experts, experts)
    per_expert = counts.routed_expert
    routed_all = counts.moe_layers * experts * per_expert
    routed_active = counts.moe_layers * k * per_expert
    share = 1.0 - (1.0 - k / experts) ** max(1, sequences)
    return float(counts.active - routed_active + routed_all * share)


def peak_flops(gpu: Gpu, precision: str) -> tuple[float | None, str]:
    """Dense peak FLOP/s for the precision, and which catalog figure it came from."""
    if precision == "fp8" and gpu.fp8_tflops_dense:
        return gpu.fp8_tflops_dense * 1e12, "fp8_tflops_dense"
    if precision == "fp32" and gpu.fp32_tflops:
        return gpu.fp32_tflops * 1e12, "fp32_tflops"
    if gpu.bf16_tflops_dense:
        return gpu.bf16_tflops_dense * 1e12, "bf16_tflops_dense"
    return None, "bf16_tflops_dense"


def six_nd_seconds(tokens: float, model_flops: float, peak: float, gpus: int, mfu: float) -> float:
    """The 6ND rule: tokens x model FLOPs per token / (GPUs x peak x MFU)."""
    return tokens * model_flops / (gpus * peak * mfu)


def decode_tokens_per_s(
    *,
    read_bytes_per_step: float,
    bandwidth_bps: float,
    mbu: float,
    step_flops_per_gpu: float,
    peak: float | None,
    mfu: float,
    sequences: int,
) -> float:
    """Aggregate generated tokens/s of ``sequences`` concurrent sequences on the GPU group."""
    t_mem = read_bytes_per_step / (bandwidth_bps * mbu)
    t_compute = step_flops_per_gpu / (peak * mfu) if peak else 0.0
    return sequences / max(t_mem, t_compute)
