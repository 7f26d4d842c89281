"""Layouts real engines accept (engine.estimate.layout) and how estimate() uses them."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotwise.engine.estimate import estimate
from slotwise.engine.estimate.layout import choose_layout, tp_is_valid, tp_problem, valid_tp_sizes
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import load_catalog
from slotwise.tui.cli import main

CAT = load_catalog()
MODELS = CAT.models
H100 = CAT.gpus["NVIDIA-H100-SXM5-80GB"]


def test_tp_must_divide_attention_and_kv_heads():
    qwen = MODELS["qwen2.5-7b"]  # 28 query heads, 4 KV heads
    assert valid_tp_sizes(qwen, 8) == [1, 2, 4]
    assert "28 attention heads" in (tp_problem(qwen, 8) or "")
    llama8 = MODELS["llama-3.1-8b"]  # 32 heads, 8 KV heads
    assert valid_tp_sizes(llama8, 8) == [1, 2, 4, 8]
    assert not tp_is_valid(llama8, 3)
    # TP past the KV heads copies them (vLLM): 16 divides 32 heads and is a multiple of 8.
    assert tp_is_valid(llama8, 16)
    # Multi-head latent attention: only the query heads count.
    assert tp_is_valid(MODELS["deepseek-v3"], 8)


def test_explicit_tp_1_on_8_gpus_is_8_replicas():
    lay = choose_layout(MODELS["llama-3.1-8b"], 8, tp=1)
    assert (lay.tp, lay.pp, lay.dp) == (1, 1, 8)


def test_no_build_serving_splits_inside_the_fast_group_and_replicates_the_rest():
    arch = MODELS["llama-3.1-8b"]
    # PCIe-only cards: the model fits one GPU, so 8 replicas rather than TP 8 over PCIe.
    assert (choose_layout(arch, 8, fast_group=1).tp, choose_layout(arch, 8, fast_group=1).dp) == (
        1,
        8,
    )
    # Two 4-way bridge groups: TP 4 inside each, 2 replicas.
    lay = choose_layout(arch, 8, fast_group=4)
    assert (lay.tp, lay.dp) == (4, 2)
    # Too big for one GPU of a PCIe-only server: the smallest TP that holds it, stated.
    lay = choose_layout(arch, 8, fast_group=1, fits=lambda t, p: t * p >= 2)
    assert (lay.tp, lay.dp) == (2, 4) and "slower links" in lay.reason


def test_three_gpus_never_give_tp_3():
    arch = MODELS["llama-3.1-8b"]
    lay = choose_layout(arch, 3, fast_group=8)
    assert lay.tp != 3 and (lay.tp, lay.dp) == (1, 3)
    # When one GPU cannot hold it, pipeline stages (no head constraint) instead of TP 3.
    lay = choose_layout(arch, 3, fast_group=8, fits=lambda t, p: t * p >= 3)
    assert (lay.tp, lay.pp, lay.dp) == (1, 3, 1)


def test_invalid_explicit_tp_falls_back_to_a_valid_one_with_the_reason():
    lay = choose_layout(MODELS["qwen2.5-7b"], 8, tp=8)
    assert lay.tp == 4 and "28 attention heads" in lay.reason


@settings(max_examples=60, deadline=None)
@given(
    model=st.sampled_from(["qwen2.5-7b", "llama-3.1-8b", "llama-3.1-70b", "deepseek-v3"]),
    gpus=st.integers(1, 32),
    fast=st.sampled_from([1, 2, 4, 8]),
    tp=st.one_of(st.none(), st.integers(1, 16)),
    need=st.integers(1, 16),
    training=st.booleans(),
)
def test_no_layout_has_a_tp_that_does_not_divide_the_heads(model, gpus, fast, tp, need, training):
    arch = MODELS[model]
    lay = choose_layout(
        arch, gpus, tp=tp, training=training, fast_group=fast, fits=lambda t, p: t * p >= need
    )
    assert tp_is_valid(arch, lay.tp)
    assert lay.gpus <= gpus
    assert lay.tp <= max(gpus, 1)


def test_estimate_serving_tp1_on_8_gpus_reports_8_replicas():
    est = estimate(
        Workload(model="llama-3.1-8b", tp=1, users=64), H100, 8, arch=MODELS["llama-3.1-8b"]
    )
    assert (est.tp, est.dp) == (1, 8)
    assert est.serving is not None and est.serving.replicas == 8


def test_estimate_serving_three_gpus_does_not_pick_tp_3():
    est = estimate(Workload(model="llama-3.1-8b"), H100, 3, arch=MODELS["llama-3.1-8b"])
    assert est.tp != 3


@pytest.mark.parametrize("tp", ["3", "8"])
def test_cli_refuses_a_tp_that_does_not_divide_the_heads(tp, capsys):
    rc = main(["estimate", "--model", "qwen2.5-7b", "--gpu", "NVIDIA-H100-SXM5-80GB",
               "--gpus", "8", "--tp", tp, "--json"])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 2 and "--tp" in err and "heads" in err


def test_cli_tp_1_gpus_8_json_has_8_replicas(capsys):
    rc = main(["estimate", "--model", "llama-3.1-8b", "--gpu", "NVIDIA-H100-SXM5-80GB",
               "--gpus", "8", "--tp", "1", "--users", "64", "--json"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and (out["tp"], out["dp"], out["serving"]["replicas"]) == (1, 8, 8)


def test_a_model_larger_than_a_server_gets_pipeline_stages_not_cross_server_tp():
    w = Workload(model="llama-3.1-405b", users=64, seq_len=4096, output_len=1024)
    est = estimate(w, H100, 16, arch=MODELS["llama-3.1-405b"])
    assert (est.tp, est.pp, est.dp) == (8, 2, 1)
    assert est.serving is not None and est.serving.max_users > 0
    assert any("pipeline stages" in n for n in est.assumptions.notes)
