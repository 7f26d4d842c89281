"""Autosave/resume state and the atomic write helper underneath it."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime

import pytest

from engine.atomic import atomic_write_bytes, atomic_write_text
from engine.autosave import STATE_ENV, Autosave, AutosaveError
from engine.bom.meta import BomMeta
from engine.build import BridgeFit, Build, DriveFit, Environment
from engine.edits import AddBridge, Place, SetEnv
from engine.workload import Workload

T0 = datetime(2026, 12, 1, 3, 0, 0, tzinfo=UTC)


def clock():
    return T0


def _history() -> tuple[Build, list[Build], list[Build]]:
    b0 = Build(chassis="SYS-421GE-TNRT", cpu="XEON-8480+", cpu_count=2)
    b1 = Place(slot="1", sku="NVIDIA-H200-NVL-141GB").apply(b0)
    b2 = Place(slot="3", sku="NVIDIA-H200-NVL-141GB").apply(b1)
    b3 = AddBridge(sku="NVLINK-H200-NVL-2WAY", slots=("1", "3"), count=3).apply(b2)
    b4 = SetEnv(env=Environment(input_voltage="100-127", ambient_c=30.5, redundancy="N+N")).apply(
        b3
    )
    b5 = b4.with_(
        workload=Workload(model="llama-3.1-70b", method="lora", tokens=2.5e9, lora_rank=8),
        drives=(DriveFit(bay="nvme", sku="X", count=2),),
    )
    # undo stack holds b0..b3, current is b5 (b4 was undone then the workload set), redo b4
    return b5, [b0, b1, b2, b3], [b4]


def test_save_then_load_restores_exactly(tmp_path):
    build, undo, redo = _history()
    meta = BomMeta.new(clock=clock, customer="ACME", project="LoRA box")
    a = Autosave(tmp_path / "state", clock=clock)
    a.save(build, undo, redo, bom_path=tmp_path / "x.toml", meta=meta)
    st = Autosave(tmp_path / "state").load()
    assert st is not None
    assert st.build == build
    assert list(st.undo) == undo
    assert list(st.redo) == redo
    assert st.bom_path == str(tmp_path / "x.toml")
    assert st.meta == meta
    assert st.saved_at == T0
    assert isinstance(st.build.bridges[0], BridgeFit)


def test_undo_labels_round_trip_and_must_match(tmp_path):
    build, undo, redo = _history()
    a = Autosave(tmp_path, clock=clock)
    labels = [f"step {i}" for i in range(len(undo))]
    a.save(build, undo, redo, undo_labels=labels, redo_labels=["redo me"])
    st = a.load()
    assert list(st.undo_labels) == labels and st.redo_labels == ("redo me",)
    with pytest.raises(ValueError, match="undo_labels has 1 entries for 4 builds"):
        a.save(build, undo, redo, undo_labels=["x"])
    assert a.load().undo_labels == tuple(labels)  # the refused save changed nothing


def test_load_without_autosave_is_none(tmp_path):
    a = Autosave(tmp_path)
    assert a.load() is None
    assert a.problem is None
    assert not a.exists()


def test_clear_forgets(tmp_path):
    a = Autosave(tmp_path)
    a.save(Build(chassis="C"))
    assert a.exists()
    a.clear()
    assert a.load() is None
    a.clear()  # clearing twice is fine


def test_clear_removes_temp_files_left_by_a_killed_save(tmp_path):
    a = Autosave(tmp_path)
    a.save(Build(chassis="C"))
    (tmp_path / ".autosave.json.abc123.tmp").write_text("half a sa")
    (tmp_path / "keep.txt").write_text("not ours")
    a.clear()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_env_var_sets_state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(STATE_ENV, str(tmp_path / "env-state"))
    a = Autosave()
    a.save(Build(chassis="C"))
    assert (tmp_path / "env-state" / "autosave.json").is_file()


@pytest.mark.parametrize(
    "content, why",
    [
        ('{"version": 1, "build": {"chass', "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"version": 99}', "version 99"),
        ('{"version": 1, "saved_at": "2026-12-01T03:00:00Z", "build": {}}', "build.chassis"),
        (b"\xff\xfe\x00garbage", "cannot read"),
    ],
)
def test_unreadable_autosave_is_set_aside_not_lost(tmp_path, content, why):
    a = Autosave(tmp_path)
    raw = content if isinstance(content, bytes) else content.encode()
    a.path.write_bytes(raw)
    assert a.load() is None
    assert a.problem is not None and why in a.problem
    aside = tmp_path / "autosave.json.unreadable-1"
    assert aside.read_bytes() == raw  # the data is kept, byte for byte
    assert str(aside) in a.problem
    assert not a.path.exists()
    # a second bad file goes to -2, the first stays
    a.path.write_bytes(raw)
    a.load()
    assert (tmp_path / "autosave.json.unreadable-2").read_bytes() == raw


def test_save_to_unwritable_place_raises_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    a = Autosave(blocker / "state")
    with pytest.raises(AutosaveError) as exc:
        a.save(Build(chassis="C"))
    assert str(blocker / "state") in str(exc.value)
    assert STATE_ENV in str(exc.value)


def test_autosave_file_is_json_with_version(tmp_path):
    a = Autosave(tmp_path, clock=clock)
    a.save(Build(chassis="C"))
    data = json.loads(a.path.read_text())
    assert data["version"] == 1
    assert data["build"]["chassis"] == "C"


# ---------------------------------------------------------------------------------- atomic


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path):
    p = tmp_path / "f.txt"
    atomic_write_text(p, "one\n")
    atomic_write_text(p, "two\r\n")
    assert p.read_bytes() == b"two\r\n"
    assert [x.name for x in tmp_path.iterdir()] == ["f.txt"]


def test_atomic_write_no_overwrite(tmp_path):
    p = tmp_path / "f.txt"
    atomic_write_text(p, "keep", overwrite=False)
    with pytest.raises(FileExistsError):
        atomic_write_text(p, "lose", overwrite=False)
    assert p.read_text() == "keep"
    assert [x.name for x in tmp_path.iterdir()] == ["f.txt"]


def test_atomic_write_keeps_mode_of_existing_file(tmp_path):
    p = tmp_path / "f.txt"
    p.write_text("x")
    os.chmod(p, 0o640)
    atomic_write_bytes(p, b"y")
    assert (p.stat().st_mode & 0o777) == 0o640


def test_atomic_write_failure_leaves_target_untouched(tmp_path, monkeypatch):
    p = tmp_path / "f.txt"
    p.write_text("old")

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write_text(p, "new")
    assert p.read_text() == "old"
    assert [x.name for x in tmp_path.iterdir()] == ["f.txt"]


def test_atomic_write_missing_directory_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        atomic_write_text(tmp_path / "nope" / "f.txt", "x")
