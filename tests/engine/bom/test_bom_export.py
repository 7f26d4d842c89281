"""`slotwise export --format toml|md|csv`: canonical TOML, Markdown summary, CSV line items."""

from __future__ import annotations

import csv
import io
import tomllib

from slotwise.tui.cli import main
from tests.paths import REPO

EX = REPO / "examples"
H200 = EX / "h200-nvl-lora-421ge.toml"

PRICES = """\
[meta]
currency = "EUR"
label = "test list (illustrative figures for this test only)"
example = true

[[price]]
sku = "NVIDIA-H200-NVL-141GB"
price = 30000.5

[[price]]
sku = "SYS-421GE-TNRT"
price = 12000
"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_toml_export_is_canonical_and_stable(capsys, tmp_path):
    code, once, err = run(capsys, "export", str(H200), "--format", "toml")
    assert code == 0 and err == ""
    p = tmp_path / "once.toml"
    p.write_text(once)
    code, twice, _ = run(capsys, "export", str(p), "--format", "toml")
    assert code == 0 and twice == once
    data = tomllib.loads(once)
    assert data["schema"] == 1 and data["chassis"]["sku"] == "SYS-421GE-TNRT"


def test_hand_written_file_gets_derived_tables(capsys):
    code, out, _ = run(
        capsys, "export", str(EX / "minimal-l40s-hand-written.toml"), "--format", "toml"
    )
    assert code == 0
    data = tomllib.loads(out)
    assert {"line_items", "summary", "meta"} <= set(data)
    assert data["summary"]["gpus"] == 2 and data["summary"]["errors"] == 0


def test_out_needs_force_to_overwrite(capsys, tmp_path):
    out = tmp_path / "x.md"
    assert run(capsys, "export", str(H200), "--format", "md", "--out", str(out))[0] == 0
    first = out.read_text()
    out.write_text("keep me")
    code, stdout, err = run(capsys, "export", str(H200), "--format", "md", "--out", str(out))
    assert code == 2
    assert f"{out} already exists; use --force" in err
    assert out.read_text() == "keep me"
    assert run(capsys, "export", str(H200), "--format", "md", "--out", str(out), "--force")[0] == 0
    assert out.read_text() == first
    assert sorted(x.name for x in tmp_path.iterdir()) == ["x.md"]  # no temp files left


def test_out_in_missing_directory(capsys, tmp_path):
    code, _, err = run(
        capsys, "export", str(H200), "--format", "csv", "--out", str(tmp_path / "no" / "x.csv")
    )
    assert code == 2 and "cannot write" in err


def test_markdown_summary(capsys):
    code, md, _ = run(capsys, "export", str(H200), "--format", "md")
    assert code == 0
    assert md.startswith("# 8x H200 NVL LoRA fine-tuning server for Example customer (fictional)\n")
    assert "| GPU | GPU-NVH200NVL | NVIDIA H200 NVL 141GB | 8 | 600 | 4,800 |" in md
    assert (
        "| GPU position 1 + GPU position 2 + GPU position 3 + GPU position 4 | "
        "NVIDIA NVLink bridge, 4-way (NVL4), for H200 NVL |" in md
    )
    assert "## Budgets" in md and "Power, DC (worst-case load vs PSU output)" in md
    # the three-way memory verdict leads (no trainer named, recompute unstated: the range's
    # high end, 55 GiB, fits the H200 NVL's memory, so "fits", with its spare share)
    assert "Workload verdict: **fits in memory" in md and "tight" not in md
    assert "fits on 8 × NVIDIA H200 NVL 141GB" in md
    assert "## Assumptions" in md and "## Findings" not in md


def test_markdown_open_points_in_words_and_the_engineering_notes_beside(capsys, tmp_path):
    notes = tmp_path / "notes.md"
    code, md, _ = run(
        capsys,
        "export",
        str(EX / "broken-workload-does-not-fit.toml"),
        "--format",
        "md",
        "--notes",
        str(notes),
    )
    assert code == 0
    assert "## Open points" in md and "- Must change: " in md
    assert "workload_fit.gpu_memory" not in md and "*Fix:*" not in md
    assert "Workload verdict: **does not fit in memory" in md
    text = notes.read_text()
    assert "### Errors (1)" in text
    assert "✗ **workload_fit.gpu_memory**" in text and "*Fix:*" in text
    assert "## Part numbers" in text and "| MEM-DR564MC-ER48 | Supermicro | B |" in text
    # --notes is for the Markdown document only
    code, _, err = run(capsys, "export", str(H200), "--format", "csv", "--notes", str(notes))
    assert code == 2 and "--notes" in err


def test_csv_line_items(capsys):
    code, text, _ = run(capsys, "export", str(H200), "--format", "csv")
    assert code == 0
    assert text.startswith(
        "line,type,part_number,maker_part_number,pn_confidence,sku,description,quantity,"
        "unit_power_w,total_power_w,unit_price,extended_price,currency,power_note\r\n"
    )
    rows = list(csv.DictReader(io.StringIO(text)))
    by_sku = {r["sku"]: r for r in rows}
    assert by_sku["NVIDIA-H200-NVL-141GB"]["quantity"] == "8"
    # sourced part numbers (Supermicro's first, the maker's beside it), power per line and total
    gpu = by_sku["NVIDIA-H200-NVL-141GB"]
    assert (gpu["type"], gpu["part_number"], gpu["pn_confidence"]) == ("GPU", "GPU-NVH200NVL", "B")
    assert (gpu["unit_power_w"], gpu["total_power_w"]) == ("600", "4800")
    nic = by_sku["NVIDIA-CX7-400G-1P-OSFP"]
    assert (nic["part_number"], nic["maker_part_number"]) == (
        "AOC-CX766003N-SQ0",
        "900-9X766-003N-SQ0",
    )
    assert nic["unit_power_w"] == "30.76"
    # the 2700 W unit's code is the community device library's (B); the bridge has none: marked
    assert by_sku["SMCI-PSU-2700W-TITANIUM"]["part_number"] == "PWS-2K70A-1R"
    assert by_sku["NVLINK-H200-NVL-4WAY"]["part_number"] == "PN needed"
    assert by_sku["INTEL-X710-AT2-ONBOARD"]["part_number"] == "included"
    assert by_sku["NVLINK-H200-NVL-4WAY"]["quantity"] == "2"
    assert by_sku["SMCI-PSU-2700W-TITANIUM"]["quantity"] == "4"
    assert rows[0]["sku"] == "SYS-421GE-TNRT" and rows[0]["unit_price"] == ""
    assert [r["line"] for r in rows] == [str(i) for i in range(1, len(rows) + 1)]


def test_prices_flow_into_all_formats_and_survive_reexport(capsys, tmp_path):
    plist = tmp_path / "prices.toml"
    plist.write_text(PRICES)
    code, text, _ = run(capsys, "export", str(H200), "--format", "csv", "--prices", str(plist))
    assert code == 0
    gpu = next(r for r in csv.DictReader(io.StringIO(text)) if r["sku"] == "NVIDIA-H200-NVL-141GB")
    assert (gpu["unit_price"], gpu["extended_price"], gpu["currency"]) == (
        "30000.50",
        "240004.00",
        "EUR",
    )

    priced = tmp_path / "priced.toml"
    assert (
        run(
            capsys,
            "export",
            str(H200),
            "--format",
            "toml",
            "--prices",
            str(plist),
            "--out",
            str(priced),
        )[0]
        == 0
    )
    data = tomllib.loads(priced.read_text())
    assert data["pricing"]["currency"] == "EUR"
    assert data["pricing"]["total"] == 252004.0
    assert "NVIDIA-CX7-400G-1P-OSFP" in data["pricing"]["unpriced"]
    assert "example figures, not a quote" in data["pricing"]["note"]  # the warning travels
    # the prices live in the BOM now: a re-export without --prices keeps them, byte for byte
    code, again, _ = run(capsys, "export", str(priced), "--format", "toml")
    assert again == priced.read_text()

    code, md, _ = run(capsys, "export", str(H200), "--format", "md", "--prices", str(plist))
    assert "no price for" in md and "example figures, not a quote" in md


def test_bad_price_list_is_bad_input(capsys, tmp_path):
    code, _, err = run(
        capsys, "export", str(H200), "--format", "csv", "--prices", str(tmp_path / "none.toml")
    )
    assert code == 2 and "none.toml" in err


def test_broken_file_is_not_exported(capsys, tmp_path):
    out = tmp_path / "x.toml"
    code, stdout, err = run(
        capsys, "export", str(EX / "broken-unknown-sku.toml"), "--format", "toml", "--out", str(out)
    )
    assert code == 2
    assert "NVIDIA-L4OS-48GB" in err and "slotwise validate" in err
    assert not out.exists() and stdout == ""


def test_format_is_required(capsys):
    try:
        main(["export", str(H200)])
    except SystemExit as exc:
        assert exc.code == 2
    assert "--format" in capsys.readouterr().err
