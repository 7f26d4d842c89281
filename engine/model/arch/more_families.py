"""More Llama-style and MoE families that popular Hub checkpoints use (issue #12 item 1).

Each function maps one ``model_type``'s config.json to preset fields; absent keys take the
``__init__`` default of the family's ``transformers`` config class
(``src/transformers/models/<family>/configuration_<family>.py``), and the layout follows the
family's ``modeling_<family>.py``:

* Granite (IBM Granite 3.x dense, ``GraniteForCausalLM``): the Llama layout
  (``GraniteAttention`` q/k/v/o with ``bias=config.attention_bias``, ``GraniteMLP``
  gate/up/down with ``bias=config.mlp_bias``, two RMSNorms per layer, final norm).  The four
  muP scalars (``embedding_multiplier``, ``attention_multiplier``, ``residual_multiplier``,
  ``logits_scaling``) multiply activations and hold no weights, so they change no count.
  ``GraniteConfig`` defaults are Llama's (vocab 32000, hidden 4096, intermediate 11008,
  32 layers, 32 heads, KV heads = heads, untied).
* Granite 3.x MoE (``granitemoe``: granite-3.0/3.1-1b-a400m and -3b-a800m, Granite Guardian
  3.2 3b-a800m; ``granitemoeshared``: the same with a shared MLP): the attention of Granite
  (q/k/v/o with ``attention_bias``) and in every layer ``block_sparse_moe``: a bias-free router
  ``Linear(hidden, num_local_experts)`` and ``GraniteMoeParallelExperts`` ``input_linear``
  (``2 x intermediate_size`` x hidden: gate and up) and ``output_linear`` (hidden x
  ``intermediate_size``) per expert, i.e. SwiGLU experts of ``intermediate_size``;
  ``granitemoeshared`` adds ``shared_mlp`` of ``shared_intermediate_size`` (0: none).
  ``GraniteMoeConfig`` defaults (code index id 51924376919) are Llama's plus 8 experts, top 2.
* MPT (MosaicML MPT-7B / 30B, ``MptForCausalLM``, ``models/mpt/modeling_mpt.py``): ``wte``
  ``vocab x d_model`` (tied to the output), per ``MptBlock`` ``norm_1`` and ``norm_2``
  (LayerNorm whose bias is set to ``None``: a weight only), ``attn.Wqkv`` ``d_model ->
  3 x d_model`` and ``attn.out_proj`` (no bias), ``ffn.up_proj`` ``d_model -> 4 x d_model`` and
  ``ffn.down_proj`` (no bias, GELU: two matrices), ``norm_f`` (weight only).  ALiBi positions:
  no position weights and no rotary embedding (the memory estimate counts the attention and
  MLP activations alone, as for BLOOM).  Field names follow ``MptConfig``'s ``attribute_map``
  (``d_model``, ``n_heads``, ``n_layers``); defaults d_model 2048, 16 heads, 24 layers, vocab
  50368, ``expansion_ratio`` 4, ``no_bias`` true.  Configs outside what both the transformers
  code and MosaicML's own ``modeling_mpt.py`` (llm-foundry) build the same way are refused:
  ``attn_config.alibi`` off (llm-foundry then adds learned positions ``wpe``), grouped or
  multi-query ``attn_type``, ``qk_ln``, biases (``no_bias`` false), an ``ffn_config`` other
  than the two-matrix ``mptmlp``, or an ``expansion_ratio`` other than 4 (transformers
  hard-codes ``4 x hidden``).
* ERNIE 4.5 dense (Baidu ERNIE-4.5-0.3B, ``Ernie4_5ForCausalLM``, ``models/ernie4_5/
  modular_ernie4_5.py``; the checkpoint's own ``modeling_ernie4_5.py`` builds the same
  weights): the Llama layout with one switch, ``use_bias``, for the bias of q/k/v/o and of
  gate/up/down.  ``Ernie4_5Config`` defaults: vocab 103424, hidden 1024, intermediate 3072,
  18 layers, 16 heads, 2 KV heads, ``head_dim`` 128 (``null`` means hidden / heads),
  embeddings tied, ``use_bias`` false.
* SmolLM3 (HuggingFaceTB SmolLM3-3B, ``SmolLM3ForCausalLM``, ``models/smollm3/
  modular_smollm3.py``, read at code index id 52266487619): ``LlamaAttention`` /
  ``LlamaDecoderLayer`` / ``LlamaForCausalLM`` unchanged; ``no_rope_layers`` only switches RoPE
  off in some layers (NoPE: no weights either way).  A layer slides only when
  ``use_sliding_window`` is on, ``sliding_window`` is set and the layer is a NoPE one (or as
  ``layer_types`` says).  ``SmolLM3Config`` defaults: vocab 128256, hidden 2048, intermediate
  11008, 36 layers, 16 heads, 4 KV heads, embeddings tied, no attention or MLP bias.
* EXAONE 3.0 / 3.5 (LG AI Research, remote ``modeling_exaone.py``): the module tree a loaded
  EXAONE-3.0-7.8B prints (code index id 46001266965) is a Llama under other names:
  ``transformer.wte``, per ``ExaoneBlock`` ``ln_1`` / ``ln_2`` RMSNorms, ``attn.attention``
  q/k/v/``out_proj`` without bias (GQA from ``num_key_value_heads``), ``ExaoneGatedMLP``
  ``c_fc_0`` / ``c_fc_1`` / ``c_proj`` without bias, ``ln_f``, ``lm_head``; no position
  weights (rotary).  Field names: ``num_layers``.  The remote config class's defaults are not
  citable here, so every size field is required, ``tie_word_embeddings`` too (EXAONE-3.5-2.4B
  ties, 7.8B and 32B do not).  EXAONE 4.0 (``exaone4``, q/k norms and sliding layers) is a
  different family and stays refused.
* GLM-4-0414 / GLM-Z1 (``glm4``, ``Glm4ForCausalLM``; ``Glm4Config`` read at code index id
  51798418897: vocab 151552, hidden 4096, intermediate 13696, 40 layers, 32 heads, 2 KV heads,
  head_dim 128, ``attention_bias`` true, untied): q/k/v with bias, ``o_proj`` without, a fused
  ``gate_up_proj`` (the SwiGLU's two matrices) and ``down_proj``, and four RMSNorms per layer
  (``input_layernorm``, ``post_self_attn_layernorm``, ``post_attention_layernorm``,
  ``post_mlp_layernorm``); partial rotary adds no weights.
* Qwen2-VL (``Qwen2VLForConditionalGeneration``, ``models/qwen2_vl/modeling_qwen2_vl.py``):
  the language model is Qwen2's (``Qwen2VLAttention``: bias on q/k/v, none on o_proj; M-RoPE
  adds no weights), read from the root as the Hub's configs ship it or from ``text_config``
  (``qwen2_vl_text``); ``Qwen2VLTextConfig`` defaults are Qwen2.5-VL's (the 72B shape, untied).
  The vision tower is :func:`engine.model.arch.vision.qwen2_vl`.
"""

