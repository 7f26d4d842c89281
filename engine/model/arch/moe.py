"""Mixture-of-experts families: which layers are sparse, what a MoE block holds.

Per family (``modeling_<family>.py`` of ``transformers``, or the checkpoint's remote code):

* Mixtral: every layer is a MoE block of ``num_local_experts`` SwiGLU experts, router without
  bias.  MiniCPM-MoE (remote code) is the same with ``num_experts``.
* Qwen2-MoE: layer ``i`` is sparse when ``i`` is not in ``mlp_only_layers`` and
  ``(i + 1) % decoder_sparse_step == 0``; a sparse block has ``num_experts`` experts of
  ``moe_intermediate_size``, one shared expert of ``shared_expert_intermediate_size`` and a
  ``shared_expert_gate`` (``Linear(hidden, 1)``); q/k/v bias as Qwen2.  Qwen3-MoE: the same
  layer rule, no shared expert, q/k norms as Qwen3.
* DeepSeek (V1 MoE), V2, V3, Kimi K2: layer ``i`` is sparse when
  ``i >= first_k_dense_replace`` and ``i % moe_layer_freq == 0``; shared experts are one MLP
  of ``n_shared_experts x moe_intermediate_size``; V2/V3 use multi-head latent attention;
  V3 (and Kimi K2, which ships DeepSeek-V3's modeling code under ``model_type`` kimi_k2) adds
  the router's ``e_score_correction_bias``.  The multi-token-prediction layers
  (``num_nextn_predict_layers``) are not counted (not used for inference or fine-tuning;
  DeepSeek's 671B excludes them).
* Llama 4: MoE layers every ``interleave_moe_layer_step`` (``moe_layers`` when listed), each
  with ``num_local_experts`` experts of ``intermediate_size`` plus one shared expert of the
  same width; dense layers use ``intermediate_size_mlp``; three of four layers use chunked
  attention over ``attention_chunk_size`` (``no_rope_layers``); q/k L2 norms have no weights.
* OLMoE (``OlmoeForCausalLM``, ``models/olmoe``; ``OlmoeConfig`` read at code index id
  52201936270: vocab 50304, hidden 2048, intermediate 2048, 16 layers, 16 heads, KV = heads,
  64 experts top 8, untied, no attention bias): every layer a Mixtral-style sparse block
  (bias-free router, SwiGLU experts of ``intermediate_size``) under attention with OLMo 2's
  q/k RMSNorms over the whole projection (``heads x head_dim`` and ``kv_heads x head_dim``).
* GLM-4.5 / 4.6 / 4.7 (``Glm4MoeForCausalLM``, ``models/glm4_moe/modular_glm4_moe.py`` read at
  code index id 53834075978): DeepSeek-V3's MoE (the first ``first_k_dense_replace`` layers
  dense, then ``n_routed_experts`` experts of ``moe_intermediate_size``, ``n_shared_experts``
  shared, the router's ``e_score_correction_bias``) under GQA attention with ``head_dim``
  (``partial_rotary_factor`` 0.5 adds no weights), bias on q/k/v when ``attention_bias`` (none
  on o_proj) and q/k RMSNorms over ``head_dim`` when ``use_qk_norm``.  ``Glm4MoeConfig``
  defaults are GLM-4.5-Air's (vocab 151552, hidden 4096, intermediate 10944, 46 layers, 96
  heads, 8 KV heads, 128 experts of 1408, top 8, one shared, one dense layer, no bias, no q/k
  norm, untied).  The checkpoint's MTP layer (``num_nextn_predict_layers``; it carries its own
  copy of the embedding and output head) is not counted, as for DeepSeek-V3.
* gpt-oss: every layer is MoE: router ``Linear(hidden, experts, bias=True)``, experts with
  biases on ``gate_up_proj`` and ``down_proj``, attention bias on q/k/v/o, one learned sink
  per head, sliding and full layers alternating (``layer_types``, window 128).
"""

from __future__ import annotations

