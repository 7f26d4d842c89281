"""`slotwise compare`: one column per option, one workload for all, the best value named."""

from __future__ import annotations

import csv
import io
import json

import pytest

from slotwise.engine.bom import read_bom
from slotwise.engine.plan.compare import Option, compare_builds
from slotwise.parts.catalog import load_catalog
from slotwise.tui.cli import main
from tests.paths import REPO

EX = REPO / "examples"
NVL = str(EX / "h200-nvl-lora-421ge.toml")
HGX = str(EX / "hgx-h200-finetune-821ge.toml")
L40S = str(EX / "l40s-inference-521ge.toml")
CAT = load_catalog(None)


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_has_one_column_per_option_and_the_documented_keys(capsys):
    code, out, _ = _run(capsys, "compare", NVL, HGX, L40S, "--json")
    data = json.loads(out)
    assert [o["label"] for o in data["options"]] == [
        "h200-nvl-lora-421ge.toml",
        "hgx-h200-finetune-821ge.toml",
        "l40s-inference-521ge.toml",
    ]
    assert set(data) == {"options", "workload", "currency", "rows", "notes"}
    keys = [r["key"] for r in data["rows"]]
    for key in (
        "gpu_model",
        "gpus",
        "gpu_memory_gb",
        "memory_per_gpu_gib",
        "fits",
        "train_days",
        "power_worst_w",
        "rack_units",
        "servers",
        "racks",
        "errors",
        "warnings",
    ):
        assert key in keys, key
    for row in data["rows"]:
        assert set(row) == {"key", "label", "unit", "better", "values", "texts", "best"}
        assert len(row["values"]) == len(row["texts"]) == 3
    # exit code as validate: with no trainer named (the generic profile: recompute and the
    # model's own loss over the full fp32 logits) the 70B LoRA estimate (51.3 GiB) does not fit
    # the L40S option's 48 GB, an error there, so the exit code is 1
    fits = next(r for r in data["rows"] if r["key"] == "fits")
    errors = next(r for r in data["rows"] if r["key"] == "errors")
    assert fits["values"] == [True, True, False] and errors["values"][2] >= 1
    assert code == 1


def test_same_workload_is_applied_to_every_option():
    """The first BOM's workload (LoRA 70B) is used for the inference BOM too."""
    opts = [Option(label=p, build=read_bom(p, CAT).build) for p in (NVL, L40S)]
    cmp = compare_builds(opts, CAT)
    assert cmp.workload is not None and "lora" in cmp.workload
    fits = cmp.row("fits")
    # generic profile (the model's own full-logits loss): 51.3 GiB against the L40S's 48 GB
    assert fits is not None and [c.value for c in fits.cells] == [True, False]
    # 70B LoRA on 4 x 48 GB for the 7-day target: more servers are needed for it
    servers = cmp.row("servers")
    assert servers is not None and servers.cells[0].value == 1
    assert servers.cells[1].value is None or servers.cells[1].value > 1


def test_best_value_is_marked_in_words_and_lower_power_wins(capsys):
    code, out, _ = _run(capsys, "compare", NVL, HGX)
    assert code == 0
    power = next(line for line in out.splitlines() if line.startswith("worst-case power"))
    nvl_cell, hgx_cell = power.split("W")[0:2]
    assert "(best)" in power
    # 8 x H200 NVL (600 W) in a PCIe server draws less than the HGX H200 (700 W SXM + NVSwitch)
    assert "(best)" in nvl_cell + "W" + hgx_cell.split("  ")[0]
    assert out.splitlines()[-1].startswith("(best) marks")


def test_workload_flags_override_the_first_boms_workload(capsys):
    code, out, _ = _run(
        capsys, "compare", NVL, HGX, "--model", "llama-3.1-8b", "--method", "inference", "--json"
    )
    data = json.loads(out)
    assert data["workload"].startswith("inference llama-3.1-8b")
    keys = [r["key"] for r in data["rows"]]
    assert "decode_tokens_per_s" in keys and "train_days" not in keys
    assert code == 0


def test_ties_are_not_marked():
    opts = [Option(label=f"copy {i}", build=read_bom(NVL, CAT).build) for i in range(2)]
    cmp = compare_builds(opts, CAT)
    assert all(r.best == () for r in cmp.rows)


def test_markdown_and_csv(capsys, tmp_path):
    out_md = tmp_path / "options.md"
    code, _, _ = _run(capsys, "compare", NVL, HGX, "--format", "md", "--out", str(out_md))
    text = out_md.read_text()
    assert code == 0 and text.startswith("# Options compared")
    assert "| worst-case power at the wall (AC) |" in text and "**" in text
    code, out, _ = _run(capsys, "compare", NVL, HGX, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == [
        "key",
        "label",
        "unit",
        "better",
        "h200-nvl-lora-421ge.toml",
        "hgx-h200-finetune-821ge.toml",
        "best",
    ]
    power = next(r for r in rows if r[0] == "power_worst_w")
    assert power[-1] == "h200-nvl-lora-421ge.toml"
    # --out never replaces a file without --force
    code, _, err = _run(capsys, "compare", NVL, HGX, "--format", "md", "--out", str(out_md))
    assert code == 2 and "--force" in err


def test_prices_add_price_rows_and_name_missing_parts(capsys):
    code, out, _ = _run(
        capsys,
        "compare",
        NVL,
        HGX,
        "--prices",
        str(EX / "prices-example.toml"),
        "--kwh-price",
        "0.2",
        "--json",
    )
    data = json.loads(out)
    price = next(r for r in data["rows"] if r["key"] == "price")
    tco = next(r for r in data["rows"] if r["key"] == "tco")
    assert data["currency"]
    for row in (price, tco):
        for value, text in zip(row["values"], row["texts"], strict=True):
            assert (value is None and text.startswith("no price: ")) or value > 0


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["compare", NVL], "two or more"),
        (["compare", NVL, str(EX / "broken-unknown-sku.toml")], "broken-unknown-sku.toml"),
        (["compare", NVL, HGX, "--kwh-price", "0.2"], "--prices"),
        (["compare", NVL, HGX, "--model", "no-such-model"], "no-such-model"),
    ],
)
def test_bad_input_exits_2_with_one_message(capsys, argv, needle):
    code, out, err = _run(capsys, *argv)
    assert code == 2, (out, err)
    assert needle in err and "Traceback" not in err
    assert err.count("slotwise:") == 1


def test_suggest_hands_its_top_builds_to_compare(capsys):
    code, out, _ = _run(
        capsys, "suggest", "--model", "llama-3.1-8b", "--method", "lora", "--compare", "2", "--json"
    )
    data = json.loads(out)
    assert [o["label"].split()[0] for o in data["options"]] == ["#1", "#2"]
    assert data["workload"].startswith("lora llama-3.1-8b")
    assert code == 0


def test_markdown_export_includes_the_comparison(capsys):
    code, out, _ = _run(capsys, "export", NVL, "--format", "md", "--compare", HGX)
    assert code == 0
    head, section = out.split("## Options compared")
    assert head.startswith("# ")  # the build's own summary comes first
    assert "| h200-nvl-lora-421ge.toml | hgx-h200-finetune-821ge.toml |" in section
    code, _, err = _run(capsys, "export", NVL, "--format", "csv", "--compare", HGX)
    assert code == 2 and "--format md" in err
