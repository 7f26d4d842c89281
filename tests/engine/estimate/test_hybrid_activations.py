"""Activation memory and decode reads of MoE, Mamba and hybrid layers, on real config.json copies.

Each expected figure is written out by hand from the tensor list in the docstring of
:mod:`engine.estimate.activations` (Mamba: the ``mamba_ssm`` fused kernels' saved tensors; Gu &
Dao 2023, arXiv:2312.00752, section 3.3.2) or :func:`engine.estimate.compute.decode_weight_params`,
so the tolerance is exact equality: these are counts, not fitted estimates.
"""

from __future__ import annotations

import json
import tomllib

import pytest

from slotwise.engine.estimate.activations import (
    NORM_FP32_BYTES,
    layer_dims,
    training_activation_bytes,
)
from slotwise.engine.estimate.compute import attention_flops_fwd, decode_weight_params
from slotwise.engine.model.arch import arch_from_config
from slotwise.engine.model.params import count_params
from slotwise.engine.workload import Workload
from tests.paths import TESTS

ROOT = TESTS / "fixtures" / "configs"
PUBLISHED = tomllib.loads((ROOT / "PUBLISHED.toml").read_text(encoding="utf-8"))
E = 2.0  # bf16 bytes per activation element


def load(key: str):
    entry = PUBLISHED[key]
    cfg = json.loads((ROOT / entry["dir"] / "config.json").read_text(encoding="utf-8"))
    preset, _ = arch_from_config(cfg, source=entry["dir"], name=entry["hf_id"])
    return preset


def lora(seq_len: int = 1024, **kw) -> Workload:
    return Workload(arch={"hidden_size": 8}, method="lora", seq_len=seq_len, **kw)


# ------------------------------------------------------------------ shared experts


def test_moe_width_includes_the_shared_expert_of_its_own_width():
    """Qwen1.5-MoE-A2.7B: top-4 of 60 experts of 1408 plus a shared expert of 5632 (its
    ``shared_expert_intermediate_size``; ``n_shared_experts`` is not a Qwen2-MoE field)."""
    dims = layer_dims(load("qwen1.5-moe-a2.7b"))
    assert dims.moe_inter == 4 * 1408 + 5632


def test_deepseek_shared_experts_are_n_shared_times_the_expert_width():
    dims = layer_dims(load("deepseek-v3"))
    assert dims.moe_inter == 8 * 2048 + 1 * 2048


# ------------------------------------------------------------------ Mamba and hybrids


def test_mamba_layers_save_the_fused_kernel_tensors_not_attention():
    """mamba-2.8b-hf, LoRA on q and v (which a Mamba model does not have), no recompute: each of the 64 layers keeps one RMSNorm's fp32 copy (4 h) and the Mamba-1
    kernel's xz (2 d), x_dbl (dt_rank + 2 N), B and C copies (2 N) and scan output (d)."""
    arch = load("mamba-2.8b-hf")
    dims = layer_dims(arch)
    assert dims.kinds == ((("ssm", "none"), 64),) and dims.attention_layers == 0
    h, d, n, r = 2560, 5120, 16, 160
    per_layer = NORM_FP32_BYTES * h + E * (3 * d + r + 4 * n)
    working = E * (3 * d + r + 4 * n)  # the mixer's backward holds its saved widths' grads
    w = lora(grad_checkpointing=False, lora_targets=("q", "v"))
    assert training_activation_bytes(arch, w, E, 1) == 1024 * (64 * per_layer + working)
    assert attention_flops_fwd(arch, 4096) == 0.0  # no attention: nothing grows with T


def test_mamba_full_finetune_also_keeps_the_in_proj_input():
    """Trained (or 4-bit, or all-linear LoRA) in_proj weights need their input, e h."""
    arch = load("mamba-2.8b-hf")
    h, d, n, r = 2560, 5120, 16, 160
    full = Workload(arch={"hidden_size": 8}, method="full", seq_len=1024, grad_checkpointing=False)
    per_layer = NORM_FP32_BYTES * h + E * (3 * d + r + 4 * n) + E * h
    working = E * (3 * d + r + 4 * n)
    assert training_activation_bytes(arch, full, E, 1) == 1024 * (64 * per_layer + working)


