"""Families and layouts added by the third families pass (issue #12 item 1).

Each count is rebuilt by hand from the family's modeling code and compared with an exact
published total (PUBLISHED.toml names the copy and the figure), so a layout mistake shows up as
a named term, not only as a total some percent off.
"""

from __future__ import annotations

import pytest

from slotwise.engine.estimate.kvcache import kv_elements
from slotwise.engine.model.arch import ArchConfigError, arch_from_config
from slotwise.engine.model.params import count_params, lora_params
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


# ---------------------------------------------------------------------------------- SmolLM3


def test_smollm3_3b_is_the_checkpoint_total():
    """SmolLM3ForCausalLM = LlamaForCausalLM: GQA 16/4 heads of 128, SwiGLU 11008, two RMSNorms
    per layer, tied embedding; the NoPE layers hold the same weights as the RoPE ones."""
    _, preset, c, warnings = load("smollm3-3b")
    h, v, n, inter, kv = 2048, 128256, 36, 11008, 4 * 128
    layer = 2 * h * h + 2 * h * kv + 3 * h * inter + 2 * h
    assert preset.tie_word_embeddings and c.lm_head == 0 and not warnings
    assert c.total == v * h + n * layer + h == published("smollm3-3b")
    assert preset.layer_types is None  # use_sliding_window off: every layer full attention


def test_smollm3_sliding_window_applies_to_the_nope_layers_only():
    """SmolLM3Config: with use_sliding_window and a sliding_window, the NoPE layers (0 in
    no_rope_layers: 9 of 36) slide and the RoPE layers stay full; the count does not change."""
    cfg, _, c, _ = load("smollm3-3b")
    sliding, _ = arch_from_config(
        {**cfg, "use_sliding_window": True, "sliding_window": 4096}, source="x", name="x"
    )
    kinds = sliding.layer_types or ()
    assert kinds.count("sliding_attention") == 9 and sliding.sliding_window == 4096
    assert [i for i, k in enumerate(kinds) if k == "sliding_attention"] == list(range(3, 36, 4))
    assert count_params(sliding).total == c.total
    full = load("smollm3-3b")[1]
    assert kv_elements(sliding, 65536) < kv_elements(full, 65536)


def test_smollm3_short_no_rope_list_is_refused():
    cfg, _, _, _ = load("smollm3-3b")
    bad = {**cfg, "use_sliding_window": True, "sliding_window": 4096, "no_rope_layers": [1, 0]}
    with pytest.raises(ArchConfigError, match="no_rope_layers"):
        arch_from_config(bad, source="smollm3.json", name="x")


# --------------------------------------------------------------------------------- Qwen2-VL


def _qwen2_vl_by_hand(h: int, vocab: int, layers: int, inter: int, heads: int, kv: int,
                      tied: bool) -> int:  # fmt: skip
    """Qwen2VLForConditionalGeneration: the Qwen2 decoder (bias on q/k/v) + the vision tower
    (Conv3d 3x2x14x14 -> 1280 without bias; 32 blocks of two LayerNorms, qkv and proj with
    bias, fc1/fc2 1280 -> 5120 -> 1280 with bias) + PatchMerger (LayerNorm 1280, 5120 -> 5120
    -> h with bias)."""
    hd = h // heads
    attn = h * h + h + 2 * (h * kv * hd + kv * hd) + h * h
    text = vocab * h * (1 if tied else 2) + layers * (attn + 3 * h * inter + 2 * h) + h
    e, mlp = 1280, 5120
    block = 2 * 2 * e + (3 * e * e + 3 * e) + (e * e + e) + (e * mlp + mlp) + (mlp * e + e)
    merger = 2 * e + (4 * e * 4 * e + 4 * e) + (4 * e * h + h)
    return text + 3 * 2 * 14 * 14 * e + 32 * block + merger


