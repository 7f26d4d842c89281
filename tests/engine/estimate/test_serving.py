"""Serving model (engine.estimate.serving) against published benchmarks, plus its properties.

Evidence: tests/evidence/serving_cases.py (sources, settings, fitting / held-out rule).
Tolerance: +-30 % per case (issue #11, "Must show"); the held-out median |error| must stay under
25 % (it is 16.7 % with the constants fitted on the fitting half; bench/serving_accuracy.py).
"""

from __future__ import annotations

import json
import math
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotwise.engine.estimate import estimate
from slotwise.engine.workload import Workload
from slotwise.tui.cli import main
from tests.evidence.serving_cases import CASES, FITTING, HELD_OUT, is_held_out
from tests.evidence.serving_predict import catalog, error

TOL = 0.30


def test_split_is_by_rule_and_by_source():
    """Since issue 24 whole sources are held out: no source sits on both sides."""
    assert len(HELD_OUT) >= len(CASES) // 4
    assert {c.id for c in FITTING}.isdisjoint(c.id for c in HELD_OUT)
    for source in {c.source for c in CASES}:
        assert len({is_held_out(c) for c in CASES if c.source == source}) == 1, source


def test_held_out_median_error_and_many_cases_within_30_percent():
    held = [abs(error(c)) for c in HELD_OUT]
    assert statistics.median(held) <= 0.25
    within = [c for c in CASES if abs(error(c)) <= TOL]
    assert len(within) >= 0.75 * len(CASES)
    assert len({c.source for c in within}) >= 5


def _light_load(cases):
    """One user alone: end-to-end single-user tokens/s, or the inter-token latency at
    concurrency 1."""
    return [
        c for c in cases if c.kind == "single_user_tok_s" or (c.kind == "itl_ms" and c.batch == 1)
    ]


def test_light_load_decode_held_out_within_10_percent():
    """Issue 24 Must show: serving decode at light load <= 10 % held out.  The held-out
    light-load cases come from two sources never fitted (NIM 1.8.0 at concurrency 1; TensorRT
    Model Optimizer 0.21 at batch 1 on H200, added as a held-out source and scored through the
    CLI's flags).  Median |error| <= 10 %, each case within 20 %."""
    held = _light_load(HELD_OUT)
    assert {c.source for c in held} >= {"NIM", "MODELOPT"}
    assert not {c.source for c in held} & {c.source for c in FITTING}
    errs = [abs(error(c)) for c in held]
    assert len(errs) >= 6
    assert statistics.median(errs) <= 0.10, errs
    assert max(errs) <= 0.20, errs


def test_cli_scored_cases_match_the_engine_path():
    """The cases scored through `slotwise estimate ... --json` give what the serving model
    gives for the same replica (the CLI adds no hidden adjustment)."""
    from tests.evidence.serving_predict import _cli_serving, cli_argv, predict_cli, replica_for

    for case in (c for c in HELD_OUT if c.cli):
        rep, w = replica_for(case)
        # past the KV capacity the CLI runs what fits and queues the rest (max-load cases)
        running = _cli_serving(tuple(cli_argv(case)))["running_users_per_replica"]
        assert running <= case.batch
        engine = rep.loaded(running, case.prompt, case.output)[1]
        assert predict_cli(case) == pytest.approx(engine, rel=1e-6), case.id


