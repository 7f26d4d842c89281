"""KV cache and recurrent state per sequence, per layer kind, from the architecture.

Element counts (multiply by the cache dtype's bytes); ``tp`` is the tensor-parallel degree:

* Attention layer (MHA/GQA): K and V of ``num_key_value_heads x head_dim`` per token (GQA:
  Ainslie et al. 2023, arXiv:2305.13245); tensor parallelism splits KV heads over ranks, never
  below one head per rank.
* MLA (DeepSeek-V2/V3, Kimi K2): one latent of ``kv_lora_rank + qk_rope_head_dim`` per token
  (DeepSeek-V2, arXiv:2405.04434, section 2.1.2), replicated on every rank.
* Sliding-window layers (Mistral v0.1, Gemma 2/3, gpt-oss, Cohere 2, OLMo 3) keep at most
  ``sliding_window`` tokens; Llama 4's chunked layers at most ``attention_chunk_size``
  (``transformers`` ``HybridCache`` / ``SlidingWindowLayer``, and vLLM's hybrid allocator).
* Mamba layers hold no KV cache but a fixed state per sequence, whatever its length:
  Mamba-1 ``d_inner x (conv_kernel + state_size)``; Mamba-2 ``(d_inner + 2 groups state) x
  conv_kernel + d_inner x state_size`` (``MambaCache`` / ``Mamba2`` cache shapes: conv states
  of ``conv_kernel`` columns and the SSM state), split over tp like the heads.
* DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5) adds its lightning indexer's key cache:
  ``index_head_dim`` per token in every layer that runs an indexer.
* Gated DeltaNet layers (Qwen3-Next, Qwen3.5 ``linear_attention``) likewise: a conv state of
  ``(2 x key_dim + value_dim) x conv_kernel`` and a recurrent state of ``value_heads x
  key_head_dim x value_head_dim`` (``Qwen3_5DynamicCache`` conv_states / recurrent_states).
"""

from __future__ import annotations

import math
from collections import Counter

from slotwise.engine.model.params import head_dim, is_attention, is_mla, mixer_types
from slotwise.parts.schema import ModelPreset


def kv_elements_per_token(arch: ModelPreset, *, tp: int = 1) -> int:
    """K/V elements one token adds on one GPU when no layer's window is full."""
    kv = sum(_per_token(arch, tp) for m in mixer_types(arch) if is_attention(m))
    return kv + _indexer_keys_per_token(arch)


def _indexer_keys_per_token(arch: ModelPreset) -> int:
    """DeepSeek Sparse Attention: each layer's lightning indexer caches one key of
    ``indexer_head_dim`` per token (vLLM's indexer K cache), replicated on every rank."""
    return arch.indexer_layers * arch.indexer_head_dim


def _per_token(arch: ModelPreset, tp: int) -> int:
    if is_mla(arch):
        return (arch.kv_lora_rank or 0) + (arch.qk_rope_head_dim or 0)
    return 2 * math.ceil(arch.num_key_value_heads / max(1, tp)) * head_dim(arch)


def kv_elements(arch: ModelPreset, seq_len: int, *, tp: int = 1) -> int:
    """K/V elements one sequence of ``seq_len`` tokens keeps on one GPU (windows applied)."""
    per = _per_token(arch, tp)
    full = windowed = 0
    for m, layers in Counter(mixer_types(arch)).items():  # a few kinds, not every layer
        if not is_attention(m):
            continue
        if m != "full_attention" and arch.sliding_window:
            windowed += layers
        else:
            full += layers
    kept = min(seq_len, arch.sliding_window) if arch.sliding_window else seq_len
    return (full * seq_len + windowed * kept) * per + seq_len * _indexer_keys_per_token(arch)


def ssm_state_elements(arch: ModelPreset, *, tp: int = 1) -> int:
    """Recurrent state one sequence keeps on one GPU, summed over the Mamba and Gated DeltaNet
    layers."""
    return _mamba_state(arch, tp) + _linear_attention_state(arch, tp)


def _linear_attention_state(arch: ModelPreset, tp: int) -> int:
    la = arch.linear_attention
    layers = sum(1 for m in mixer_types(arch) if m == "linear_attention")
    if la is None or not layers:
        return 0
    per = (2 * la.key_dim + la.value_dim) * la.conv_kernel
    per += la.value_heads * la.key_head_dim * la.value_head_dim
    return layers * math.ceil(per / max(1, tp))


def _mamba_state(arch: ModelPreset, tp: int) -> int:
    s = arch.ssm
    if s is None:
        return 0
    layers = sum(1 for m in mixer_types(arch) if m.startswith("mamba"))
    if s.version == 1:
        per = s.d_inner * (s.conv_kernel + s.state_size)
    else:
        conv_dim = s.d_inner + 2 * s.n_groups * s.state_size
        per = conv_dim * s.conv_kernel + s.d_inner * s.state_size
    return layers * math.ceil(per / max(1, tp))
