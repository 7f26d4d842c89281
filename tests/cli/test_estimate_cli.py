"""`slotwise estimate` end to end (fake catalog, so the test does not depend on the bundled data)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import Gpu
from slotwise.tui import cli
from slotwise.tui.cli import UsageError
from slotwise.tui.commands import estimate as estimate_cmd
from slotwise.tui.commands.workload_args import add_workload_flags, workload_from_args
from tests.evidence.memory_cases import LLAMA2_7B, LLAMA2_13B
from tests.paths import REPO

H100 = Gpu(
    sku="NVIDIA-H100-SXM5-80GB",
    name="NVIDIA H100 SXM5 80GB",
    source="https://example.com/h100",
    memory_gb=80,
    memory_bw_gbs=3350,
    bf16_tflops_dense=989.5,
    form="sxm",
)
L4 = Gpu(
    sku="NVIDIA-L4-24GB",
    name="NVIDIA L4",
    source="https://example.com/l4",
    memory_gb=24,
    memory_bw_gbs=300,
    bf16_tflops_dense=121,
    form="pcie",
)
CLI_KEYS = {
    "gpu", "gpus", "gpu_memory_bytes", "memory_per_gpu", "fits", "min_gpus",
    "flops_per_token", "train_hours", "decode_tokens_per_s", "assumptions",
}  # fmt: skip
MEMORY_KEYS = {
    "total_bytes", "weights_bytes", "gradients_bytes", "optimizer_bytes",
    "activations_bytes", "kv_cache_bytes", "overhead_bytes",
}  # fmt: skip


@pytest.fixture(autouse=True)
def fake_catalog(monkeypatch):
    cat = Catalog(records={r.sku: r for r in (H100, L4, LLAMA2_7B, LLAMA2_13B)})
    monkeypatch.setattr(estimate_cmd, "get_catalog", lambda args: cat)
    return cat


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = cli.main(["estimate", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_json_has_every_cli_md_key(capsys):
    rc, out, _ = run(capsys, "--model", "llama-2-7b", "--method", "lora", "--json")
    data = json.loads(out)
    assert rc == 0
    assert data.keys() >= CLI_KEYS
    assert data["memory_per_gpu"].keys() >= MEMORY_KEYS
    assert {"mfu", "notes"} <= data["assumptions"].keys()
    assert data["gpu"] == "NVIDIA-H100-SXM5-80GB" and data["gpus"] == 1
    assert data["fits"] is True and data["min_gpus"] == 1
    assert data["train_hours"] is None and data["decode_tokens_per_s"] is None
    # total = PyTorch allocator peak; the CUDA context (overhead_bytes) is reported beside it
    parts = MEMORY_KEYS - {"total_bytes", "overhead_bytes"}
    assert sum(data["memory_per_gpu"][k] for k in parts) == pytest.approx(
        data["memory_per_gpu"]["total_bytes"], abs=8
    )
    assert data["memory_per_gpu"]["overhead_bytes"] > 0


@pytest.mark.parametrize(
    "argv",
    [
        ("--model", "llama-2-7b", "--method", "lora"),
        ("--model", "llama-2-7b", "--method", "qlora", "--gpus", "4", "--parallel", "zero3"),
        ("--model", "llama-2-13b", "--method", "full", "--gpus", "8", "--parallel", "zero3"),
        ("--model", "llama-2-13b", "--method", "full", "--offload", "optimizer"),
        ("--model", "llama-2-13b", "--method", "inference", "--users", "16"),
    ],
)
def test_json_memory_terms_add_up_to_each_part(capsys, argv):
    """memory_per_gpu.terms (CLI.md): every term names its part and source, and each part's
    terms add up to that part's field (bytes rounded one by one: within one byte a term)."""
    rc, out, _ = run(capsys, *argv, "--json")
    assert rc in (0, 1)  # 1: does not fit, still a full answer
    mem = json.loads(out)["memory_per_gpu"]
    terms = mem["terms"]
    parts = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
    assert {t["part"] for t in terms} <= {*parts, "paged"}
    assert all(t["name"] and t["source"] and t["bytes"] >= 0 for t in terms)
    for part in parts:
        got = sum(t["bytes"] for t in terms if t["part"] == part)
        assert got == pytest.approx(mem[f"{part}_bytes"], abs=len(terms)), part
    in_total = sum(t["bytes"] for t in terms if t["part"] not in ("overhead", "paged"))
    assert in_total == pytest.approx(mem["total_bytes"], abs=len(terms))
    assert [t["name"] for t in terms if t["part"] == "overhead"] == ["cuda_context"]


def test_tokens_suffix_gives_train_hours_and_inference_gives_speed(capsys):
    _, out, _ = run(
        capsys, "llama-2-7b", "--method", "full", "--gpus", "8", "--tokens", "2B", "--json"
    )
    assert json.loads(out)["train_hours"] > 0
    _, out, _ = run(capsys, "llama-2-7b", "--json")
    data = json.loads(out)
    assert data["decode_tokens_per_s"] > 0 and data["train_hours"] is None


