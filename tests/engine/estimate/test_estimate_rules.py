"""Physics of the memory model: rules of thumb, parallelism, offload, MoE, KV cache, invariants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotwise.engine.estimate import estimate, min_gpus, suggest_changes
from slotwise.engine.estimate.constants import GIB, NF4_BITS_PER_PARAM
from slotwise.engine.estimate.memory_terms import _in_flight_bytes, trainable_state_bytes
from slotwise.engine.model.params import count_params, linear_params_by_module, lora_params
from slotwise.engine.workload import LORA_TARGET_SETS
from slotwise.engine.workload import Workload as _Workload
from slotwise.engine.workload.trainers import resolve_trainer
from slotwise.parts.schema import Gpu
from tests.evidence.memory_cases import (
    A100_80GB,
    GEMMA_2B,
    LLAMA2_7B,
    LLAMA2_13B,
    LLAMA3_8B,
    _arch,
)
from tests.pre_profile import pre


def Workload(**kw) -> _Workload:  # noqa: N802
    """These rules were written against the estimator's defaults before trainer profiles:
    build every workload on that baseline (tests/pre_profile.py), resolved."""
    return resolve_trainer(_Workload(**pre(**kw)))


GPU_24GB = Gpu(sku="g24", name="24 GB GPU", source="https://example.com", memory_gb=24, form="pcie")
GPU_48GB = Gpu(sku="g48", name="48 GB GPU", source="https://example.com", memory_gb=48, form="pcie")

MIXTRAL = _arch(
    "mixtral-8x7b", "mistralai/Mixtral-8x7B-v0.1", 46.7, model_type="mixtral", hidden_size=4096,
    intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
    vocab_size=32000, num_experts=8, num_experts_per_tok=2,
)  # fmt: skip


def mem(workload: Workload, gpus: int = 1, arch=LLAMA2_7B, gpu=A100_80GB):
    return estimate(workload, gpu, gpus, arch=arch).memory_per_gpu


# ------------------------------------------------------------------ rules of thumb


def test_full_training_is_16_bytes_per_parameter_of_state():
    """ZeRO paper: mixed-precision Adam = 2 + 2 + 12 bytes per parameter."""
    assert sum(trainable_state_bytes(Workload(method="full"))) == 16
    pure = Workload(method="full", master_weights=False)
    assert sum(trainable_state_bytes(pure)) == 8  # bf16 weights, grads and moments
    eight_bit = Workload(method="full", optimizer="adamw-8bit")
    assert sum(trainable_state_bytes(eight_bit)) == pytest.approx(10, abs=0.01)


def test_7b_full_finetune_lands_in_the_16_to_20_bytes_rule():
    """Rule of thumb '16-20 bytes/param: 7B full -> 112-140 GB' (state + a short batch)."""
    m = mem(Workload(method="full", seq_len=2048))
    per_param = m.total_bytes / count_params(LLAMA2_7B).total
    assert 16 <= per_param <= 20
    # The rule's 112 GB is 16 x 7e9; Llama 2 "7B" has 6.74e9 weights, hence ~110 GB.
    assert 100e9 <= m.total_bytes <= 140e9


def test_qlora_fits_7b_in_24gb_and_13b_in_48gb():
    """Rule of thumb (QLoRA paper, Dettmers et al. 2023): 7B on one 24 GB card, 13B on 48 GB."""
    w = Workload(method="qlora", seq_len=2048)
    assert estimate(w, GPU_24GB, 1, arch=LLAMA2_7B).fits
    assert estimate(w, GPU_48GB, 1, arch=LLAMA2_13B).fits
    # ... while 16-bit LoRA of 13B does not fit 24 GB
    assert not estimate(Workload(method="lora"), GPU_24GB, 1, arch=LLAMA2_13B).fits


def test_where_the_qlora_rule_breaks_long_context():
    """The 24 GB rule holds for short sequences only: logits + saved layer inputs grow with
    sequence length, so 7B QLoRA at 32k tokens without recompute no longer fits 24 GB."""
    w = Workload(method="qlora", seq_len=32768, grad_checkpointing=False)
    assert not estimate(w, GPU_24GB, 1, arch=LLAMA2_7B).fits


def test_nf4_double_quant_bits():
    """QLoRA paper section 3: 4 bits + 0.127 bit of double-quantized constants."""
    assert pytest.approx(4.127, abs=0.001) == NF4_BITS_PER_PARAM


# ------------------------------------------------------------------ parallelism / offload


def test_zero_stages_shard_more_and_more():
    w = Workload(method="full", seq_len=1024)
    by = {p: mem(w.model_copy(update={"parallel": p}), gpus=8) for p in ("ddp", "zero1", "zero2")}
    by["zero3"] = mem(w.model_copy(update={"parallel": "zero3"}), gpus=8)
    assert by["ddp"].optimizer_bytes == pytest.approx(8 * by["zero1"].optimizer_bytes)
    assert by["zero1"].gradients_bytes == pytest.approx(8 * by["zero2"].gradients_bytes)
    assert by["zero3"].weights_bytes < by["zero2"].weights_bytes / 4
    totals = [by[p].total_bytes for p in ("ddp", "zero1", "zero2", "zero3")]
    assert totals == sorted(totals, reverse=True)


def test_tensor_parallel_divides_weights_and_activations():
    w = Workload(method="full", seq_len=4096, parallel="ddp", grad_checkpointing=False)
    one = mem(w, gpus=1)
    tp4 = mem(w.model_copy(update={"tp": 4}), gpus=4)
    assert tp4.weights_bytes == pytest.approx(one.weights_bytes / 4)
    assert tp4.activations_bytes == pytest.approx(one.activations_bytes / 4)


def test_offload_moves_state_off_the_gpu():
    w = Workload(method="full")
    none = mem(w)
    opt = mem(w.model_copy(update={"offload": "optimizer"}))
    par = mem(w.model_copy(update={"offload": "params"}))
    assert opt.optimizer_bytes == 0 and opt.weights_bytes == none.weights_bytes
    assert par.weights_bytes < none.weights_bytes / 10
    assert none.total_bytes > opt.total_bytes > par.total_bytes


def test_recompute_cuts_activations():
    w = Workload(method="full", seq_len=4096)
    on = mem(w.model_copy(update={"grad_checkpointing": True}))
    off = mem(w.model_copy(update={"grad_checkpointing": False}))
    assert on.activations_bytes < off.activations_bytes / 3


def test_lora_and_qlora_shrink_state():
    full = mem(Workload(method="full"))
    lora = mem(Workload(method="lora"))
    qlora = mem(Workload(method="qlora"))
    assert full.total_bytes > 5 * lora.total_bytes
    assert lora.weights_bytes > 2.5 * qlora.weights_bytes
    assert lora.optimizer_bytes < full.optimizer_bytes / 50
    # HF mixed precision (prepare_model_for_kbit_training) keeps embeddings, LM head and norms
    # in fp32; pure bf16 (litgpt, torchtune) keeps them in bf16: 2 bytes less each.
    pure = mem(Workload(method="qlora", master_weights=False))
    counts = count_params(LLAMA2_7B)
    linear = sum(s.weights for sh in linear_params_by_module(LLAMA2_7B).values() for s in sh)
    adapters = lora_params(LLAMA2_7B, LORA_TARGET_SETS["all-linear"], 16)
    assert qlora.weights_bytes - pure.weights_bytes == pytest.approx(
        (counts.total - linear) * 2 + adapters * 2
    )
    assert lora.weights_bytes > 3 * pure.weights_bytes


# ------------------------------------------------------------------ MoE, KV cache, vocab


def test_moe_keeps_every_expert_resident_but_computes_top_k():
    counts = count_params(MIXTRAL)
    m = mem(Workload(method="inference", seq_len=512), arch=MIXTRAL)
    assert m.weights_bytes == pytest.approx(2 * counts.total)
    assert counts.active < counts.total / 3
    est = estimate(Workload(method="full", seq_len=512), A100_80GB, 1, arch=MIXTRAL)
    n_matmul = counts.active - counts.embedding
    assert est.flops_per_token == pytest.approx(6 * n_matmul, rel=0.1)


def test_kv_cache_formula_gqa():
    """2 (K,V) x layers x kv_heads x head_dim x 2 bytes per token (Llama 3 8B: 128 KiB)."""
    w = Workload(method="inference", seq_len=8192, micro_batch=4)
    m = mem(w, arch=LLAMA3_8B)
    assert m.kv_cache_bytes == 2 * 32 * 8 * 128 * 2 * 8192 * 4
    fp8 = mem(w.model_copy(update={"precision": "fp8"}), arch=LLAMA3_8B)
    # FP8 weights on an optimised engine: FP8 cache by default (TensorRT-LLM's FP8 recipe);
    # --kv-cache-dtype bf16 keeps vLLM's default bf16 cache.
    assert fp8.kv_cache_bytes == m.kv_cache_bytes / 2
    bf16_kv = mem(
        w.model_copy(update={"precision": "fp8", "kv_cache_dtype": "bf16"}), arch=LLAMA3_8B
    )
    assert bf16_kv.kv_cache_bytes == m.kv_cache_bytes
    assert fp8.weights_bytes == m.weights_bytes / 2
    tp2 = mem(w.model_copy(update={"tp": 2}), gpus=2, arch=LLAMA3_8B)
    assert tp2.kv_cache_bytes == m.kv_cache_bytes / 2


def test_inference_replicas_with_explicit_tp():
    w = Workload(method="inference", seq_len=2048, tp=2)
    four = estimate(w, A100_80GB, 4, arch=LLAMA3_8B)
    two = estimate(w, A100_80GB, 2, arch=LLAMA3_8B)
    assert (four.tp, four.dp) == (2, 2)
    assert four.memory_per_gpu.total_bytes == two.memory_per_gpu.total_bytes
    assert four.decode_tokens_per_s == pytest.approx(2 * two.decode_tokens_per_s)


def test_large_vocab_logits_dominate_short_models():
    """Llama 3's 128k vocabulary: logits + fp32 loss buffers are 14 bytes x tokens x vocab
    (Hugging Face loss); a chunked loss keeps the bf16 logits and one chunk's fp32 buffers."""
    w = Workload(method="lora", seq_len=8192, micro_batch=1)
    m = mem(w, arch=LLAMA3_8B)
    assert m.logits_bytes == 8192 * 128256 * 14
    assert m.logits_bytes > 0.2 * m.activations_bytes
    chunked = mem(w.model_copy(update={"loss": "chunked"}), arch=LLAMA3_8B)
    assert chunked.logits_bytes == 8192 * 128256 * (2 + 12 / 8)
    assert m.total_bytes - chunked.total_bytes == pytest.approx(8192 * 128256 * (12 - 1.5))


