"""Decoders with ALiBi attention biases instead of position weights: BLOOM.

ALiBi (Press et al. 2021, arXiv:2108.12409) adds a fixed per-head linear bias to the attention
scores; it has no weights, so nothing is counted for positions (and there is no rotary
embedding: the memory estimate's activations are those of the attention and MLP alone).

* BLOOM (``transformers`` ``models/bloom/modeling_bloom.py``, ``BloomModel``):
  ``word_embeddings`` ``vocab x hidden`` followed by ``word_embeddings_layernorm`` (a LayerNorm
  with bias, the one thing a GPT-2-style count would miss); per ``BloomBlock``
  ``input_layernorm``, ``self_attention.query_key_value`` ``hidden -> 3 x hidden`` and
  ``self_attention.dense`` ``hidden -> hidden`` (both with bias), ``post_attention_layernorm``,
  ``mlp.dense_h_to_4h`` ``hidden -> 4 x hidden`` and ``mlp.dense_4h_to_h`` (with bias, GELU:
  two matrices); ``ln_f``; ``lm_head`` tied to the embedding.  The MLP width is always
  ``4 x hidden`` (``n_inner``, present in some configs, is never read by the modeling code).
  ``BloomConfig`` defaults: vocab 250880, hidden 64, ``n_layer`` 2, ``n_head`` 8; aliases
  ``n_embed`` (read instead of ``hidden_size`` when present, as BLOOM-176B's config writes it),
  ``num_hidden_layers`` -> ``n_layer``, ``num_attention_heads`` -> ``n_head``.
"""

from __future__ import annotations

from slotwise.engine.model.arch.common import Fields
from slotwise.engine.model.arch.reader import ConfigReader


def bloom(r: ConfigReader) -> Fields:
    h = r.num("n_embed", "hidden_size", default=64)
    heads = r.num("n_head", "num_attention_heads", default=8)
    r.notes.append(
        "BLOOM: ALiBi positions (no position weights), LayerNorm after the embedding, "
        "MLP of 4 x hidden_size"
    )
    return {
        "hidden_size": h,
        "intermediate_size": 4 * h,
        "num_hidden_layers": r.num("n_layer", "num_hidden_layers", default=2),
        "num_attention_heads": heads,
        "num_key_value_heads": heads,
        "vocab_size": r.num("vocab_size", default=250880),
        "tie_word_embeddings": r.flag("tie_word_embeddings", default=True),
        "attention_bias": True,
        "mlp_gated": False,
        "mlp_bias": True,
        "norm_bias": True,
        "embedding_norm": True,
    }
