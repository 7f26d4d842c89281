"""The attention kernel a trainer runs (trainer profile field ``attention_kernel``): NeMo /
Megatron-Bridge run Transformer Engine's cuDNN fused attention (or FlashAttention-3) on Hopper,
1.6x FlashAttention-2's backward speed in the FlashAttention-3 paper's H100 benchmark
(engine/estimate/throughput.py ``CUDNN_ATTENTION_SPEEDUP``); the generic stack runs
FlashAttention-2.  Published: NeMo 24.07 and Megatron-Bridge 25.11 performance tables (held
out), scored by bench/perf_accuracy.py; these tests hold the mechanism."""

from __future__ import annotations

import pytest

from slotwise.engine.estimate import estimate
from slotwise.engine.workload import Workload
from slotwise.engine.workload.trainers import resolve_trainer

JOB = dict(model="llama-3.1-8b", method="pretrain", seq_len=8192, micro_batch=1)


def _est(catalog, gpu: str, **extra):
    w = Workload(**JOB, grad_checkpointing=False, **extra)  # the same recompute for every trainer
    return estimate(w, catalog.gpus[gpu], 8, arch=catalog.models["llama-3.1-8b"])


def test_profiles_name_their_kernel():
    assert resolve_trainer(Workload(**JOB)).attention_kernel == "flash2"
    assert resolve_trainer(Workload(**JOB, trainer="nemo")).attention_kernel == "cudnn"


def test_cudnn_attention_speeds_up_hopper_only(catalog):
    h100 = "NVIDIA-H100-SXM5-80GB"
    generic, nemo = _est(catalog, h100), _est(catalog, h100, trainer="nemo")
    assert nemo.train_tokens_per_s_per_gpu > generic.train_tokens_per_s_per_gpu
    assert any("Hopper-native kernel" in n for n in nemo.assumptions.notes)
    assert not any("Hopper-native kernel" in n for n in generic.assumptions.notes)
    # only the attention share speeds up: far less than the kernel's own 1.6x
    assert nemo.train_tokens_per_s_per_gpu < 1.3 * generic.train_tokens_per_s_per_gpu
    a100 = "NVIDIA-A100-PCIE-80GB"
    assert _est(catalog, a100, trainer="nemo").train_tokens_per_s_per_gpu == pytest.approx(
        _est(catalog, a100).train_tokens_per_s_per_gpu
    )


def test_an_override_picks_the_kernel(catalog):
    h100 = "NVIDIA-H100-SXM5-80GB"
    forced = _est(catalog, h100, trainer_overrides={"attention_kernel": "cudnn"})
    assert forced.train_tokens_per_s_per_gpu == pytest.approx(
        _est(catalog, h100, trainer="nemo").train_tokens_per_s_per_gpu
    )


def test_megatron_names_reach_the_megatron_profiles():
    nemo = resolve_trainer(Workload(**JOB, trainer="megatron-bridge"))
    lm = resolve_trainer(Workload(**JOB, trainer="megatron-lm"))
    assert nemo.trainer == "nemo" and lm.trainer == "megatron"
    # both run TE's cuDNN attention and no recompute by default; only NeMo's recipes overlap
    # the tensor-parallel collectives
    assert nemo.attention_kernel == lm.attention_kernel == "cudnn"
    assert nemo.grad_checkpointing is False and lm.grad_checkpointing is False
    assert lm.tp_overlap == 0.0 < nemo.tp_overlap


@pytest.mark.parametrize(
    ("alias", "profile"),
    [("transformers", "transformers-trainer"), ("sft-trainer", "trl"), ("nemo2", "nemo")],
)
def test_common_names_reach_their_profiles(alias, profile):
    assert Workload(**JOB, trainer=alias).trainer == profile
