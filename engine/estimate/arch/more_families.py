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
"""

from __future__ import annotations

from slotwise.engine.estimate.arch.common import Fields, decoder_fields
from slotwise.engine.estimate.arch.decoders import LLAMA
from slotwise.engine.estimate.arch.reader import ConfigReader

# GraniteConfig.__init__ defaults (models/granite/configuration_granite.py) = LlamaConfig's.
GRANITE = dict(LLAMA)


def granite(r: ConfigReader) -> Fields:
    f = decoder_fields(r, GRANITE)
    r.notes.append(
        "Granite: Llama layout; embedding/attention/residual multipliers and logits_scaling "
        "scale activations and add no weights"
    )
    return f
