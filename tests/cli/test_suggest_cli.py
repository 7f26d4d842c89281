"""`slotwise suggest` end to end on the bundled catalog (in-process, plus one real process)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from slotwise.tui.cli import main
from tests.paths import REPO

EXAMPLE_PRICES = str(REPO / "examples" / "prices-example.toml")


def run(capsys, *argv):
    code = main(["suggest", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_keys_and_ranking(capsys):
    code, out, _ = run(capsys, "llama-3.1-70b", "--limit", "3", "--json")
    assert code == 0
    data = json.loads(out)
    assert [d["rank"] for d in data] == [1, 2, 3]
    for d in data:
        for k in (
            "rank",
            "chassis",
            "gpu",
            "gpus",
            "errors",
            "warnings",
            "power_w",
            "memory_per_gpu",
            "train_hours",
            "price",
        ):
            assert k in d
        assert d["errors"] == 0 and d["price"] is None and d["cluster"] is None
        assert d["memory_per_gpu"]["total_bytes"] > 0
    assert [d["gpus"] for d in data] == sorted(d["gpus"] for d in data)


def test_out_writes_boms_that_validate(capsys, tmp_path):
    code, out, _ = run(
        capsys,
        "llama-3.1-8b",
        "--method",
        "lora",
        "--tokens",
        "100M",
        "--limit",
        "2",
        "--out",
        str(tmp_path),
    )
    assert code == 0
    files = sorted(tmp_path.glob("*.toml"))
    assert [f.name.split("-")[0] for f in files] == ["1", "2"]
    for f in files:
        assert main(["validate", str(f)]) == 0
    capsys.readouterr()
    # a second run of the same search does not overwrite without --force
    again = ("llama-3.1-8b", "--method", "lora", "--tokens", "100M", "--limit", "1")
    code, _, err = run(capsys, *again, "--out", str(tmp_path))
    assert code == 2 and "--force" in err


def test_cluster_json_and_markdown(capsys):
    code, out, _ = run(
        capsys, "llama-3.1-405b", "--method", "full", "--tokens", "10B", "--limit", "2", "--json"
    )
    assert code == 0
    d = json.loads(out)[0]
    c = d["cluster"]
    assert d["nodes"] >= 2 and c["nodes"] == d["nodes"] and c["gpus"] == d["total_gpus"]
    assert c["nics_per_node"] == d["gpus"] and c["nic_gbps"] >= 200
    fab = c["fabric"]["compute"]
    assert fab["radix"] in (64, 128, 144) and fab["rails"] == d["gpus"]
    assert c["racks"] >= 1 and c["power"]["total_w"] > c["power"]["nodes_w"]
    code, out, _ = run(
        capsys, "llama-3.1-405b", "--method", "full", "--tokens", "10B", "--limit", "1"
    )
    assert "## Cluster" in out and "No single-server build" in out


def test_prices_objective_price_and_tco(capsys):
    code, out, _ = run(
        capsys,
        "llama-3.1-70b",
        "--objective",
        "price",
        "--limit",
        "2",
        "--prices",
        EXAMPLE_PRICES,
        "--tco",
        "--kwh-price",
        "0.2",
        "--cloud-gpu-hour",
        "3",
        "--years",
        "4",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data[0]["price"] is not None and data[0]["price_is_example"]
    prices = [d["price"] for d in data]
    assert prices == sorted(prices)
    t = data[0]["tco"]
    assert t["years"] == 4 and t["purchase_price"] == data[0]["price"]
    assert t["power_cost_month"] > 0 and t["cloud_cost_month"] > 0


def test_nothing_fits_exits_1(capsys):
    code, out, err = run(
        capsys,
        "llama-3.1-405b",
        "--method",
        "full",
        "--chassis",
        "X14",
        "--gpu",
        "NVIDIA-L4-24GB",
        "--max-nodes",
        "2",
        "--json",
    )
    assert code == 1
    assert json.loads(out) == [] and "Nothing fits" in err


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--chassis", "SYS-NOPE"], "SYS-NOPE"),
        (["--budget", "1000"], "--budget needs a price list"),
        (["--tco"], "--tco needs a price list"),
        (["--prices", "/nonexistent/p.toml"], "no such price list"),
        (["--objective", "price"], "price list"),
    ],
)
def test_bad_input_exits_2(capsys, argv, needle):
    code, _, err = run(capsys, "llama-3.1-8b", *argv)
    assert code == 2
    assert needle in err


def test_bad_flag_value_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["suggest", "llama-3.1-8b", "--utilization", "2"])
    assert exc.value.code == 2
    assert "between 0 and 1" in capsys.readouterr().err


def test_real_process_exit_code_and_json():
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "slotwise.tui.cli",
            "suggest",
            "mistral-7b-v0.3",
            "--limit",
            "1",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[0]["rank"] == 1


def test_out_with_example_prices_notes_them_in_the_bom(capsys, tmp_path):
    code, _, _ = run(
        capsys, "llama-3.1-70b", "--limit", "1", "--prices", EXAMPLE_PRICES, "--out", str(tmp_path)
    )
    assert code == 0
    text = next(tmp_path.glob("1-*.toml")).read_text()
    assert "example figures, not a quote" in text
    assert main(["validate", str(next(tmp_path.glob("1-*.toml")))]) == 0
