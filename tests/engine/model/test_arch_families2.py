"""Families added by the second families pass (issue #12 item 1): engine.model.arch.more_families.

Each family has a real config.json copy under tests/fixtures/configs/ (PUBLISHED.toml names its
source and the publisher's figure; tests/engine/model/test_arch_families.py checks the total against it).
Here each count is rebuilt by hand from the family's modeling code, so a layout mistake shows
up as a difference in a named term rather than only as a total off by some percent.
"""

from __future__ import annotations

import pytest

from slotwise.engine.model.arch import ArchConfigError, arch_from_config
from slotwise.engine.model.params import count_params
from tests.evidence.published_configs import PUBLISHED, load


def published(key: str) -> int:
    return int(PUBLISHED[key]["published"].replace(",", ""))


# ---------------------------------------------------------------------------------- Granite


def test_granite_3_3_8b_is_the_hubs_exact_total():
    """GraniteForCausalLM = Llama layout, tied embedding (tie_word_embeddings true); the muP
    multipliers add no weights.  8,170,864,640 is the Hub's safetensors total."""
    _, preset, c, warnings = load("granite-3.3-8b")
    h, v, n, heads, kv, inter = 4096, 49159, 40, 32, 8, 12800
    hd = h // heads
    attn = h * heads * hd + 2 * h * kv * hd + heads * hd * h
    layer = attn + 3 * h * inter + 2 * h
    assert c.lm_head == 0 and preset.tie_word_embeddings
    assert c.total == v * h + n * layer + h == published("granite-3.3-8b")
    assert not warnings


def test_granite_multipliers_change_no_count():
    cfg, _, c, _ = load("granite-3.3-8b")
    plain = {k: v for k, v in cfg.items() if not k.endswith(("multiplier", "scaling"))}
    preset, _ = arch_from_config(plain, source="x", name="x")
    assert count_params(preset).total == c.total


# -------------------------------------------------------------------------------------- MPT


def test_mpt_7b_counts_the_bias_free_alibi_layout():
    """MptModel: wte (tied) + 32 x (norm_1, norm_2 weights only; Wqkv d -> 3d and out_proj,
    no bias; up_proj d -> 4d and down_proj, no bias) + norm_f; ALiBi: no position weights."""
    _, preset, c, _ = load("mpt-7b-instruct")
    d, v, n = 4096, 50432, 32
    layer = 2 * d + (d * 3 * d + d * d) + 2 * d * 4 * d
    assert c.lm_head == 0 and preset.position_embeddings == 0 and not preset.mlp_gated
    assert c.total == v * d + n * layer + d == 6_649_286_656


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"attn_config": {"alibi": False}}, "alibi"),
        ({"attn_config": {"alibi": True, "attn_type": "grouped_query_attention"}}, "attn_type"),
        ({"attn_config": {"alibi": True, "qk_ln": True}}, "qk_ln"),
        ({"no_bias": False}, "no_bias"),
        ({"ffn_config": {"ffn_type": "mptglu"}}, "ffn_type"),
        ({"expansion_ratio": 8}, "expansion_ratio"),
    ],
)
def test_mpt_variants_outside_the_verified_layout_are_refused(change, named):
    cfg, _, _, _ = load("mpt-7b-instruct")
    with pytest.raises(ArchConfigError, match=named):
        arch_from_config({**cfg, **change}, source="mpt.json", name="x")


# ------------------------------------------------------------------------------- ERNIE 4.5


def test_ernie_4_5_0_3b_is_the_exact_checkpoint_total():
    """Ernie4_5ForCausalLM: Llama layout with head_dim 128 (q 16 x 128, k/v 2 x 128), no biases
    (use_bias false), embeddings tied.  360,748,032 is the checkpoint's parameter count."""
    _, preset, c, _ = load("ernie-4.5-0.3b")
    h, v, n, inter, hd = 1024, 103424, 18, 3072, 128
    attn = h * 16 * hd + 2 * h * 2 * hd + 16 * hd * h
    layer = attn + 3 * h * inter + 2 * h
    assert c.lm_head == 0 and preset.head_dim == hd
    assert c.total == v * h + n * layer + h == published("ernie-4.5-0.3b")


def test_ernie_4_5_use_bias_adds_every_projection_bias():
    cfg, _, c, _ = load("ernie-4.5-0.3b")
    preset, _ = arch_from_config({**cfg, "use_bias": True}, source="x", name="x")
    h, inter, hd = 1024, 3072, 128
    per_layer = (16 * hd + 2 * 2 * hd + h) + (2 * inter + h)
    assert count_params(preset).total - c.total == 18 * per_layer


def test_ernie_4_5_null_head_dim_means_hidden_over_heads():
    cfg, _, _, _ = load("ernie-4.5-0.3b")
    preset, _ = arch_from_config({**cfg, "head_dim": None}, source="x", name="x")
    assert (preset.head_dim or 1024 // 16) == 64