def test_qwen2_vl_2b_is_the_checkpoint_total():
    cfg, preset, c, warnings = load("qwen2-vl-2b")
    assert preset.model_type == "qwen2_vl" and preset.layer_types is None  # no sliding
    by_hand = _qwen2_vl_by_hand(1536, 151936, 28, 8960, 12, 2, tied=True)
    assert c.total == by_hand == published("qwen2-vl-2b")
    assert c.other == preset.extra_params == 665_271_296  # the vision tower and merger
    assert not any("not counted" in w for w in warnings)


@pytest.mark.parametrize(
    ("shape", "total"),
    [
        # Qwen2-VL-7B-Instruct's text fields (code index id 53104779294) and HF safetensors
        # total 8,291,375,616 (code index ids 12439498600, 70937807244).
        ((3584, 152064, 28, 18944, 28, 4), 8_291_375_616),
        # Qwen2-VL-72B-Instruct = Qwen2VLConfig's defaults; 73,405,560,320 (id 12439498600).
        ((8192, 152064, 80, 29568, 64, 8), 73_405_560_320),
    ],
)
def test_qwen2_vl_7b_and_72b_shapes_give_their_checkpoint_totals(shape, total):
    """Shape tests (no verbatim 7B / 72B config.json was found): the 2B copy with the larger
    models' text fields, untied, and the merger writing their hidden size."""
    cfg, _, _, _ = load("qwen2-vl-2b")
    h, vocab, layers, inter, heads, kv = shape
    big = {**cfg, "hidden_size": h, "vocab_size": vocab, "num_hidden_layers": layers,
           "intermediate_size": inter, "num_attention_heads": heads, "num_key_value_heads": kv,
           "tie_word_embeddings": False, "vision_config": {**cfg["vision_config"],
                                                           "hidden_size": h}}  # fmt: skip
    preset, _ = arch_from_config(big, source="x", name="x")
    assert count_params(preset).total == _qwen2_vl_by_hand(*shape, tied=False) == total


def test_qwen2_vl_nested_text_config_counts_the_same():
    """transformers >= 4.5x writes Qwen2-VL configs with text_config (qwen2_vl_text) and a
    vision_config of model_type qwen2_vl; both spellings count alike."""
    cfg, _, c, _ = load("qwen2-vl-2b")
    text = {k: v for k, v in cfg.items() if k not in ("vision_config", "architectures")}
    nested = {
        "model_type": "qwen2_vl",
        "text_config": {**text, "model_type": "qwen2_vl_text"},
        "vision_config": {**cfg["vision_config"], "model_type": "qwen2_vl"},
        "tie_word_embeddings": True,
    }
    preset, warnings = arch_from_config(nested, source="x", name="x")
    assert preset.model_type == "qwen2_vl_text" and count_params(preset).total == c.total
    assert not any("not counted" in w for w in warnings)


@pytest.mark.parametrize("ratio", ["four", float("nan"), float("inf"), 0, 1000])
def test_qwen2_vl_bad_mlp_ratio_is_refused(ratio):
    cfg, _, _, _ = load("qwen2-vl-2b")
    bad = {**cfg, "vision_config": {**cfg["vision_config"], "mlp_ratio": ratio}}
    with pytest.raises(ArchConfigError, match="mlp_ratio"):
        arch_from_config(bad, source="qwen2vl.json", name="x")


# ------------------------------------------------------------ Granite 4.0 (granitemoehybrid)

#: Shape tests (no verbatim Hub config.json of a Granite 4.0 model was found).  The dense
#: models' fields are GRANITE4_FULLSIZE of a Granite 4 equivalence-test helper ("Full-size
#: configs (real HF dimensions)", code index id 56628895354); tie_word_embeddings true is what
#: the Hub files say (the granite-4.0-3b-vision config.json transcription, code index id
#: 69276939800, has the micro-shaped text_config with tie_word_embeddings=True; the class
#: default is false).  Totals: HF Hub API safetensors.total (code index id 71142266638).
_GRANITE4_FIXED = {"model_type": "granitemoehybrid", "vocab_size": 100352,
                   "attention_bias": False, "num_local_experts": 0, "num_experts_per_tok": 0,
                   "tie_word_embeddings": True, "position_embedding_type": "rope"}  # fmt: skip
