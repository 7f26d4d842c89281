"""Hybrids of Gated DeltaNet linear attention and gated softmax attention: Qwen3.5, Qwen3-Next.

Qwen3.5 (``transformers`` ``models/qwen3_5/modular_qwen3_5.py`` and ``models/qwen3_5_moe``; the
same layout as Qwen3-Next) alternates two token mixers, as ``layer_types`` lists them (else
three ``linear_attention`` layers then one ``full_attention``, ``full_attention_interval`` 4):

* ``linear_attention``: ``Qwen3_5GatedDeltaNet`` (Yang et al. 2024, Gated Delta Networks,
  arXiv:2412.06464): ``in_proj_qkv``, ``in_proj_z``, ``in_proj_b``, ``in_proj_a``, a depthwise
  conv over q/k/v, ``dt_bias`` / ``A_log`` per value head, a gated RMSNorm and ``out_proj``
  (counted in :func:`engine.model.params.linear_attention_params_per_layer`); its state per
  sequence is fixed (conv state and a ``value_heads x key_head_dim x value_head_dim`` matrix);
* ``full_attention``: ``Qwen3_5Attention``: ``q_proj`` of ``2 x heads x head_dim`` (the query
  and a sigmoid output gate, ``attn_output_gate``), k/v/o without bias, ``q_norm`` / ``k_norm``
  over ``head_dim``.

Every layer has two RMSNorms and an FFN: a SwiGLU MLP (Qwen3.5) or a sparse block of
``num_experts`` experts of ``moe_intermediate_size`` plus a shared expert of
``shared_expert_intermediate_size`` with its ``shared_expert_gate`` (Qwen3.5-MoE).  The
multi-token-prediction layers (``mtp_num_hidden_layers``) are not counted: the published
checkpoint totals (27,356,728,560 for Qwen3.5-27B) leave them out.  Defaults are those of
``Qwen3_5TextConfig`` / ``Qwen3_5MoeTextConfig``.

Qwen3-Next (``models/qwen3_next/modular_qwen3_next.py``; ``Qwen3NextConfig`` read at code index
id 52144326156: vocab 151936, hidden 2048, intermediate 5632, 48 layers, 16 heads, 2 KV heads,
head_dim 256, 512 experts top 10 of 512, shared expert 512, ``decoder_sparse_step`` 1,
``mlp_only_layers`` []) is the same layout with the Gated DeltaNet projections fused
(``in_proj_qkvz``, ``in_proj_ba``: the same weights) and Qwen2-MoE's choice of FFN per layer: a
layer is sparse unless it is in ``mlp_only_layers`` or ``(i + 1) % decoder_sparse_step != 0``,
where it has a SwiGLU MLP of ``intermediate_size``.

The memory estimate treats a Gated DeltaNet layer as a recurrent mixer (like Mamba: no KV
cache, a fixed state); the activations it saves for the backward are an analogy with the
Mamba-2 rule (see :func:`engine.estimate.activations._ssm_widths`), not a measured figure.
"""

from __future__ import annotations

from typing import Any

from slotwise.engine.model.arch.common import Fields
from slotwise.engine.model.arch.reader import ConfigReader

# Qwen3_5TextConfig (configuration_qwen3_5.py).
QWEN3_5 = {
    "vocab_size": 248320,
    "hidden_size": 4096,
    "intermediate_size": 12288,
    "num_hidden_layers": 32,
    "num_attention_heads": 16,
    "num_key_value_heads": 4,
    "head_dim": 256,
}
# Qwen3_5MoeTextConfig (configuration_qwen3_5_moe.py).
QWEN3_5_MOE = {
    "vocab_size": 248320,
    "hidden_size": 2048,
    "num_hidden_layers": 40,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "head_dim": 256,
}
LINEAR_KINDS = ("linear_attention", "full_attention")


def _layer_types(r: ConfigReader, n: int) -> tuple[str, ...]:
    value = r.cfg.get("layer_types")
    if value is None:
        interval = r.num("full_attention_interval", default=4)
        return tuple(
            "linear_attention" if (i + 1) % interval else "full_attention" for i in range(n)
        )
    if not isinstance(value, list) or len(value) != n or not set(value) <= set(LINEAR_KINDS):
        r.bad.append(f"layer_types (must list {n} entries of {', '.join(LINEAR_KINDS)})")
        return ("full_attention",) * n
    return tuple(value)


