"""State-space and hybrid families: Mamba, Mamba-2, Jamba, Nemotron-H.

Per family (``transformers`` ``modeling_<family>.py``; defaults from the config class):

* Mamba (``MambaConfig``: vocab 50280, hidden 768, state 16, 32 layers, expand 2, conv 4,
  ``time_step_rank`` "auto" = ceil(hidden / 16), ``use_bias`` off, ``use_conv_bias`` on,
  tied): each layer is one RMSNorm + ``MambaMixer`` (``in_proj`` hidden -> 2 d_inner,
  depthwise ``conv1d``, ``x_proj`` d_inner -> dt_rank + 2 state, ``dt_proj`` with bias,
  ``A_log`` d_inner x state, ``D``, ``out_proj``).  No attention, no MLP.
* FalconMamba (``FalconMambaConfig``, same defaults as Mamba): Mamba's mixer; its RMS norms
  over B, C and dt have no learned weight (``b_c_rms``/``dt_rms`` are non-persistent buffers).
* Mamba-2 (``Mamba2Config``: 128 heads of 64, state 128, 8 groups, hidden 4096, 64 layers,
  vocab 32768, untied): ``in_proj`` hidden -> d_inner + (d_inner + 2 groups state) + heads,
  conv over d_inner + 2 groups state, ``dt_bias``/``A_log``/``D`` per head, a gated RMSNorm over
  d_inner, ``out_proj``.
* Jamba (``JambaConfig``: attention on layer ``i % attn_layer_period == attn_layer_offset``
  (8, 4), Mamba elsewhere; MoE FFN on ``i % expert_layer_period == expert_layer_offset``
  (2, 1) with ``num_experts`` 16, top 2; the Mamba mixer adds RMSNorms over dt, B and C).
* Nemotron-H: ``hybrid_override_pattern`` gives each block's kind: ``M`` Mamba-2 mixer,
  ``*`` attention, ``-`` two-matrix ReLU² MLP, ``E`` MoE of such MLPs (Nemotron 3, with a
  shared expert and DeepSeek-style score-correction bias); one RMSNorm per block.  Newer
  configs (Nemotron 3 Ultra, 3.5) list the kinds as ``layers_block_type`` ("mamba",
  "attention", "mlp", "moe"; ``NemotronHConfig`` reads the list first and the pattern only when
  the list is absent, and then derives ``num_hidden_layers`` from it).  Nemotron 3 Super and
  Ultra use LatentMoE (``moe_latent_size``: the routed experts run at that width between two
  projections, see :mod:`engine.model.params`).  The multi-token-prediction block the
  checkpoint ships (``num_nextn_predict_layers``, ``mtp_hybrid_override_pattern``) is not built
  by ``NemotronHForCausalLM`` and is not counted (as for DeepSeek-V3); llama.cpp's GGUF
  conversion drops it too, and its loaded counts are the totals the tests compare with.

* Granite 4.0 (``GraniteMoeHybridConfig`` / ``models/granitemoehybrid/modular_granitemoehybrid.py``,
  read at code index ids 2556660297 and 2428549620): ``layer_types`` (alias
  ``layers_block_type``) sets each layer's mixer, ``attention`` (q/k/v/o with
  ``attention_bias``; RoPE or NoPE, no position weights) or ``mamba`` (``BambaMixer``: Mamba-2
  with ``mamba_n_heads`` x ``mamba_d_head`` = ``mamba_expand`` x hidden, ``mamba_n_groups``,
  ``mamba_d_state``, conv bias on, projection bias off); every layer has the
  ``GraniteMoeSharedMLP`` ``shared_mlp`` (``input_linear`` hidden -> 2 x
  ``shared_intermediate_size``, ``output_linear`` back, no bias: a SwiGLU) and, when
  ``num_local_experts`` > 0, ``block_sparse_moe``: a bias-free router and experts of
  ``intermediate_size`` (``GraniteMoeParallelExperts`` input 2 x inter, output inter).  The
  dense Granite 4.0 models (350M, 1B, micro) set ``num_local_experts`` 0: a Llama-shaped
  decoder whose MLP width is ``shared_intermediate_size``.  Two RMSNorms per layer; the muP
  multipliers add no weights.  Config defaults: vocab 32000, hidden 4096, intermediate 11008,
  32 layers, 32 heads, KV = heads, untied, 8 experts top 2, shared 1024, every layer Mamba
  when ``layer_types`` is absent, Mamba 128 heads, 1 group, state 256, conv 4, expand 2.

Only attention layers hold a KV cache; Mamba layers hold a fixed-size state per sequence
(:mod:`engine.estimate.kvcache`).
"""