_GRANITE4_DENSE = {
    "granite-4.0-350m": ((1024, 28, 16, 4, 2048), 352_379_904),
    "granite-4.0-1b": ((2048, 40, 16, 4, 4096), 1_631_750_144),
    "granite-4.0-micro": ((2560, 40, 40, 8, 8192), 3_402_836_480),
}


@pytest.mark.parametrize("model", sorted(_GRANITE4_DENSE))
def test_granite_4_dense_models_are_the_hubs_exact_totals(model):
    """num_local_experts 0: attention in every layer and the shared SwiGLU MLP
    (input_linear h -> 2 x shared, output_linear) as the whole FFN; two RMSNorms per layer."""
    (h, layers, heads, kv, shared), total = _GRANITE4_DENSE[model]
    cfg = {**_GRANITE4_FIXED, "hidden_size": h, "num_hidden_layers": layers,
           "num_attention_heads": heads, "num_key_value_heads": kv, "intermediate_size": shared,
           "shared_intermediate_size": shared, "layer_types": ["attention"] * layers}  # fmt: skip
    preset, warnings = arch_from_config(cfg, source=model, name=model)
    hd = h // heads
    layer = 2 * h * heads * hd + 2 * h * kv * hd + 3 * h * shared + 2 * h
    assert count_params(preset).total == 100352 * h + layers * layer + h == total
    assert not warnings


def _granite_h(**change: object) -> dict:
    """granite-4.0-h-micro's shape as a loader test quotes the Hub config.json (code index id
    60797780217: 40 layers, attention at 5/15/25/35, hidden 2048, 32 heads, 8 KV heads, Mamba
    64 heads x 64, state 128, 1 group, conv 4, no experts, shared 8192)."""
    kinds = ["attention" if i in (5, 15, 25, 35) else "mamba" for i in range(40)]
    cfg = {**_GRANITE4_FIXED, "hidden_size": 2048, "num_hidden_layers": 40,
           "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 8192,
           "shared_intermediate_size": 8192, "layer_types": kinds, "mamba_n_heads": 64,
           "mamba_d_head": 64, "mamba_d_state": 128, "mamba_n_groups": 1, "mamba_d_conv": 4,
           "mamba_expand": 2, "position_embedding_type": "nope"}  # fmt: skip
    return {**cfg, **change}


def test_granite_4_h_micro_mamba_layers_hold_no_kv_cache():
    """36 Mamba-2 layers (BambaMixer: in_proj, conv1d with bias, dt_bias/A_log/D, gated norm,
    out_proj) and 4 attention layers; only the 4 attention layers hold a KV cache.  llama.cpp
    reports 3,191,396,096 for a 'granitehybrid' GGUF (code index id 68950945147), this count."""
    preset, _ = arch_from_config(_granite_h(), source="h-micro", name="x")
    c = count_params(preset)
    d, conv, mh = 4096, 4096 + 2 * 128, 64
    mamba = 2048 * (d + conv + mh) + conv * 4 + conv + 3 * mh + d + d * 2048
    attn = 2 * 2048 * 2048 + 2 * 2048 * 512
    assert (c.ssm_layers, c.attention_layers) == (36, 4) and c.ssm_per_layer == mamba
    ffn, norms = 3 * 2048 * 8192, 2 * 2048
    assert c.total == 100352 * 2048 + 36 * mamba + 4 * attn + 40 * (ffn + norms) + 2048
    assert c.total == 3_191_396_096
    assert kv_elements(preset, 1000) == 1000 * 4 * 2 * 8 * 64


