"""config.json -> :class:`ModelPreset`: the architecture of a model, per model family.

Pure data mapping (no I/O, no network): :mod:`engine.model.hub` fetches a config.json and
:mod:`engine.model.resolve` calls :func:`arch_from_config` on it.  Each ``model_type`` has a
function in one of the family modules (:mod:`.decoders` Llama-style, :mod:`.moe`, :mod:`.gpt`
GPT-2/J/NeoX/OPT/Falcon/phi/Qwen v1, :mod:`.hybrid` Mamba/Jamba/Nemotron-H/Granite 4.0, :mod:`.alibi`
BLOOM, :mod:`.nas` Nemotron-NAS,
:mod:`.linear_attention` Qwen3.5/Qwen3-Next, :mod:`.more_families` Granite 3.x (dense and MoE)/MPT/ERNIE 4.5/SmolLM3/EXAONE 3/GLM-4-0414/Qwen2-VL) that reads the
family's field names and aliases, fills absent keys with the family's ``transformers`` config
class defaults (listed in the preset's notes) and describes what differs from a Llama-style
decoder (biases, LayerNorm vs RMSNorm, two-matrix MLPs, tied embeddings, MoE layout, sliding or
Mamba layers); :mod:`engine.model.params` counts from that description.

A ``model_type`` with no function is refused with :class:`ArchConfigError` (the CLI exits 2)
naming the known families and what to do; it is never counted as a Llama.  A dict without any
``model_type`` (architecture numbers typed in by hand) is read with the Llama field names and
a warning saying so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from slotwise.engine.inputs import ref
from slotwise.engine.model.arch import (
    alibi,
    decoders,
    gpt,
    hybrid,
    linear_attention,
    moe,
    more_families,
    nas,
)
from slotwise.engine.model.arch.reader import ArchConfigError, ConfigReader
from slotwise.engine.model.arch.vision import vision_params
from slotwise.engine.model.params import count_params
from slotwise.parts.safe_io import shorten
from slotwise.parts.schema import ModelPreset

__all__ = ["KNOWN_MODEL_TYPES", "ArchConfigError", "arch_from_config", "family_of"]

Family = Callable[[ConfigReader], dict[str, Any]]

FAMILIES: dict[str, Family] = {
    # Llama-style decoders
    "llama": decoders.llama,
    "mistral": decoders.mistral,
    "ministral": decoders.ministral,
    "ministral3": decoders.ministral,
    "qwen2": decoders.qwen2,
    "qwen3": decoders.qwen3,
    "qwen3_vl_text": decoders.qwen3,  # Qwen3-VL's language model (Qwen3VLTextConfig = Qwen3's)
    "qwen2_5_vl": decoders.qwen2_5_vl,  # text fields at the root (the Hub's first configs)
    "qwen2_5_vl_text": decoders.qwen2_5_vl,
    "phi3": decoders.phi3,
    "phi3_v": decoders.phi3_v,
    "gemma": decoders.gemma,
    "gemma2": decoders.gemma2,
    "gemma3_text": decoders.gemma3_text,
    "cohere": decoders.cohere,
    "cohere2": decoders.cohere2,
    "olmo": decoders.olmo,
    "olmo2": decoders.olmo2,
    "olmo3": decoders.olmo3,
    "stablelm": decoders.stablelm,
    "internlm": decoders.internlm,
    "internlm2": decoders.internlm2,
    "baichuan": decoders.remote_llama,
    "starcoder2": decoders.starcoder2,
    "chatglm": decoders.chatglm,
    # Mixture of experts
    "mixtral": moe.mixtral,
    "minicpm": moe.minicpm,
    "qwen2_moe": moe.qwen2_moe,
    "qwen3_moe": moe.qwen3_moe,
    "deepseek": moe.deepseek,
    "deepseek_v2": moe.deepseek_v2,
    "deepseek_v3": moe.deepseek_v3,
    "kimi_k2": moe.deepseek_v3,
    "deepseek_v32": moe.deepseek_v32,
    "glm_moe_dsa": moe.glm_moe_dsa,
    "glm4_moe": moe.glm4_moe,
    "olmoe": moe.olmoe,
    "llama4_text": moe.llama4_text,
    "gpt_oss": moe.gpt_oss,
    "minimax_m2": moe.minimax_m2,
    "qwen3_vl_moe_text": moe.qwen3_vl_moe_text,
    # GPT-style
    "gpt2": gpt.gpt2,
    "gpt_bigcode": gpt.gpt_bigcode,
    "gptj": gpt.gptj,
    "gpt_neox": gpt.gpt_neox,
    "opt": gpt.opt,
    "falcon": gpt.falcon,
    "RefinedWeb": gpt.falcon,
    "RefinedWebModel": gpt.falcon,
    "phi": gpt.phi,
    "phi-msft": gpt.phi,
    "qwen": gpt.qwen,
    # State-space and hybrids
    "mamba": hybrid.mamba,
    "falcon_mamba": hybrid.falcon_mamba,
    "mamba2": hybrid.mamba2,
    "jamba": hybrid.jamba,
    "nemotron_h": hybrid.nemotron_h,
    "granitemoehybrid": hybrid.granitemoehybrid,
    # ALiBi decoders (engine.model.arch.alibi)
    "bloom": alibi.bloom,
    # Per-layer searched blocks (engine.model.arch.nas)
    "nemotron-nas": nas.nemotron_nas,
    # Gated DeltaNet hybrids (engine.model.arch.linear_attention)
    "qwen3_5_text": linear_attention.qwen3_5_text,
    "qwen3_5_moe_text": linear_attention.qwen3_5_moe_text,
    "qwen3_next": linear_attention.qwen3_next,
    # More Llama-style and MoE families (engine.model.arch.more_families)
    "granite": more_families.granite,
    "granitemoe": more_families.granitemoe,
    "granitemoeshared": more_families.granitemoe,
    "mpt": more_families.mpt,
    "ernie4_5": more_families.ernie4_5,
    "smollm3": more_families.smollm3,
    "exaone": more_families.exaone,
    "glm4": more_families.glm4,
    "qwen2_vl": more_families.qwen2_vl,  # text fields at the root (the Hub's configs)
    "qwen2_vl_text": more_families.qwen2_vl,
}
KNOWN_MODEL_TYPES = frozenset(FAMILIES)

# Fields that set the model's size: taking one from a class default is worth a warning.
_SHAPE_FIELDS = frozenset(
    {
        "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
        "head_dim", "vocab_size", "n_embd", "n_layer", "n_head",
        "num_local_experts", "num_experts", "moe_intermediate_size", "ffn_dim",
    }
)  # fmt: skip

# Multimodal wrappers whose language model sits under text_config.
_TEXT_CONFIG_TYPES = {
    "gemma3": "gemma3_text",
    "llama4": "llama4_text",
    "mistral3": "ministral3",
    "qwen2_vl": "qwen2_vl_text",
    "qwen2_5_vl": "qwen2_5_vl_text",
    "qwen3_vl": "qwen3_vl_text",
    "qwen3_5": "qwen3_5_text",
    "qwen3_5_moe": "qwen3_5_moe_text",
    "kimi_k25": "kimi_k2",
    "qwen3_vl_moe": "qwen3_vl_moe_text",
}


def family_of(model_type: str) -> Family | None:
    return FAMILIES.get(model_type)


def _unknown(model_type: str, source: str) -> ArchConfigError:
    return ArchConfigError(
        f"{source}: model_type {shorten(model_type)} is not a family slotwise can count, so its "
        "size and memory would be a guess. Known: "
        + ", ".join(sorted(KNOWN_MODEL_TYPES, key=str.lower))
        + f". Use a preset ({ref('model')}), a config.json of a known family, or, if the model is a "
        "Llama-style decoder, a copy of its config.json with model_type set to llama"
    )


def _text_part(cfg: dict[str, Any], source: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(the language model's config, the outer multimodal config or None)."""
    text = cfg.get("text_config")
    outer_type = cfg.get("model_type")
    if not isinstance(text, dict):
        return cfg, None
    if "hidden_size" in cfg and outer_type not in _TEXT_CONFIG_TYPES:
        return cfg, None
    inner = dict(text)
    if not isinstance(inner.get("model_type"), str):
        default = _TEXT_CONFIG_TYPES.get(outer_type) if isinstance(outer_type, str) else None
        inner["model_type"] = default or outer_type
    # tie_word_embeddings of a wrapper applies to its language model.
    if "tie_word_embeddings" in cfg and "tie_word_embeddings" not in inner:
        inner["tie_word_embeddings"] = cfg["tie_word_embeddings"]
    return inner, cfg