from __future__ import annotations

import math

from slotwise.engine.model.arch.common import Fields
from slotwise.engine.model.arch.reader import ConfigReader


def _dt_rank(r: ConfigReader, hidden: int, *names: str) -> int:
    value = r.raw(*names)
    if value is None or value == "auto":
        return math.ceil(hidden / 16)
    return r.num(*names)


def _no_attention(f: Fields) -> Fields:
    f.update(num_attention_heads=0, num_key_value_heads=0, intermediate_size=0, norms_per_layer=1)
    return f


def mamba(r: ConfigReader) -> Fields:
    h = r.num("hidden_size", "d_model", default=768)
    n = r.num("num_hidden_layers", "n_layer", default=32)
    expand = r.num("expand", default=2)
    d_inner = r.num("intermediate_size", default=expand * h)
    f: Fields = {
        "hidden_size": h,
        "num_hidden_layers": n,
        "vocab_size": r.num("vocab_size", default=50280),
        "tie_word_embeddings": r.flag("tie_word_embeddings", default=True),
        "layer_types": ("mamba",) * n,
        "mlp_layer_types": ("none",) * n,
        "ssm": {
            "version": 1,
            "d_inner": d_inner,
            "state_size": r.num("state_size", default=16),
            "conv_kernel": r.num("conv_kernel", default=4),
            "dt_rank": _dt_rank(r, h, "time_step_rank"),
            "conv_bias": r.flag("use_conv_bias", default=True),
            "proj_bias": r.flag("use_bias", default=False),
        },
    }
    return _no_attention(f)


def falcon_mamba(r: ConfigReader) -> Fields:
    """tiiuae/falcon-mamba-7b and its derivatives (``model_type`` falcon_mamba).

    The mixer holds Mamba's parameters: ``FalconMambaMixer`` subclasses ``MambaMixer`` and only
    adds weightless RMS norms over B, C and dt (``rms_forward``; ``b_c_rms`` and ``dt_rms`` are
    registered as non-persistent buffers, not parameters).  The inner width is config.json's
    ``intermediate_size`` when present, else ``expand x hidden_size``:
    ``FalconMambaConfig.__init__`` sets ``int(expand * hidden_size) if
    kwargs.get("intermediate_size") is None else kwargs.get("intermediate_size")``
    (huggingface/transformers, src/transformers/models/falcon_mamba/modular_falcon_mamba.py at
    commit 0a4256a0210d7f00efa2644874d076922cdd4998).  falcon-mamba-7b's config.json says
    ``expand`` 16 *and* ``intermediate_size`` 8192 (2 x hidden); 8192 is what the model builds,
    and the Hub's 7.27B total is only reached with it (16 x 4096 would give about 56B).
    """
    f = mamba(r)
    if r.has("intermediate_size") and r.has("expand"):
        expand, h = r.num("expand"), f["hidden_size"]
        if expand * h != f["ssm"]["d_inner"]:
            r.notes.append(
                f"intermediate_size {f['ssm']['d_inner']} used as the Mamba inner width, not "
                f"expand x hidden_size ({expand * h}): FalconMambaConfig lets intermediate_size win"
            )
    return f


def mamba2(r: ConfigReader) -> Fields:
    h = r.num("hidden_size", default=4096)
    n = r.num("num_hidden_layers", default=64)
    heads = r.num("num_heads", default=128)
    head_dim = r.num("head_dim", default=64)
    expand = r.num("expand", default=2)
    f: Fields = {
        "hidden_size": h,
        "num_hidden_layers": n,
        "vocab_size": r.num("vocab_size", default=32768),
        "tie_word_embeddings": r.flag("tie_word_embeddings", default=False),
        "layer_types": ("mamba2",) * n,
        "mlp_layer_types": ("none",) * n,
        "ssm": {
            "version": 2,
            "d_inner": expand * h,
            "state_size": r.num("state_size", default=128),
            "conv_kernel": r.num("conv_kernel", default=4),
            "n_heads": heads,
            "n_groups": r.num("n_groups", default=8),
            "conv_bias": r.flag("use_conv_bias", default=True),
            "proj_bias": r.flag("use_bias", default=False),
        },
    }
    if expand * h != heads * head_dim:
        r.warnings.append(
            f"{r.source}: expand x hidden_size ({expand * h}) differs from num_heads x head_dim "
            f"({heads * head_dim}); counted with expand x hidden_size as Mamba2Mixer does"
        )
    return _no_attention(f)