# ------------------------------------------------------------------ min_gpus / advice


def test_min_gpus_is_the_smallest_count_that_fits():
    w = Workload(method="full", seq_len=2048)
    n = min_gpus(w, A100_80GB, arch=LLAMA2_13B)
    assert n is not None and n > 1
    assert estimate(w, A100_80GB, n, arch=LLAMA2_13B).fits
    smaller = max(k for k in (1, 2, 3, 4, 5, 6, 7, 8) if k < n) if n <= 8 else n - 8
    assert not estimate(w, A100_80GB, smaller, arch=LLAMA2_13B).fits


def test_min_gpus_none_when_nothing_fits():
    ddp = Workload(method="full", parallel="ddp")
    assert min_gpus(ddp, GPU_24GB, arch=LLAMA2_13B) is None


def test_inference_splits_the_model_over_gpus():
    w = Workload(method="inference", seq_len=4096)
    est = estimate(w, GPU_24GB, 1, arch=LLAMA2_13B)
    assert not est.fits and est.min_gpus == 2
    assert estimate(w, GPU_24GB, 2, arch=LLAMA2_13B).fits


def test_advice_is_re_estimated():
    w = Workload(method="full", seq_len=4096, micro_batch=4)
    advice = suggest_changes(w, GPU_48GB, 1, arch=LLAMA2_7B)
    labels = [a.change for a in advice]
    assert any("QLoRA" in label for label in labels)
    q = next(a for a in advice if "QLoRA" in a.change)
    direct = mem(w.model_copy(update={"method": "qlora"}), gpu=GPU_48GB)
    assert q.gib_per_gpu == pytest.approx(direct.total_bytes / GIB)


