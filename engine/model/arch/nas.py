"""Decoders whose layers differ one from the next: DeciLM / Nemotron-NAS (``nemotron-nas``).

NVIDIA's Llama-Nemotron Super / Ultra are Llama 3 models pruned block by block with a neural
architecture search (Puzzle, arXiv:2411.19146); the config's ``block_configs`` lists, per layer,
an ``attention`` and an ``ffn`` entry.  The checkpoint's remote code
(``modeling_decilm.py`` of e.g. nvidia/Llama-3_3-Nemotron-Super-49B-v1, as ported by vLLM
``nemotron_nas.py`` and NeMo AutoModel's DeciLM block) builds each layer as:

* attention ``no_op``: nothing (no ``input_layernorm`` either); ``replace_with_linear``:
  ``input_layernorm`` + one ``Linear(hidden, hidden, bias=False)`` (``linear_attn``); else
  ``input_layernorm`` + Llama attention with ``num_attention_heads // n_heads_in_group`` KV
  heads;
* ffn ``no_op``: nothing (no ``post_attention_layernorm``); ``replace_with_linear``:
  ``post_attention_layernorm`` + ``Linear(hidden, hidden, bias=False)`` (``linear_mlp``); else
  ``post_attention_layernorm`` + a SwiGLU MLP of width
  ``_ffn_mult_to_intermediate_size(ffn_mult, hidden)`` = ``int(2 * ffn_mult * hidden / 3)``
  rounded up to a multiple of 256 (or the block's own ``intermediate_size`` when it gives one);
* embedding, final RMSNorm and untied ``lm_head`` as Llama.

The memory estimate reads the per-layer kinds (attention or not, MLP or not); its MLP
activations use the mean width of the MLP layers (activations are linear in the width, so the
total over layers is the same), and KV heads must be the same in every attention layer (a
config where they differ is refused rather than approximated).
"""

from __future__ import annotations

from typing import Any

from slotwise.engine.model.arch.common import Fields
from slotwise.engine.model.arch.reader import ConfigReader
from slotwise.parts.safe_io import shorten


def _round_up(n: int, k: int) -> int:
    return n if n % k == 0 else n + k - n % k


def ffn_mult_to_intermediate_size(ffn_mult: float, hidden: int) -> int:
    """``modeling_decilm._ffn_mult_to_intermediate_size``."""
    return _round_up(int(2 * ffn_mult * hidden / 3), 256)


def _block(r: ConfigReader, i: int, block: Any, part: str) -> dict[str, Any] | None:
    value = block.get(part) if isinstance(block, dict) else None
    if not isinstance(value, dict):
        r.bad.append(f"block_configs[{i}].{part} (must be an object)")
        return None
    return value


def _flag(r: ConfigReader, i: int, part: str, cfg: dict[str, Any], key: str) -> bool:
    value = cfg.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        r.bad.append(f"block_configs[{i}].{part}.{key}={shorten(value)} (must be true or false)")
        return False
    return value


def _positive(r: ConfigReader, i: int, where: str, value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        r.bad.append(f"block_configs[{i}].{where}={shorten(value)} (must be a positive number)")
        return None
    return value


def nemotron_nas(r: ConfigReader) -> Fields:
    h = r.num("hidden_size")
    heads = r.num("num_attention_heads")
    n = r.num("num_hidden_layers")
    blocks = r.cfg.get("block_configs")
    if not isinstance(blocks, list) or len(blocks) != n:
        r.bad.append(f"block_configs (must list one entry per layer, {n})")
        blocks = []
    mixers: list[str] = []
    mlps: list[str] = []
    widths: list[int] = []
    kv_heads: set[int] = set()
    linear = 0
    for i, block in enumerate(blocks):
        attn = _block(r, i, block, "attention")
        ffn = _block(r, i, block, "ffn")
        if attn is None or ffn is None:
            continue
        if attn.get("mamba") or (isinstance(block, dict) and block.get("parallel_blocks")):
            r.bad.append(
                f"block_configs[{i}] has Mamba / parallel blocks (a hybrid NAS layout slotwise "
                "does not count)"
            )
            continue
        mixer = "none"
        if not _flag(r, i, "attention", attn, "no_op"):
            if _flag(r, i, "attention", attn, "replace_with_linear"):
                linear += 1
            else:
                group = _positive(r, i, "attention.n_heads_in_group", attn.get("n_heads_in_group"))
                if group is not None:
                    if heads % int(group) or group != int(group):
                        r.bad.append(
                            f"block_configs[{i}].attention.n_heads_in_group={shorten(group)} "
                            f"(must divide num_attention_heads {heads})"
                        )
                    else:
                        kv_heads.add(heads // int(group))
                mixer = "full_attention"
        mixers.append(mixer)
        width = 0
        if not _flag(r, i, "ffn", ffn, "no_op"):
            if _flag(r, i, "ffn", ffn, "replace_with_linear"):
                linear += 1
            elif ffn.get("intermediate_size") is not None:
                size = _positive(r, i, "ffn.intermediate_size", ffn.get("intermediate_size"))
                width = int(size) if size else 0
            else:
                mult = _positive(r, i, "ffn.ffn_mult", ffn.get("ffn_mult"))
                width = ffn_mult_to_intermediate_size(mult, h) if mult else 0
        mlps.append("dense" if width else "none")
        widths.append(width)
    if len(kv_heads) > 1:
        r.bad.append(
            "block_configs: the attention layers have different KV head counts "
            f"({', '.join(str(k) for k in sorted(kv_heads))}); slotwise's KV cache needs one"
        )
    dense_widths = [w for w in widths if w]
    mean = round(sum(dense_widths) / len(dense_widths)) if dense_widths else 0
    r.notes.append(
        "Nemotron-NAS: per-layer blocks from block_configs "
        f"({mixers.count('full_attention')} attention layers, {len(dense_widths)} MLPs of "
        f"widths {min(dense_widths, default=0)}-{max(dense_widths, default=0)}"
        + (f", {linear} linear replacements" if linear else "")
        + "); activations use the mean MLP width"
    )
    f: Fields = {
        "hidden_size": h,
        "intermediate_size": mean,
        "num_hidden_layers": n,
        "num_attention_heads": heads,
        "num_key_value_heads": min(kv_heads) if kv_heads else heads,
        "vocab_size": r.num("vocab_size"),
        "tie_word_embeddings": r.flag("tie_word_embeddings", default=False),
        "attention_bias": r.flag("attention_bias", default=False),
        "mlp_bias": r.flag("mlp_bias", default=False),
        "norms_per_sublayer": True,
        "linear_replacements": linear,
    }
    hd = r.opt_int("head_dim", minimum=1)
    if hd:
        f["head_dim"] = hd
    mp = r.opt_int("max_position_embeddings", minimum=1)
    if mp:
        f["max_position_embeddings"] = mp
    if len(widths) == n:
        f["layer_types"] = tuple(mixers)
        f["mlp_layer_types"] = tuple(mlps)
        f["layer_intermediate_sizes"] = tuple(widths)
    return f