from slotwise.engine.model.arch.common import (
    Fields,
    add_sliding,
    decoder_fields,
    explicit_layer_types,
)
from slotwise.engine.model.arch.decoders import MISTRAL, QWEN2, QWEN3, REMOTE
from slotwise.engine.model.arch.reader import ConfigReader

MIXTRAL = {**MISTRAL, "num_local_experts": 8, "num_experts_per_tok": 2}
QWEN2_MOE = {
    **QWEN2,
    "hidden_size": 2048,
    "intermediate_size": 5632,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "num_key_value_heads": 16,
}
QWEN3_MOE = {
    **QWEN3,
    "hidden_size": 2048,
    "intermediate_size": 6144,
    "num_hidden_layers": 24,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
}
LLAMA4 = {
    "vocab_size": 202048,
    "hidden_size": 5120,
    "intermediate_size": 8192,
    "num_hidden_layers": 48,
    "num_attention_heads": 40,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "tie_word_embeddings": False,
}
GPT_OSS = {
    "vocab_size": 201088,
    "hidden_size": 2880,
    "intermediate_size": 2880,
    "num_hidden_layers": 36,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "head_dim": 64,
    "tie_word_embeddings": False,
    "attention_bias": True,
}


def _sparse_every(
    n: int, step: int, dense_layers: set[int] | frozenset[int] = frozenset()
) -> tuple[str, ...]:
    return tuple(
        "moe" if i not in dense_layers and step and (i + 1) % step == 0 else "dense"
        for i in range(n)
    )


def mixtral(r: ConfigReader) -> Fields:
    f = decoder_fields(r, MIXTRAL)
    f["num_experts"] = r.num("num_local_experts", default=8)
    f["num_experts_per_tok"] = r.num("num_experts_per_tok", default=2)
    return f


def minicpm(r: ConfigReader) -> Fields:
    f = decoder_fields(r, REMOTE)
    if r.has("num_experts"):
        f["num_experts"] = r.num("num_experts")
        f["num_experts_per_tok"] = r.num("num_experts_per_tok")
    return f


def qwen2_moe(r: ConfigReader) -> Fields:
    f = decoder_fields(r, QWEN2_MOE)
    f.update(attention_qkv_bias=True, attention_out_bias=False)
    n = f["num_hidden_layers"]
    f["num_experts"] = r.num("num_experts", default=60)
    f["num_experts_per_tok"] = r.num("num_experts_per_tok", default=4)
    f["moe_intermediate_size"] = r.num("moe_intermediate_size", default=1408)
    f["shared_expert_intermediate_size"] = r.num(
        "shared_expert_intermediate_size", default=5632, minimum=0
    )
    f["shared_expert_gate"] = f["shared_expert_intermediate_size"] > 0
    step = r.num("decoder_sparse_step", default=1)
    f["mlp_layer_types"] = _sparse_every(n, step, set(r.int_list("mlp_only_layers") or []))
    return f


def qwen3_moe(r: ConfigReader) -> Fields:
    f = decoder_fields(r, QWEN3_MOE)
    f["qk_norm"] = "head"
    n = f["num_hidden_layers"]
    f["num_experts"] = r.num("num_experts", default=128)
    f["num_experts_per_tok"] = r.num("num_experts_per_tok", default=8)
    f["moe_intermediate_size"] = r.num("moe_intermediate_size", default=768)
    step = r.num("decoder_sparse_step", default=1)
    f["mlp_layer_types"] = _sparse_every(n, step, set(r.int_list("mlp_only_layers") or []))
    return f


def _deepseek_moe(r: ConfigReader, f: Fields) -> None:
    n = f["num_hidden_layers"]
    experts = r.opt_int("n_routed_experts", minimum=1)
    if not experts:
        return
    f["num_experts"] = experts
    f["num_experts_per_tok"] = r.num("num_experts_per_tok")
    f["moe_intermediate_size"] = r.num("moe_intermediate_size")
    f["n_shared_experts"] = r.num("n_shared_experts", default=0, minimum=0)
    first = r.num("first_k_dense_replace", default=0, minimum=0)
    freq = r.num("moe_layer_freq", default=1)
    f["first_k_dense_replace"] = first
    f["mlp_layer_types"] = tuple(
        "moe" if i >= first and i % freq == 0 else "dense" for i in range(n)
    )
    mtp = r.opt_int("num_nextn_predict_layers")
    if mtp:
        r.notes.append(f"{mtp} multi-token-prediction layer(s) not counted")


