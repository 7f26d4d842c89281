"""Issue #29 item 4: a received BOM's ``workload.config`` cannot read the consultant's files.

Reproductions: a BOM naming ``~/...`` or an absolute path read the local file, and whether it
exists and up to 80 characters of a field landed in the exported BOM and Markdown.  Now the path
is read relative to the BOM, absolute / ``~`` / ``..`` paths are refused naming the field, and
no local-file error text reaches an export."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from slotwise.engine.bom import import_bom, read_bom
from slotwise.tui.cli import main
from tests.bom_texts import l40s_bom

FIXTURE = Path(__file__).parent / "fixtures" / "configs" / "mistralai--Mixtral-8x7B-v0.1"
SECRET = "TOPSECRET-4f1c"

BOM = l40s_bom(("1", "3"), '[workload]\nconfig = {config}\nmethod = "inference"\n')


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A home directory holding a secret JSON file, and a 'received' folder elsewhere."""
    h = tmp_path / "home"
    (h / "secret").mkdir(parents=True)
    (h / "secret" / "config.json").write_text(
        json.dumps({"model_type": SECRET, "hidden_size": SECRET})
    )
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("SLOTWISE_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)
    return h


def _received(tmp_path, config: str) -> Path:
    folder = tmp_path / "received"
    folder.mkdir(exist_ok=True)
    bom = folder / "bom.toml"
    bom.write_text(BOM.replace("{config}", json.dumps(config)))
    return bom


def _cli(capsys, *argv) -> tuple[int, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out + err


@pytest.mark.parametrize(
    "config",
    ["~/secret/config.json", "{home}/secret/config.json", "../home/secret/config.json"],
    ids=["tilde", "absolute", "dotdot"],
)
def test_a_received_bom_cannot_read_a_local_file(capsys, tmp_path, home, catalog, config):
    bom = _received(tmp_path, config.replace("{home}", str(home)))
    loaded = read_bom(bom, catalog)
    refused = [p for p in loaded.problems if p.rule == "bom.config_outside"]
    assert refused and refused[0].field == "workload.config"
    assert loaded.build is not None and loaded.build.workload is not None
    assert loaded.build.workload.config is None and loaded.refused_config is not None
    md = tmp_path / "out.md"
    for argv in (
        ("validate", str(bom)),
        ("validate", str(bom), "--json"),
        ("export", str(bom), "--format", "toml"),
        ("export", str(bom), "--format", "md", "--out", str(md)),
    ):
        rc, said = _cli(capsys, *argv)
        assert SECRET not in said, argv
        assert rc == 2, argv  # refused as bad input, naming the field
        assert "workload.config" in said
    assert not md.exists() or SECRET not in md.read_text()


def test_a_config_beside_the_bom_is_read_relative_to_the_bom(capsys, tmp_path, home, catalog):
    bom = _received(tmp_path, "mixtral/config.json")
    shutil.copytree(FIXTURE, bom.parent / "mixtral")
    loaded = read_bom(bom, catalog)  # the current folder is tmp_path, not the BOM's
    assert not [p for p in loaded.problems if p.severity == "error"], loaded.problems
    wl = loaded.build.workload
    assert wl is not None and wl.config == str((bom.parent / "mixtral/config.json").resolve())
    rc, said = _cli(capsys, "validate", str(bom), "--json")
    got = json.loads(said[: said.rindex("}") + 1])
    assert not any(f["rule"] == "workload_fit.unresolved" for f in got["findings"]), got


def test_a_symlink_out_of_the_folder_is_refused(tmp_path, home, catalog):
    bom = _received(tmp_path, "cfg.json")
    (bom.parent / "cfg.json").symlink_to(home / "secret" / "config.json")
    loaded = read_bom(bom, catalog)
    assert loaded.refused_config == "cfg.json"
    assert loaded.build.workload.config is None


def test_hub_ids_stay_hub_ids(tmp_path):
    from slotwise.engine.bom.config_path import place_config

    assert place_config("mistralai/Mixtral-8x7B-v0.1", tmp_path / "b.toml").config == (
        "mistralai/Mixtral-8x7B-v0.1"
    )


def test_no_local_file_error_text_in_an_export(tmp_path, home, catalog):
    """A config the machine cannot read: the export says only that, not the file's error."""
    from slotwise.engine.bom import export_bom
    from slotwise.engine.bom.config_path import LOCAL_READ_MESSAGE
    from slotwise.engine.bom.markdown import engineering_notes, to_markdown
    from slotwise.engine.check.evaluate import evaluate

    bom = _received(tmp_path, "bad/config.json")
    (bom.parent / "bad").mkdir()
    (bom.parent / "bad" / "config.json").write_text('{"model_type": "' + SECRET + '", ')
    loaded = import_bom(bom.read_text(), catalog, filename=str(bom))
    report = evaluate(loaded.build, catalog)
    (unresolved,) = [f for f in report.findings if f.rule == "workload_fit.unresolved"]
    assert "malformed JSON" in unresolved.message  # the user sees why, on their screen
    toml = export_bom(loaded.build, catalog, loaded.meta, report=report)
    md = to_markdown(loaded.build, catalog, loaded.meta, report)
    notes = engineering_notes(loaded.build, catalog, loaded.meta, report)
    for text in (toml, md, notes):
        assert "malformed" not in text and SECRET not in text
    assert LOCAL_READ_MESSAGE in toml and LOCAL_READ_MESSAGE in notes
