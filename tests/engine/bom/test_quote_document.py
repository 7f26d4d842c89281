"""The quote a sales team sends: the customer Markdown names the model, never a file path, and
carries no rule id and no catalog to-do; a BOM whose workload came from a config.json keeps the
architecture, so moving the config.json away does not change `validate`'s workload verdict."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from slotwise.engine.bom import BomMeta, export_bom, read_bom
from slotwise.engine.bom.markdown import engineering_notes, to_markdown
from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.check.rules.ids import RULES
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import load_catalog
from slotwise.tui.cli import main
from tests.paths import REPO

ROOT = REPO
EX = ROOT / "examples"
CONFIG = ROOT / "tests" / "fixtures" / "configs" / "mistralai--Mixtral-8x7B-v0.1" / "config.json"


@pytest.fixture(scope="module")
def cat():
    return load_catalog(overlay=None)


def _bom_with_config(cat, tmp_path: Path, method: str = "inference") -> tuple[Path, Path]:
    """The H200 NVL example with its workload read from a config.json under tmp_path."""
    model_dir = tmp_path / "private" / "models" / "Mixtral-8x7B-v0.1"
    model_dir.mkdir(parents=True)
    cfg = model_dir / "config.json"
    shutil.copy(CONFIG, cfg)
    loaded = read_bom(EX / "h200-nvl-lora-421ge.toml", cat)
    wl = Workload(config=str(cfg), method=method, seq_len=4096)
    build = loaded.build.with_(workload=wl)
    meta = loaded.meta.model_copy(update={"customer": "ACME", "project": "Chat service"})
    bom = tmp_path / "bom.toml"
    bom.write_text(export_bom(build, cat, meta))
    return bom, cfg


def _verdict(capsys, bom: Path) -> tuple[int, dict]:
    code = main(["validate", str(bom), "--json"])
    out = json.loads(capsys.readouterr().out)
    return code, out


def test_customer_markdown_has_no_path_no_rule_id_no_catalog_todo(cat, tmp_path, capsys):
    bom, cfg = _bom_with_config(cat, tmp_path)
    code = main(["export", str(bom), "--format", "md"])
    md = capsys.readouterr().out
    assert code == 0
    assert "Mixtral-8x7B-v0.1" in md  # the model's name ...
    assert str(tmp_path) not in md and "private/models" not in md and "config.json" not in md
    assert not re.search(r"(^|[\s(])(/|~/|\./)[\w.-]+/", md)  # ... never a path
    for rule in RULES:
        assert rule not in md, rule
    for todo in ("to the chassis record", "(with its source)", "catalog overlay", "--catalog"):
        assert todo not in md
    # inference: no training fields
    assert "micro-batch" not in md and "tokens to train" not in md and " to train" not in md
    # the engineering notes keep what the customer document leaves out
    loaded = read_bom(bom, cat)
    report = evaluate(loaded.build, cat)
    notes = engineering_notes(loaded.build, cat, loaded.meta, report)
    assert any(f.rule in notes for f in report.findings)


def test_training_job_shows_its_training_fields(cat, tmp_path):
    loaded = read_bom(EX / "h200-nvl-lora-421ge.toml", cat)
    md = to_markdown(loaded.build, cat, loaded.meta, evaluate(loaded.build, cat))
    assert "micro-batch" in md and "tokens" in md and "to train" in md


def test_bom_keeps_the_architecture_of_a_config_json(cat, tmp_path, capsys):
    bom, cfg = _bom_with_config(cat, tmp_path)
    data = tomllib.loads(bom.read_text())
    arch = data["workload"]["arch"]
    assert "config" not in data["workload"]
    assert arch["name"] == "Mixtral-8x7B-v0.1"
    assert arch["num_local_experts"] == 8 and arch["hidden_size"] == 4096
    assert "_name_or_path" not in arch
    assert str(tmp_path) not in bom.read_text()

    code_before, before = _verdict(capsys, bom)
    cfg.unlink()
    shutil.rmtree(cfg.parent.parent.parent)
    code_after, after = _verdict(capsys, bom)
    assert code_before == code_after
    assert before["workload"] is not None and before["workload"] == after["workload"]
    assert [f["rule"] for f in before["findings"]] == [f["rule"] for f in after["findings"]]
    assert "workload.unresolved" not in {f["rule"] for f in after["findings"]}
    # and re-exporting the self-contained BOM gives the same bytes
    loaded = read_bom(bom, cat)
    assert export_bom(loaded.build, cat, loaded.meta) == bom.read_text()


def test_quote_date_and_validity_in_meta_and_document(cat, tmp_path, capsys):
    loaded = read_bom(EX / "l40s-inference-521ge.toml", cat)
    text = export_bom(loaded.build, cat, loaded.meta).replace(
        "[meta]\n", '[meta]\nquote_date = 2026-12-02\nvalid_until = "2026-12-31"\n', 1
    )
    bom = tmp_path / "q.toml"
    bom.write_text(text)
    again = read_bom(bom, cat)
    assert again.ok, again.problems
    assert (
        str(again.meta.quote_date) == "2026-12-02" and str(again.meta.valid_until) == "2026-12-31"
    )
    assert main(["export", str(bom), "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "quote date 2026-12-02" in md and "valid until 2026-12-31" in md
    meta = BomMeta(quote_date="2026-12-02")
    assert 'quote_date = "2026-12-02"' in export_bom(loaded.build, cat, meta)


def test_a_dpu_brings_its_required_support_line_and_cable(cat, capsys, tmp_path):
    """Supermicro's own BOM lists SVC-NVSTDSWSUP-3Y and CBL-PWEX-1174-60 with each
    GPU-NVDPU-BA3220-C: two DPUs, two of each, with their part numbers; a build without a DPU
    has neither."""
    import csv
    import io

    from slotwise.engine.build import Build

    build = Build(
        chassis="SYS-521GE-TNRT", slots={"10": "NVIDIA-BF3-B3220", "11": "NVIDIA-BF3-B3220"}
    )
    bom = tmp_path / "dpu.toml"
    bom.write_text(export_bom(build, cat, BomMeta()))
    assert main(["export", str(bom), "--format", "csv"]) == 0
    rows = {r["part_number"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert rows["GPU-NVDPU-BA3220-C"]["quantity"] == "2"
    assert rows["GPU-NVDPU-BA3220-C"]["unit_power_w"] == "107"
    assert (rows["SVC-NVSTDSWSUP-3Y"]["type"], rows["SVC-NVSTDSWSUP-3Y"]["quantity"]) == (
        "Required service",
        "2",
    )
    assert (rows["CBL-PWEX-1174-60"]["type"], rows["CBL-PWEX-1174-60"]["quantity"]) == (
        "Cable",
        "2",
    )
    assert not read_bom(bom, cat).problems  # the companion lines are not "stale"
    plain = export_bom(Build(chassis="SYS-521GE-TNRT"), cat, BomMeta())
    assert "SVC-NVSTDSWSUP-3Y" not in plain