def jamba(r: ConfigReader) -> Fields:
    h = r.num("hidden_size", default=4096)
    n = r.num("num_hidden_layers", default=32)
    heads = r.num("num_attention_heads", default=32)
    attn_period = r.num("attn_layer_period", default=8)
    attn_offset = r.num("attn_layer_offset", default=4, minimum=0)
    exp_period = r.num("expert_layer_period", default=2)
    exp_offset = r.num("expert_layer_offset", default=1, minimum=0)
    experts = r.num("num_experts", default=16)
    f: Fields = {
        "hidden_size": h,
        "intermediate_size": r.num("intermediate_size", default=14336),
        "num_hidden_layers": n,
        "num_attention_heads": heads,
        "num_key_value_heads": r.num("num_key_value_heads", default=8),
        "vocab_size": r.num("vocab_size", default=65536),
        "tie_word_embeddings": r.flag("tie_word_embeddings", default=False),
        "layer_types": tuple(
            "full_attention" if i % attn_period == attn_offset else "mamba" for i in range(n)
        ),
        "mlp_layer_types": tuple(
            "moe" if experts > 1 and i % exp_period == exp_offset else "dense" for i in range(n)
        ),
        "num_experts": experts,
        "num_experts_per_tok": r.num("num_experts_per_tok", default=2),
        "ssm": {
            "version": 1,
            "d_inner": r.num("mamba_expand", default=2) * h,
            "state_size": r.num("mamba_d_state", default=16),
            "conv_kernel": r.num("mamba_d_conv", default=4),
            "dt_rank": _dt_rank(r, h, "mamba_dt_rank"),
            "conv_bias": r.flag("mamba_conv_bias", default=True),
            "proj_bias": r.flag("mamba_proj_bias", default=False),
            "inner_norms": True,
        },
    }
    return f


_NEMOTRON_KINDS = {
    "M": ("mamba2", "none"),
    "*": ("full_attention", "none"),
    "-": ("none", "dense"),
    "E": ("none", "moe"),
}


#: ``layers_block_type`` entries as ``hybrid_override_pattern`` characters.
_NEMOTRON_BLOCK_NAMES = {"mamba": "M", "attention": "*", "mlp": "-", "moe": "E"}


def _nemotron_pattern(r: ConfigReader) -> str:
    blocks = r.cfg.get("layers_block_type")
    if blocks is None:
        pattern = r.text("hybrid_override_pattern")
        if not pattern:
            r.missing.append("hybrid_override_pattern (or layers_block_type)")
            return "*"
        return pattern
    if not isinstance(blocks, list) or not blocks:
        r.bad.append("layers_block_type (must be a list of block names)")
        return "*"
    unknown = sorted({str(b) for b in blocks if b not in _NEMOTRON_BLOCK_NAMES})
    if unknown:
        r.bad.append(
            f"layers_block_type has {', '.join(repr(b) for b in unknown)} "
            "(known: mamba, attention, mlp, moe)"
        )
    return "".join(_NEMOTRON_BLOCK_NAMES.get(b, "") for b in blocks) or "*"


