"""Inference memory of one generate() call: the larger of the prefill and end-of-generation
moments (engine/estimate/generation.py), checked by construction and on published peaks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from slotwise.engine.estimate import estimate
from slotwise.engine.estimate.activations import inference_activation_bytes
from slotwise.engine.estimate.generation import split_lengths
from slotwise.engine.estimate.memory_terms import kv_cache_bytes
from slotwise.engine.model.params import count_params
from slotwise.engine.workload import Workload
from tests.evidence.memory_cases import A100_80GB, CASES, LLAMA3_8B, QWEN25

MIB = 2**20


def mem(workload: Workload, arch=LLAMA3_8B):
    return estimate(workload, A100_80GB, 1, arch=arch).memory_per_gpu


def test_split_lengths_default_and_explicit():
    assert split_lengths(Workload(method="inference", seq_len=8192)) == (4096, 4096)
    assert split_lengths(Workload(method="inference", seq_len=8192, output_len=2048)) == (
        6144,
        2048,
    )
    # The longest output leaves a one-token prompt; an output as long as the context is an
    # input error (the sequence is prompt + output).
    assert split_lengths(Workload(method="inference", seq_len=8192, output_len=8191)) == (1, 8191)
    with pytest.raises(ValidationError, match="not shorter than the sequence length"):
        Workload(method="inference", seq_len=8192, output_len=8192)


def test_long_prompt_peaks_at_the_prefill_over_the_prompt_only():
    """A 30720-token prompt with 2048 generated: weights + the prompt's cache + one layer's
    working set over the 30720 prompt tokens (not over all 32768), the last position's fp32
    logits; the reported KV cache is still the whole context's."""
    w = Workload(method="inference", seq_len=32768, output_len=2048)
    m = mem(w)
    prompt = w.model_copy(update={"seq_len": 30720})
    expected = (
        2 * count_params(LLAMA3_8B).total
        + kv_cache_bytes(LLAMA3_8B, prompt, 1)
        + inference_activation_bytes(LLAMA3_8B, 2.0, 1, tokens=30720)
        + LLAMA3_8B.vocab_size * 4.0
    )
    assert m.total_bytes == pytest.approx(expected)
    assert m.kv_cache_bytes == kv_cache_bytes(LLAMA3_8B, w, 1)
    old = (
        m.weights_bytes
        + m.kv_cache_bytes
        + inference_activation_bytes(LLAMA3_8B, 2.0, 1, tokens=32768)
    )
    assert m.total_bytes < old  # no prefill working set over tokens that are generated later


def test_long_generation_peaks_at_the_end_with_one_decode_step():
    """A one-token prompt growing to 8192 tokens: weights + the 8192-token cache + one decode
    step's working set (a few MiB), nothing that scales with the context."""
    m = mem(Workload(method="inference", seq_len=8192, output_len=8191))
    assert m.activations_bytes < 2 * MIB
    assert m.total_bytes == pytest.approx(m.weights_bytes + m.kv_cache_bytes + m.activations_bytes)


@settings(max_examples=60, deadline=None)
@given(
    prompt=st.integers(1, 65536),
    output=st.integers(1, 8192),
    batch=st.integers(1, 8),
)
def test_peak_is_the_larger_moment(prompt, output, batch):
    """Never below either moment, and equal to the larger one."""
    w = Workload(method="inference", seq_len=prompt + output, output_len=output, micro_batch=batch)
    m = mem(w)
    weights = m.weights_bytes
    logits = batch * LLAMA3_8B.vocab_size * 4.0
    at_prefill = (
        weights
        + kv_cache_bytes(LLAMA3_8B, w.model_copy(update={"seq_len": prompt}), 1)
        + inference_activation_bytes(LLAMA3_8B, 2.0, 1, tokens=prompt * batch)
        + logits
    )
    at_end = (
        weights
        + kv_cache_bytes(LLAMA3_8B, w, 1)
        + inference_activation_bytes(LLAMA3_8B, 2.0, 1, tokens=batch)
        + logits
    )
    assert m.total_bytes == pytest.approx(max(at_prefill, at_end))


