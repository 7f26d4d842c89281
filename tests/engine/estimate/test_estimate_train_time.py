"""Training time: model vs hardware FLOPs, the 6ND arithmetic, links, FP8, QLoRA, H200, scale.

The accuracy against published runs is tests/engine/estimate/test_perf_accuracy.py; these tests pin the
behaviour the issue asks for, each against a property a published figure or a formula gives.
"""

from __future__ import annotations

import math

import pytest

from slotwise.engine.build import BridgeFit, Build
from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.estimate import estimate
from slotwise.engine.estimate.links import build_links, default_links
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import load_catalog
from tests.evidence.perf_cases import ARCHS, EXTRA_GPUS

CAT = load_catalog()
H100 = CAT.gpus["NVIDIA-H100-SXM5-80GB"]
H200 = CAT.gpus["NVIDIA-H200-SXM-141GB"]
H100_NVL = CAT.gpus["NVIDIA-H100-NVL-94GB"]
A100 = EXTRA_GPUS["a100-80"]
LLAMA2_7B = CAT.models["llama-2-7b"]
LLAMA3_8B = ARCHS["llama3-8b"]


def test_recompute_is_hardware_flops_not_charged_against_mfu():
    base = dict(method="full", tokens=1e9, seq_len=2048)
    on = estimate(Workload(**base, grad_checkpointing=True), H100, 1, arch=LLAMA2_7B)
    off = estimate(Workload(**base, grad_checkpointing=False), H100, 1, arch=LLAMA2_7B)
    assert on.recompute_flops_per_token > 0 == off.recompute_flops_per_token
    j = on.to_json()
    assert j["hardware_flops_per_token"] == pytest.approx(
        j["model_flops_per_token"] + on.recompute_flops_per_token
    )
    # The recompute forward costs time (issue 24): about a third more linear work.
    assert 1.1 * off.train_hours < on.train_hours < 1.4 * off.train_hours


def test_7b_1t_tokens_30_days_shows_its_6nd_arithmetic():
    w = Workload(method="pretrain", tokens=1e12, target_days=30)
    est = estimate(w, H100, 8, arch=LLAMA2_7B)
    six = est.six_nd
    assert six is not None
    # 6ND: model FLOPs per token x tokens / (GPUs x peak x MFU) is exactly the time quoted.
    assert six["total_flops"] == pytest.approx(est.flops_per_token * 1e12)
    assert six["hours"] * 3600 == pytest.approx(
        six["total_flops"] / (six["gpus"] * six["peak_flops"] * six["mfu"])
    )
    assert six["peak_flops"] == 989.5e12
    notes = " ".join(est.assumptions.notes)
    assert "6ND:" in notes and "for 30 days" in notes
    # 6 x 6.7e9 x 1e12 / (30 d x 989.5 TFLOP/s x 0.40) = 41 GPUs at MFU 0.40; whole 8-GPU
    # servers past one.  Since the source-balanced refit (issue 24) one 2,048-token sequence
    # per GPU runs at MFU ~0.35 on one server (47 GPUs at that rate), and ZeRO-3 traffic over
    # the NICs past one server costs more: 56.  The count is the smallest that meets the target.
    assert est.gpus_for_target_days is not None
    assert 41 <= est.gpus_for_target_days <= 64
    fewer = est.gpus_for_target_days - 8
    w_fewer = estimate(w, H100, fewer, arch=LLAMA2_7B)
    assert w_fewer.train_hours is not None and w_fewer.train_hours > 30 * 24
    assert est.mfu_effective is not None and 0.3 < est.mfu_effective < 0.5


def test_mfu_override_is_the_plain_6nd_rule():
    w = Workload(method="pretrain", tokens=1e11, seq_len=4096, mfu=0.3)
    est = estimate(w, H100, 16, arch=LLAMA2_7B)
    expected = 1e11 * est.flops_per_token / (16 * 989.5e12 * 0.3) / 3600
    assert est.train_hours == pytest.approx(expected)
    assert est.assumptions.mfu == 0.3 and est.assumptions.mfu_basis == "override"


def test_more_gpus_less_time_but_not_perfect_scaling():
    w = Workload(method="pretrain", tokens=1e11, seq_len=4096, micro_batch=2, grad_accum=4)
    one = estimate(w, H100, 8, arch=LLAMA2_7B)
    two = estimate(w, H100, 64, arch=LLAMA2_7B)
    assert two.train_hours < one.train_hours / 7
    assert two.mfu_effective < one.mfu_effective  # network traffic the NVSwitch run had not