def nemotron_h(r: ConfigReader) -> Fields:
    pattern = _nemotron_pattern(r)
    unknown = sorted(set(pattern) - set(_NEMOTRON_KINDS))
    if unknown:
        r.bad.append(
            f"hybrid_override_pattern has {', '.join(repr(c) for c in unknown)} "
            "(known: M Mamba-2, * attention, - MLP, E MoE)"
        )
        pattern = "".join(c for c in pattern if c in _NEMOTRON_KINDS) or "*"
    # NemotronHConfig derives num_hidden_layers from the pattern when the config omits it.
    n = r.num("num_hidden_layers") if r.has("num_hidden_layers") else len(pattern)
    if n != len(pattern):
        r.bad.append(f"num_hidden_layers={n} but hybrid_override_pattern has {len(pattern)}")
        n = len(pattern)
    h = r.num("hidden_size")
    heads = r.num("num_attention_heads")
    m_heads = r.num("mamba_num_heads")
    f: Fields = {
        "hidden_size": h,
        "intermediate_size": r.num("intermediate_size", default=0, minimum=0),
        "num_hidden_layers": n,
        "num_attention_heads": heads,
        "num_key_value_heads": r.num("num_key_value_heads", default=heads),
        "vocab_size": r.num("vocab_size"),
        "tie_word_embeddings": r.flag("tie_word_embeddings", default=False),
        "attention_bias": r.flag("attention_bias", default=False),
        "mlp_bias": r.flag("mlp_bias", default=False),
        "mlp_gated": False,
        "norms_per_layer": 1,
        "layer_types": tuple(_NEMOTRON_KINDS[c][0] for c in pattern),
        "mlp_layer_types": tuple(_NEMOTRON_KINDS[c][1] for c in pattern),
        "ssm": {
            "version": 2,
            "d_inner": m_heads * r.num("mamba_head_dim"),
            "state_size": r.num("ssm_state_size"),
            "conv_kernel": r.num("conv_kernel", default=4),
            "n_heads": m_heads,
            "n_groups": r.num("n_groups", default=8),
            "conv_bias": r.flag("use_conv_bias", default=True),
            "proj_bias": r.flag("use_bias", "mamba_proj_bias", default=False),
        },
    }
    hd = r.opt_int("head_dim", "attention_head_dim", minimum=1)
    if hd:
        f["head_dim"] = hd
    if "E" in pattern:
        f["num_experts"] = r.num("n_routed_experts")
        f["num_experts_per_tok"] = r.num("num_experts_per_tok")
        f["moe_intermediate_size"] = r.num("moe_intermediate_size")
        f["shared_expert_intermediate_size"] = r.num(
            "moe_shared_expert_intermediate_size", default=0, minimum=0
        )
        f["router_bias"] = True  # e_score_correction_bias
        latent = r.opt_int("moe_latent_size", minimum=1)
        if latent:
            f["moe_latent_size"] = latent
            r.notes.append(
                f"LatentMoE: routed experts run at moe_latent_size {latent} between "
                "fc1_latent_proj and fc2_latent_proj; the shared expert at hidden_size"
            )
    if r.num("num_nextn_predict_layers", default=0, minimum=0):
        r.notes.append(
            "the checkpoint's multi-token-prediction block (num_nextn_predict_layers) is not "
            "counted: NemotronHForCausalLM does not build it"
        )
    return f


def mamba_ssm(r: ConfigReader) -> Fields:
    """The ``mamba_ssm`` package's own config.json (state-spaces/mamba-*, mamba2-*): no
    ``model_type``; ``d_model``, ``n_layer``, ``ssm_cfg`` (``layer`` "Mamba2" or Mamba-1),
    ``vocab_size`` padded up to ``pad_vocab_size_multiple``, embeddings tied
    (``MambaConfig`` of ``mamba_ssm/models/config_mamba.py``; mixer defaults from
    ``mamba_ssm/modules/mamba_simple.py`` and ``mamba2.py``: expand 2, conv 4, state 16 / 128,
    Mamba-2 head dim 64 and one group)."""
    ssm_cfg = r.cfg.get("ssm_cfg") or {}
    if not isinstance(ssm_cfg, dict):
        r.bad.append("ssm_cfg (must be an object)")
        ssm_cfg = {}
    if r.cfg.get("attn_layer_idx") or r.num("d_intermediate", default=0, minimum=0):
        r.bad.append(
            "attn_layer_idx / d_intermediate (hybrid mamba_ssm checkpoints are not supported; "
            "use a transformers config.json of the model)"
        )
    h = r.num("d_model")
    n = r.num("n_layer")
    vocab = r.num("vocab_size")
    multiple = r.num("pad_vocab_size_multiple", default=8)
    vocab += -vocab % multiple
    s = ConfigReader(ssm_cfg, f"{r.source} ssm_cfg")
    expand = s.num("expand", default=2)
    d_inner = expand * h
    version = 2 if ssm_cfg.get("layer") == "Mamba2" else 1
    ssm: dict[str, object] = {
        "version": version,
        "d_inner": d_inner,
        "state_size": s.num("d_state", default=128 if version == 2 else 16),
        "conv_kernel": s.num("d_conv", default=4),
        "conv_bias": s.flag("conv_bias", default=True),
        "proj_bias": s.flag("bias", default=False),
    }
    if version == 1:
        ssm["dt_rank"] = _dt_rank(s, h, "dt_rank")
    else:
        ssm["n_heads"] = d_inner // s.num("headdim", default=64)
        ssm["n_groups"] = s.num("ngroups", default=1)
    r.bad += s.bad
    r.notes.append(f"mamba_ssm config: vocabulary padded to {vocab} (pad_vocab_size_multiple)")
    f: Fields = {
        "hidden_size": h,
        "num_hidden_layers": n,
        "vocab_size": vocab,
        "tie_word_embeddings": r.flag("tie_embeddings", default=True),
        "norm_bias": not r.flag("rms_norm", default=True),
        "layer_types": (("mamba2" if version == 2 else "mamba"),) * n,
        "mlp_layer_types": ("none",) * n,
        "ssm": ssm,
    }
    return _no_attention(f)