from __future__ import annotations

from slotwise.engine.model.arch.common import (
    Fields,
    add_sliding,
    decoder_fields,
    explicit_layer_types,
)
from slotwise.engine.model.arch.decoders import LLAMA, QWEN2_5_VL
from slotwise.engine.model.arch.reader import ArchConfigError, ConfigReader

# GraniteConfig.__init__ defaults (models/granite/configuration_granite.py) = LlamaConfig's.
GRANITE = dict(LLAMA)


def granite(r: ConfigReader) -> Fields:
    f = decoder_fields(r, GRANITE)
    r.notes.append(
        "Granite: Llama layout; embedding/attention/residual multipliers and logits_scaling "
        "scale activations and add no weights"
    )
    return f


def granitemoe(r: ConfigReader) -> Fields:
    f = decoder_fields(r, GRANITE)
    f["num_experts"] = r.num("num_local_experts", default=8)
    f["num_experts_per_tok"] = r.num("num_experts_per_tok", default=2)
    shared = r.num("shared_intermediate_size", default=0, minimum=0)
    if shared:
        f["shared_expert_intermediate_size"] = shared
    r.notes.append(
        f"Granite MoE: {f['num_experts']} SwiGLU experts of {f['intermediate_size']} in every "
        "layer" + (f", shared MLP of {shared}" if shared else "")
    )
    return f


def mpt(r: ConfigReader) -> Fields:
    attn = r.cfg.get("attn_config")
    attn = attn if isinstance(attn, dict) else {}
    ffn = r.cfg.get("ffn_config")
    ffn_type = ffn.get("ffn_type", "mptmlp") if isinstance(ffn, dict) else "mptmlp"
    unsupported = [
        what
        for what, bad in (
            ("attn_config.alibi is not true", attn.get("alibi") is not True),
            (
                f"attn_config.attn_type {attn.get('attn_type')!r}",
                attn.get("attn_type", "multihead_attention") != "multihead_attention",
            ),
            ("attn_config.qk_ln is true", bool(attn.get("qk_ln"))),
            ("no_bias is false", r.cfg.get("no_bias", True) is not True),
            (f"ffn_config.ffn_type {ffn_type!r}", ffn_type != "mptmlp"),
            ("expansion_ratio is not 4", r.cfg.get("expansion_ratio", 4) != 4),
        )
        if bad
    ]
    if unsupported:
        raise ArchConfigError(
            f"{r.source}: MPT variant slotwise cannot count ({'; '.join(unsupported)}): only the "
            "ALiBi, multi-head, bias-free, 4 x d_model GELU MLP layout of MPT-7B/30B is "
            "verified. Use a preset or a config.json of a known family"
        )
    h = r.num("d_model", "hidden_size", default=2048)
    f: Fields = {
        "hidden_size": h,
        "intermediate_size": 4 * h,
        "num_hidden_layers": r.num("n_layers", "num_hidden_layers", default=24),
        "num_attention_heads": r.num("n_heads", "num_attention_heads", default=16),
        "vocab_size": r.num("vocab_size", default=50368),
        "tie_word_embeddings": r.flag("tie_word_embeddings", default=True),
        "mlp_gated": False,
        "norm_bias": False,
    }
    f["num_key_value_heads"] = f["num_attention_heads"]
    seq = r.opt_int("max_seq_len", minimum=1)
    if seq:
        f["max_position_embeddings"] = seq
    r.notes.append(
        "MPT: ALiBi positions (no position weights), LayerNorms without bias, bias-free "
        "Wqkv/out_proj and two-matrix GELU MLP of 4 x d_model, embedding tied"
    )
    return f


