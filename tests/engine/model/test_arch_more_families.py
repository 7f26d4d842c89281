"""Families added for popular Hub models slotwise used to refuse (issue #12 item 1, "families").

Each family here has a real config.json copy under tests/fixtures/configs/ (PUBLISHED.toml names
its source and the publisher's figure); tests/engine/model/test_arch_families.py checks every copy's total
against that figure.  This file checks what each family adds beyond the layouts slotwise
already counted, by hand from the family's modeling code.
"""

from __future__ import annotations

import json

import pytest

from slotwise.engine.model.arch import ArchConfigError, arch_from_config
from slotwise.engine.model.params import count_params
from tests.evidence.published_configs import PUBLISHED, ROOT, load

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


# ------------------------------------------------------------------------ Nemotron-NAS


def test_nemotron_nas_ffn_mult_rounds_up_to_256_as_decilm_does():
    from slotwise.engine.model.arch.nas import ffn_mult_to_intermediate_size as width

    # int(2 * mult * 8192 / 3), rounded up to a multiple of 256
    assert [width(m, 8192) for m in (5.25, 2.625, 1.3125, 1.0, 0.5)] == [
        28672, 14336, 7168, 5632, 2816,
    ]  # fmt: skip


def test_nemotron_super_49b_counts_each_block_and_skips_the_no_ops():
    """49 of 80 layers keep attention (8 KV heads), every layer keeps an MLP of its own width;
    a norm precedes each block present.  49,867,145,216 is the checkpoint's safetensors total."""
    from slotwise.engine.estimate.kvcache import kv_elements_per_token
    from slotwise.engine.model.arch.nas import ffn_mult_to_intermediate_size as width

    cfg, preset, c, _ = load("nemotron-super-49b")
    h, v, hd = 8192, 128256, 128
    blocks = cfg["block_configs"]
    attn = [b for b in blocks if not b["attention"]["no_op"]]
    widths = [width(b["ffn"]["ffn_mult"], h) for b in blocks]
    attention = h * h + 2 * h * 8 * hd + h * h
    by_hand = 2 * v * h + len(attn) * attention + sum(3 * h * w for w in widths)
    by_hand += (len(attn) + len(blocks) + 1) * h  # input / post-attention norms + final norm
    assert len(attn) == 49 and c.attention_layers == 49
    assert c.total == by_hand == 49_867_145_216
    assert preset.layer_intermediate_sizes == tuple(widths)
    assert kv_elements_per_token(preset) == 49 * 2 * 8 * hd


def _nas(blocks: list[dict], **extra) -> dict:
    return {"model_type": "nemotron-nas", "hidden_size": 256, "num_attention_heads": 8,
            "num_hidden_layers": len(blocks), "vocab_size": 1000, "block_configs": blocks,
            **extra}  # fmt: skip


def _blk(attn: dict, ffn: dict) -> dict:
    return {"attention": attn, "ffn": ffn}