def test_granite_4_moe_layers_add_routed_experts_beside_the_shared_mlp():
    """num_local_experts > 0 (Granite 4.0 H Tiny / Small): block_sparse_moe (bias-free router,
    experts of intermediate_size) beside the shared MLP; top-k experts are active."""
    dense, _ = arch_from_config(_granite_h(), source="x", name="x")
    moe, _ = arch_from_config(
        _granite_h(num_local_experts=64, num_experts_per_tok=6, intermediate_size=512),
        source="x", name="x",
    )  # fmt: skip
    d, m = count_params(dense), count_params(moe)
    expert = 3 * 2048 * 512
    assert m.total - d.total == 40 * (64 * 2048 + 64 * expert)
    assert m.total - m.active == 40 * (64 - 6) * expert


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"layer_types": ["attention", "cross_attention"] * 20}, "layer_types"),
        ({"layer_types": ["mamba"] * 3}, "layer_types"),
        ({"mamba_d_head": 48}, "mamba_n_heads x mamba_d_head"),
        ({"shared_intermediate_size": 0}, "shared_intermediate_size"),
    ],
)
def test_granite_4_unreadable_configs_are_refused(change, named):
    with pytest.raises(ArchConfigError, match=named):
        arch_from_config(_granite_h(**change), source="granite.json", name="x")


# ------------------------------------------------------------------------------- Qwen3-Next


def test_qwen3_coder_next_is_the_checkpoint_total():
    """Qwen3NextForCausalLM: 36 Gated DeltaNet + 12 gated attention layers, each with a sparse
    block of 512 experts (512 wide) and a gated shared expert; untied head."""
    _, preset, c, warnings = load("qwen3-coder-next")
    assert preset.model_type == "qwen3_next" and not warnings
    kinds = preset.layer_types or ()
    assert kinds.count("linear_attention") == 36 and kinds.count("full_attention") == 12
    assert c.moe_layers == 48 and c.dense_layers == 0
    assert c.total == published("qwen3-coder-next")


def test_qwen3_next_counts_like_qwen3_5_moe_with_the_same_shape():
    """The fused in_proj_qkvz / in_proj_ba hold the weights of Qwen3.5's split projections."""
    cfg, _, c, _ = load("qwen3-coder-next")
    same = {k: v for k, v in cfg.items() if k not in ("mlp_only_layers", "decoder_sparse_step")}
    as_qwen3_5, _ = arch_from_config(
        {**same, "model_type": "qwen3_5_moe_text"}, source="x", name="x"
    )
    assert count_params(as_qwen3_5).total == c.total


def test_qwen3_next_dense_layers_from_mlp_only_layers_and_sparse_step():
    """Qwen3NextDecoderLayer: a SwiGLU MLP of intermediate_size where the layer is in
    mlp_only_layers or (i + 1) % decoder_sparse_step != 0; the sparse block elsewhere."""
    cfg, _, c, _ = load("qwen3-coder-next")
    mixed, _ = arch_from_config({**cfg, "mlp_only_layers": [0, 5]}, source="x", name="x")
    m = count_params(mixed)
    assert (m.dense_layers, m.moe_layers) == (2, 46)
    assert c.total - m.total == 2 * (c.moe_per_layer - 3 * 2048 * 5120)
    stepped, _ = arch_from_config({**cfg, "decoder_sparse_step": 2}, source="x", name="x")
    assert count_params(stepped).moe_layers == 24
    assert kv_elements(mixed, 100) == 100 * 12 * 2 * 2 * 256  # 12 attention layers only


def test_qwen3_next_bad_layer_types_are_refused():
    cfg, _, _, _ = load("qwen3-coder-next")
    with pytest.raises(ArchConfigError, match="layer_types"):
        arch_from_config({**cfg, "layer_types": ["mamba"] * 48}, source="q.json", name="x")


# ------------------------------------------------------------------- GLM-4.5 (glm4_moe)


