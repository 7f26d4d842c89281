"""Llama-style decoders (RMSNorm, gated MLP, rotary positions) and their per-family twists.

Each function maps one ``model_type``'s config.json to preset fields.  Defaults are the
``__init__`` defaults of the family's ``transformers`` config class
(``src/transformers/models/<family>/configuration_<family>.py``; for remote-code models the
``configuration_*.py`` shipped in the checkpoint's repository); the twists follow the family's
``modeling_*.py``:

* Llama / Mistral / MiniCPM / Baichuan (``W_pack`` = fused q/k/v, same weights): Llama layout;
  Mistral v0.1 slides every layer over ``sliding_window`` (MistralConfig default 4096).
* Qwen2: ``Qwen2Attention`` hard-codes ``bias=True`` on q/k/v, none on o_proj.
* Qwen3: ``q_norm`` / ``k_norm`` are ``RMSNorm(head_dim)``; ``attention_bias`` (default off)
  on q/k/v/o.
* Phi-3 / Phi-4-mini: fused ``qkv_proj`` and ``gate_up_proj``, same weights as split ones.
* Gemma: ``head_dim`` is its own field (256); embeddings tied by default.  Gemma 2 and 3: four
  RMSNorms per layer; Gemma 2 slides on even layers, Gemma 3 on five of every six
  (``sliding_window_pattern`` 6) and adds q/k norms over ``head_dim``.
* Cohere (Command R, Aya): one bias-free LayerNorm per layer (attention and MLP run in
  parallel), optional q/k LayerNorms per head (``use_qk_norm``); Cohere 2 slides three of four.
* OLMo: non-parametric LayerNorms (no weights).  OLMo 2 / 3: RMSNorm after attention and after
  the MLP, ``q_norm`` over ``heads x head_dim`` and ``k_norm`` over ``kv_heads x head_dim``;
  OLMo 3 slides three of four layers.
* StableLM: LayerNorms with bias (one per layer with ``use_parallel_residual``), q/k/v bias
  from ``use_qkv_bias``, optional per-head q/k LayerNorms (``qk_layernorm``).
* InternLM (v1): bias on q/k/v/o from ``bias`` (default true).  InternLM2: fused ``wqkv``,
  bias from ``bias``.
* StarCoder2: LayerNorms with bias, bias on every projection (``use_bias``), two-matrix GELU
  MLP ``c_fc`` / ``c_proj``.
* ChatGLM2/3 (remote code): fused ``query_key_value`` with grouped KV
  (``multi_query_group_num``), ``dense_h_to_4h`` producing gate and up (gated), untied
  ``output_layer``.
"""

from __future__ import annotations

from slotwise.engine.model.arch.common import (
    Fields,
    add_sliding,
    decoder_fields,
    every_layer,
    explicit_layer_types,
    sliding_every,
)
from slotwise.engine.model.arch.reader import ConfigReader
from slotwise.engine.model.arch.vision import phi3_v_image_embedding

# LlamaConfig.__init__ defaults (configuration_llama.py).
LLAMA = {
    "vocab_size": 32000,
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "tie_word_embeddings": False,
}
MISTRAL = {**LLAMA, "intermediate_size": 14336, "num_key_value_heads": 8}
QWEN2 = {
    "vocab_size": 151936,
    "hidden_size": 4096,
    "intermediate_size": 22016,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "tie_word_embeddings": False,
}
QWEN3 = {**QWEN2, "head_dim": 128}
PHI3 = {
    "vocab_size": 32064,
    "hidden_size": 3072,
    "intermediate_size": 8192,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "tie_word_embeddings": False,
}
GEMMA = {
    "vocab_size": 256000,
    "hidden_size": 3072,
    "intermediate_size": 24576,
    "num_hidden_layers": 28,
    "num_attention_heads": 16,
    "num_key_value_heads": 16,
    "head_dim": 256,
    "tie_word_embeddings": True,
}
GEMMA2 = {
    "vocab_size": 256000,
    "hidden_size": 2304,
    "intermediate_size": 9216,
    "num_hidden_layers": 26,
    "num_attention_heads": 8,
    "num_key_value_heads": 4,
    "head_dim": 256,
    "tie_word_embeddings": True,
}
GEMMA3 = {**GEMMA2, "vocab_size": 262208}
COHERE = {
    "vocab_size": 256000,
    "hidden_size": 8192,
    "intermediate_size": 22528,
    "num_hidden_layers": 40,
    "num_attention_heads": 64,
    "tie_word_embeddings": True,
}
OLMO = {
    "vocab_size": 50304,
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "tie_word_embeddings": False,
}
STABLELM = {
    "vocab_size": 50304,
    "hidden_size": 2560,
    "intermediate_size": 6912,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "tie_word_embeddings": False,
}
STARCODER2 = {
    "vocab_size": 49152,
    "hidden_size": 3072,
    "intermediate_size": 12288,
    "num_hidden_layers": 30,
    "num_attention_heads": 24,
    "num_key_value_heads": 2,
    "tie_word_embeddings": True,
}
# Remote-code families: no defaults slotwise can cite, every field is required.
REMOTE = {"tie_word_embeddings": False}