def test_nemotron_nas_linear_replacements_are_one_square_matrix_and_a_norm():
    full = {"no_op": False, "replace_with_linear": False, "n_heads_in_group": 4}
    mlp = {"no_op": False, "replace_with_linear": False, "ffn_mult": 3.0}
    lin = {"no_op": False, "replace_with_linear": True}
    base, _ = arch_from_config(_nas([_blk(full, mlp)] * 2), source="n", name="n")
    swapped, _ = arch_from_config(_nas([_blk(full, mlp), _blk(lin, mlp)]), source="n", name="n")
    h = 256
    attention = 2 * h * h + 2 * h * 2 * (h // 8)
    assert count_params(base).total - count_params(swapped).total == attention - h * h
    assert swapped.layer_types == ("full_attention", "none") and swapped.linear_replacements == 1


def test_nemotron_nas_explicit_block_intermediate_size_is_read():
    blk = _blk({"no_op": True}, {"no_op": False, "intermediate_size": 1000})
    preset, _ = arch_from_config(_nas([blk, blk]), source="n", name="n")
    assert preset.layer_intermediate_sizes == (1000, 1000)
    assert count_params(preset).total == 2 * 1000 * 256 + 2 * 3 * 256 * 1000 + 3 * 256


@pytest.mark.parametrize(
    ("cfg", "message"),
    [
        (_nas([_blk({"n_heads_in_group": 2}, {"ffn_mult": 1.0}),
               _blk({"n_heads_in_group": 4}, {"ffn_mult": 1.0})]),
         "different KV head counts"),
        ({**_nas([]), "num_hidden_layers": 2}, "block_configs"),
        (_nas([_blk({"n_heads_in_group": 3}, {"ffn_mult": 1.0})]), "must divide"),
        (_nas([_blk({"n_heads_in_group": 2}, {"ffn_mult": "big"})]), "ffn_mult"),
        (_nas([_blk({"n_heads_in_group": 2}, {"no_op": "yes"})]), "no_op"),
    ],
)  # fmt: skip
def test_nemotron_nas_bad_block_configs_are_refused_naming_the_block(cfg, message):
    with pytest.raises(ArchConfigError, match=message):
        arch_from_config(cfg, source="nas.json", name="n")


# -------------------------------------------------------------------------- MiniMax-M2


def test_minimax_m2_5_every_layer_sparse_with_full_qk_norms_and_router_bias():
    """62 x (q/k/v/o, q_norm over 48 x 128, k_norm over 8 x 128, router 256 x 3072 and its
    e_score_correction_bias, 256 SwiGLU experts of 1536, two RMSNorms) + embedding + lm_head +
    final norm; MTP modules not counted."""
    _, preset, c, _ = load("minimax-m2.5")
    h, v, n, e, w = 3072, 200064, 62, 256, 1536
    attention = h * 48 * 128 + 2 * h * 8 * 128 + 48 * 128 * h + (48 + 8) * 128
    layer = attention + (e * h + e) + e * 3 * h * w + 2 * h
    assert c.total == 2 * v * h + n * layer + h == 228_689_764_864
    assert preset.qk_norm == "full" and c.dense_layers == 0 and c.moe_layers == n
    assert "multi-token-prediction" in preset.notes


def test_minimax_m2_5_activated_figure_excludes_embedding_and_head():
    """MiniMax's 9.8B activated = attention + router + 8 of 256 experts + norms, without the
    embedding and the LM head (slotwise's active figure keeps both: 11.03B)."""
    _, _, c, _ = load("minimax-m2.5")
    assert abs((c.active - c.embedding - c.lm_head) - 9.8e9) <= 0.05e9


def test_minimax_m2_without_qk_norm_and_with_a_shared_expert():
    base = {"model_type": "minimax_m2", "hidden_size": 64, "num_attention_heads": 4,
            "num_key_value_heads": 2, "head_dim": 16, "num_hidden_layers": 2,
            "intermediate_size": 32, "num_local_experts": 4, "num_experts_per_tok": 2,
            "vocab_size": 100}  # fmt: skip
    with_norm, _ = arch_from_config(base, source="m", name="m")
    without, _ = arch_from_config({**base, "use_qk_norm": False}, source="m", name="m")
    assert count_params(with_norm).total - count_params(without).total == 2 * (4 + 2) * 16
    with pytest.raises(ArchConfigError, match="shared_intermediate_size"):
        arch_from_config({**base, "shared_intermediate_size": 64}, source="m", name="m")


# ---------------------------------------------------------------------------- Qwen3-VL


def test_qwen3_vl_8b_text_and_vision_tower_by_hand():
    """Qwen3VLForConditionalGeneration: a Qwen3 language model (q/k norms over head_dim) plus
    Qwen3VLVisionModel: Conv3d patch embedding with bias, 2304 learned positions, 27 CLIP-like
    blocks, the merger and three deepstack mergers (LayerNorm over 4 x 1152).  8,767,123,696
    is the Hub's safetensors total."""
    _, preset, c, warnings = load("qwen3-vl-8b")
    h, v, n = 4096, 151936, 36
    layer = 2 * h * 32 * 128 + 2 * h * 8 * 128 + 2 * 128 + 3 * h * 12288 + 2 * h
    text = 2 * v * h + n * layer + h
    vh, vi, merged, out = 1152, 4304, 4 * 1152, 4096
    block = 2 * 2 * vh + (3 * vh * vh + 3 * vh) + (vh * vh + vh) + 2 * vh * vi + vi + vh
    mergers = sum(
        2 * w + merged * merged + merged + merged * out + out for w in (vh,) + (merged,) * 3
    )
    vision = 3 * 2 * 16 * 16 * vh + vh + 2304 * vh + 27 * block + mergers
    assert (c.total - c.other, c.other) == (text, vision)
    assert c.total == 8_767_123_696 and preset.extra_params == vision
    assert c.active == text  # the vision tower is not active for text tokens
    assert any("qwen3_vl_text" in w for w in warnings)


def test_qwen3_vl_moe_reads_its_own_text_defaults_and_the_vision_tower():
    _, preset, c, _ = load("qwen3-vl-30b-a3b")
    assert preset.model_type == "qwen3_vl_moe_text" and preset.num_experts == 128
    assert c.moe_layers == 48 and preset.qk_norm == "head" and c.other > 0
    # Qwen3VLMoeTextConfig defaults (not Qwen3-MoE's): 60 experts, top-4, width 1408
    bare = {"model_type": "qwen3_vl_moe", "text_config": {"num_hidden_layers": 2}}
    small, warnings = arch_from_config(bare, source="b", name="b")
    assert (small.num_experts, small.num_experts_per_tok, small.moe_intermediate_size) == (
        60,
        4,
        1408,
    )
    assert small.head_dim is None  # hidden_size // num_attention_heads
    assert any("no vision tower found" in w for w in warnings)


# --------------------------------------------------------------------------- Qwen2.5-VL


def test_qwen2_5_vl_7b_text_and_vision_tower_by_hand():
    """Qwen2_5_VLForConditionalGeneration: a Qwen2 language model (bias on q/k/v) plus the
    vision transformer: Conv3d patches without bias, 32 blocks of two RMSNorms, qkv/proj with
    bias and a gated MLP with bias, and the merger.  A loaded count of the checkpoint gives
    'visual' 676,550,144 and 8,292,166,656 in all."""
    cfg, preset, c, _ = load("qwen2.5-vl-7b")
    h, i, merged, out = 1280, 3420, 4 * 1280, 3584
    block = 2 * h + (3 * h * h + 3 * h) + (h * h + h) + 2 * (h * i + i) + i * h + h
    merger = h + merged * merged + merged + merged * out + out
    vision = 3 * 2 * 14 * 14 * h + 32 * block + merger
    assert vision == preset.extra_params == 676_550_144
    assert c.total == 8_292_166_656 and c.total - vision == 7_615_616_512
    # The Hub's first Qwen2.5-VL configs had no text_config: the same model from the root keys.
    root = {k: v for k, v in cfg.items() if k != "text_config"}
    same, warnings = arch_from_config(root, source="r", name="r")
    assert count_params(same).total == c.total and same.model_type == "qwen2_5_vl"
    assert warnings == []


def test_a_root_vision_config_of_an_unknown_tower_is_reported_not_counted():
    cfg = {"model_type": "qwen2_5_vl", "hidden_size": 64, "intermediate_size": 128,
           "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
           "vocab_size": 100, "vision_config": {"model_type": "some_new_vit"}}  # fmt: skip
    preset, warnings = arch_from_config(cfg, source="v.json", name="v")
    assert preset.extra_params == 0
    assert any("vision tower (some_new_vit) not counted" in w for w in warnings)


# ------------------------------------------------------------------ Qwen3.5 (Gated DeltaNet)


def _gdn_layer(h: int, kh: int, vh: int, dk: int, dv: int, kernel: int) -> int:
    """One Gated DeltaNet mixer by hand: in_proj_qkv/z/b/a, depthwise conv over q/k/v,
    dt_bias and A_log, gated RMSNorm over the value head, out_proj."""
    k, v = kh * dk, vh * dv
    return h * (2 * k + v) + h * v + 2 * h * vh + (2 * k + v) * kernel + 2 * vh + dv + v * h


def test_qwen3_5_27b_hybrid_layers_by_hand():
    """48 Gated DeltaNet + 16 gated-attention layers (q_proj holds query and gate), SwiGLU MLPs,
    the Qwen3-VL-style vision tower without deepstack; MTP not counted.  27,356,728,560 is the
    checkpoint total Fireworks lists."""
    _, preset, c, _ = load("qwen3.5-27b")
    h, v, n, hd = 5120, 248320, 64, 256
    attention = h * 24 * hd * 2 + 2 * h * 4 * hd + 24 * hd * h + 2 * hd
    text = 2 * v * h + 16 * attention + 48 * _gdn_layer(h, 16, 48, 128, 128, 4)
    text += n * (3 * h * 17408 + 2 * h) + h
    assert preset.layer_types is not None and preset.layer_types.count("linear_attention") == 48
    assert c.attention_layers == 16 and c.linear_attention_layers == 48
    assert c.total - preset.extra_params == text
    assert c.total == 27_356_728_560
    assert "multi-token-prediction" in preset.notes


def test_qwen3_5_moe_counts_experts_shared_expert_and_its_gate():
    _, preset, c, _ = load("qwen3.5-35b-a3b")
    h = 2048
    moe = 256 * h + 256 * 3 * h * 512 + 3 * h * 512 + h  # router, experts, shared + its gate
    assert c.moe_layers == 40 and c.moe_per_layer == moe and preset.shared_expert_gate
    assert c.total == 35_107_181_936


def test_gated_deltanet_layers_keep_a_fixed_state_not_a_kv_cache():
    from slotwise.engine.estimate.kvcache import kv_elements, ssm_state_elements

    _, preset, _, _ = load("qwen3.5-27b")
    per_token = 16 * 2 * 4 * 256  # only the 16 full-attention layers cache K and V
    assert kv_elements(preset, 1000) == 1000 * per_token
    conv = (2 * 16 * 128 + 48 * 128) * 4
    state = 48 * 128 * 128
    assert ssm_state_elements(preset) == 48 * (conv + state)
    assert ssm_state_elements(preset, tp=2) == 48 * ((conv + state) // 2)


def test_gated_deltanet_projections_are_adapted_only_by_all_linear_lora():
    from slotwise.engine.model.params import LORA_MODULE_NAMES, lora_params

    _, preset, _, _ = load("qwen3.5-27b")
    h, k, v, vh = 5120, 16 * 128, 48 * 128, 48
    gdn = 48 * 8 * ((h + 2 * k + v) + (h + v) + 2 * (h + vh) + (v + h))
    everything = lora_params(preset, LORA_MODULE_NAMES, 8)
    named = lora_params(preset, ("q", "k", "v", "o", "gate", "up"), 8) + lora_params(
        preset, ("down",), 8
    )
    assert everything - named == gdn


def test_qwen3_5_layer_pattern_from_the_interval_and_bad_layer_types():
    base = {"model_type": "qwen3_5_text", "num_hidden_layers": 8, "full_attention_interval": 2}
    preset, _ = arch_from_config(base, source="q", name="q")
    assert preset.layer_types == ("linear_attention", "full_attention") * 4
    with pytest.raises(ArchConfigError, match="layer_types"):
        arch_from_config({**base, "layer_types": ["mamba"] * 8}, source="q", name="q")


# ------------------------------------------------------- DeepSeek Sparse Attention (V3.2, GLM-5)


def _indexer(q_rank: int, h: int, heads: int, hd: int) -> int:
    """DeepseekV32Indexer: wq_b (q latent -> heads x hd), wk (h -> hd), k_norm LayerNorm(hd)
    with bias, weights_proj (h -> heads)."""
    return q_rank * heads * hd + h * hd + 2 * hd + h * heads


def test_deepseek_v3_2_is_v3_plus_one_indexer_per_layer():
    cfg, preset, c, _ = load("deepseek-v3.2")
    v3, _ = arch_from_config({**cfg, "model_type": "deepseek_v3"}, source="v3", name="v3")
    per = _indexer(1536, 7168, 64, 128)
    assert per == 13_959_424  # the per-layer figure the published reading gives
    assert c.total - count_params(v3).total == 61 * per
    assert c.total == 671_877_944_064 and preset.indexer_layers == 61


def test_glm_5_1_counts_mla_moe_and_indexers():
    _, preset, c, _ = load("glm-5.1")
    assert preset.indexer_layers == 78 and c.dense_layers == 3 and c.moe_layers == 75
    assert c.other == 78 * _indexer(2048, 6144, 32, 128)
    assert c.total == 743_911_218_432


def test_indexer_keys_are_cached_and_shared_layers_have_no_indexer():
    from slotwise.engine.estimate.kvcache import kv_elements, kv_elements_per_token

    cfg, preset, _, _ = load("glm-5.1")
    latent = 512 + 64
    assert kv_elements_per_token(preset) == 78 * (latent + 128)
    assert kv_elements(preset, 100) == 100 * 78 * (latent + 128)
    shared = ["full", "shared", "shared", "shared"] * 19 + ["full", "shared"]
    sparse, _ = arch_from_config({**cfg, "indexer_types": shared}, source="g", name="g")
    assert sparse.indexer_layers == 20
    every_fourth, _ = arch_from_config(
        {**cfg, "index_topk_freq": 4, "index_skip_topk_offset": 3}, source="g", name="g"
    )
    # GlmMoeDsaConfig: full when max(i - offset + 1, 0) % freq == 0
    assert every_fourth.indexer_layers == sum(1 for i in range(78) if max(i - 2, 0) % 4 == 0)
    with pytest.raises(ArchConfigError, match="indexer_types"):
        arch_from_config({**cfg, "indexer_types": ["full"]}, source="g", name="g")


# ------------------------------------------------------------------------ Phi-3.5-vision


def test_phi3_5_vision_is_phi3_5_mini_plus_clip_l_336_and_its_projection():
    """Phi3ImageEmbedding: the whole CLIP ViT-L/14-336 (303,507,456), glb_GN and sub_GN
    (4 x 1024 each) and Linear(4096, 3072) - GELU - Linear(3072, 3072).  The language model is
    Phi-3.5-mini's 3,821,079,552; 4,146,621,440 is the checkpoint's safetensors total."""
    _, preset, c, warnings = load("phi-3.5-vision")
    _, _, mini, _ = load("phi-3.5-mini")
    h, clip_h = 3072, 1024
    clip_layer = 4 * (clip_h * clip_h + clip_h) + 2 * 4 * clip_h * clip_h + 4 * clip_h + clip_h
    clip_layer += 4 * clip_h  # two LayerNorms
    clip = 3 * 14 * 14 * clip_h + clip_h + 577 * clip_h + 4 * clip_h + 24 * clip_layer
    assert clip == 303_507_456
    projection = 4 * clip_h * h + h + h * h + h
    assert preset.extra_params == clip + 2 * 4 * clip_h + projection
    assert c.total - preset.extra_params == mini.total == 3_821_079_552
    assert c.total == 4_146_621_440 and warnings == []


def test_phi3_v_with_another_image_processor_warns_and_counts_the_text_only():
    cfg, _, _, _ = load("phi-3.5-vision")
    other = {**cfg, "img_processor": {**cfg["img_processor"], "model_name": "some/other-vit"}}
    preset, warnings = arch_from_config(other, source="p.json", name="p")
    assert preset.extra_params == 0
    assert any("image processor" in w and "not counted" in w for w in warnings)


# ------------------------------------------------------ the whole estimate for each new family

NEW_FAMILY_KEYS = (
    "bloom-560m", "nemotron-super-49b", "minimax-m2.5", "qwen3-vl-8b", "qwen3-vl-30b-a3b",
    "qwen2.5-vl-7b", "qwen3.5-27b", "qwen3.5-35b-a3b", "deepseek-v3.2", "glm-5.1",
    "phi-3.5-vision", "kimi-k2.5",
)  # fmt: skip
PARTS = ("weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes",
         "kv_cache_bytes")  # fmt: skip


@pytest.mark.parametrize("method", ["inference", "lora", "full"])
@pytest.mark.parametrize("key", NEW_FAMILY_KEYS)
def test_cli_estimate_of_each_new_family_is_complete_and_consistent(capsys, key, method):
    """`slotwise estimate --config <real config.json> --json`: the parts sum to the total, the
    KV cache (or recurrent state) exists only when serving, training has gradients and
    optimizer state, and the parameter count is the tested one."""
    from slotwise.tui import cli

    entry = PUBLISHED[key]
    path = ROOT / entry["dir"] / "config.json"
    rc = cli.main(["estimate", "--config", str(path), "--offline", "--method", method, "--json"])
    out, err = capsys.readouterr()
    assert rc in (0, 1), err
    data = json.loads(out)
    mem = data["memory_per_gpu"]
    assert all(isinstance(mem[k], int) and mem[k] >= 0 for k in PARTS)
    assert sum(mem[k] for k in PARTS) == pytest.approx(mem["total_bytes"], abs=len(PARTS))
    assert data["flops_per_token"] > 0 and mem["activations_bytes"] > 0
    if method == "inference":
        assert mem["kv_cache_bytes"] > 0 and mem["gradients_bytes"] == 0
    else:
        assert mem["kv_cache_bytes"] == 0 and mem["gradients_bytes"] > 0
        assert mem["optimizer_bytes"] > 0
    assert data["params"] == count_params(load(key)[1]).total
    assert not any("not a family" in w for w in data["warnings"])


# ----------------------------------------------------------------------------- Kimi K2.5


def test_kimi_k2_5_is_kimi_k2_plus_moonvit_and_its_patch_merger():
    """The language model is Kimi K2's (DeepSeek-V3 layout); MoonViT3d: Conv2d patches with
    bias, a 64 x 64 learnable position grid (the time table is fixed sin-cos), 27 CLIP-like
    blocks of 1152 / 4304, a final LayerNorm, and the patchmerger LayerNorm(1152) +
    Linear(4608, 4608) + Linear(4608, 7168).  471,143,920 is the gap between Fireworks' K2.5 and
    K2-0905 figures."""
    cfg, preset, c, _ = load("kimi-k2.5")
    k2, _ = arch_from_config(cfg["text_config"], source="k2", name="k2")
    h, i = 1152, 4304
    block = 2 * 2 * h + (3 * h * h + 3 * h) + (h * h + h) + 2 * h * i + i + h
    merger = 2 * h + 4608 * 4608 + 4608 + 4608 * 7168 + 7168
    vision = 3 * 14 * 14 * h + h + 64 * 64 * h + 27 * block + 2 * h + merger
    assert preset.extra_params == vision == 471_143_920
    assert c.total == count_params(k2).total + vision
    assert preset.model_type == "kimi_k2"


def test_kimi_k2_5_with_another_position_embedding_reports_the_tower_uncounted():
    cfg, _, _, _ = load("kimi-k2.5")
    other = {**cfg, "vision_config": {**cfg["vision_config"], "pos_emb_type": "rope2d"}}
    preset, warnings = arch_from_config(other, source="k.json", name="k")
    assert preset.extra_params == 0
    assert any("not counted" in w and "rope2d" in w for w in warnings)