def test_glm_4_5_air_is_the_total_without_the_mtp_layer():
    """Glm4MoeForCausalLM: one dense layer then 45 MoE layers (128 experts of 1408, one shared,
    router weight + e_score_correction_bias), GQA 96/8 heads of 128 with bias on q/k/v only."""
    _, preset, c, warnings = load("glm-4.5-air")
    h, v, inter, mi, e = 4096, 151552, 10944, 1408, 128
    attn = h * 96 * 128 + 96 * 128 + 2 * (h * 8 * 128 + 8 * 128) + 96 * 128 * h
    moe = e * h + e + e * 3 * h * mi + 3 * h * mi
    layers = 46 * (attn + 2 * h) + 3 * h * inter + 45 * moe
    assert c.total == 2 * v * h + layers + h == published("glm-4.5-air")
    assert (c.dense_layers, c.moe_layers) == (1, 45) and not warnings
    # The Hub's own safetensors total (110,468,824,832, code index id 69468411049) adds the MTP
    # layer 46: a MoE decoder layer, enorm / hnorm, eh_proj (2h -> h), shared_head.norm and its
    # own embed_tokens and shared_head.head (Glm4MoeMTPLayer; vocab x h each).
    mtp = attn + 2 * h + moe + 2 * h + 2 * h * h + h + 2 * v * h
    assert c.total + mtp == 110_468_824_832


def test_glm_4_5_355b_shape_is_fireworks_total():
    """Shape test: GLM-4.7's trimmed config dict (code index id 4289690615; GLM-4.5 / 4.6 / 4.7
    share it) with the two fields it drops set as GLM-4.5 has them: attention_bias and
    use_qk_norm true (NVIDIA Megatron-Bridge's GLM 4.5 page: 'Includes QK LayerNorm';
    docs.nvidia.com/nemo/megatron-bridge/latest/models/llm/glm45.html).  352,797,829,024 is
    docs.fireworks.ai's paramCount for GLM-4.5 / 4.6 / 4.7 (code index id 66729435508)."""
    cfg = {"model_type": "glm4_moe", "hidden_size": 5120, "intermediate_size": 12288,
           "num_hidden_layers": 92, "num_attention_heads": 96, "num_key_value_heads": 8,
           "head_dim": 128, "vocab_size": 151552, "n_routed_experts": 160,
           "num_experts_per_tok": 8, "n_shared_experts": 1, "moe_intermediate_size": 1536,
           "first_k_dense_replace": 3, "num_nextn_predict_layers": 1,
           "tie_word_embeddings": False, "attention_bias": True,
           "use_qk_norm": True}  # fmt: skip
    preset, _ = arch_from_config(cfg, source="glm-4.5", name="x")
    c = count_params(preset)
    assert c.total == 352_797_829_024 and preset.qk_norm == "head"
    # '32 billion active parameters' (zai-org/GLM-4.5 card): Zhipu leaves the input embedding
    # and the output head out of it (with them, 33.6B).
    assert abs(c.active - c.embedding - c.lm_head - 32e9) <= 0.5e9


def test_glm_4_5_kv_cache_is_gqa_over_every_layer():
    _, preset, c, _ = load("glm-4.5-air")
    assert abs(c.active - c.embedding - c.lm_head - 12e9) <= 0.5e9  # '12 billion active'
    assert kv_elements(preset, 10) == 10 * 46 * 2 * 8 * 128


# ------------------------------------------------- Mistral 3 (Pixtral tower + projector)


def test_mistral_small_3_2_is_text_plus_pixtral_plus_projector():
    """Mistral3ForConditionalGeneration: the Mistral text model (23,572,403,200, the
    Mistral-Small-24B total) + Pixtral (patch_conv 3x14x14 -> 1024 without bias, ln_pre, 24
    layers of two RMSNorms, q/k/v/o 1024x1024 and a gated 4096 MLP, no biases) + the projector
    (RMSNorm 1024, merging_layer 4096 -> 1024, linear_1 1024 -> 5120, linear_2 5120 -> 5120, no
    bias).  The count was wrong by 1.8 % before (the tower was not counted)."""
    _, preset, c, warnings = load("mistral-small-3.2-24b")
    tower = 3 * 14 * 14 * 1024 + 1024 + 24 * (2 * 1024 + 4 * 1024 * 1024 + 3 * 1024 * 4096)
    projector = 1024 + 4096 * 1024 + 1024 * 5120 + 5120 * 5120
    assert preset.extra_params == tower + projector == 438_958_080
    assert c.total - preset.extra_params == 23_572_403_200
    assert c.total == published("mistral-small-3.2-24b")
    assert not any("not counted" in w for w in warnings)
    assert preset.sliding_window is None  # text_config sliding_window null: full attention