def _mla(r: ConfigReader, f: Fields) -> None:
    if not r.has("kv_lora_rank"):
        return
    f["kv_lora_rank"] = r.num("kv_lora_rank")
    q_rank = r.opt_int("q_lora_rank", minimum=1)
    if q_rank:
        f["q_lora_rank"] = q_rank
    f["qk_nope_head_dim"] = r.num("qk_nope_head_dim")
    f["qk_rope_head_dim"] = r.num("qk_rope_head_dim")
    f["v_head_dim"] = r.num("v_head_dim")


def deepseek(r: ConfigReader) -> Fields:
    f = decoder_fields(r, REMOTE)
    _deepseek_moe(r, f)
    return f


def deepseek_v2(r: ConfigReader) -> Fields:
    f = decoder_fields(r, REMOTE)
    _mla(r, f)
    _deepseek_moe(r, f)
    return f


def deepseek_v3(r: ConfigReader) -> Fields:
    f = deepseek_v2(r)
    if f.get("num_experts"):
        f["router_bias"] = True  # e_score_correction_bias (noaux_tc routing)
    return f


# OlmoeConfig (models/olmoe/configuration_olmoe.py).
OLMOE = {
    "vocab_size": 50304,
    "hidden_size": 2048,
    "intermediate_size": 2048,
    "num_hidden_layers": 16,
    "num_attention_heads": 16,
    "tie_word_embeddings": False,
}


def olmoe(r: ConfigReader) -> Fields:
    f = decoder_fields(r, OLMOE)
    f["qk_norm"] = "full"
    f["num_experts"] = r.num("num_experts", "num_local_experts", default=64)
    f["num_experts_per_tok"] = r.num("num_experts_per_tok", default=8)
    return f


# Glm4MoeConfig (models/glm4_moe/modular_glm4_moe.py).
GLM4_MOE = {
    "vocab_size": 151552,
    "hidden_size": 4096,
    "intermediate_size": 10944,
    "num_hidden_layers": 46,
    "num_attention_heads": 96,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "tie_word_embeddings": False,
}


def glm4_moe(r: ConfigReader) -> Fields:
    f = decoder_fields(r, GLM4_MOE)
    bias = f["attention_bias"]
    f.update(attention_qkv_bias=bias, attention_out_bias=False, attention_bias=False)
    if r.flag("use_qk_norm", default=False):
        f["qk_norm"] = "head"
    n = f["num_hidden_layers"]
    experts = r.num("n_routed_experts", "num_local_experts", default=128)
    first = r.num("first_k_dense_replace", default=1, minimum=0)
    f.update(
        num_experts=experts,
        num_experts_per_tok=r.num("num_experts_per_tok", default=8),
        moe_intermediate_size=r.num("moe_intermediate_size", default=1408),
        n_shared_experts=r.num("n_shared_experts", default=1, minimum=0),
        first_k_dense_replace=first,
        mlp_layer_types=tuple("moe" if i >= first else "dense" for i in range(n)),
        router_bias=True,  # e_score_correction_bias (stored in the checkpoint)
    )
    mtp = r.opt_int("num_nextn_predict_layers")
    if mtp:
        r.notes.append(f"{mtp} multi-token-prediction layer(s) not counted")
    return f