# At least five published benchmarks, settings in the case record, each within +-30 %.
@pytest.mark.parametrize(
    "case_id",
    [
        "nim-70b-5000-500-c1-ttft",  # NIM 1.8.0, 2xH100 fp8 TP2, 5000/500, concurrency 1
        "nim-70b-5000-500-c25-itl",  # same, concurrency 25
        "trt10-8b-h100-128-128",  # TensorRT-LLM max load, Llama 3.1 8B FP8, 1xH100
        "trt10-405b-h200-1000-1000",  # TensorRT-LLM max load, Llama 3.1 405B FP8, 8xH200 TP8
        "trt06-70b-h100-2048-128",  # TensorRT-LLM v0.6.1 static batch 96, 70B FP8 TP2
        "trt10-q235-h200-2048-2048",  # TensorRT-LLM max load, Qwen3-235B-A22B FP8, 8xH200 TP8
        "trt10-q235-h100-128-4096",  # same MoE, 8xH100, decode-heavy
        "nemo-7b-a100-b8",  # NeMo/TensorRT-LLM Llama-2-7B, batch 8, 128/20
        "cloudai-8b-h100-eager",  # PyTorch eager decode step, Llama 3.1 8B, H100
    ],
)
def test_published_serving_benchmark_within_30_percent(case_id):
    case = next(c for c in CASES if c.id == case_id)
    assert abs(error(case)) <= TOL, f"{case_id}: {100 * error(case):+.1f} %"


def _h200():
    return catalog().gpus["NVIDIA-H200-SXM-141GB"]


def test_moe_single_user_decode_is_held_by_the_floor_not_the_bandwidth():
    """Issue #11: bandwidth alone gave DeepSeek-V3 on 8x H200 595 tokens/s against 30-60
    measured on SGLang v0.4.1 (Dec 2024).  Since issue 24 the MoE floor is per MoE layer, fitted
    on TensorRT-LLM 1.x's Qwen3-235B-A22B rows together with those SGLang ones
    (serving_constants.MOE_LAYER_FLOOR_S), and DeepSeek-V3 reads ~90: still the floor, not the
    bandwidth, sets it, but SGLang's day-one release is 2-4x slower than the model (its MLA and
    block-FP8 kernels; one source cannot split that cost, stated at the constant)."""
    arch = catalog().models["deepseek-v3"]
    w = Workload(method="inference", precision="fp8", seq_len=2048)
    est = estimate(w, _h200(), 8, arch=arch)
    assert 30 <= est.decode_tokens_per_s <= 150
    assert 30 <= est.serving.single_user_tokens_per_s <= 150


def test_a_fine_grained_moe_decodes_faster_than_a_dense_model_of_its_total_size():
    """Qwen3-30B-A3B (3.3B active of 30.5B, 128 experts, top-8) against the dense Qwen3-32B on
    one H100: one user decodes several times faster on the MoE (Qwen's own speed benchmark,
    SGLang 0.4.6 on H20: 137 vs 21 tokens/s).  With the MoE floor charged per expert a token
    uses (before issue 24's MoE rows) the MoE came out slower than the dense model."""
    gpu = catalog().gpus["NVIDIA-H100-SXM5-80GB"]
    w = Workload(method="inference", seq_len=2048)
    moe = estimate(w, gpu, 1, arch=catalog().models["qwen3-30b-a3b"])
    dense = estimate(w, gpu, 1, arch=catalog().models["qwen3-32b"])
    assert moe.decode_tokens_per_s > 2.0 * dense.decode_tokens_per_s


def test_eager_is_slower_than_optimised_for_a_small_model():
    arch = catalog().models["llama-3.2-1b"]
    gpu = catalog().gpus["NVIDIA-H100-SXM5-80GB"]
    fast = estimate(Workload(seq_len=1024), gpu, 1, arch=arch).decode_tokens_per_s
    slow = estimate(Workload(seq_len=1024, serving_engine="eager"), gpu, 1, arch=arch)
    # 16 layers x 69 us more per token on ~1.3 ms: well over 1.4x slower
    assert fast / slow.decode_tokens_per_s > 1.4