_GRANITE_MIXERS = {"attention": "full_attention", "mamba": "mamba2"}


def granitemoehybrid(r: ConfigReader) -> Fields:
    h = r.num("hidden_size", default=4096)
    heads = r.num("num_attention_heads", default=32)
    n = r.num("num_hidden_layers", default=32)
    kinds = r.cfg.get("layer_types", r.cfg.get("layers_block_type"))
    if kinds is None:
        kinds = ["mamba"] * n  # GraniteMoeHybridConfig.layers_block_type without layer_types
        r.defaults_used.append("layer_types=mamba in every layer")
    if not isinstance(kinds, list) or len(kinds) != n or not set(kinds) <= set(_GRANITE_MIXERS):
        r.bad.append(f"layer_types (must list {n} entries of attention or mamba)")
        kinds = ["attention"] * n
    experts = r.num("num_local_experts", default=8, minimum=0)
    shared = r.num("shared_intermediate_size", default=1024, minimum=0)
    inter = r.num("intermediate_size", default=11008)
    f: Fields = {
        "hidden_size": h,
        "num_hidden_layers": n,
        "num_attention_heads": heads,
        "num_key_value_heads": r.num("num_key_value_heads", default=heads),
        "vocab_size": r.num("vocab_size", default=32000),
        "tie_word_embeddings": r.flag("tie_word_embeddings", default=False),
        "attention_bias": r.flag("attention_bias", default=False),
    }
    mp = r.opt_int("max_position_embeddings", minimum=1)
    if mp:
        f["max_position_embeddings"] = mp
    if experts:
        f.update(
            intermediate_size=0,
            moe_intermediate_size=inter,
            num_experts=experts,
            num_experts_per_tok=r.num("num_experts_per_tok", default=2),
            shared_expert_intermediate_size=shared,
            mlp_layer_types=("moe",) * n,
        )
    else:  # dense: the shared MLP is the whole FFN
        f.update(intermediate_size=shared, mlp_layer_types=("dense",) * n)
        if not shared:
            r.bad.append("shared_intermediate_size=0 with num_local_experts=0 (no FFN at all)")
    if "mamba" in kinds:
        m_heads = r.num("mamba_n_heads", default=128)
        d_inner = r.num("mamba_expand", default=2) * h
        d_head = r.raw("mamba_d_head", default="auto")
        if d_head != "auto" and r.num("mamba_d_head") * m_heads != d_inner:
            r.bad.append(
                f"mamba_n_heads x mamba_d_head must equal mamba_expand x hidden_size ({d_inner})"
            )
        f["ssm"] = {
            "version": 2,
            "d_inner": d_inner,
            "state_size": r.num("mamba_d_state", default=256),
            "conv_kernel": r.num("mamba_d_conv", default=4),
            "n_heads": m_heads,
            "n_groups": r.num("mamba_n_groups", default=1),
            "conv_bias": r.flag("mamba_conv_bias", default=True),
            "proj_bias": r.flag("mamba_proj_bias", default=False),
        }
    f["layer_types"] = tuple(_GRANITE_MIXERS.get(k, "full_attention") for k in kinds)
    r.notes.append(
        "Granite 4.0: "
        + (f"{experts} experts of {inter} + " if experts else "")
        + f"shared SwiGLU MLP of {shared} in every layer; "
        + f"{list(kinds).count('mamba')} Mamba-2 and {list(kinds).count('attention')} "
        "attention layers; muP multipliers add no weights"
    )
    return f