#: The most decoder layers a config may name (parts.bounds.ModelLayers): the family mappers
#: build one entry per layer, so 10^19 layers must be refused before they run (issue #15).
MAX_LAYERS = 4096


def _check_layer_counts(text: dict[str, Any], source: str) -> None:
    for key, value in text.items():
        # A float counts too: JSON's 1e308 is a whole number to the reader (fuzz config:585).
        is_count = isinstance(value, int | float) and not isinstance(value, bool)
        if "layer" in key and is_count and not value <= MAX_LAYERS:
            raise ArchConfigError(
                f"{source}: {key} = {shorten(value)} is more than the {MAX_LAYERS} layers a "
                "model can have; check the file"
            )


def _validate(fields: dict[str, Any], source: str) -> ModelPreset:
    try:
        return ModelPreset.model_validate(fields)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise ArchConfigError(f"{source}: {problems}") from exc


def arch_from_config(
    cfg: dict[str, Any], *, source: str, name: str
) -> tuple[ModelPreset, list[str]]:
    """Map a config.json dict to a :class:`ModelPreset`; also return warnings for the user.

    ``published_params_b`` of the result is the computed count (there is no published figure
    for an imported config); ``notes`` says so, names the family and lists the config-class
    defaults used for absent keys.  Raises :class:`ArchConfigError` naming ``source`` and the
    missing or bad fields, or the unknown ``model_type``.
    """
    if not isinstance(cfg, dict):
        raise ArchConfigError(f"{source}: expected a JSON object of config fields")
    warnings: list[str] = []
    text, outer = _text_part(cfg, source)
    model_type = text.get("model_type")
    if (not isinstance(model_type, str) or not model_type) and "ssm_cfg" in text:
        model_type = "mamba_ssm"
        family: Family = hybrid.mamba_ssm
    elif not isinstance(model_type, str) or not model_type:
        model_type = "llama"
        warnings.append(
            f"{source}: no model_type; read as a Llama-style decoder "
            "(SwiGLU MLP, RMSNorm, no biases) from the Llama field names"
        )
        family = decoders.remote_llama
    else:
        found = family_of(model_type)
        if found is None:
            raise _unknown(model_type, source)
        family = found
    _check_layer_counts(text, source)
    r = ConfigReader(text, source)
    fields = family(r)
    r.check()
    warnings += r.warnings
    shape_defaults = [d for d in r.defaults_used if d.split("=")[0] in _SHAPE_FIELDS]
    if shape_defaults:
        warnings.append(
            f"{source}: {', '.join(dict.fromkeys(shape_defaults))} absent from the config; "
            f"taken from the transformers defaults for {model_type} (check the file is complete)"
        )
    # A multimodal config: the language model under text_config, or (Qwen2.5-VL as first
    # shipped) at the root beside a vision_config.
    holder = outer if outer is not None else cfg
    if outer is not None or isinstance(cfg.get("vision_config"), dict):
        extra, vis_warn, vis_notes = vision_params(holder, fields["hidden_size"], source)
        if outer is not None:
            warnings.append(
                f"{source}: read text_config (the language model, {model_type})"
                + ("" if extra or vis_warn else "; no vision tower found")
            )
        warnings += vis_warn
        r.notes += vis_notes
        if extra:
            fields["extra_params"] = extra

    hidden, heads = fields["hidden_size"], fields.get("num_attention_heads", 0)
    if heads and "head_dim" not in fields and "kv_lora_rank" not in fields and hidden % heads:
        warnings.append(
            f"{source}: hidden_size {hidden} is not a multiple of num_attention_heads {heads} "
            "and there is no head_dim; head_dim taken as the integer quotient"
        )
    kv = fields.get("num_key_value_heads", 0)
    if heads and kv and heads % kv:
        warnings.append(
            f"{source}: num_attention_heads {heads} is not a multiple of num_key_value_heads {kv}"
        )

    notes = [f"Counted as {model_type} (engine.model.arch)."]
    notes += [n.rstrip(".") + "." for n in r.notes]
    if r.defaults_used:
        notes.append(
            "Absent from config.json, taken from the transformers config class default: "
            + ", ".join(dict.fromkeys(r.defaults_used))
            + "."
        )
    notes.append("published_params_b is the computed parameter count (imported config).")
    base = {
        "sku": name,
        "name": name,
        "source": source,
        "confidence": "B",
        "model_type": model_type,
        "notes": " ".join(notes),
        "published_params_b": 1.0,  # replaced by the computed count just below
        **fields,
    }
    preset = _validate(base, source)
    counts = count_params(preset)
    update: dict[str, Any] = {"published_params_b": counts.total / 1e9}
    if counts.is_moe:
        update["published_active_params_b"] = counts.active / 1e9
    return preset.model_copy(update=update), warnings
