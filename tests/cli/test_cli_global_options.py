"""CLI behaviour from issue #14: global options before or after the sub-command, each error
printed once (and no traceback under `python -m slotwise.tui.cli`), "did you mean" for SKUs and model
ids, help without internal module names, part names never cut."""

from __future__ import annotations

import subprocess
import sys

import pytest

from slotwise.engine.names import close_names
from slotwise.tui.cli import main
from tests.paths import REPO

ROOT = REPO
FIXTURES = str(ROOT / "tests" / "fixtures_catalog")


@pytest.mark.parametrize(
    "argv",
    [
        ["--catalog", FIXTURES, "parts", "--kind", "chassis"],
        ["parts", "--kind", "chassis", "--catalog", FIXTURES],
        ["parts", "--catalog", FIXTURES, "--kind", "chassis"],
    ],
)
def test_catalog_overlay_before_or_after_the_command(argv, capsys, monkeypatch):
    monkeypatch.delenv("SLOTWISE_CATALOG", raising=False)
    assert main(argv) == 0
    assert "FIX-HGX-AIR" in capsys.readouterr().out  # the overlay's chassis is listed


def test_bad_overlay_before_the_command_is_not_ignored(capsys, tmp_path):
    assert main(["--catalog", str(tmp_path / "missing"), "parts"]) == 2
    err = capsys.readouterr().err
    assert "missing" in err and err.count("not a directory") == 1


def test_module_run_prints_one_error_and_no_traceback():
    r = subprocess.run(
        [sys.executable, "-m", "slotwise.tui.cli", "estimate", "llama-3.1-70b", "--gpu", "H200"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert r.stderr.count("is not a GPU in the catalog") == 1
    assert "Did you mean NVIDIA-H200-NVL-141GB" in r.stderr


@pytest.mark.parametrize(
    "typed, first",
    [
        ("H200", "NVIDIA-H200-NVL-141GB"),
        ("h200 sxm", "NVIDIA-H200-SXM-141GB"),
        ("NVIDIA-H200-NVL", "NVIDIA-H200-NVL-141GB"),
        ("llama 3.1 70", "llama-3.1-70b"),
        ("lama-3.1-70b", "llama-3.1-70b"),
    ],
)
def test_did_you_mean(typed, first, catalog_skus):
    assert close_names(typed, catalog_skus)[0] == first


def test_did_you_mean_is_empty_when_nothing_is_close(catalog_skus):
    assert close_names("zzzz", catalog_skus) == []
    assert close_names("", catalog_skus) == []


@pytest.fixture(scope="module")
def catalog_skus():
    from slotwise.parts.catalog import load_catalog

    cat = load_catalog()
    return list(cat.gpus) + list(cat.models)


def test_unknown_model_id_says_did_you_mean(capsys):
    assert main(["estimate", "llama-3.1-7", "--gpu", "NVIDIA-H200-NVL-141GB"]) == 2
    err = capsys.readouterr().err
    assert "Did you mean llama-3.1-70b" in err or "Did you mean llama-3.1-8b" in err


@pytest.mark.parametrize("command", ["parts", "validate", "estimate", "suggest", "export"])
def test_help_names_no_internal_modules(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    for internal in ("engine.", "tui.", "parts.catalog", ".py"):
        assert internal not in out, (command, internal)


def test_parts_prints_whole_names(capsys):
    from slotwise.parts.catalog import load_catalog

    assert main(["parts", "--kind", "gpu"]) == 0
    out = capsys.readouterr().out
    for gpu in load_catalog().gpus.values():
        assert gpu.name in out
