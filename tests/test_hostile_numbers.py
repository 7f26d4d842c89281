"""Issue #29 item 6: wrong exits and wrong acceptance of absurd numbers.

Reproductions: ``--kwh-price nan`` (also ``--utilization``, ``--cloud-gpu-hour``) exited 3
"internal error"; ``inf`` / ``1e308`` were accepted and the TCO read "inf USD"; a GPU with 1e-300
GB was accepted ("usable -0.50 GiB"); ``mfu = 1e-9`` gave "1,078,677,905 days"; ``[chassis]
description = true`` was silently accepted; docs/CLI.md promised 16 MiB input files while the
code caps at 2 MiB.  Each is now exit 2 (bad input) naming the flag or field."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from slotwise.engine.bom import import_bom
from slotwise.parts.catalog import load_catalog
from slotwise.tui.cli import main

REPO = Path(__file__).resolve().parents[1]
BOM = REPO / "examples" / "h200-nvl-lora-421ge.toml"
PRICES = REPO / "examples" / "prices-example.toml"


def _cli(capsys, *argv) -> tuple[int, str]:
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own exit
        rc = int(exc.code or 0)
    out, err = capsys.readouterr()
    return rc, out + err


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--kwh-price", "nan"),
        ("--kwh-price", "inf"),
        ("--kwh-price", "1e308"),
        ("--utilization", "nan"),
        ("--utilization", "1e-300"),
        ("--cloud-gpu-hour", "nan"),
        ("--cloud-gpu-hour", "1e308"),
        ("--pue", "nan"),
    ],
)
def test_absurd_tco_flags_exit_2_naming_the_flag(capsys, flag, value):
    argv = ["export", BOM, "--format", "md", "--prices", PRICES, "--kwh-price", "0.2"]
    argv += ["--cloud-gpu-hour", "2", flag, value]
    rc, said = _cli(capsys, *argv)
    assert rc == 2, said[-400:]
    assert flag in said
    assert "inf USD" not in said and "internal error" not in said


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--mfu", "1e-9"), ("--mfu", "nan"), ("--target-days", "inf"), ("--lora-dropout", "nan")],
)
def test_absurd_workload_flags_exit_2(capsys, flag, value):
    argv = ["estimate", "--model", "llama-3.1-8b", "--method", "lora", "--gpu"]
    argv += ["NVIDIA-H200-NVL-141GB", "--tokens", "1B", flag, value]
    rc, said = _cli(capsys, *argv)
    assert rc == 2, said[-400:]
    assert "days" not in said or "1,078" not in said
    assert flag in said or flag.lstrip("-").replace("-", "_") in said


def test_a_gpu_with_1e_minus_300_gb_is_refused_naming_the_field(capsys, tmp_path):
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    gpus = (REPO / "parts" / "data" / "gpus.toml").read_text()
    first = gpus.index("[[gpu]]")
    second = gpus.index("[[gpu]]", first + 1)
    record = gpus[first:second]
    record = re.sub(r'sku = "[^"]+"', 'sku = "TINY-GPU"', record, count=1)
    record = re.sub(r"memory_gb = [0-9.]+", "memory_gb = 1e-300", record, count=1)
    (overlay / "gpus.toml").write_text(record)
    rc, said = _cli(capsys, "--catalog", overlay, "parts", "--kind", "gpu")
    assert rc == 2 and "memory_gb" in said, said[-400:]


def test_chassis_description_true_is_refused():
    text = BOM.read_text().replace("[chassis]\n", "[chassis]\ndescription = true\n", 1)
    text = re.sub(r'(\[chassis\]\n(?:.*\n)*?)description = "[^"]*"\n', r"\1", text, count=1)
    loaded = import_bom(text, load_catalog(), filename="x.toml")
    assert [p.field for p in loaded.problems if p.rule == "bom.bad_value"] == [
        "chassis.description"
    ]


def test_docs_and_code_agree_on_the_file_size_limits():
    from slotwise.engine.bom.schema import MAX_BOM_BYTES
    from slotwise.engine.cost.pricing import MAX_PRICE_BYTES
    from slotwise.parts.catalog import MAX_CATALOG_FILE_BYTES
    from slotwise.parts.safe_io import MAX_CONFIG_BYTES

    doc = " ".join((REPO / "docs" / "CLI.md").read_text().split())
    mib = 1024 * 1024
    assert f"BOM and `--catalog` overlay files at most {MAX_BOM_BYTES // mib} MiB" in doc
    assert MAX_CATALOG_FILE_BYTES == MAX_BOM_BYTES
    assert f"a config.json at most {MAX_CONFIG_BYTES // mib} MiB" in doc
    assert f"a price list at most {MAX_PRICE_BYTES // mib} MiB" in doc
    assert "16 MiB" not in doc


HGX = REPO / "examples" / "hgx-h200-finetune-821ge.toml"  # 8 H200 SXM on an HGX baseboard


@pytest.mark.parametrize(
    ("model", "tp", "says"),
    [
        ("llama-3.1-8b", 1024, "needs 1024 GPUs; the build has 8"),
        ("llama-3.1-8b", 3, "does not divide the build's 8 GPUs"),
        ("qwen2.5-7b", 8, "does not divide the model's 28 attention heads"),
    ],
)
def test_tp_beyond_the_gpus_or_not_dividing_them_or_the_heads_is_a_finding(
    capsys, tmp_path, model, tp, says
):
    text = HGX.read_text()
    text = re.sub(r"\[workload\]\n(?:[^\[].*\n)*", "", text)
    text += f'\n[workload]\nmodel = "{model}"\nmethod = "inference"\ntp = {tp}\n'
    bom = tmp_path / "tp.toml"
    bom.write_text(text)
    rc, said = _cli(capsys, "validate", bom, "--json")
    found = [f for f in json.loads(said)["findings"] if f["rule"] == "workload_fit.tensor_parallel"]
    assert found and says in found[0]["message"], said[-600:]
    assert rc == 1


def test_a_valid_tp_is_no_finding(capsys, tmp_path):
    text = re.sub(r"\[workload\]\n(?:[^\[].*\n)*", "", HGX.read_text())
    text += '\n[workload]\nmodel = "llama-3.1-8b"\nmethod = "inference"\ntp = 8\n'
    bom = tmp_path / "tp.toml"
    bom.write_text(text)
    rc, said = _cli(capsys, "validate", bom, "--json")
    assert not [f for f in json.loads(said)["findings"] if f["rule"].endswith("tensor_parallel")]


def test_a_sku_that_is_a_path_is_refused_and_file_names_stay_in_out(capsys, tmp_path):
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    gpus = (REPO / "parts" / "data" / "gpus.toml").read_text()
    first = gpus.index("[[gpu]]")
    record = gpus[first : gpus.index("[[gpu]]", first + 1)]
    record = re.sub(r'sku = "[^"]+"', 'sku = "../../evil/GPU"', record, count=1)
    (overlay / "gpus.toml").write_text(record)
    rc, said = _cli(capsys, "--catalog", overlay, "parts", "--kind", "gpu")
    assert rc == 2 and "sku" in said and "may not contain /" in said, said[-400:]

    from slotwise.tui.commands.suggest import _file_part

    assert "/" not in _file_part("../../x/y") and not _file_part("..").startswith(".")
