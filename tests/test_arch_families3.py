"""Families and layouts added by the third families pass (issue #12 item 1).

Each count is rebuilt by hand from the family's modeling code and compared with an exact
published total (PUBLISHED.toml names the copy and the figure), so a layout mistake shows up as
a named term, not only as a total some percent off.
"""

from __future__ import annotations

import pytest

from slotwise.engine.estimate.arch import ArchConfigError, arch_from_config
from slotwise.engine.estimate.kvcache import kv_elements
from slotwise.engine.estimate.params import count_params, lora_params
from tests.evidence.published_configs import PUBLISHED, load


def published(key: str) -> int:
    return int(PUBLISHED[key]["published"].replace(",", ""))


# ------------------------------------------------------------------ Nemotron 3 (nemotron_h)


def _nemotron_block_params(cfg: dict) -> dict[str, int]:
    """One block of each kind, from transformers' NemotronH modules (modular_nemotron_h.py):
    Mamba-2 mixer (in_proj, conv1d with bias, dt_bias/A_log/D, gated RMSNorm, out_proj),
    GQA attention without bias, LatentMoE or plain MoE of ReLU^2 experts, one RMSNorm."""
    h = cfg["hidden_size"]
    d = cfg["mamba_num_heads"] * cfg["mamba_head_dim"]
    conv = d + 2 * cfg["n_groups"] * cfg["ssm_state_size"]
    mh = cfg["mamba_num_heads"]
    mamba = h * (d + conv + mh) + conv * cfg["conv_kernel"] + conv + 3 * mh + d + d * h
    heads, kv, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    attn = 2 * h * heads * hd + 2 * h * kv * hd
    e, inter = cfg["n_routed_experts"], cfg["moe_intermediate_size"]
    width = cfg.get("moe_latent_size") or h
    latent = 2 * h * width if cfg.get("moe_latent_size") else 0
    router = e * h + e  # weight + e_score_correction_bias
    shared = 2 * h * cfg["moe_shared_expert_intermediate_size"]
    moe = router + latent + e * 2 * width * inter + shared
    return {"M": mamba + h, "*": attn + h, "E": moe + h}


def _nemotron_by_hand(cfg: dict) -> int:
    blocks = _nemotron_block_params(cfg)
    h, v = cfg["hidden_size"], cfg["vocab_size"]
    return 2 * v * h + h + sum(blocks[c] for c in cfg["hybrid_override_pattern"])


def test_nemotron_3_super_latent_moe_is_llama_cpps_loaded_count():
    """LatentMoE: the 512 routed experts run at moe_latent_size 1024 (fc1_latent_proj /
    fc2_latent_proj around them), not at hidden 4096; counted at hidden they would make a
    458B model of a 120B one.  The MTP block is not counted (NemotronHForCausalLM and the GGUF
    both leave it out)."""
    cfg, preset, c, warnings = load("nemotron-3-super-120b")
    assert preset.moe_latent_size == 1024 and not warnings
    assert c.total == _nemotron_by_hand(cfg) == published("nemotron-3-super-120b")
    wide, _ = arch_from_config(
        {k: v for k, v in cfg.items() if k != "moe_latent_size"}, source="x", name="x"
    )
    assert count_params(wide).total > 3.5 * c.total  # what the latent width prevents
    # Active: the router, both latent projections and the shared expert run for every token.
    k, e = cfg["num_experts_per_tok"], cfg["n_routed_experts"]
    expert = 2 * 1024 * cfg["moe_intermediate_size"]
    assert c.moe_per_layer - c.moe_active_per_layer == (e - k) * expert


def test_nemotron_3_nano_is_llama_cpps_loaded_count():
    cfg, preset, c, _ = load("nemotron-3-nano-30b")
    assert preset.moe_latent_size is None
    assert c.total == _nemotron_by_hand(cfg) == published("nemotron-3-nano-30b")


def test_nemotron_layers_block_type_reads_as_the_pattern():
    """Nemotron 3 Ultra lists its blocks as layers_block_type and has no num_hidden_layers
    (NemotronHConfig derives it); the same list spelled as hybrid_override_pattern counts the
    same, without a warning about a defaulted layer count."""
    cfg, preset, c, warnings = load("nemotron-3-ultra-550b")
    names = {"mamba": "M", "attention": "*", "mlp": "-", "moe": "E"}
    pattern = "".join(names[b] for b in cfg["layers_block_type"])
    assert preset.num_hidden_layers == len(pattern) == 108 and not warnings
    as_pattern = {k: v for k, v in cfg.items() if k != "layers_block_type"}
    as_pattern["hybrid_override_pattern"] = pattern
    same, _ = arch_from_config(as_pattern, source="x", name="x")
    assert count_params(same).total == c.total == _nemotron_by_hand(as_pattern)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"layers_block_type": ["mamba", "cross_attention"]}, "cross_attention"),
        ({"layers_block_type": "M*E"}, "layers_block_type"),
        ({"layers_block_type": None}, "hybrid_override_pattern"),
    ],
)
def test_nemotron_unreadable_block_lists_are_refused(change, named):
    cfg, _, _, _ = load("nemotron-3-ultra-550b")
    bad = {**cfg, **change}
    if change.get("layers_block_type") is None:
        bad.pop("layers_block_type")
    with pytest.raises(ArchConfigError, match=named):
        arch_from_config(bad, source="ultra.json", name="x")


def test_nemotron_3_kv_cache_is_only_the_attention_layers():
    """Super: 8 attention blocks of 2 KV heads x 128 hold the KV cache; the 40 Mamba blocks
    hold a fixed state and the MoE blocks nothing."""
    cfg, preset, _, _ = load("nemotron-3-super-120b")
    layers = cfg["hybrid_override_pattern"].count("*")
    assert layers == 8
    assert kv_elements(preset, 1000) == 1000 * layers * 2 * 2 * 128


def test_nemotron_3_lora_all_linear_includes_the_latent_projections():
    """PEFT's all-linear adapts fc1_latent_proj / fc2_latent_proj too (nn.Linear); a routed
    expert's LoRA is sized at the latent width."""
    _, preset, _, _ = load("nemotron-3-super-120b")
    targets = ("q", "k", "v", "o", "gate", "up", "down")
    with_latent = lora_params(preset, targets, 8)
    without = lora_params(preset.model_copy(update={"moe_latent_size": None}), targets, 8)
    moe_layers = 40
    experts = 512 * moe_layers * 8 * 2 * (1024 + 2688)
    experts_wide = 512 * moe_layers * 8 * 2 * (4096 + 2688)
    latent = 2 * moe_layers * 8 * (4096 + 1024)
    assert without - with_latent == experts_wide - experts - latent
