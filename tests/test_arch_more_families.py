"""Families added for popular Hub models slotwise used to refuse (issue #12 item 1, "families").

Each family here has a real config.json copy under tests/fixtures/configs/ (PUBLISHED.toml names
its source and the publisher's figure); tests/test_arch_families.py checks every copy's total
against that figure.  This file checks what each family adds beyond the layouts slotwise
already counted, by hand from the family's modeling code.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from slotwise.engine.estimate.arch import ArchConfigError, arch_from_config
from slotwise.engine.estimate.params import count_params

ROOT = Path(__file__).parent / "fixtures" / "configs"
PUBLISHED = tomllib.loads((ROOT / "PUBLISHED.toml").read_text(encoding="utf-8"))


def load(key: str):
    entry = PUBLISHED[key]
    cfg = json.loads((ROOT / entry["dir"] / "config.json").read_text(encoding="utf-8"))
    preset, warnings = arch_from_config(cfg, source=entry["dir"], name=entry["hf_id"])
    return cfg, preset, count_params(preset), warnings


# ------------------------------------------------------------------------------------ BLOOM


def test_bloom_560m_is_the_cards_exact_total_with_the_embedding_layernorm():
    """BloomModel: word_embeddings + word_embeddings_layernorm + 24 x (two LayerNorms,
    query_key_value and dense with bias, dense_h_to_4h / dense_4h_to_h with bias) + ln_f;
    lm_head tied.  559,214,592 is the model card's figure."""
    _, preset, c, warnings = load("bloom-560m")
    h, v, n = 1024, 250880, 24
    layer = 2 * 2 * h + (h * 3 * h + 3 * h) + (h * h + h) + (h * 4 * h + 4 * h) + (4 * h * h + h)
    assert c.total == v * h + 2 * h + n * layer + 2 * h == 559_214_592
    assert preset.embedding_norm and c.lm_head == 0 and preset.position_embeddings == 0
    assert warnings == []
    without = count_params(preset.model_copy(update={"embedding_norm": False}))
    assert c.total - without.total == 2 * h


def test_bloom_reads_n_embed_and_the_attribute_map_aliases():
    """BLOOM-176B's config writes n_embed / num_attention_heads; BloomConfig reads n_embed in
    place of hidden_size and maps num_attention_heads -> n_head, num_hidden_layers ->
    n_layer.  176,247,271,424 is the bigscience/bloom card's figure for that shape."""
    cfg = {"model_type": "bloom", "n_embed": 14336, "num_attention_heads": 112, "n_layer": 70,
           "vocab_size": 250880}  # fmt: skip
    preset, _ = arch_from_config(cfg, source="bloom.json", name="bloom")
    assert (preset.hidden_size, preset.num_attention_heads, preset.intermediate_size) == (
        14336,
        112,
        4 * 14336,
    )
    assert count_params(preset).total == 176_247_271_424


def test_bloom_with_a_bad_width_names_the_field():
    with pytest.raises(ArchConfigError, match="n_embed"):
        arch_from_config({"model_type": "bloom", "n_embed": "wide"}, source="b.json", name="b")