# ------------------------------------------------------------------ invariants


workloads = st.builds(
    Workload,
    method=st.sampled_from(["inference", "lora", "qlora", "full", "pretrain"]),
    precision=st.sampled_from(["bf16", "fp16", "fp32", "fp8"]),
    optimizer=st.sampled_from(["adamw", "adamw-8bit", "paged-adamw-8bit", "sgd"]),
    offload=st.sampled_from(["none", "optimizer", "params"]),
    seq_len=st.integers(1, 131072),
    micro_batch=st.integers(1, 64),
    grad_checkpointing=st.sampled_from([None, True, False]),
    lora_rank=st.integers(1, 512),
    parallel=st.sampled_from([None, "ddp", "zero1", "zero2", "zero3"]),
    tp=st.sampled_from([1, 2, 4, 8]),
    tokens=st.sampled_from([None, 1e9, 1e12]),
    master_weights=st.sampled_from([None, True, False]),
    loss=st.sampled_from([None, "full", "chunked"]),
)


@settings(max_examples=150, deadline=None)
@given(w=workloads, gpus=st.integers(1, 256), arch=st.sampled_from([LLAMA2_7B, MIXTRAL, GEMMA_2B]))
def test_estimate_never_raises_and_is_consistent(w, gpus, arch):
    est = estimate(w, A100_80GB, gpus, arch=arch)
    m = est.memory_per_gpu
    parts = [v for _, v in m.parts()]
    assert all(v >= 0 for v in parts)
    assert m.total_bytes == pytest.approx(sum(parts))
    assert est.fits == (m.total_bytes <= est.usable_bytes)
    if est.fits and gpus == 1:
        assert est.min_gpus == 1
    if est.fits:
        assert est.min_gpus is not None and est.min_gpus <= gpus
    data = est.to_json()
    assert data["memory_per_gpu"]["total_bytes"] == round(m.total_bytes)