def llama4_text(r: ConfigReader) -> Fields:
    f = decoder_fields(r, LLAMA4)
    n = f["num_hidden_layers"]
    expert_width = f["intermediate_size"]
    f["intermediate_size"] = r.num("intermediate_size_mlp", default=16384)
    f["num_experts"] = r.num("num_local_experts", default=16)
    f["num_experts_per_tok"] = r.num("num_experts_per_tok", default=1)
    f["moe_intermediate_size"] = expert_width
    f["shared_expert_intermediate_size"] = expert_width
    moe_layers = r.int_list("moe_layers")
    if moe_layers is None:
        step = r.num("interleave_moe_layer_step", default=1)
        moe_layers = list(range(step - 1, n, step))
    f["mlp_layer_types"] = tuple("moe" if i in set(moe_layers) else "dense" for i in range(n))
    no_rope = r.int_list("no_rope_layers")
    if no_rope and len(no_rope) == n:
        # Llama4TextDecoderLayer: use_chunked_attention = no_rope_layers[i] (1 = RoPE layer).
        kinds = tuple("chunked_attention" if x else "full_attention" for x in no_rope)
    else:
        kinds = tuple(
            "full_attention" if (i + 1) % 4 == 0 else "chunked_attention" for i in range(n)
        )
    add_sliding(r, f, kinds, default=8192)  # Llama4TextConfig attention_chunk_size
    return f


def gpt_oss(r: ConfigReader) -> Fields:
    f = decoder_fields(r, GPT_OSS)
    n = f["num_hidden_layers"]
    f["num_experts"] = r.num("num_local_experts", "num_experts", default=128)
    f["num_experts_per_tok"] = r.num("num_experts_per_tok", "experts_per_token", default=4)
    f.update(router_bias=True, expert_bias=True, attention_sinks=True)
    kinds = explicit_layer_types(r, n) or tuple(
        "sliding_attention" if i % 2 == 0 else "full_attention" for i in range(n)
    )
    add_sliding(r, f, kinds, default=128)
    return f


# MiniMaxM2Config.__init__ defaults (models/minimax_m2/modular_minimax_m2.py).
MINIMAX_M2 = {
    "vocab_size": 200064,
    "hidden_size": 3072,
    "intermediate_size": 1536,
    "num_hidden_layers": 62,
    "num_attention_heads": 48,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "tie_word_embeddings": False,
}


def minimax_m2(r: ConfigReader) -> Fields:
    """MiniMax-M2 / M2.1 / M2.5 (``modular_minimax_m2.py``): every layer is a Mixtral-style
    sparse block of ``num_local_experts`` SwiGLU experts of ``intermediate_size`` with a sigmoid
    router and its ``e_score_correction_bias`` (a buffer the checkpoint stores); attention is
    ``FlexOlmoAttention`` (q/k/v/o without bias, ``q_norm`` over ``heads x head_dim`` and
    ``k_norm`` over ``kv_heads x head_dim`` when ``use_qk_norm``).  The multi-token-prediction
    modules (``use_mtp``, ``num_mtp_modules``) are not counted, as for DeepSeek."""
    f = decoder_fields(r, MINIMAX_M2)
    f["num_experts"] = r.num("num_local_experts", "num_experts", default=256)
    f["num_experts_per_tok"] = r.num("num_experts_per_tok", default=8)
    f["moe_intermediate_size"] = f["intermediate_size"]
    f["intermediate_size"] = 0  # no dense MLP: every layer is sparse
    f["router_bias"] = True
    shared = r.num("shared_intermediate_size", default=0, minimum=0)
    if shared:
        r.bad.append(
            f"shared_intermediate_size={shared} (MiniMax-M2 has no shared expert; "
            "slotwise does not know this layout)"
        )
    if r.flag("use_qk_norm", default=True):
        f["qk_norm"] = "full"
    if r.flag("use_mtp", default=False):
        r.notes.append(
            f"{r.num('num_mtp_modules', default=1)} multi-token-prediction module(s) not counted"
        )
    return f


# Qwen3VLMoeTextConfig defaults (models/qwen3_vl_moe/configuration_qwen3_vl_moe.py): not
# Qwen3-MoE's; head_dim defaults to hidden_size // num_attention_heads.
QWEN3_VL_MOE = {
    "vocab_size": 151936,
    "hidden_size": 2048,
    "intermediate_size": 5632,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "num_key_value_heads": 16,
    "tie_word_embeddings": True,
}