def test_does_not_fit_exit_1_with_what_to_change(capsys):
    rc, out, _ = run(
        capsys, "--model", "llama-2-13b", "--method", "full", "--gpu", "nvidia-l4-24gb"
    )
    assert rc == 1
    assert "DOES NOT FIT" in out
    assert "use at least" in out and "QLoRA" in out
    rc, out, _ = run(
        capsys, "--model", "llama-2-13b", "--method", "full", "--gpu", "NVIDIA-L4-24GB", "--json"
    )
    data = json.loads(out)
    assert rc == 1 and data["fits"] is False and data["min_gpus"] > 1
    assert any(a["fits"] for a in data["advice"])


def test_human_output_has_breakdown_and_assumptions(capsys):
    rc, out, _ = run(
        capsys, "--model", "llama-2-7b", "--method", "qlora", "--gpu", "NVIDIA-L4-24GB",
        "--trainer", "trl",
    )  # fmt: skip
    assert rc == 0
    for word in ("weights", "optimizer", "activations", "kv_cache", "overhead", "total", "FITS"):
        assert word in out
    assert "Assumptions" in out and "NF4" in out and "range" in out


def test_a_range_that_straddles_the_capacity_is_tight(capsys):
    """No trainer named: the trainers a user could be running span the capacity of a 24 GB
    card for a 7B LoRA at 4k tokens, so the verdict is tight and says what narrows it."""
    rc, out, _ = run(
        capsys, "--model", "llama-2-7b", "--method", "lora", "--seq-len", "4096",
        "--gpu", "NVIDIA-L4-24GB",
    )  # fmt: skip
    assert "TIGHT" in out and "name the trainer" in out


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--model", "llama-2-7b", "--gpu", "H100-SXM"], "NVIDIA-H100-SXM5-80GB"),
        (["--model", "llama-2-7"], "llama-2-7b"),
        (["--model", "llama-2-7b", "--mfu", "1.5"], "--mfu"),
        (["--model", "llama-2-7b", "llama-2-13b"], "give the model once"),
        (["--model", "llama-2-7b", "--tokens", "lots"], "--tokens"),
        (["--model", "llama-2-7b", "--gpus", "0"], "--gpus"),
        (["--model", "llama-2-7b", "--lora-targets", "q,x"], "--lora-targets"),
        ([], "no model given"),
        (["--config", "/does/not/exist/config.json"], "no such file"),
    ],
)
def test_bad_input_exit_2_with_a_message_not_a_traceback(capsys, argv, needle):
    try:
        rc = cli.main(["estimate", *argv])
    except SystemExit as exc:  # argparse errors exit 2 via the parser
        rc = exc.code
    _, err = capsys.readouterr()
    assert rc == 2
    assert needle in err
    assert "Traceback" not in err


def test_config_json_file(tmp_path: Path, capsys):
    cfg = {
        "model_type": "llama",
        "hidden_size": 4096,
        "intermediate_size": 11008,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 32,
        "vocab_size": 32000,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    rc, out, err = run(capsys, "--config", str(path), "--method", "lora", "--json")
    assert rc == 0, err
    by_config = json.loads(out)["memory_per_gpu"]["total_bytes"]
    _, out, _ = run(capsys, "--model", "llama-2-7b", "--method", "lora", "--json")
    assert by_config == pytest.approx(json.loads(out)["memory_per_gpu"]["total_bytes"], rel=1e-3)


def _parse(*argv: str):
    p = argparse.ArgumentParser()
    add_workload_flags(p)
    return p.parse_args(list(argv))


def test_workload_from_args_maps_every_flag():
    w = workload_from_args(
        _parse(
            "--model", "m", "--method", "qlora", "--precision", "fp16", "--optimizer", "sgd",
            "--offload", "optimizer", "--seq-len", "4096", "--micro-batch", "3",
            "--no-grad-checkpointing", "--lora-rank", "64", "--lora-targets", "attn",
            "--parallel", "fsdp", "--tp", "2", "--tokens", "1.5T", "--target-days", "7",
            "--mfu", "0.35", "--no-master-weights",
        )
    )  # fmt: skip
    assert (w.model, w.method, w.precision, w.optimizer, w.offload) == (
        "m", "qlora", "fp16", "sgd", "optimizer",
    )  # fmt: skip
    assert (w.seq_len, w.micro_batch, w.grad_checkpointing, w.lora_rank) == (4096, 3, False, 64)
    assert w.lora_targets == ("q", "k", "v", "o")
    assert (w.parallel, w.tp, w.tokens, w.target_days, w.mfu) == ("zero3", 2, 1.5e12, 7, 0.35)
    assert w.trainer_overrides == {"master_weights": False}


def test_positional_workload_is_a_model_or_a_config():
    assert workload_from_args(_parse("llama-2-7b")).model == "llama-2-7b"
    assert (
        workload_from_args(_parse("meta-llama/Llama-2-7b-hf")).config == "meta-llama/Llama-2-7b-hf"
    )
    assert workload_from_args(_parse("./x/config.json")).config == "./x/config.json"
    with pytest.raises(UsageError):
        workload_from_args(_parse("llama-2-7b", "--model", "other"))


def test_default_gpu_is_a_documented_catalog_sku():
    contracts = (REPO / "docs" / "CONTRACTS.md").read_text()
    assert estimate_cmd.DEFAULT_GPU in contracts
