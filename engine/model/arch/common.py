"""Fields every decoder-only family reads the same way, and the layer-pattern helpers.

``decoder_fields(r, defaults)`` reads the Llama-named fields (``hidden_size``,
``intermediate_size``, ``num_hidden_layers``, ``num_attention_heads``, ``num_key_value_heads``,
``head_dim``, ``vocab_size``, ``max_position_embeddings``, ``tie_word_embeddings``,
``attention_bias``, ``mlp_bias``); a key absent from config.json takes the family's config-class
default from ``defaults`` (each family module cites the class it copies them from).  A field
without a default is required.
"""

from __future__ import annotations

from typing import Any

from slotwise.engine.model.arch.reader import ConfigReader

Fields = dict[str, Any]

# Sentinel for "no class default: the field is required".
REQUIRED: Any = None


def decoder_fields(r: ConfigReader, defaults: dict[str, Any]) -> Fields:
    def get(name: str, *aliases: str) -> Any:
        d = defaults.get(name, REQUIRED)
        return r.num(name, *aliases, default=d) if d is not REQUIRED else r.num(name, *aliases)

    f: Fields = {
        "hidden_size": get("hidden_size"),
        "intermediate_size": get("intermediate_size"),
        "num_hidden_layers": get("num_hidden_layers"),
        "num_attention_heads": get("num_attention_heads"),
        "vocab_size": get("vocab_size"),
    }
    kv_default = defaults.get("num_key_value_heads") or f["num_attention_heads"]
    f["num_key_value_heads"] = r.num("num_key_value_heads", default=kv_default)
    hd = r.opt_int("head_dim", minimum=1)
    if hd is None and defaults.get("head_dim"):
        hd = r.num("head_dim", default=defaults["head_dim"])
    if hd is not None:
        f["head_dim"] = hd
    mp = r.opt_int("max_position_embeddings", minimum=1)
    if mp is not None:
        f["max_position_embeddings"] = mp
    f["tie_word_embeddings"] = r.flag(
        "tie_word_embeddings", default=defaults.get("tie_word_embeddings", False)
    )
    f["attention_bias"] = r.flag("attention_bias", default=defaults.get("attention_bias", False))
    f["mlp_bias"] = r.flag("mlp_bias", default=defaults.get("mlp_bias", False))
    return f


def every_layer(n: int, kind: str) -> tuple[str, ...]:
    return (kind,) * n


def sliding_every(n: int, period: int) -> tuple[str, ...]:
    """Gemma 3 / Cohere 2 / OLMo 3: every ``period``-th layer (1-based) is global, the rest
    slide (``(i + 1) % period != 0``)."""
    return tuple(
        "full_attention" if period and (i + 1) % period == 0 else "sliding_attention"
        for i in range(n)
    )


def explicit_layer_types(r: ConfigReader, n: int) -> tuple[str, ...] | None:
    """A config's own ``layer_types`` list (Gemma 3, gpt-oss, OLMo 3 write one)."""
    value = r.cfg.get("layer_types")
    if value is None:
        return None
    allowed = {"full_attention", "sliding_attention", "chunked_attention"}
    if not isinstance(value, list) or len(value) != n or not set(value) <= allowed:
        r.bad.append(f"layer_types (must list {n} entries of {', '.join(sorted(allowed))})")
        return None
    return tuple(value)


def add_sliding(
    r: ConfigReader, f: Fields, kinds: tuple[str, ...], *, default: int | None = None
) -> None:
    """Record the layer kinds and the window (``sliding_window``, else the class default)
    when any layer slides; without a window every layer is full attention."""
    if "sliding_attention" not in kinds and "chunked_attention" not in kinds:
        return
    key = "attention_chunk_size" if "chunked_attention" in kinds else "sliding_window"
    window = r.num(key, default=default, minimum=1) if r.has(key) or default else None
    if window is None:
        return
    f["sliding_window"] = window
    f["layer_types"] = kinds