def test_nemotron_h_blocks_are_counted_by_what_they_contain():
    """Nemotron-H-56B: 118 blocks, each one of Mamba-2 (M), attention (*) or ReLU² MLP (-),
    with one RMSNorm each; only the 10 attention blocks have q/k/v and attention FLOPs."""
    arch = load("nemotron-h-56b")
    dims = layer_dims(arch)
    kinds = dict(dims.kinds)
    assert kinds == {("ssm", "none"): 54, ("none", "dense"): 54, ("attention", "none"): 10}
    h, hd = 8192, 128
    q = o = 64 * hd
    kv = 8 * hd
    assert attention_flops_fwd(arch, 1000) == 2.0 * 10 * 1000 * (q + o)
    d, g, n, heads = 256 * 64, 8, 256, 256
    ssm_saved = (2 * d + 2 * g * n + heads) + d  # zxbcdt + scan output (Mamba-2 kernel)
    inter = 32768
    mamba = NORM_FP32_BYTES * h + E * ssm_saved
    # ReLU² two-matrix MLP: the ReLU output (squared's input) is kept; LoRA on no MLP module
    mlp = NORM_FP32_BYTES * h + E * 1 * inter
    attn = NORM_FP32_BYTES * h + E * (q + 2 * kv + o)
    w = lora(grad_checkpointing=False, lora_targets=("q", "v"))
    lora_drop = 2 * (E + 1.0) * h  # dropout input + mask on q and v (attention blocks only)
    # the frozen base q/v matmuls keep no input: the adapters keep their dropped copies
    kept = 54 * mamba + 54 * mlp + 10 * (attn + lora_drop)
    working = max(2 * E * inter, E * ssm_saved)  # two-matrix MLP: fc2-input and fc1-out grads
    assert training_activation_bytes(arch, w, E, 1) == pytest.approx(1024 * (kept + working))


def test_jamba_layers_are_a_mixer_plus_an_ffn():
    """Jamba-1.5-Mini: attention on layers 4, 12, 20, 28 (period 8, offset 4), MoE on the odd
    layers (period 2, offset 1), so the attention layers have dense FFNs."""
    dims = layer_dims(load("jamba-1.5-mini"))
    assert dict(dims.kinds) == {
        ("ssm", "dense"): 12,
        ("ssm", "moe"): 16,
        ("attention", "dense"): 4,
    }
    assert dims.norms_of(("ssm", "moe")) == 2 and dims.norms_of(("ssm", "none")) == 1


def test_llama_style_layers_are_unchanged_by_the_per_kind_sum():
    """A dense Llama layer: 2 fp32 norms, SDPA q/k/v/o, SwiGLU 3 i (LoRA on every module)."""
    arch = load("llama-3.2-1b-instruct")
    dims = layer_dims(arch)
    assert dims.kinds == ((("attention", "dense"), 16),)
    h, i, q, kv = 2048, 8192, 2048, 512
    w = lora(grad_checkpointing=False)
    layer = 2 * NORM_FP32_BYTES * h + E * (q + 2 * kv + q) + 3 * E * i
    # LoRA dropout on all seven: the dropped copies and masks; the frozen base matmuls keep no
    # input of their own
    layer += (E + 1.0) * (3 * h + q + 2 * h + i)
    assert training_activation_bytes(arch, w, E, 1) == pytest.approx(
        1024 * (16 * layer + 3 * E * i)
    )


# ------------------------------------------------------------------ decode reads


@pytest.mark.parametrize("key", ["gpt-oss-20b", "qwen3-30b-a3b", "mixtral-8x22b"])
def test_decode_reads_active_weights_alone_and_every_weight_at_large_batch(key):
    """One sequence reads what one token uses; a very large batch reads every expert, i.e. the
    whole model: the per-expert size must be the one the count uses (gpt-oss experts carry
    biases, so 3 h i alone would miss them)."""
    arch = load(key)
    c = count_params(arch)
    assert decode_weight_params(arch, c, 1) == pytest.approx(c.active)
    assert decode_weight_params(arch, c, 10**6) == pytest.approx(c.total - arch.extra_params)