def test_multi_node_efficiency_falls_with_scale_at_fixed_global_batch():
    """Strong scaling as MLPerf GPT-3 submissions do it: a fixed global batch over more GPUs
    leaves each GPU fewer micro-batches to hide the gradient all-reduce behind."""
    mfus = []
    for n in (64, 512, 4096):
        ga = max(1, 1152 // (n // 8))
        w = Workload(method="pretrain", seq_len=2048, tp=8, parallel="zero1", grad_accum=ga)
        mfus.append(estimate(w, H100, n, arch=ARCHS["gpt3-175b"]).mfu_effective)
    assert mfus[0] > mfus[1] > mfus[2]
    assert mfus[2] < 0.8 * mfus[0]


def test_fp8_speeds_up_only_the_linears():
    """MosaicML's H100 FP8 table (MPT-3B 1.27x) and torchtitan's Float8 rows (1.28-1.48x): well
    short of the 2x the FP8 peak alone would give."""
    base = dict(method="pretrain", tokens=1e9, seq_len=8192, micro_batch=2)
    bf16 = estimate(Workload(**base), H100, 8, arch=LLAMA3_8B)
    fp8 = estimate(Workload(**base, precision="fp8"), H100, 8, arch=LLAMA3_8B)
    ratio = bf16.train_hours / fp8.train_hours
    assert 1.15 < ratio < 1.75
    assert any("only the linear layers" in n for n in fp8.assumptions.notes)


def test_fp8_cast_traffic_counts_transformer_engine_casts():
    """Llama 2 7B (h 4,096, MHA, intermediate 11,008), by hand from the TE layer structure
    (throughput.fp8_cast_bytes): the gradients at the q/k/v (12,288), o (4,096), gate/up
    (22,016) and down (4,096) outputs and the attention output (4,096) are cast-transposed at
    4 B; the LayerNorm / activation outputs that feed q/k/v, gate/up and down (4,096 + 4,096 +
    11,008) are transposed at 2 B.  Frozen weights: plain casts at 3 B, no transposes."""
    from slotwise.engine.estimate.throughput import fp8_cast_bytes

    assert fp8_cast_bytes(LLAMA2_7B) == 4 * (12288 + 4096 + 22016 + 4096 + 4096) + 2 * (
        4096 + 4096 + 11008
    )
    assert fp8_cast_bytes(LLAMA2_7B, frozen=True) == 3 * (12288 + 4096 + 22016 + 4096 + 4096)
    # fewer bytes than casting every GEMM input unfused in all three matmul passes
    assert fp8_cast_bytes(LLAMA2_7B) < 3 * 4 * (3 * 4096 + 11008)


@pytest.mark.parametrize(
    ("fp8_id", "bf16_id"),
    [
        # torchtitan Table 1 / Table 3 (fitting source): compile + Float8 vs eager
        ("torchtitan-8B-h100-8g-tp1-s8192-mb2-fp8", "torchtitan-8B-h100-8g-tp1-s8192-mb2-bf16"),
        (
            "torchtitan-8B-h100-128g-tp1-s8192-mb2-fp8",
            "torchtitan-8B-h100-128g-tp1-s8192-mb2-bf16",
        ),
        # torchtitan async-TP benchmark (held-out source): float8 tensorwise vs bf16
        (
            "torchtitan-asynctp-70B-h100-256g-tp8-s8192-mb16-fp8",
            "torchtitan-asynctp-70B-h100-256g-tp8-s8192-mb16-bf16",
        ),
        (
            "torchtitan-asynctp-8B-h100-64g-tp8-s8192-mb12-fp8",
            "torchtitan-asynctp-8B-h100-64g-tp8-s8192-mb12-bf16",
        ),
    ],
)
def test_fp8_speedup_over_bf16_matches_published_pairs(fp8_id, bf16_id):
    """FP8 = faster linears + the cast traffic: the published FP8 / BF16 throughput ratios of
    the same job (1.16x to 1.50x) within 15 %."""
    from tests.evidence import perf_cases as pc

    cases = {c.id: c for c in pc.CASES}
    fp8, bf16 = cases[fp8_id], cases[bf16_id]
    published = fp8.measured / bf16.measured
    predicted = pc.predict(fp8) / pc.predict(bf16)
    assert predicted == pytest.approx(published, rel=0.15)


def test_qlora_dequant_cost_falls_with_tokens_per_step():
    """Qwen's table (Qwen-7B, A100): Q-LoRA/LoRA 2.5x at 256 tokens, 1.05x at 8192."""

    def ratio(seq: int) -> float:
        w = dict(method="lora", tokens=1e8, seq_len=seq, grad_accum=8)
        lora = estimate(Workload(**w), A100, 1, arch=ARCHS["qwen-7b"])
        q = estimate(Workload(**{**w, "method": "qlora"}), A100, 1, arch=ARCHS["qwen-7b"])
        return q.train_hours / lora.train_hours

    short, long = ratio(256), ratio(8192)
    assert short > long > 1.0
    # Qwen's table: +5 % at 8,192 tokens.  Since the by-source split (issue 24) Qwen is held
    # out and QLORA_DEQUANT_BYTES is fitted without it: the model says +29 %, a known miss.
    assert long < 1.35


def test_h200_trains_faster_than_h100_through_bandwidth_only():
    w = Workload(method="lora", tokens=1e8, seq_len=512, micro_batch=1)
    h100 = estimate(w, H100, 1, arch=LLAMA2_7B)
    h200 = estimate(w, H200, 1, arch=LLAMA2_7B)
    assert H100.bf16_tflops_dense == H200.bf16_tflops_dense
    assert h200.train_hours < h100.train_hours < 1.5 * h200.train_hours


def test_pcie_cards_with_nvlink_bridges_train_faster_than_without():
    gpu = H100_NVL
    bridged = build_links(
        gpu, 8, baseboard=False, bridge_groups=[(2, 600.0)] * 4, behind_switch=False,
        nic_gbps_total=0,
    )  # fmt: skip
    bare = build_links(
        gpu, 8, baseboard=False, bridge_groups=[], behind_switch=False, nic_gbps_total=0
    )
    w = Workload(method="full", tokens=1e9, seq_len=2048, micro_batch=2)
    with_b = estimate(w, gpu, 8, arch=LLAMA2_7B, links=bridged)
    without = estimate(w, gpu, 8, arch=LLAMA2_7B, links=bare)
    assert with_b.train_hours < without.train_hours
    assert "NVLink bridges join 2 GPUs" in (with_b.assumptions.interconnect or "")
    assert "PCIe only" in (without.assumptions.interconnect or "")
    assert with_b.time_breakdown["dp_comm_exposed_s"] < without.time_breakdown["dp_comm_exposed_s"]


def test_build_with_bridges_vs_without_changes_the_time_budget():
    """The same 8-GPU full fine-tune on 8 x H100 NVL in a SYS-421GE-TNRT: three NVLink bridges
    on each of the four slot pairs vs none.  FSDP's all-gathers run over NVLink inside each pair
    and over PCIe only between pairs, so the step is shorter; the budget says why."""
    slots = {str(i): "NVIDIA-H100-NVL-94GB" for i in range(1, 9)}
    pairs = (("1", "2"), ("3", "4"), ("5", "6"), ("7", "8"))
    bridges = tuple(BridgeFit(sku="NVLINK-H100-NVL-2WAY", slots=p, count=3) for p in pairs)
    wl = Workload(model="llama-3.1-8b", method="full", tokens=1e9, micro_batch=2)

    def budget(bridge_sets):
        build = Build(
            chassis="SYS-421GE-TNRT", cpu="XEON-8480+", cpu_count=2, slots=slots,
            bridges=bridge_sets,
        )  # fmt: skip
        report = evaluate(build, CAT, wl)
        return next(b for b in report.budgets if b.name == "train_time")

    bridged, bare = budget(bridges), budget(())
    assert bridged.used < 0.8 * bare.used
    assert "NVLink bridges join 2 GPUs" in bridged.detail
    assert "PCIe only" in bare.detail
    assert any(name == "compute" for name, _ in bridged.parts)


def test_sxm_default_links_are_nvswitch_and_nvl_default_is_bridged_pairs():
    """Without a build, the GPU's standard server (engine.estimate.links): H100 NVL is sold as
    NVLink pairs, so training and serving both assume bridged pairs, and say so."""
    sxm = default_links(H100, 8)
    assert sxm.island == 8 and sxm.island_kind == "nvswitch" and sxm.island_gbs == 450
    pcie = default_links(H100_NVL, 8)
    assert pcie.island == 2 and pcie.island_kind == "nvlink-bridge" and pcie.island_gbs == 300
    assert "assumed" in pcie.source and pcie.pcie_path == "cpu"
    assert math.isclose(pcie.pcie_gbs, 3.938 * 16)


def test_target_days_sizes_the_cluster():
    w = Workload(method="pretrain", tokens=2e12, seq_len=4096, target_days=30)
    est = estimate(w, A100, 8, arch=LLAMA2_7B)
    gpus = est.gpus_for_target_days
    assert gpus is not None
    check = estimate(w, A100, gpus, arch=LLAMA2_7B)
    assert check.train_hours <= 30 * 24 * 1.001


def test_unknown_bandwidth_means_no_time():
    gpu = H100.model_copy(update={"memory_bw_gbs": None})
    est = estimate(Workload(method="full", tokens=1e9), gpu, 1, arch=LLAMA2_7B)
    assert est.train_hours is None
    assert any("bandwidth unknown" in n for n in est.assumptions.notes)