def test_qwen25_speed_benchmark_rows_within_four_percent():
    """Qwen2.5 speed benchmark (transformers 4.46, max_memory_allocated, input N + 2048
    generated): all 16 rows within 4 % (they read -0.5 to -3.1 %; the weights + cache + the
    prefill's layer working set over the N prompt tokens)."""
    rows = [c for c in CASES if c.id.startswith("qwen25-") and "inference" in c.id]
    assert len(rows) == 16 and {c.arch.sku for c in rows} == {a.sku for a in QWEN25.values()}
    for c in rows:
        est = estimate(c.make_workload(), A100_80GB, c.gpus, arch=c.arch).memory_per_gpu
        assert est.total_bytes / c.measured_bytes - 1 == pytest.approx(0, abs=0.04), c.id


def test_chatglm2_long_generation_has_no_prefill_working_set_over_the_context():
    """ChatGLM2-6B README: generating 8192 tokens peaks at 12.8 GB, less than encoding a
    2048-token prompt (13.1 GB); a prefill working set over 8192 tokens would put it above.
    Both within 4 %."""
    by_id = {c.id: c for c in CASES}
    errors = {}
    for cid in ("chatglm2-6b-encode-2048", "chatglm2-6b-generate-8192"):
        c = by_id[cid]
        est = estimate(c.make_workload(), A100_80GB, c.gpus, arch=c.arch).memory_per_gpu
        errors[cid] = est.total_bytes / c.measured_bytes - 1
    assert all(abs(e) <= 0.04 for e in errors.values()), errors


def test_legacy_tuple_cache_holds_two_caches_at_the_end_of_generation():
    """transformers < 4.36 / remote-code tuple caches: the previous step's cache (one token
    shorter) is alive when the forward that builds the next one ends."""
    w = Workload(method="inference", seq_len=8193, output_len=8192)
    one = mem(w)
    two = mem(w.model_copy(update={"legacy_kv_cache": True}))
    shorter = kv_cache_bytes(LLAMA3_8B, w.model_copy(update={"seq_len": 8192}), 1)
    assert two.kv_cache_bytes == pytest.approx(one.kv_cache_bytes + shorter)
    assert two.total_bytes == pytest.approx(one.total_bytes + shorter)
    # The prefill builds the first cache from nothing: a request whose prefill outweighs even
    # two caches (Qwen2.5-7B's 4 KV heads, a long prompt) is unchanged.
    long_prompt = Workload(method="inference", seq_len=32768, output_len=16)
    q7 = QWEN25["7B"]
    legacy = long_prompt.model_copy(update={"legacy_kv_cache": True})
    assert mem(legacy, arch=q7).total_bytes == pytest.approx(mem(long_prompt, arch=q7).total_bytes)


def test_qwen1_generation_rows_grow_by_two_caches_per_token():
    """Qwen (v1) README, KV-cache table (Qwen-7B-Chat BF16, batch 1): 512 -> 8192 generated
    tokens adds 8.0 GiB, 1.04 MiB per token: two bf16 caches of 0.5 MiB per token.  The
    estimate's growth is within 10 % of it (one cache would be half) and every sl row within
    8 % (they read -2 to -7 %; with one cache -4 to -21 %)."""
    rows = {c.id: c for c in CASES if c.id.startswith("qwen1-7b-chat-generate-sl")}
    assert len(rows) == 5

    def total(cid: str) -> float:
        c = rows[cid]
        return estimate(c.make_workload(), A100_80GB, 1, arch=c.arch).memory_per_gpu.total_bytes

    lo, hi = rows["qwen1-7b-chat-generate-sl512"], rows["qwen1-7b-chat-generate-sl8192"]
    growth = total(hi.id) - total(lo.id)
    assert growth == pytest.approx(hi.measured_bytes - lo.measured_bytes, rel=0.10)
    for cid, c in rows.items():
        assert total(cid) / c.measured_bytes - 1 == pytest.approx(0, abs=0.08), cid
