"""Autosave/resume state and the atomic write helper underneath it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from slotwise.engine.bom.meta import BomMeta
from slotwise.engine.build import BridgeFit, Build, DriveFit, Environment
from slotwise.engine.build.edits import AddBridge, Place, SetEnv
from slotwise.engine.store.atomic import atomic_write_bytes, atomic_write_text
from slotwise.engine.workload import Workload
from slotwise.tui.autosave import (
    LEGACY_FILE,
    STATE_ENV,
    TRASH_KEEP,
    Autosave,
    AutosaveError,
    AutosaveStore,
    LockHolder,
)

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
    a.save(build, undo, redo, bom_path=tmp_path / "x.toml", meta=meta, saved=undo[1])
    st = Autosave(tmp_path / "state", build_id=a.build_id).load()
    assert st is not None
    assert st.build == build
    assert list(st.undo) == undo
    assert list(st.redo) == redo
    assert st.bom_path == str(tmp_path / "x.toml")
    assert st.meta == meta
    assert st.saved_at == T0
    assert st.saved == undo[1] and st.unexported
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


def test_discard_moves_to_trash_with_the_time_and_trash_is_emptied_after_a_week(tmp_path):
    now = [T0]
    a = Autosave(tmp_path, clock=lambda: now[0])
    a.save(Build(chassis="C"))
    (a.dir / f".{a.path.name}.abc123.tmp").write_text("half a sa")  # left by a killed save
    (a.dir / "keep.txt").write_text("not ours")
    dest = a.discard()
    assert dest == tmp_path / "trash" / f"{a.build_id}.discarded-20261201T030000Z.json"
    assert json.loads(dest.read_text())["build"]["chassis"] == "C"  # kept, not deleted
    assert sorted(p.name for p in a.dir.iterdir()) == ["keep.txt"]
    assert a.load() is None and a.discard() is None  # discarding twice is fine
    store = AutosaveStore(tmp_path, clock=lambda: now[0])
    now[0] = T0 + TRASH_KEEP - timedelta(minutes=1)
    assert store.entries() == [] and dest.exists()
    now[0] = T0 + TRASH_KEEP + timedelta(minutes=1)
    store.entries()
    assert not dest.exists()


def test_store_lists_one_autosave_per_build_newest_first(tmp_path):
    now = [T0]
    store = AutosaveStore(tmp_path, clock=lambda: now[0])
    first, second = store.new(), store.new()
    assert first.build_id != second.build_id and first.path != second.path
    second.save(Build(chassis="B"))
    now[0] = T0 + timedelta(minutes=5)
    first.save(Build(chassis="A"), undo=[Build(chassis="Z")], undo_labels=["start over on A"])
    got = AutosaveStore(tmp_path).entries()
    assert [e.state.build.chassis for e in got] == ["A", "B"]
    assert got[0].state.undo_labels == ("start over on A",)
    assert all(e.locked_by is None for e in got)


def test_lock_keeps_a_second_editor_out_and_frees_on_unlock(tmp_path):
    a = Autosave(tmp_path, build_id="b1")
    assert a.lock() is None and a.lock() is None  # taking it twice is fine
    other = Autosave(tmp_path, build_id="b1")  # another slotwise (flock: per open file)
    holder = other.lock()
    assert holder == LockHolder(os.getpid(), socket.gethostname())
    a.save(Build(chassis="C"))
    (entry,) = AutosaveStore(tmp_path).entries()
    assert entry.locked_by is not None and entry.locked_by.pid == os.getpid()
    a.unlock()
    assert other.lock() is None
    other.unlock()


def test_stale_lock_of_a_dead_process_is_taken_over(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = int(proc.stdout)
    a = Autosave(tmp_path, build_id="b1")
    a.dir.mkdir(parents=True)
    a.lock_path.write_text(f"{dead} {socket.gethostname()}\n")
    assert a.holder() is None  # nobody holds it: the process is gone
    assert a.lock() is None
    assert a.lock_path.read_text().split()[0] == str(os.getpid())
    a.unlock()


def test_autosave_of_an_older_slotwise_is_adopted(tmp_path):
    legacy = tmp_path / LEGACY_FILE
    Autosave(tmp_path, build_id="x").save(Build(chassis="OLD"))
    os.replace(tmp_path / "autosaves" / "x.json", legacy)
    (entry,) = AutosaveStore(tmp_path).entries()
    assert entry.state.build.chassis == "OLD" and not legacy.exists()


def test_env_var_sets_state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(STATE_ENV, str(tmp_path / "env-state"))
    a = Autosave()
    a.save(Build(chassis="C"))
    assert a.path.parent == tmp_path / "env-state" / "autosaves" and a.path.is_file()


@pytest.mark.parametrize(
    "content, why",
    [
        ('{"version": 1, "build": {"chass', "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"version": 99}', "version 99"),
        ('{"version": 1, "saved_at": "2026-12-01T03:00:00Z", "build": {}}', "build.chassis"),
        (b"\xff\xfe\x00garbage", "cannot read"),
        ('{"version": 1, "build": ' + "[" * 100_000 + "]" * 100_000 + "}", "nests too deeply"),
    ],
)
def test_unreadable_autosave_is_set_aside_not_lost(tmp_path, content, why):
    a = Autosave(tmp_path, build_id="b")
    a.dir.mkdir()
    raw = content if isinstance(content, bytes) else content.encode()
    a.path.write_bytes(raw)
    assert a.load() is None
    assert a.problem is not None and why in a.problem
    aside = a.dir / "b.json.unreadable-1"
    assert aside.read_bytes() == raw  # the data is kept, byte for byte
    assert str(aside) in a.problem
    assert not a.path.exists()
    # a second bad file goes to -2, the first stays
    a.path.write_bytes(raw)
    store = AutosaveStore(tmp_path)
    assert store.entries() == [] and why in store.problems[0]
    assert (a.dir / "b.json.unreadable-2").read_bytes() == raw


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