def test_mistral3_projector_bias_and_feature_layers_count():
    cfg, _, c, _ = load("mistral-small-3.2-24b")
    biased, _ = arch_from_config(
        {**cfg, "multimodal_projector_bias": True, "vision_feature_layer": [-1, -2]},
        source="x", name="x",
    )  # fmt: skip
    assert count_params(biased).total - c.total == 2 * 5120 + 1024 * 5120


def test_mistral3_bad_projector_field_is_refused():
    cfg, _, _, _ = load("mistral-small-3.2-24b")
    with pytest.raises(ArchConfigError, match="spatial_merge_size"):
        arch_from_config({**cfg, "spatial_merge_size": "two"}, source="m3.json", name="x")


# ----------------------------------------------------------------------- EXAONE 3 (exaone)


def test_exaone_7_8b_is_the_llama_layout_count():
    """The printed ExaoneForCausalLM tree: wte 102400 x 4096, 32 x (ln_1, q 4096, k/v 1024,
    out_proj 4096, ln_2, c_fc_0/c_fc_1 14336, c_proj), ln_f, lm_head; no biases."""
    _, preset, c, warnings = load("exaone-3.0-7.8b")
    h, v, inter = 4096, 102400, 14336
    layer = 2 * h * h + 2 * h * 1024 + 3 * h * inter + 2 * h
    assert c.total == 2 * v * h + 32 * layer + h == published("exaone-3.0-7.8b")
    assert preset.num_hidden_layers == 32 and not warnings


@pytest.mark.parametrize("drop", ["tie_word_embeddings", "intermediate_size", "num_layers"])
def test_exaone_without_a_size_field_is_refused(drop):
    cfg, _, _, _ = load("exaone-3.0-7.8b")
    with pytest.raises(ArchConfigError, match=drop.replace("num_layers", "num_layers")):
        arch_from_config({k: v for k, v in cfg.items() if k != drop}, source="e.json", name="x")


def test_exaone_4_is_still_refused():
    cfg, _, _, _ = load("exaone-3.0-7.8b")
    with pytest.raises(ArchConfigError, match="exaone4"):
        arch_from_config({**cfg, "model_type": "exaone4"}, source="e4.json", name="x")


# ---------------------------------------------------------------------------- OLMoE (olmoe)


def test_olmoe_1b_7b_is_the_checkpoint_total():
    """OlmoeForCausalLM: 16 x (q/k/v/o 2048x2048, q_norm and k_norm over 2048, router 64 x
    2048 without bias, 64 SwiGLU experts of 1024, two RMSNorms), final norm, untied head."""
    _, preset, c, warnings = load("olmoe-1b-7b")
    h, v = 2048, 50304
    layer = 4 * h * h + 2 * h + 64 * h + 64 * 3 * h * 1024 + 2 * h
    assert c.total == 2 * v * h + 16 * layer + h == published("olmoe-1b-7b")
    assert preset.qk_norm == "full" and c.moe_layers == 16 and not warnings
    assert c.moe_per_layer - c.moe_active_per_layer == (64 - 8) * 3 * h * 1024


def test_olmoe_kv_cache_is_every_layer():
    _, preset, _, _ = load("olmoe-1b-7b")
    assert kv_elements(preset, 10) == 10 * 16 * 2 * 2048


# ------------------------------------------------------------------ Llama 4 vision tower