def test_plain_pytorch_generate_is_host_bound():
    """``--serving-engine transformers``: the Python launching every kernel bounds decode
    (engine/estimate/serving_constants.py HOST_LAYER_FORWARD_S_EAGER, from gpt-fast's eager
    baseline, 25.5 tokens/s for Llama-2-7B on an A100).  The GPU's work hides under the host
    time (max, not sum), so a bigger batch costs the host nothing more."""
    arch = catalog().models["llama-2-7b"]
    a100 = catalog().gpus["NVIDIA-A100-PCIE-80GB"]

    def speed(engine, **kw):
        w = Workload(method="inference", seq_len=512, serving_engine=engine, **kw)
        return estimate(w, a100, 1, arch=arch)

    hf, eager, fast = speed("transformers"), speed("eager"), speed("optimized")
    assert hf.decode_tokens_per_s < eager.decode_tokens_per_s < fast.decode_tokens_per_s
    # host-bound: 32 layers x 1.23 ms = 39 ms per token whatever the GPU's 8-12 ms
    assert hf.decode_tokens_per_s == pytest.approx(25.5, rel=0.05)
    assert any("transformers generate" in n for n in hf.assumptions.notes)
    # the same host time per step serves 8 users: 8x the tokens/s while host-bound
    hf8 = speed("transformers", users=8)
    assert hf8.serving.tokens_per_s > 6 * hf.serving.tokens_per_s


def test_users_give_kv_for_n_times_context_and_the_largest_n_that_fits():
    arch = catalog().models["llama-3.1-8b"]
    gpu = catalog().gpus["NVIDIA-H100-SXM5-80GB"]
    w = Workload(seq_len=4096, users=10)
    est = estimate(w, gpu, 1, arch=arch)
    sv = est.serving
    per_token = 2 * 32 * 8 * 128 * 2  # K and V, 32 layers, 8 KV heads x 128, bf16
    assert sv.kv_cache_bytes_for_users == pytest.approx(10 * 4096 * per_token)
    assert est.memory_per_gpu.kv_cache_bytes == pytest.approx(10 * 4096 * per_token)
    at_max = estimate(w.model_copy(update={"users": sv.max_users}), gpu, 1, arch=arch)
    over = estimate(w.model_copy(update={"users": sv.max_users + 1}), gpu, 1, arch=arch)
    assert at_max.fits and at_max.serving.fits_users
    assert not over.serving.fits_users


def test_servers_needed_for_users_at_a_rate():
    arch = catalog().models["llama-3.1-70b"]
    w = Workload(precision="fp8", seq_len=2048, tp=4, users=200, tokens_per_user_s=30)
    est = estimate(w, _h200(), 8, arch=arch)
    sv = est.serving
    per_replica = sv.max_users_per_replica_at_target
    replicas = math.ceil(200 / per_replica)
    assert per_replica and sv.servers_for_users == math.ceil(replicas * 4 / 8)
    # the replica really gives each of its users the rate, one more user would not
    one = estimate(w.model_copy(update={"users": per_replica, "tp": 4}), _h200(), 4, arch=arch)
    assert one.serving.tokens_per_s_per_user >= 30
    more = estimate(w.model_copy(update={"users": per_replica + 1}), _h200(), 4, arch=arch)
    assert more.serving.tokens_per_s_per_user < 30 or not more.serving.fits_users
    # out of reach: no replica gives one user 10,000 tokens/s
    far = estimate(w.model_copy(update={"tokens_per_user_s": 1e4}), _h200(), 8, arch=arch)
    assert far.serving.servers_for_users is None


@settings(max_examples=30, deadline=None)
@given(users=st.integers(1, 400), extra=st.integers(1, 400))
def test_more_users_never_faster_per_user_and_never_fewer_servers(users, extra):
    arch = catalog().models["llama-3.1-8b"]
    gpu = catalog().gpus["NVIDIA-H100-SXM5-80GB"]
    base = Workload(seq_len=2048, users=users, tokens_per_user_s=20)
    a = estimate(base, gpu, 1, arch=arch).serving
    b = estimate(base.model_copy(update={"users": users + extra}), gpu, 1, arch=arch).serving
    assert b.tokens_per_s_per_user <= a.tokens_per_s_per_user + 1e-9
    assert b.tokens_per_s >= a.tokens_per_s * 0.999 or not b.fits_users
    assert (b.servers_for_users or 0) >= (a.servers_for_users or 0)


