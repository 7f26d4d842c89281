"""Issue 28 (a newcomer never stuck, round 3), the CLI items: an unknown command exits 2 with
"did you mean" (never the full-screen app, which without a terminal waited forever), argparse
errors in one line with "did you mean" for flags, `--seq-len 8k`, the context length checked
against the model's positions (8), and `validate --json`'s workload verdict (15)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from slotwise.tui.cli import main
from tests.paths import REPO

ROOT = REPO
EXAMPLES = ROOT / "examples"


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "slotwise.tui.cli", *args],
        stdin=subprocess.DEVNULL,  # not a terminal, as in a script or CI job
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )


def test_mistyped_command_without_a_terminal_exits_2_fast_with_did_you_mean():
    started = time.monotonic()
    r = _cli("valdate", timeout=10)
    took = time.monotonic() - started
    assert r.returncode == 2, r.stderr
    assert took < 2.0, f"took {took:.2f} s"
    assert "did you mean validate?" in r.stderr
    assert r.stdout == ""  # no app frame, no escape codes


def test_mistyped_command_with_a_file_argument_is_not_a_usage_dump(capsys):
    assert main(["vaildate", str(EXAMPLES / "l40s-inference-521ge.toml")]) == 2
    err = capsys.readouterr().err
    assert "did you mean validate?" in err
    assert "usage:" not in err and len(err.strip().splitlines()) == 1


def test_missing_bom_file_names_it(capsys):
    assert main(["no-such-build.toml"]) == 2
    err = capsys.readouterr().err
    assert "no-such-build.toml" in err and "no such file" in err


def test_app_without_a_terminal_exits_2_instead_of_hanging():
    r = _cli(str(EXAMPLES / "l40s-inference-521ge.toml"), timeout=10)
    assert r.returncode == 2
    assert "needs a terminal" in r.stderr


def test_mistyped_flag_gets_did_you_mean_in_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["estimate", "--model", "llama-2-7b", "--methd", "lora"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "--methd (did you mean --method" in lines[0]
    assert "slotwise estimate --help" in lines[0]


@pytest.mark.parametrize(
    "argv, says",
    [
        (["validate"], "the following arguments are required: BOM.toml"),
        (["estimate", "--model", "llama-2-7b", "--method", "lroa"], "invalid choice: 'lroa'"),
        (["estimate", "--model", "llama-2-7b", "--seq-len", "lots"], "'lots' is not valid"),
        (["suggest", "--model", "llama-2-7b", "--objectve", "power"], "did you mean --objective"),
    ],
)
def test_every_argparse_error_is_one_line(argv, says, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert says in err
    assert "usage:" not in err


@pytest.mark.parametrize("typed, tokens", [("8k", "8192"), ("8K", "8,192"), ("128k", "131072")])
def test_seq_len_takes_a_k_suffix_like_tokens_takes_T(typed, tokens, capsys):
    main(["estimate", "--model", "llama-3.1-8b", "--seq-len", typed, "--json"])
    a = json.loads(capsys.readouterr().out)
    main(["estimate", "--model", "llama-3.1-8b", "--seq-len", tokens, "--json"])
    b = json.loads(capsys.readouterr().out)
    assert a["memory_per_gpu"] == b["memory_per_gpu"]
    main(["estimate", "--model", "llama-3.1-8b", "--seq-len", "4096", "--json"])
    c = json.loads(capsys.readouterr().out)
    assert c["memory_per_gpu"]["kv_cache_bytes"] < a["memory_per_gpu"]["kv_cache_bytes"]


def test_llama2_7b_at_8192_tokens_gets_a_context_warning_in_estimate(capsys):
    main(["estimate", "--model", "llama-2-7b", "--seq-len", "8192", "--json"])
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    hit = [w for w in warnings if "positions" in w]
    assert hit and "4,096" in hit[0] and "8,192" in hit[0]
    main(["estimate", "--model", "llama-2-7b", "--seq-len", "4096", "--json"])
    assert not [w for w in json.loads(capsys.readouterr().out)["warnings"] if "positions" in w]


def _with_workload(tmp_path: Path, seq_len: int, model: str = "llama-2-7b") -> Path:
    text = (EXAMPLES / "l40s-inference-521ge.toml").read_text(encoding="utf-8")
    text = text.replace('model = "llama-3.1-8b"', f'model = "{model}"')
    text = re.sub(r"(?m)^seq_len = \d+$", f"seq_len = {seq_len}", text)
    path = tmp_path / "build.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_validate_flags_a_context_longer_than_the_model_positions(tmp_path, capsys):
    main(["validate", str(_with_workload(tmp_path, 8192)), "--json"])
    data = json.loads(capsys.readouterr().out)
    found = [f for f in data["findings"] if f["rule"] == "workload_fit.context_length"]
    assert len(found) == 1
    assert found[0]["severity"] == "warning"
    assert "8,192" in found[0]["message"] and "4,096" in found[0]["message"]
    main(["validate", str(_with_workload(tmp_path, 4096)), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert not [f for f in data["findings"] if f["rule"] == "workload_fit.context_length"]


def test_validate_json_has_the_workload_verdict(capsys):
    main(["validate", str(EXAMPLES / "l40s-inference-521ge.toml"), "--json"])
    wl = json.loads(capsys.readouterr().out)["workload"]
    assert set(wl) >= {"fits", "time", "serving", "servers", "gpu", "gpus"}
    assert wl["fits"] is True and wl["time"] is None  # inference: no training time
    assert wl["serving"]["users"] >= 1 and wl["serving"]["max_users"] >= wl["serving"]["users"]
    assert wl["servers"] == 1


def test_validate_json_workload_verdict_for_training_with_a_target(capsys):
    main(["validate", str(EXAMPLES / "hgx-b200-pretrain-a22ga.toml"), "--json"])
    wl = json.loads(capsys.readouterr().out)["workload"]
    assert wl["serving"] is None
    assert wl["time"]["train_hours"] > 0
    if wl["time"]["target_days"] is not None and wl["time"]["meets_target"] is False:
        assert wl["servers"] > 1


def test_validate_json_workload_is_null_without_a_workload(tmp_path, capsys):
    text = (EXAMPLES / "minimal-l40s-hand-written.toml").read_text(encoding="utf-8")
    head, _, rest = text.partition("[workload]")
    tail = rest[rest.index("\n[") :] if "\n[" in rest else ""
    path = tmp_path / "no-workload.toml"
    path.write_text(head + tail.lstrip("\n"), encoding="utf-8")
    main(["validate", str(path), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert not [f for f in data["findings"] if f["rule"].startswith("bom.")]
    assert data["workload"] is None