#: Llama-4-Scout's vision_config as a published Llama4Config printout gives it (code index id
#: 41112263523, with a per-module parameter table of the same model).
_LLAMA4_VISION = {"attention_dropout": 0.0, "hidden_act": "gelu", "hidden_size": 1408,
                  "image_size": 336, "initializer_range": 0.02, "intermediate_size": 5632,
                  "model_type": "llama4_vision_model", "multi_modal_projector_bias": False,
                  "norm_eps": 1e-05, "num_attention_heads": 16, "num_channels": 3,
                  "num_hidden_layers": 34, "patch_size": 14, "pixel_shuffle_ratio": 0.5,
                  "projector_dropout": 0.0, "projector_input_dim": 4096,
                  "projector_output_dim": 4096, "rope_theta": 10000,
                  "vision_feature_layer": -1, "vision_feature_select_strategy": "default",
                  "vision_output_dim": 4096}  # fmt: skip


def test_llama4_scout_with_its_vision_tower_is_the_hubs_total():
    """Shape test: Llama4TextConfig's defaults are Scout's text model (107,769,861,120, the
    aiconfigurator copy's count too); with Scout's vision_config the tower (patch Linear 588 ->
    1408, class and 577 position rows, two LayerNorms, 34 layers with biases, pixel-shuffle
    adapter 5632 -> 4096 -> 4096) and the projector (4096 -> 5120) add 871,932,416, giving the
    Hub's safetensors total 108,641,793,536 (code index id 71142266638)."""
    cfg = {"model_type": "llama4", "text_config": {"model_type": "llama4_text"},
           "vision_config": _LLAMA4_VISION, "tie_word_embeddings": False}  # fmt: skip
    preset, warnings = arch_from_config(cfg, source="scout", name="x")
    c = count_params(preset)
    e, inter = 1408, 5632
    layer = 4 * (e * e + e) + 2 * e * inter + inter + e + 4 * e
    tower = 588 * e + e + 577 * e + 4 * e + 34 * layer + inter * 4096 + 4096 * 4096
    assert preset.extra_params == tower + 4096 * 5120 == 871_932_416
    assert c.total == 108_641_793_536
    assert not any("not counted" in w for w in warnings)
    assert c.active == count_params(preset.model_copy(update={"extra_params": 0})).active


def test_llama4_vision_config_without_sizes_is_refused():
    vision = {k: v for k, v in _LLAMA4_VISION.items() if k != "projector_input_dim"}
    cfg = {"model_type": "llama4", "text_config": {"model_type": "llama4_text"},
           "vision_config": vision}  # fmt: skip
    with pytest.raises(ArchConfigError, match="projector_input_dim"):
        arch_from_config(cfg, source="l4.json", name="x")


# -------------------------------------------------------------- GLM-4-0414 (glm4), Granite H