def llama(r: ConfigReader) -> Fields:
    return decoder_fields(r, LLAMA)


def remote_llama(r: ConfigReader) -> Fields:
    """Baichuan, MiniCPM, Orion-free Llama clones shipped as remote code."""
    return decoder_fields(r, REMOTE)


def mistral(r: ConfigReader) -> Fields:
    f = decoder_fields(r, MISTRAL)
    # MistralConfig: sliding_window=4096 unless the config says null (v0.2+ do).
    if "sliding_window" in r.cfg and r.cfg["sliding_window"] is None:
        return f
    add_sliding(r, f, every_layer(f["num_hidden_layers"], "sliding_attention"), default=4096)
    return f


def ministral(r: ConfigReader) -> Fields:
    f = decoder_fields(r, REMOTE)
    if r.has("sliding_window"):
        add_sliding(r, f, every_layer(f["num_hidden_layers"], "sliding_attention"))
    return f


def qwen2(r: ConfigReader) -> Fields:
    f = decoder_fields(r, QWEN2)
    f["attention_qkv_bias"] = True
    f["attention_out_bias"] = False
    r.notes.append("Qwen2Attention hard-codes bias on q/k/v (none on o_proj)")
    return f


def qwen3(r: ConfigReader) -> Fields:
    f = decoder_fields(r, QWEN3)
    f["qk_norm"] = "head"
    return f


def phi3(r: ConfigReader) -> Fields:
    f = decoder_fields(r, PHI3)
    if r.has("sliding_window"):
        add_sliding(r, f, every_layer(f["num_hidden_layers"], "sliding_attention"))
    return f


def gemma(r: ConfigReader) -> Fields:
    return decoder_fields(r, GEMMA)


def gemma2(r: ConfigReader) -> Fields:
    f = decoder_fields(r, GEMMA2)
    f["norms_per_layer"] = 4
    n = f["num_hidden_layers"]
    kinds = explicit_layer_types(r, n) or tuple(
        "sliding_attention" if i % 2 == 0 else "full_attention" for i in range(n)
    )
    add_sliding(r, f, kinds, default=4096)
    return f


def gemma3_text(r: ConfigReader) -> Fields:
    f = decoder_fields(r, GEMMA3)
    f["norms_per_layer"] = 4
    f["qk_norm"] = "head"
    n = f["num_hidden_layers"]
    period = r.num("sliding_window_pattern", "_sliding_window_pattern", default=6)
    kinds = explicit_layer_types(r, n) or sliding_every(n, period)
    add_sliding(r, f, kinds, default=4096)
    return f


def cohere(r: ConfigReader) -> Fields:
    f = decoder_fields(r, COHERE)
    f["norms_per_layer"] = 1  # CohereDecoderLayer: input_layernorm only (parallel blocks)
    if r.flag("use_qk_norm", default=False):
        f["qk_norm"] = "full"
    return f


def cohere2(r: ConfigReader) -> Fields:
    f = cohere(r)
    n = f["num_hidden_layers"]
    period = r.num("sliding_window_pattern", default=4)
    kinds = explicit_layer_types(r, n) or sliding_every(n, period)
    add_sliding(r, f, kinds, default=4096)
    return f


def olmo(r: ConfigReader) -> Fields:
    f = decoder_fields(r, OLMO)
    f["norm_params"] = False  # OlmoLayerNorm: F.layer_norm without weight or bias
    return f


