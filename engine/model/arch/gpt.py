"""GPT-style families: LayerNorm with bias, two-matrix GELU MLP, biases, older field names.

Per family (``transformers`` ``modeling_<family>.py``; defaults from the config class):

* GPT-2 (``n_embd``, ``n_layer``, ``n_head``, ``n_inner`` = 4 x n_embd when null,
  ``n_positions`` learned positions): ``c_attn`` (q/k/v fused, bias), ``c_proj`` (bias),
  ``c_fc`` / ``c_proj`` MLP with biases, ``ln_1``/``ln_2``/``ln_f`` LayerNorms, LM head tied.
* GPT-BigCode (SantaCoder, StarCoder): GPT-2 with ``multi_query`` (one K/V head).
* GPT-J: separate q/k/v/out without bias, ``fc_in``/``fc_out`` with bias, one LayerNorm per
  layer (attention and MLP in parallel), untied ``lm_head`` with bias.
* GPT-NeoX (Pythia, RedPajama-INCITE, Dolly v2): fused ``query_key_value`` and ``dense`` with
  bias (``attention_bias``, default true), MLP with bias, two LayerNorms per layer, untied
  ``embed_out``.
* OPT: ``ffn_dim`` MLP, learned positions of ``max_position_embeddings + 2`` rows (offset 2),
  ``word_embed_proj_dim`` with ``project_in``/``project_out`` when it differs from
  ``hidden_size``, final LayerNorm only with ``do_layer_norm_before``, tied head.
* Falcon (and ``RefinedWeb``/``RefinedWebModel`` configs): no ``intermediate_size``
  (``ffn_hidden_size``, default 4 x hidden); K/V heads: ``num_kv_heads`` with
  ``new_decoder_architecture``, 1 with ``multi_query``, else all; ``bias`` on every linear;
  LayerNorms: ``ln_attn`` + ``ln_mlp`` for the new architecture (``num_ln_in_parallel_attn``),
  one with ``parallel_attn``, else two; tied head.
* phi (1.5, 2; ``phi`` and the older remote-code ``phi-msft`` names): q/k/v/dense with bias,
  ``fc1``/``fc2`` with bias, one LayerNorm per layer (parallel), ``lm_head`` with bias.
* Qwen (v1, remote code): fused ``c_attn`` with bias, ``c_proj`` without (``no_bias``), gated
  MLP ``w1``/``w2``/``c_proj`` of width ``intermediate_size // 2``, RMSNorm, untied.
"""

from __future__ import annotations

from slotwise.engine.model.arch.common import Fields
from slotwise.engine.model.arch.reader import ConfigReader


def _gpt_like(r: ConfigReader, *, n_embd: int, n_layer: int, n_head: int, vocab: int) -> Fields:
    h = r.num("n_embd", "hidden_size", default=n_embd)
    inner = r.raw("n_inner")
    return {
        "hidden_size": h,
        "intermediate_size": r.num("n_inner") if inner is not None else 4 * h,
        "num_hidden_layers": r.num("n_layer", "num_hidden_layers", default=n_layer),
        "num_attention_heads": r.num("n_head", "num_attention_heads", default=n_head),
        "vocab_size": r.num("vocab_size", default=vocab),
    }


def gpt2(r: ConfigReader) -> Fields:
    # GPT2Config defaults: vocab 50257, n_positions 1024, n_embd 768, n_layer 12, n_head 12.
    f = _gpt_like(r, n_embd=768, n_layer=12, n_head=12, vocab=50257)
    positions = r.num("n_positions", "max_position_embeddings", default=1024)
    f.update(
        num_key_value_heads=f["num_attention_heads"],
        max_position_embeddings=positions,
        position_embeddings=positions,
        tie_word_embeddings=r.flag("tie_word_embeddings", default=True),
        attention_bias=True,
        mlp_gated=False,
        mlp_bias=True,
        norm_bias=True,
    )
    return f


def gpt_bigcode(r: ConfigReader) -> Fields:
    f = gpt2(r)
    if r.flag("multi_query", default=True):
        f["num_key_value_heads"] = 1
    return f


def gptj(r: ConfigReader) -> Fields:
    # GPTJConfig defaults: vocab 50400, n_positions 2048, n_embd 4096, n_layer 28, n_head 16.
    f = _gpt_like(r, n_embd=4096, n_layer=28, n_head=16, vocab=50400)
    f.update(
        num_key_value_heads=f["num_attention_heads"],
        max_position_embeddings=r.num("n_positions", default=2048),
        tie_word_embeddings=r.flag("tie_word_embeddings", default=False),
        mlp_gated=False,
        mlp_bias=True,
        norm_bias=True,
        norms_per_layer=1,
        lm_head_bias=True,
    )
    return f


def gpt_neox(r: ConfigReader) -> Fields:
    # GPTNeoXConfig defaults: vocab 50432, hidden 6144, 44 layers, 64 heads, 24576 inner.
    heads = r.num("num_attention_heads", default=64)
    return {
        "hidden_size": r.num("hidden_size", default=6144),
        "intermediate_size": r.num("intermediate_size", default=24576),
        "num_hidden_layers": r.num("num_hidden_layers", default=44),
        "num_attention_heads": heads,
        "num_key_value_heads": heads,
        "vocab_size": r.num("vocab_size", default=50432),
        "max_position_embeddings": r.num("max_position_embeddings", default=2048),
        "tie_word_embeddings": r.flag("tie_word_embeddings", default=False),
        "attention_bias": r.flag("attention_bias", default=True),
        "mlp_gated": False,
        "mlp_bias": True,
        "norm_bias": True,
    }


