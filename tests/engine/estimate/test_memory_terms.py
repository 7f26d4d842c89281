"""The memory estimate as a list of cited terms (engine/estimate/memory_terms.py, issue 30).

Each term names its part and source; each breakdown field is the sum of its part's terms; the
terms reproduce the ZeRO paper's per-GPU model-state figures; sharding and offload act on the
terms their sources say they act on.
"""

from __future__ import annotations

import inspect

import pytest

from slotwise.engine.estimate import estimate
from slotwise.engine.estimate import memory_terms as mt
from slotwise.engine.estimate.constants import NF4_BITS_PER_PARAM
from slotwise.engine.estimate.memory import MemoryBreakdown, memory_per_gpu
from slotwise.engine.model.params import count_params
from slotwise.engine.workload import Workload
from tests.evidence.memory_cases import A100_80GB, CASES, LLAMA2_7B
from tests.pre_profile import W

STATE = ("weights", "gradients", "optimizer_state", "master_weights")


def _terms(mem: MemoryBreakdown, *names: str) -> float:
    return sum(t.bytes for t in mem.terms if t.name in names)


def test_every_term_function_names_its_origin():
    """Every function that makes a term has a docstring, and every docstring cites something
    (a paper, a library's code or docs, or the function or constant it takes the figure from)."""
    makers = [
        f
        for name, f in inspect.getmembers(mt, inspect.isfunction)
        if f.__module__ == mt.__name__ and (name.endswith("_term") or name.endswith("_terms"))
    ]
    assert len(makers) >= 15
    for f in makers:
        doc = inspect.getdoc(f) or ""
        cites = ("arXiv", "PyTorch", "DeepSpeed", "torchtune", "bitsandbytes", "PEFT", "QLoRA")
        assert any(c in doc for c in cites) or ":func:" in doc, f.__name__


@pytest.mark.parametrize("named", [False, True])
def test_fields_are_the_sums_of_their_terms_on_every_evidence_case(named):
    for case in CASES:
        w = case.make_workload(with_trainer=named)
        m = estimate(w, A100_80GB, case.gpus, arch=case.arch).memory_per_gpu
        assert m.terms, case.id
        assert all(t.source and t.bytes >= 0 for t in m.terms), case.id
        for part, field in (
            ("weights", m.weights_bytes),
            ("gradients", m.gradients_bytes),
            ("optimizer", m.optimizer_bytes),
            ("activations", m.activations_bytes),
            ("kv_cache", m.kv_cache_bytes),
            ("overhead", m.overhead_bytes),
            ("paged", m.paged_optimizer_bytes),
        ):
            assert sum(t.bytes for t in m.terms if t.part == part) == pytest.approx(
                field, rel=1e-12, abs=1e-6
            ), (case.id, part)
        in_total = sum(t.bytes for t in m.terms if t.part in mt.TOTAL_PARTS)
        assert in_total == pytest.approx(m.total_bytes, rel=1e-12), case.id
        assert m.logits_bytes == _terms(m, "logits"), case.id


@pytest.mark.parametrize(
    ("parallel", "per_param"),
    [
        # ZeRO paper (Rajbhandari et al. 2020, arXiv:1910.02054), figure 1, K = 12, Nd = 64:
        # baseline (2 + 2 + K) psi; P_os 2 psi + 2 psi + K psi / Nd; P_os+g 2 psi + (2 + K) psi /
        # Nd; P_os+g+p (2 + 2 + K) psi / Nd.
        ("ddp", 16.0),
        ("zero1", 4.0 + 12.0 / 64),
        ("zero2", 2.0 + 14.0 / 64),
        ("zero3", 16.0 / 64),
    ],
)
def test_model_state_terms_follow_the_zero_paper(parallel, per_param):
    """The four model-state terms of mixed-precision AdamW are the paper's bytes per parameter
    at each stage; at its 7.5B-parameter example that is 120 / 31.4 / 16.6 / 1.88 GB per GPU."""
    counts = count_params(LLAMA2_7B)
    w = W(64, method="full", precision="bf16", optimizer="adamw", master_weights=True)
    m, _ = memory_per_gpu(LLAMA2_7B, w, tp=1, dp=64, parallel=parallel, counts=counts)
    assert _terms(m, *STATE) == pytest.approx(per_param * counts.total, rel=1e-12)
    paper_gb = {"ddp": 120, "zero1": 31.4, "zero2": 16.6, "zero3": 1.88}[parallel]
    assert per_param * 7.5e9 / 1e9 == pytest.approx(paper_gb, rel=0.01)
    # what ZeRO-3 / FSDP adds besides the shards: the gathered layers and one layer's gradient
    extra = {t.name for t in m.terms} - set(STATE)
    buffers = {"in_flight_weights", "fsdp_reduce_scatter"}
    assert extra & buffers == (buffers if parallel == "zero3" else set())