def test_nemotron_moe_experts_are_two_matrix():
    """Nemotron-H MoE blocks (E) hold ReLU² experts of up + down only: 2 h i per expert."""
    cfg = {"model_type": "nemotron_h", "hidden_size": 64, "num_attention_heads": 4,
           "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100, "intermediate_size": 96,
           "mamba_num_heads": 8, "mamba_head_dim": 16, "ssm_state_size": 8, "n_groups": 2,
           "n_routed_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
           "moe_shared_expert_intermediate_size": 48,
           "hybrid_override_pattern": "ME*E"}  # fmt: skip
    arch, _ = arch_from_config(cfg, source="tiny", name="tiny")
    c = count_params(arch)
    assert c.routed_expert == 2 * 64 * 32
    assert decode_weight_params(arch, c, 10**6) == pytest.approx(c.total)


# ------------------------------------------------------------------ the CLI on every copy


@pytest.mark.parametrize("key", sorted(PUBLISHED))
def test_cli_estimates_every_real_copy(key, capsys):
    """`slotwise estimate --config <copy> --json` answers for every vendored config.json
    (exit 0 fits / 1 does not fit; never 2 or a traceback), with the counted total."""
    from slotwise.tui import cli

    path = ROOT / PUBLISHED[key]["dir"] / "config.json"
    rc = cli.main(["estimate", "--config", str(path), "--offline", "--json", "--method", "lora"])
    out, err = capsys.readouterr()
    assert rc in (0, 1), err
    data = json.loads(out)
    assert data["memory_per_gpu"]["total_bytes"] > 0
    assert data["params"] == count_params(load(key)).total


# ------------------------------------------------------------------ LoRA on Mamba mixers


def test_all_linear_lora_adapts_the_mamba_projections():
    """PEFT "all-linear" adapts every nn.Linear but the output layer; a Mamba-1 layer's are
    in_proj (h -> 2d), x_proj (d -> dt_rank + 2N), dt_proj (dt_rank -> d) and out_proj (d -> h).
    LoRA r adds r (in + out) per Linear (Hu et al. 2021).  Attention names match nothing."""
    from slotwise.engine.model.params import linear_params_by_module, lora_params

    arch = load("mamba-2.8b-hf")
    h, d, n, r = 2560, 5120, 16, 160
    per_layer = (h + 2 * d) + (d + r + 2 * n) + (r + d) + (d + h)
    all_linear = ("q", "k", "v", "o", "gate", "up", "down")
    assert lora_params(arch, all_linear, 8) == 64 * 8 * per_layer
    assert lora_params(arch, ("q", "v"), 8) == 0
    # Every Linear (QLoRA quantizes them all) plus conv, A_log, D, dt bias, norms, embedding
    # is the whole model.
    c = count_params(arch)
    linears = sum(s.weights for shapes in linear_params_by_module(arch).values() for s in shapes)
    rest = 64 * (d * 4 + d + d * n + d) + 64 * h + h + c.embedding  # conv+bias, A_log, D; norms
    assert linears + rest == c.total


def test_nemotron_h_all_linear_counts_attention_mlp_and_mamba2_projections():
    from slotwise.engine.model.params import lora_params

    arch = load("nemotron-h-56b")
    h, d, g, n, heads = 8192, 256 * 64, 8, 256, 256
    mamba = (h + 2 * d + 2 * g * n + heads) + (d + h)
    attn = 2 * (h + 64 * 128) + 2 * (h + 8 * 128)  # q, o; k, v
    mlp = 2 * (h + 32768)  # up, down
    all_linear = ("q", "k", "v", "o", "gate", "up", "down")
    assert lora_params(arch, all_linear, 4) == 4 * (54 * mamba + 10 * attn + 54 * mlp)