def olmo2(r: ConfigReader) -> Fields:
    f = decoder_fields(r, OLMO)
    f["qk_norm"] = "full"
    return f


def olmo3(r: ConfigReader) -> Fields:
    f = olmo2(r)
    n = f["num_hidden_layers"]
    kinds = explicit_layer_types(r, n) or sliding_every(n, 4)
    add_sliding(r, f, kinds, default=4096)
    return f


def stablelm(r: ConfigReader) -> Fields:
    f = decoder_fields(r, STABLELM)
    f["norm_bias"] = True
    f["norms_per_layer"] = 1 if r.flag("use_parallel_residual", default=False) else 2
    f["attention_qkv_bias"] = r.flag("use_qkv_bias", default=False)
    f["attention_out_bias"] = False
    if r.flag("qk_layernorm", default=False):
        f["qk_norm"] = "full"  # StableLmLayerNormPerHead: one LayerNorm(head_dim) per head
    return f


def internlm(r: ConfigReader) -> Fields:
    f = decoder_fields(r, REMOTE)
    f["attention_bias"] = r.flag("bias", default=True)
    return f


def internlm2(r: ConfigReader) -> Fields:
    f = decoder_fields(r, REMOTE)
    f["attention_bias"] = r.flag("bias", default=True)
    return f


def starcoder2(r: ConfigReader) -> Fields:
    f = decoder_fields(r, STARCODER2)
    bias = r.flag("use_bias", default=True)
    f.update(norm_bias=True, mlp_gated=False, mlp_bias=bias, attention_bias=bias)
    if r.has("sliding_window"):
        add_sliding(r, f, every_layer(f["num_hidden_layers"], "sliding_attention"))
    return f


def chatglm(r: ConfigReader) -> Fields:
    heads = r.num("num_attention_heads")
    multi = r.flag("multi_query_attention", default=False)
    f: Fields = {
        "hidden_size": r.num("hidden_size"),
        "intermediate_size": r.num("ffn_hidden_size"),
        "num_hidden_layers": r.num("num_layers", "num_hidden_layers"),
        "num_attention_heads": heads,
        "num_key_value_heads": r.num("multi_query_group_num") if multi else heads,
        "head_dim": r.num("kv_channels"),
        "vocab_size": r.num("padded_vocab_size", "vocab_size"),
        "tie_word_embeddings": False,
        "attention_qkv_bias": r.flag("add_qkv_bias", default=False),
        "attention_out_bias": r.flag("add_bias_linear", default=False),
        "mlp_bias": r.flag("add_bias_linear", default=False),
        "norm_bias": not r.flag("rmsnorm", default=True),
        "final_norm": r.flag("post_layer_norm", default=True),
    }
    seq = r.opt_int("seq_length", minimum=1)
    if seq:
        f["max_position_embeddings"] = seq
    return f


# Qwen2_5_VLTextConfig defaults (models/qwen2_5_vl/configuration_qwen2_5_vl.py).
QWEN2_5_VL = {
    "vocab_size": 152064,
    "hidden_size": 8192,
    "intermediate_size": 29568,
    "num_hidden_layers": 80,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "tie_word_embeddings": False,
}


def qwen2_5_vl(r: ConfigReader) -> Fields:
    """Qwen2.5-VL's language model (``Qwen2_5_VLTextModel``): Qwen2's layout (bias on q/k/v,
    none on o_proj), read from ``text_config`` or, in the configs the Hub first shipped, from the
    root (``Qwen2_5_VLConfig`` builds its text config from the root keys when there is no
    ``text_config``); sliding layers only with ``use_sliding_window`` (off by default)."""
    f = decoder_fields(r, QWEN2_5_VL)
    f["attention_qkv_bias"] = True
    f["attention_out_bias"] = False
    r.notes.append("Qwen2.5-VL text model: bias on q/k/v (none on o_proj)")
    return f


def phi3_v(r: ConfigReader) -> Fields:
    """Phi-3 / Phi-3.5-vision (remote ``modeling_phi3_v.py``): the Phi-3 language model (its
    fields at the root) plus the image embedding the checkpoint holds (see
    :func:`engine.model.arch.vision.phi3_v_image_embedding`)."""
    f = phi3(r)
    extra = phi3_v_image_embedding(r, f["hidden_size"])
    if extra:
        f["extra_params"] = extra
    return f
