"""Parameter counts from real config.json copies against the figures their publishers state.

Each folder under tests/fixtures/configs/ holds a config.json copied verbatim from a public
source (PUBLISHED.toml names it) and the parameter count the publisher states.  The count must
fall within 1 %, or within half a unit of the published figure's last digit when the publisher
rounds more coarsely (a card that says "2.8B" promises 2.75-2.85B): a "7B" label cannot be
checked to 1 %.  No constant is fitted here: the counts follow each family's modeling code.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from engine.estimate.arch import arch_from_config
from engine.estimate.params import count_params

ROOT = Path(__file__).parent / "fixtures" / "configs"
PUBLISHED = tomllib.loads((ROOT / "PUBLISHED.toml").read_text(encoding="utf-8"))
_UNIT = {"M": 1e6, "B": 1e9, "T": 1e12, "": 1.0}


def parse(figure: str) -> tuple[float, float]:
    """("2.8B") -> (2.8e9, 0.05e9): the value and half a unit of its last digit."""
    m = re.fullmatch(r"([\d,]+)(?:\.(\d+))?([MBT]?)", figure.strip())
    assert m, figure
    whole, frac, unit = m.groups()
    scale = _UNIT[unit]
    value = float(whole.replace(",", "") + ("." + frac if frac else "")) * scale
    half_unit = 0.5 * scale * 10.0 ** -(len(frac) if frac else 0)
    if unit == "":
        half_unit = 0.5
    return value, half_unit


def load(entry: dict):
    cfg = json.loads((ROOT / entry["dir"] / "config.json").read_text(encoding="utf-8"))
    preset, _ = arch_from_config(cfg, source=entry["dir"], name=entry["hf_id"])
    return preset, count_params(preset)


def within(computed: float, figure: str) -> bool:
    value, half_unit = parse(figure)
    return abs(computed - value) <= max(0.01 * value, half_unit)


def test_at_least_25_architectures_from_real_configs():
    assert len(PUBLISHED) >= 25
    for entry in PUBLISHED.values():
        assert (ROOT / entry["dir"] / "config.json").is_file()
        assert entry["published_source"] and entry["config_source"]


@pytest.mark.parametrize("key", sorted(PUBLISHED))
def test_total_matches_the_published_count(key):
    entry = PUBLISHED[key]
    _, counts = load(entry)
    assert within(counts.total, entry["published"]), (key, counts.total, entry["published"])


@pytest.mark.parametrize("key", sorted(k for k, e in PUBLISHED.items() if "active" in e))
def test_moe_active_matches_the_published_count(key):
    """Publishers differ on whether the input embedding (a lookup, no FLOPs) is "activated":
    Mistral and Qwen include it, DeepSeek does not; PUBLISHED.toml says which."""
    entry = PUBLISHED[key]
    _, counts = load(entry)
    active = counts.active
    if entry["active_convention"] == "without_input_embedding":
        active -= counts.embedding
    assert within(active, entry["active"]), (key, active, entry["active"])


@pytest.mark.parametrize("key", sorted(k for k, e in PUBLISHED.items() if "non_embedding" in e))
def test_non_embedding_matches(key):
    entry = PUBLISHED[key]
    _, counts = load(entry)
    assert within(counts.non_embedding, entry["non_embedding"])


def test_figures_parse_with_their_precision():
    assert parse("2.8B") == (2.8e9, pytest.approx(0.05e9))
    assert parse("6,053,381,344") == (6053381344.0, 0.5)
    assert parse("124M") == (124e6, 0.5e6)
    assert not within(2.9e9, "2.8B") and within(2.83e9, "2.8B")


# ------------------------------------------------------------------ exact hand counts


def test_gpt2_exact_with_positions_biases_layernorms_and_tied_head():
    """GPT-2 small: wte 50257x768 + wpe 1024x768 + 12 x (2 LayerNorms + c_attn + c_proj + MLP,
    all with bias) + ln_f; lm_head tied = 124,439,808 (sum of GPT2LMHeadModel parameters)."""
    preset, c = load(PUBLISHED["gpt2"])
    h = 768
    layer = 2 * 2 * h + (h * 3 * h + 3 * h) + (h * h + h) + (h * 4 * h + 4 * h) + (4 * h * h + h)
    assert c.total == 50257 * h + 1024 * h + 12 * layer + 2 * h == 124_439_808
    assert c.lm_head == 0 and preset.mlp_gated is False


def test_stablelm_3b_is_exactly_the_card_figure():
    assert load(PUBLISHED["stablelm-3b-4e1t"])[1].total == 2_795_443_200


def test_two_matrix_mlp_is_not_counted_as_swiglu():
    preset, c = load(PUBLISHED["gpt-j-6b"])
    swiglu = preset.model_copy(update={"mlp_gated": True})
    h, inter, layers = 4096, 16384, 28
    assert count_params(swiglu).total - c.total == layers * (h * inter + inter)


def test_santacoder_multi_query_has_one_kv_head():
    preset, _ = load(PUBLISHED["santacoder"])
    assert preset.num_key_value_heads == 1 and preset.position_embeddings == 2048


def test_qwen2_moe_shared_expert_and_gate_are_counted():
    preset, c = load(PUBLISHED["qwen1.5-moe-a2.7b"])
    h = preset.hidden_size
    shared = 3 * h * 5632 + h  # shared_expert (SwiGLU 5632) + shared_expert_gate Linear(h, 1)
    router = 60 * h
    assert c.moe_per_layer == router + 60 * 3 * h * 1408 + shared
    assert c.moe_layers == 24 and c.dense_layers == 0


def test_deepseek_v2_lite_has_no_q_lora_and_one_dense_layer():
    preset, c = load(PUBLISHED["deepseek-v2-lite"])
    assert preset.q_lora_rank is None and preset.kv_lora_rank == 512
    assert (c.dense_layers, c.moe_layers) == (1, 26)


def test_gemma3_layers_slide_five_of_six_and_have_qk_norms():
    preset, _ = load(PUBLISHED["gemma-3-1b"])
    kinds = preset.layer_types or ()
    assert kinds.count("full_attention") == 4 and kinds[5] == "full_attention"
    assert preset.sliding_window == 512 and preset.qk_norm == "head"


def test_llava_counts_the_clip_tower_and_projector_and_warns_about_defaults():
    cfg = json.loads((ROOT / PUBLISHED["llava-1.5-7b"]["dir"] / "config.json").read_text())
    preset, warnings = arch_from_config(cfg, source="llava", name="llava")
    assert preset.extra_params > 300_000_000  # CLIP ViT-L/14-336 ~303M + 2-layer projector
    assert any("text_config" in w for w in warnings)
    assert any("defaults for llama" in w for w in warnings)  # hidden_size etc. from LlamaConfig