# Ernie4_5Config.__init__ defaults (models/ernie4_5/configuration_ernie4_5.py).
ERNIE4_5 = {
    "vocab_size": 103424,
    "hidden_size": 1024,
    "intermediate_size": 3072,
    "num_hidden_layers": 18,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "tie_word_embeddings": True,
}


def ernie4_5(r: ConfigReader) -> Fields:
    f = decoder_fields(r, ERNIE4_5)
    if "head_dim" not in r.cfg:  # absent: the class default; null: hidden // heads
        f["head_dim"] = r.num("head_dim", default=128)
    bias = r.flag("use_bias", default=False)
    f.update(attention_bias=bias, mlp_bias=bias)
    r.notes.append("ERNIE 4.5: Llama layout; use_bias sets the q/k/v/o and MLP biases")
    return f


# SmolLM3Config.__init__ defaults (models/smollm3/modular_smollm3.py).
SMOLLM3 = {
    "vocab_size": 128256,
    "hidden_size": 2048,
    "intermediate_size": 11008,
    "num_hidden_layers": 36,
    "num_attention_heads": 16,
    "num_key_value_heads": 4,
    "tie_word_embeddings": True,
}


def smollm3(r: ConfigReader) -> Fields:
    f = decoder_fields(r, SMOLLM3)
    n = f["num_hidden_layers"]
    kinds = explicit_layer_types(r, n)
    if kinds is None and r.flag("use_sliding_window", default=False) and r.has("sliding_window"):
        interval = r.num("no_rope_layer_interval", default=4)
        rope = r.int_list("no_rope_layers") or [int((i + 1) % interval != 0) for i in range(n)]
        if len(rope) < n:
            r.bad.append(f"no_rope_layers (must list at least {n} entries)")
            rope = [1] * n
        kinds = tuple("full_attention" if rope[i] else "sliding_attention" for i in range(n))
    if kinds is not None:
        add_sliding(r, f, kinds)
    r.notes.append("SmolLM3: Llama layout; NoPE layers (no_rope_layers) hold the same weights")
    return f


def qwen2_vl(r: ConfigReader) -> Fields:
    f = decoder_fields(r, QWEN2_5_VL)
    f["attention_qkv_bias"] = True
    f["attention_out_bias"] = False
    r.notes.append("Qwen2-VL text model: Qwen2 layout, bias on q/k/v (none on o_proj)")
    return f


def exaone(r: ConfigReader) -> Fields:
    heads = r.num("num_attention_heads")
    f: Fields = {
        "hidden_size": r.num("hidden_size"),
        "intermediate_size": r.num("intermediate_size"),
        "num_hidden_layers": r.num("num_layers", "num_hidden_layers"),
        "num_attention_heads": heads,
        "num_key_value_heads": r.num("num_key_value_heads", default=heads),
        "vocab_size": r.num("vocab_size"),
    }
    if not r.has("tie_word_embeddings"):
        r.missing.append("tie_word_embeddings")
    f["tie_word_embeddings"] = r.flag("tie_word_embeddings", default=False)
    hd = r.opt_int("head_dim", minimum=1)
    if hd:
        f["head_dim"] = hd
    mp = r.opt_int("max_position_embeddings", minimum=1)
    if mp:
        f["max_position_embeddings"] = mp
    r.notes.append("EXAONE 3.x: Llama layout under GPT-style names (wte, h, ln_1/ln_2, c_fc_0/1)")
    return f


# Glm4Config (models/glm4/configuration_glm4.py).
GLM4 = {
    "vocab_size": 151552,
    "hidden_size": 4096,
    "intermediate_size": 13696,
    "num_hidden_layers": 40,
    "num_attention_heads": 32,
    "num_key_value_heads": 2,
    "head_dim": 128,
    "tie_word_embeddings": False,
    "attention_bias": True,
}


def glm4(r: ConfigReader) -> Fields:
    f = decoder_fields(r, GLM4)
    bias = f["attention_bias"]
    f.update(attention_qkv_bias=bias, attention_out_bias=False, norms_per_layer=4)
    r.notes.append("GLM-4-0414: q/k/v bias, fused gate_up_proj, four RMSNorms per layer")
    return f