def _hybrid(r: ConfigReader, d: dict[str, Any]) -> Fields:
    n = r.num("num_hidden_layers", default=d["num_hidden_layers"])
    heads = r.num("num_attention_heads", default=d["num_attention_heads"])
    f: Fields = {
        "hidden_size": r.num("hidden_size", default=d["hidden_size"]),
        "num_hidden_layers": n,
        "num_attention_heads": heads,
        "num_key_value_heads": r.num("num_key_value_heads", default=d["num_key_value_heads"]),
        "head_dim": r.num("head_dim", default=d["head_dim"]),
        "vocab_size": r.num("vocab_size", default=d["vocab_size"]),
        "tie_word_embeddings": r.flag("tie_word_embeddings", default=False),
        "attention_bias": r.flag("attention_bias", default=False),
        "qk_norm": "head",
        "attention_output_gate": r.flag("attn_output_gate", default=True),
        "layer_types": _layer_types(r, n),
        "linear_attention": {
            "key_heads": r.num("linear_num_key_heads", default=16),
            "value_heads": r.num("linear_num_value_heads", default=32),
            "key_head_dim": r.num("linear_key_head_dim", default=128),
            "value_head_dim": r.num("linear_value_head_dim", default=128),
            "conv_kernel": r.num("linear_conv_kernel_dim", default=4),
        },
    }
    mp = r.opt_int("max_position_embeddings", minimum=1)
    if mp:
        f["max_position_embeddings"] = mp
    mtp = r.opt_int("mtp_num_hidden_layers")
    if mtp:
        r.notes.append(f"{mtp} multi-token-prediction layer(s) not counted")
    kinds = f["layer_types"]
    r.notes.append(
        f"Gated DeltaNet hybrid: {kinds.count('linear_attention')} linear-attention and "
        f"{kinds.count('full_attention')} gated full-attention layers"
    )
    return f


def qwen3_5_text(r: ConfigReader) -> Fields:
    f = _hybrid(r, QWEN3_5)
    f["intermediate_size"] = r.num("intermediate_size", default=QWEN3_5["intermediate_size"])
    return f


def qwen3_5_moe_text(r: ConfigReader) -> Fields:
    f = _hybrid(r, QWEN3_5_MOE)
    n = f["num_hidden_layers"]
    f["intermediate_size"] = 0  # no dense MLP: every layer is sparse
    f["num_experts"] = r.num("num_experts", default=256)
    f["num_experts_per_tok"] = r.num("num_experts_per_tok", default=8)
    f["moe_intermediate_size"] = r.num("moe_intermediate_size", default=512)
    shared = r.num("shared_expert_intermediate_size", default=512, minimum=0)
    f["shared_expert_intermediate_size"] = shared
    f["shared_expert_gate"] = shared > 0
    dense = set(r.int_list("mlp_only_layers") or [])
    if dense:
        r.bad.append(
            f"mlp_only_layers={sorted(dense)} (Qwen3.5-MoE layers are all sparse; a dense layer's "
            "width is not in this config)"
        )
    f["mlp_layer_types"] = ("moe",) * n
    return f


# Qwen3NextConfig (configuration_qwen3_next.py).
QWEN3_NEXT = {
    "vocab_size": 151936,
    "hidden_size": 2048,
    "num_hidden_layers": 48,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "head_dim": 256,
}


def qwen3_next(r: ConfigReader) -> Fields:
    f = _hybrid(r, QWEN3_NEXT)
    n = f["num_hidden_layers"]
    experts = r.num("num_experts", default=512, minimum=0)
    step = r.num("decoder_sparse_step", default=1)
    dense = set(r.int_list("mlp_only_layers") or [])
    kinds = tuple(
        "moe" if experts and i not in dense and (i + 1) % step == 0 else "dense" for i in range(n)
    )
    f["intermediate_size"] = r.num("intermediate_size", default=5632) if "dense" in kinds else 0
    f["mlp_layer_types"] = kinds
    if "moe" in kinds:
        f["num_experts"] = experts
        f["num_experts_per_tok"] = r.num("num_experts_per_tok", default=10)
        f["moe_intermediate_size"] = r.num("moe_intermediate_size", default=512)
        shared = r.num("shared_expert_intermediate_size", default=512, minimum=0)
        f["shared_expert_intermediate_size"] = shared
        f["shared_expert_gate"] = shared > 0
    return f