def opt(r: ConfigReader) -> Fields:
    # OPTConfig defaults: vocab 50272, hidden 768, 12 layers, ffn_dim 3072, 12 heads,
    # max_position_embeddings 2048, enable_bias, layer_norm_elementwise_affine, tied.
    h = r.num("hidden_size", default=768)
    heads = r.num("num_attention_heads", default=12)
    positions = r.num("max_position_embeddings", default=2048)
    proj = r.num("word_embed_proj_dim", default=h)
    bias = r.flag("enable_bias", default=True)
    f: Fields = {
        "hidden_size": h,
        "intermediate_size": r.num("ffn_dim", default=3072),
        "num_hidden_layers": r.num("num_hidden_layers", default=12),
        "num_attention_heads": heads,
        "num_key_value_heads": heads,
        "vocab_size": r.num("vocab_size", default=50272),
        "max_position_embeddings": positions,
        "position_embeddings": positions + 2,  # OPTLearnedPositionalEmbedding offset
        "tie_word_embeddings": r.flag("tie_word_embeddings", default=True),
        "attention_bias": bias,
        "mlp_gated": False,
        "mlp_bias": bias,
        "norm_bias": True,
        "norm_params": r.flag("layer_norm_elementwise_affine", default=True),
        "final_norm": r.flag("do_layer_norm_before", default=True)
        and not r.flag("_remove_final_layer_norm", default=False),
    }
    if proj != h:
        f["embedding_proj_dim"] = proj
    return f


def falcon(r: ConfigReader) -> Fields:
    # FalconConfig defaults: vocab 65024, hidden 4544, 32 layers, 71 heads, multi_query,
    # parallel_attn, no bias, ffn_hidden_size 4 x hidden; attribute_map n_layer/n_head.
    h = r.num("hidden_size", "d_model", default=4544)
    heads = r.num("num_attention_heads", "n_head", default=71)
    new_arch = r.flag("new_decoder_architecture", default=False)
    if new_arch:
        kv = r.num("num_kv_heads", "n_head_kv", default=heads)
        norms = r.num("num_ln_in_parallel_attn", default=2)
    else:
        kv = 1 if r.flag("multi_query", default=True) else heads
        norms = 1 if r.flag("parallel_attn", default=True) else 2
    bias = r.flag("bias", default=False)
    ffn = r.raw("ffn_hidden_size")
    return {
        "hidden_size": h,
        "intermediate_size": r.num("ffn_hidden_size") if ffn is not None else 4 * h,
        "num_hidden_layers": r.num("num_hidden_layers", "n_layer", default=32),
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "vocab_size": r.num("vocab_size", default=65024),
        "tie_word_embeddings": r.flag("tie_word_embeddings", default=True),
        "attention_bias": bias,
        "mlp_gated": False,
        "mlp_bias": bias,
        "norm_bias": True,
        "norms_per_layer": norms,
    }


def phi(r: ConfigReader) -> Fields:
    # PhiConfig defaults: vocab 51200, hidden 2048, intermediate 8192, 24 layers, 32 heads.
    msft = r.has("n_embd")  # the remote-code "phi-msft" spelling
    if msft:
        f = _gpt_like(r, n_embd=2048, n_layer=24, n_head=32, vocab=51200)
        kv = r.num("n_head_kv", default=f["num_attention_heads"])
    else:
        f = {
            "hidden_size": r.num("hidden_size", default=2048),
            "intermediate_size": r.num("intermediate_size", default=8192),
            "num_hidden_layers": r.num("num_hidden_layers", default=24),
            "num_attention_heads": r.num("num_attention_heads", default=32),
            "vocab_size": r.num("vocab_size", default=51200),
        }
        kv = r.num("num_key_value_heads", default=f["num_attention_heads"])
        if r.flag("qk_layernorm", default=False):
            r.warnings.append(
                f"{r.source}: qk_layernorm is on; its two LayerNorm(head_dim) weights per "
                "layer are not counted (under 0.01 % of the model)"
            )
    f.update(
        num_key_value_heads=kv,
        tie_word_embeddings=r.flag("tie_word_embeddings", default=False),
        attention_bias=True,
        mlp_gated=False,
        mlp_bias=True,
        norm_bias=True,
        norms_per_layer=1,
        lm_head_bias=True,
    )
    return f


def qwen(r: ConfigReader) -> Fields:
    heads = r.num("num_attention_heads")
    no_bias = r.flag("no_bias", default=True)
    return {
        "hidden_size": r.num("hidden_size"),
        # QWenMLP: w1, w2: hidden -> intermediate_size // 2; c_proj back.
        "intermediate_size": r.num("intermediate_size") // 2,
        "num_hidden_layers": r.num("num_hidden_layers"),
        "num_attention_heads": heads,
        "num_key_value_heads": heads,
        "head_dim": r.num("kv_channels", default=128),
        "vocab_size": r.num("vocab_size"),
        "max_position_embeddings": r.num("max_position_embeddings", "seq_length", default=8192),
        "tie_word_embeddings": r.flag("tie_word_embeddings", default=False),
        "attention_qkv_bias": True,
        "attention_out_bias": not no_bias,
        "mlp_bias": not no_bias,
    }