@settings(max_examples=60, deadline=None)
@given(w=workloads, extra=st.integers(1, 4096))
def test_memory_grows_with_sequence_and_batch(w, extra):
    a = mem(w)
    longer = mem(w.model_copy(update={"seq_len": w.seq_len + extra}))
    bigger = mem(w.model_copy(update={"micro_batch": w.micro_batch + 1}))
    assert longer.total_bytes >= a.total_bytes
    assert bigger.total_bytes >= a.total_bytes


def test_zero3_weights_are_a_shard_plus_the_units_in_flight():
    """FSDP keeps its shard plus the unit it computes and the prefetched one; never more than
    the unsharded model (checked on a 2-layer toy where 'two layers' is the whole stack)."""
    w = Workload(method="full", parallel="zero3", seq_len=512)
    for arch in (LLAMA3_8B, LLAMA3_8B.model_copy(update={"num_hidden_layers": 2})):
        full = mem(w.model_copy(update={"parallel": "ddp"}), gpus=8, arch=arch).weights_bytes
        z3 = mem(w, gpus=8, arch=arch).weights_bytes
        assert full / 8 < z3 <= full
    # Llama 3 8B: the 128k-vocab embedding (1.05 GB in bf16) is the largest unit in flight.
    full = mem(w.model_copy(update={"parallel": "ddp"}), gpus=64, arch=LLAMA3_8B).weights_bytes
    z3 = mem(w, gpus=64, arch=LLAMA3_8B).weights_bytes
    assert z3 - full / 64 >= 128256 * 4096 * 2