def qwen3_vl_moe_text(r: ConfigReader) -> Fields:
    """The language model of Qwen3-VL-MoE (``Qwen3VLMoeTextModel``): Qwen3-MoE's layout (q/k
    norms over ``head_dim``, sparse layers by ``decoder_sparse_step`` / ``mlp_only_layers``,
    no shared expert) with its own config defaults."""
    f = decoder_fields(r, QWEN3_VL_MOE)
    f["qk_norm"] = "head"
    n = f["num_hidden_layers"]
    f["num_experts"] = r.num("num_experts", "num_local_experts", default=60)
    f["num_experts_per_tok"] = r.num("num_experts_per_tok", default=4)
    f["moe_intermediate_size"] = r.num("moe_intermediate_size", default=1408)
    step = r.num("decoder_sparse_step", default=1)
    f["mlp_layer_types"] = _sparse_every(n, step, set(r.int_list("mlp_only_layers") or []))
    return f


def _dsa_indexers(r: ConfigReader, f: Fields, n: int, *, heads: int) -> None:
    """DeepSeek Sparse Attention: a lightning indexer of ``index_n_heads`` x ``index_head_dim``
    in every layer (DeepSeek-V3.2), or only in the ``"full"`` layers of ``indexer_types`` (GLM-5:
    ``GlmMoeDsaConfig`` derives the list from ``index_topk_pattern``, else from
    ``index_topk_freq`` / ``index_skip_topk_offset``, which default to an indexer everywhere).
    ``heads`` is the config class default (DeepseekV32Config 64, GlmMoeDsaConfig 32)."""
    f["indexer_heads"] = r.num("index_n_heads", default=heads)
    f["indexer_head_dim"] = r.num("index_head_dim", default=128)
    kinds = r.cfg.get("indexer_types")
    pattern = r.cfg.get("index_topk_pattern")
    if kinds is None and isinstance(pattern, str):
        kinds = [{"F": "full", "S": "shared"}.get(c, c) for c in pattern]
    elif kinds is None and isinstance(pattern, list):
        kinds = pattern
    if kinds is None:
        freq = max(r.num("index_topk_freq", default=1), 1)
        offset = r.num("index_skip_topk_offset", default=2, minimum=0)
        kinds = ["full" if max(i - offset + 1, 0) % freq == 0 else "shared" for i in range(n)]
    if not isinstance(kinds, list) or len(kinds) != n or not set(kinds) <= {"full", "shared"}:
        r.bad.append(f"indexer_types (must list {n} entries of full, shared)")
        kinds = []
    f["indexer_layers"] = kinds.count("full")
    r.notes.append(
        f"DeepSeek Sparse Attention: {f['indexer_layers']} lightning indexers of "
        f"{f['indexer_heads']} x {f['indexer_head_dim']}; their key cache is in the KV cache"
    )


def deepseek_v32(r: ConfigReader) -> Fields:
    """DeepSeek-V3.2 (``modeling_deepseek_v32.py``): DeepSeek-V3's MLA + MoE layout with a
    lightning indexer in every layer (``DeepseekV32Indexer``: ``wq_b`` from the query latent,
    ``wk``, ``k_norm`` LayerNorm, ``weights_proj``)."""
    f = deepseek_v3(r)
    _dsa_indexers(r, f, f["num_hidden_layers"], heads=64)
    return f


def glm_moe_dsa(r: ConfigReader) -> Fields:
    """GLM-5 (``modular_glm_moe_dsa.py``, ``GlmMoeDsaConfig`` subclasses ``DeepseekV32Config``):
    DeepSeek-V3.2's layout (MLA, ``first_k_dense_replace`` dense layers then MoE with one shared
    expert and the router's score-correction bias, lightning indexers) with GLM-5's shapes; a
    ``"shared"`` layer reuses the previous indexer's top-k and has none of its own."""
    f = deepseek_v3(r)
    n = f["num_hidden_layers"]
    kinds = r.cfg.get("mlp_layer_types")
    if kinds is not None:
        if not isinstance(kinds, list) or len(kinds) != n or not set(kinds) <= {"dense", "sparse"}:
            r.bad.append(f"mlp_layer_types (must list {n} entries of dense, sparse)")
        else:
            f["mlp_layer_types"] = tuple("moe" if k == "sparse" else "dense" for k in kinds)
    _dsa_indexers(r, f, n, heads=32)
    return f