@pytest.mark.parametrize(("backend", "sharded"), [("bitsandbytes", False), ("torchao", True)])
def test_nf4_constants_stay_whole_under_bitsandbytes_and_shard_under_torchao(backend, sharded):
    """bitsandbytes keeps the absmax constants in ``quant_state`` (not a parameter: FSDP does
    not shard it); torchao's NF4Tensor shards them with the 4-bit data (memory.py docstring)."""
    counts = count_params(LLAMA2_7B)

    def run(gpus: int) -> MemoryBreakdown:
        w = W(gpus, method="qlora", nf4_backend=backend)
        par = "zero3" if gpus > 1 else "ddp"
        return memory_per_gpu(LLAMA2_7B, w, tp=1, dp=gpus, parallel=par, counts=counts)[0]

    one, eight = run(1), run(8)
    c1, c8 = _terms(one, "nf4_constants"), _terms(eight, "nf4_constants")
    assert c1 > 0
    assert c8 == pytest.approx(c1 / 8 if sharded else c1, rel=1e-12)
    # the constants are the double-quantized 0.127 bit per weight of the 4-bit data's 4
    ratio = (NF4_BITS_PER_PARAM - 4.0) / 4.0
    assert c1 == pytest.approx(_terms(one, "nf4_weights") * ratio, rel=1e-12)


def test_optimizer_offload_leaves_no_optimizer_term_and_a_one_layer_gradient_bucket():
    """ZeRO-Offload (arXiv:2101.06840): optimizer state and fp32 master on the CPU, the
    gradients stream out through a bucket of about one layer."""
    counts = count_params(LLAMA2_7B)
    kw = dict(method="full", precision="bf16", optimizer="adamw")
    on_gpu, _ = memory_per_gpu(LLAMA2_7B, W(1, **kw), tp=1, dp=1, parallel="ddp", counts=counts)
    off, _ = memory_per_gpu(
        LLAMA2_7B, W(1, offload="optimizer", **kw), tp=1, dp=1, parallel="ddp", counts=counts
    )
    assert not [t for t in off.terms if t.part in ("optimizer", "paged")]
    (bucket,) = [t for t in off.terms if t.part == "gradients"]
    assert bucket.name == "gradient_bucket"
    layers = LLAMA2_7B.num_hidden_layers
    assert bucket.bytes == pytest.approx(_terms(on_gpu, "gradients") / layers, rel=1e-12)
    assert _terms(off, "weights") == _terms(on_gpu, "weights")


def test_serving_kv_cache_term_follows_the_users_cache():
    """With ``--users`` the KV cache is the running users' (fit.layout_memory): the kv_cache
    term is replaced with the field, so the terms still add up."""
    w = Workload(model="llama-2-7b", method="inference", users=24, seq_len=4096)
    m = estimate(w, A100_80GB, 1, arch=LLAMA2_7B).memory_per_gpu
    (kv,) = [t for t in m.terms if t.part == "kv_cache"]
    assert kv.bytes == m.kv_cache_bytes > 0
    assert "running user" in kv.source