def test_long_context_advice_points_at_tensor_parallel_and_fused_loss():
    """More data-parallel GPUs do not shrink per-GPU activations; TP and a fused loss do."""
    w = Workload(method="lora", seq_len=65536)
    assert min_gpus(w, GPU_48GB, arch=LLAMA3_8B) is None
    advice = {a.change.split(" (")[0].split(":")[0]: a.fits for a in
              suggest_changes(w, GPU_48GB, 1, arch=LLAMA3_8B)}  # fmt: skip
    assert advice["tensor parallel 8 inside one server"] is True
    assert any(label.startswith("chunked cross-entropy") for label in advice)
    chunked = [a.gib_per_gpu for a in suggest_changes(w, GPU_48GB, 1, arch=LLAMA3_8B)
               if a.change.startswith("chunked cross-entropy")]  # fmt: skip
    expected = mem(w.model_copy(update={"loss": "chunked"}), arch=LLAMA3_8B).total_bytes / GIB
    assert chunked == [pytest.approx(expected)]
    again = suggest_changes(w.model_copy(update={"loss": "chunked"}), GPU_48GB, 1, arch=LLAMA3_8B)
    assert not any(a.change.startswith("chunked cross-entropy") for a in again)


def test_moe_decode_reads_more_experts_as_the_batch_grows():
    """Top-2 of 8 experts: one sequence reads 2/8 of the routed weights, 64 read nearly all."""
    one = estimate(Workload(method="inference", seq_len=512), A100_80GB, 1, arch=MIXTRAL)
    many = estimate(
        Workload(method="inference", seq_len=512, micro_batch=64), A100_80GB, 1, arch=MIXTRAL
    )
    per_seq_one = one.decode_tokens_per_s
    per_seq_many = many.decode_tokens_per_s / 64
    assert per_seq_many < per_seq_one
    counts = count_params(MIXTRAL)
    # batch 1 streams the active weights (12.9B less the embedding lookup), not all 46.7B:
    # the memory term of the serving model's decode step (engine.estimate.serving)
    from slotwise.engine.estimate.compute import peak_flops
    from slotwise.engine.estimate.serving import make_replica
    from slotwise.engine.estimate.serving_constants import SERVING_MBU

    w = Workload(method="inference", seq_len=512)
    rep = make_replica(MIXTRAL, counts, w, A100_80GB, 1, peak=peak_flops(A100_80GB, "bf16")[0])
    step = rep.decode_step(1, 512)
    streamed = 2 * (counts.active - counts.embedding) + one.memory_per_gpu.kv_cache_bytes
    assert step.memory == pytest.approx(streamed / (2039e9 * SERVING_MBU), rel=0.01)
    assert one.decode_tokens_per_s == pytest.approx(1 / step.total, rel=0.01)


def test_fsdp_qlora_keeps_nf4_constants_whole_on_every_gpu():
    """bitsandbytes keeps absmax constants in quant_state (not FSDP parameters): sharding over
    more GPUs or offloading never removes them."""
    linear = sum(s.weights for sh in linear_params_by_module(LLAMA2_7B).values() for s in sh)
    constants = linear * (NF4_BITS_PER_PARAM - 4.0) / 8.0
    w = Workload(method="qlora", parallel="zero3", master_weights=False)
    whole = mem(w).weights_bytes
    in_flight = _in_flight_bytes(LLAMA2_7B, count_params(LLAMA2_7B), whole, w, 1, sharded=True)
    for n in (2, 8, 64):
        assert mem(w, gpus=n).weights_bytes == pytest.approx(
            (whole - constants) / n + constants + in_flight
        )
    off = mem(w.model_copy(update={"offload": "params"}), gpus=8)
    assert off.weights_bytes == pytest.approx(in_flight + constants)


def test_sharded_qlora_keeps_unquantized_weights_in_the_storage_dtype():
    """TRL skips prepare_model_for_kbit_training for FSDP / ZeRO-3 QLoRA: with mixed precision
    the embeddings and LM head are fp32 on one GPU but bf16 (the quant storage dtype) when
    sharded; the adapters stay fp32 either way."""
    mixed, pure = Workload(method="qlora"), Workload(method="qlora", master_weights=False)
    assert mem(mixed).weights_bytes > mem(pure).weights_bytes
    adapters = lora_params(LLAMA2_7B, LORA_TARGET_SETS["all-linear"], 16)
    for n in (2, 8):
        gap = mem(mixed, gpus=n).weights_bytes - mem(pure, gpus=n).weights_bytes
        # fp32 vs bf16 adapters: their shard plus their share of the two layers in flight
        assert adapters * 2 / n <= gap <= adapters * 2 * (1 / n + 2 / 32)