def test_glm4_9b_shape_is_llama_cpps_count():
    """Shape test: the GLM-4-9B-0414 fields a loader test quotes (code index id 56014767049)
    with Glm4Config's defaults for what it leaves out (attention_bias true, untied; transformers
    fills them the same way).  q/k/v bias, fused gate_up 2 x 13696, four RMSNorms per layer.
    9,400,279,040 is llama.cpp's n_params for GLM-4.6V-Flash's language model, the same 9B
    shape (n_embd 4096, n_vocab 151552; code index id 36988296767)."""
    cfg = {"architectures": ["Glm4ForCausalLM"], "model_type": "glm4", "hidden_size": 4096,
           "intermediate_size": 13696, "num_hidden_layers": 40, "num_attention_heads": 32,
           "num_key_value_heads": 2, "head_dim": 128, "vocab_size": 151552,
           "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "partial_rotary_factor": 0.5}  # fmt: skip
    preset, _ = arch_from_config(cfg, source="glm4", name="x")
    h, v = 4096, 151552
    attn = h * 4096 + 4096 + 2 * (h * 256 + 256) + 4096 * h
    layer = attn + 3 * h * 13696 + 4 * h
    assert count_params(preset).total == 2 * v * h + 40 * layer + h == 9_400_279_040
    no_bias, _ = arch_from_config({**cfg, "attention_bias": False}, source="g", name="x")
    assert count_params(preset).total - count_params(no_bias).total == 40 * (4096 + 2 * 256)


def test_granite_4_h_small_moe_hybrid_is_llama_cpps_count():
    """Shape test: granite-4.0-h-small's fields as a worked example quotes the Hub config
    (code index id 57624389648: 36 Mamba-2 + 4 attention layers, 72 experts of 768 top 10 and
    a shared MLP of 1536 in every layer, tied); Mamba heads from GraniteMoeHybridConfig's
    defaults (128 heads, d_head auto = 8192 / 128, 1 group).  32,207,337,984 is llama.cpp's
    n_params for granite-4.0-h-small (code index id 36988296767)."""
    cfg = {"model_type": "granitemoehybrid", "hidden_size": 4096, "num_hidden_layers": 40,
           "num_attention_heads": 32, "num_key_value_heads": 8, "num_local_experts": 72,
           "num_experts_per_tok": 10, "shared_intermediate_size": 1536,
           "intermediate_size": 768, "mamba_d_state": 128, "mamba_d_conv": 4,
           "mamba_expand": 2, "tie_word_embeddings": True, "vocab_size": 100352,
           "layer_types": ["mamba"] * 36 + ["attention"] * 4}  # fmt: skip
    preset, _ = arch_from_config(cfg, source="h-small", name="x")
    c = count_params(preset)
    assert c.total == 32_207_337_984
    assert abs(c.active - 9e9) <= 0.5e9  # IBM: '9B active'


# ------------------------------------------------------------- Granite 3.x MoE (granitemoe)


def _granite_3b_a800m(**change: object) -> dict:
    """granite-3.1-3b-a800m-instruct's config.json fields as a planner quotes them (code index
    id 71463455676); attention_bias absent = GraniteMoeConfig's false."""
    cfg = {"architectures": ["GraniteMoeForCausalLM"], "hidden_act": "silu",
           "hidden_size": 1536, "intermediate_size": 512, "max_position_embeddings": 131072,
           "model_type": "granitemoe", "num_attention_heads": 24, "num_experts_per_tok": 8,
           "num_hidden_layers": 32, "num_key_value_heads": 8, "num_local_experts": 40,
           "rope_theta": 10000000.0, "tie_word_embeddings": True,
           "vocab_size": 49155}  # fmt: skip
    return {**cfg, **change}


def test_granite_3b_a800m_shape_is_the_guardians_count():
    """Shape test: 32 x (GQA 24/8 heads of 64, router 40 x 1536, 40 experts with input_linear
    2 x 512 x 1536 and output_linear 1536 x 512, two RMSNorms), tied embedding.
    3,298,793,472 is ibm-granite/granite-guardian-3.2-3b-a800m's count at revision 3de033d8
    (code index id 68688959620), a fine-tune of this shape."""
    preset, warnings = arch_from_config(_granite_3b_a800m(), source="g3", name="x")
    c = count_params(preset)
    h = 1536
    layer = 2 * h * h + 2 * h * 512 + 40 * h + 40 * 3 * h * 512 + 2 * h
    assert c.total == 49155 * h + 32 * layer + h == 3_298_793_472
    assert c.moe_layers == 32 and not warnings
    assert c.total - c.active == 32 * (40 - 8) * 3 * h * 512


def test_granitemoeshared_adds_the_shared_mlp():
    plain, _ = arch_from_config(_granite_3b_a800m(), source="g", name="x")
    shared, _ = arch_from_config(
        _granite_3b_a800m(model_type="granitemoeshared", shared_intermediate_size=1024),
        source="g", name="x",
    )  # fmt: skip
    assert count_params(shared).total - count_params(plain).total == 32 * 3 * 1536 * 1024
