"""`slotwise validate`: CLI.md JSON shape, human output, exit codes 0 / 1 / 2."""

from __future__ import annotations

import json
import subprocess
import sys

from slotwise.tui.cli import main
from tests.paths import REPO

ROOT = REPO
EX = ROOT / "examples"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_valid_json_shape(capsys):
    code, out, err = run(capsys, "validate", str(EX / "h200-nvl-lora-421ge.toml"), "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert set(data) >= {"file", "errors", "warnings", "findings", "budgets"}
    assert data["file"].endswith("h200-nvl-lora-421ge.toml")
    assert data["errors"] == 0
    assert data["warnings"] == sum(1 for f in data["findings"] if f["severity"] == "warning")
    for f in data["findings"]:
        assert set(f) >= {"rule", "severity", "message", "parts", "fix"}
        assert isinstance(f["parts"], list)
    names = {b["name"] for b in data["budgets"]}
    assert {"power", "heat", "gpu_memory"} <= names
    power = next(b for b in data["budgets"] if b["name"] == "power")
    assert power["unit"] == "W" and power["used"] > 0 and power["available"] > power["used"]


def test_errors_exit_1_with_json(capsys):
    code, out, err = run(capsys, "validate", str(EX / "broken-100v-power.toml"), "--json")
    assert code == 1 and err == ""
    data = json.loads(out)
    assert data["errors"] == 1
    (f,) = [f for f in data["findings"] if f["severity"] == "error"]
    assert f["rule"] == "power.redundancy" and f["fix"]


def test_human_output_has_symbols_and_budgets(capsys):
    code, out, _ = run(capsys, "validate", str(EX / "broken-l40s-with-bridges.toml"))
    assert code == 1
    assert "✗ error   nvlink.no_nvlink" in out
    assert "fix: remove the bridge" in out
    assert "budgets:" in out and "Power" in out and "BTU/h" in out
    assert "NOT OK: 1 error(s)" in out


def test_malformed_toml_is_bad_input(capsys):
    path = EX / "broken-malformed-toml.toml"
    code, out, err = run(capsys, "validate", str(path))
    assert code == 2
    assert err.startswith("slotwise: cannot use this BOM: ")
    assert f"{path}, line 6, column" in err and "not valid TOML" in err
    assert err.count("\n") == 1  # one paragraph


def test_unknown_sku_names_file_line_field(capsys):
    path = EX / "broken-unknown-sku.toml"
    code, out, err = run(capsys, "validate", str(path), "--json")
    assert code == 2
    assert f"{path}, line 26: field 'slots.3'" in err
    assert "NVIDIA-L4OS-48GB" in err and "did you mean 'NVIDIA-L40S-48GB'" in err
    data = json.loads(out)  # the JSON is still printed for scripts
    bom = [f for f in data["findings"] if f["rule"] == "bom.unknown_sku"]
    assert bom[0]["line"] == 26 and bom[0]["field"] == "slots.3"


def test_missing_file_is_bad_input(capsys, tmp_path):
    code, out, err = run(capsys, "validate", str(tmp_path / "nope.toml"))
    assert code == 2
    assert "nope.toml: cannot read the BOM: no such file" in err


def test_directory_is_bad_input(capsys, tmp_path):
    code, _, err = run(capsys, "validate", str(tmp_path))
    assert code == 2 and "it is a directory" in err


def test_missing_chassis_is_bad_input(capsys, tmp_path):
    p = tmp_path / "empty.toml"
    p.write_text("schema = 1\n")
    code, out, err = run(capsys, "validate", str(p), "--json")
    assert code == 2
    assert "no [chassis] table" in err
    assert json.loads(out)["errors"] == 1


def test_no_argument_is_usage_error(capsys):
    try:
        main(["validate"])
    except SystemExit as exc:
        assert exc.code == 2
    _, err = capsys.readouterr()
    assert "BOM.toml" in err


def test_real_process_exit_codes():
    """The installed entry point, as scripts and CI call it."""
    cmd = [sys.executable, "-m", "slotwise.tui.cli", "validate"]
    ok = subprocess.run(
        [*cmd, str(EX / "l40s-inference-521ge.toml")], capture_output=True, text=True, cwd=ROOT
    )
    bad = subprocess.run(
        [*cmd, str(EX / "broken-malformed-toml.toml")], capture_output=True, text=True, cwd=ROOT
    )
    assert (ok.returncode, bad.returncode) == (0, 2), ok.stderr + bad.stderr
    assert "Traceback" not in bad.stderr and "line 6" in bad.stderr