def test_estimate_cli_users_json(capsys):
    rc = main(
        [
            "estimate", "llama-3.1-8b", "--users", "32", "--tokens-per-user-s", "40",
            "--output-len", "256", "--seq-len", "1280", "--json",
        ]
    )  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert rc == 0
    sv = data["serving"]
    for key in (
        "ttft_s", "tokens_per_s_per_user", "tokens_per_s_per_server", "kv_cache_bytes_for_users",
        "max_users", "servers_for_users", "users", "output_tokens", "prompt_tokens",
    ):  # fmt: skip
        assert key in sv
    assert sv["users"] == 32 and sv["output_tokens"] == 256 and sv["prompt_tokens"] == 1024
    assert sv["servers_for_users"] >= 1


def test_estimate_cli_rejects_bad_users(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["estimate", "llama-3.1-8b", "--users", "0"])
    assert exc.value.code == 2
    assert "--users" in capsys.readouterr().err


def test_estimate_text_shows_serving_block(capsys):
    main(["estimate", "llama-3.1-8b", "--users", "8", "--tokens-per-user-s", "50"])
    out = capsys.readouterr().out
    assert "time to first token" in out and "tokens/s per server" in out
    assert "1 server for 8 users at 50 tokens/s each" in out


def _report(workload: Workload):
    from slotwise.engine.build import Build
    from slotwise.engine.check.evaluate import evaluate

    build = Build(
        chassis="SYS-521GE-TNRT",
        slots={"1": "NVIDIA-H200-NVL-141GB"},
        cpu="XEON-8480+",
        cpu_count=2,
        workload=workload,
    )
    return evaluate(build, catalog())


def test_build_report_carries_serving_budgets_and_findings():
    w = Workload(model="llama-3.1-8b", seq_len=2048, users=64, tokens_per_user_s=20)
    report = _report(w)
    users = report.budget("serving_users")
    rate = report.budget("serving_rate")
    assert users is not None and users.used == 64 and users.available > 64 and not users.over
    assert rate is not None and rate.used == 20 and rate.available > 20 and not rate.over
    assert not [f for f in report.findings if f.rule.startswith("workload_fit.serving")]
    # too many users for the KV cache, and a rate no single GPU gives
    bad = _report(w.model_copy(update={"users": 5000, "tokens_per_user_s": 5000}))
    rules = {f.rule for f in bad.findings}
    assert {"workload_fit.serving_users", "workload_fit.serving_rate"} <= rules
    assert bad.budget("serving_users").over and bad.budget("serving_rate").over


def test_training_builds_have_no_serving_budget():
    report = _report(Workload(model="llama-3.1-8b", method="lora", tokens=1e8, users=8))
    assert report.budget("serving_users") is None


@pytest.mark.parametrize("model", ["gemma-2-9b", "llama-3.1-8b", "deepseek-v3"])
def test_serving_kv_is_the_memory_breakdowns_kv(model):
    """Sliding windows (Gemma 2) and MLA latents (DeepSeek) are counted once, by memory.py."""
    arch = catalog().models[model]
    w = Workload(seq_len=16384, users=3, precision="fp8")
    est = estimate(w, _h200(), 8, arch=arch)
    assert est.serving.kv_cache_bytes_per_gpu == pytest.approx(est.memory_per_gpu.kv_cache_bytes)


@pytest.mark.parametrize(
    ("name", "kind"),
    [("vllm", "optimized"), ("TensorRT-LLM", "optimized"), ("tgi", "optimized"),
     ("hf-generate", "transformers")],
)  # fmt: skip
def test_an_engine_by_name_reads_as_its_kind(name, kind, capsys):
    assert Workload(method="inference", serving_engine=name).serving_engine == kind
    if name.islower():
        main(["estimate", "llama-3.1-8b", "--gpu", "NVIDIA-H100-SXM5-80GB", "--users", "4",
              "--serving-engine", name, "--json"])  # fmt: skip
        assert json.loads(capsys.readouterr().out)["serving"]["engine"] == kind
