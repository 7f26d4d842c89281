"""Issue #29: a state directory someone else can reach (symbolic links planted in it, other
users reading it, leftovers) never harms the user.  Each test is one reproduction of the issue."""

from __future__ import annotations

import os
import stat
import time

import pytest

from slotwise.engine.build import Build
from slotwise.tui.autosave import TRASH_KEEP, Autosave, AutosaveError, AutosaveStore
from tests.tui.test_autosave import T0


def _victim(tmp_path, text="precious\n", mode=0o640):
    v = tmp_path / "victim.txt"
    v.write_text(text)
    os.chmod(v, mode)
    return v


def test_lock_through_a_planted_symlink_is_refused_and_the_target_untouched(tmp_path):
    victim = _victim(tmp_path)
    a = Autosave(tmp_path / "state", build_id="b1")
    a.dir.mkdir(parents=True)
    os.symlink(victim, a.lock_path)
    with pytest.raises(AutosaveError, match="symbolic link"):
        a.lock()
    assert victim.read_text() == "precious\n"
    assert a.holder() is None  # reading who holds it does not follow the link either


def test_save_through_a_symlinked_autosave_copies_no_mode_and_writes_nothing_through(tmp_path):
    victim = _victim(tmp_path, mode=0o4777)
    a = Autosave(tmp_path / "state", build_id="b1")
    a.dir.mkdir(parents=True)
    os.symlink(victim, a.path)
    a.save(Build(chassis="C"))
    assert victim.read_text() == "precious\n"
    assert stat.S_IMODE(victim.stat().st_mode) == 0o4777  # the target is left alone
    st = os.lstat(a.path)
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600


def test_a_symlinked_autosave_is_set_aside_not_read_through(tmp_path):
    victim = _victim(tmp_path, text='{"version": 1}')
    a = Autosave(tmp_path / "state", build_id="b1")
    a.dir.mkdir(parents=True)
    os.symlink(victim, a.path)
    assert a.load() is None and "symbolic link" in (a.problem or "")
    assert victim.read_text() == '{"version": 1}'


def test_symlinked_trash_is_refused_and_the_purge_deletes_nothing_through_it(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    old = T0 - TRASH_KEEP * 2
    theirs = elsewhere / f"20200101T000000Z-abcdef.discarded-{old.strftime('%Y%m%dT%H%M%SZ')}.json"
    theirs.write_text("someone else's file")
    state = tmp_path / "state"
    state.mkdir()
    os.symlink(elsewhere, state / "trash")
    a = Autosave(state, build_id="b1", clock=lambda: T0)
    a.save(Build(chassis="C"))
    with pytest.raises(AutosaveError, match="symbolic link"):
        a.discard()
    assert a.exists()  # refused: nothing moved
    store = AutosaveStore(state, clock=lambda: T0)
    store.entries()
    assert theirs.exists()
    assert any("symbolic link" in p for p in store.problems)


def test_symlinked_autosaves_dir_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    state = tmp_path / "state"
    state.mkdir()
    os.symlink(elsewhere, state / "autosaves")
    with pytest.raises(AutosaveError, match="symbolic link"):
        Autosave(state).save(Build(chassis="C"))
    with pytest.raises(AutosaveError, match="symbolic link"):
        Autosave(state).lock()
    assert list(elsewhere.iterdir()) == []


def test_purge_deletes_only_regular_files_named_by_discard(tmp_path):
    state = tmp_path / "state"
    trash = state / "trash"
    trash.mkdir(parents=True)
    old = (T0 - TRASH_KEEP * 2).strftime("%Y%m%dT%H%M%SZ")
    victim = _victim(tmp_path)
    ours = trash / f"b1.discarded-{old}.json"
    ours.write_text("{}")
    link = trash / f"b2.discarded-{old}.json"
    os.symlink(victim, link)
    odd = trash / f"not ours!.discarded-{old}.json"
    odd.write_text("{}")
    AutosaveStore(state, clock=lambda: T0).entries()
    assert not ours.exists()
    assert os.path.lexists(link) and victim.exists()  # a link is not a file discard made
    assert odd.exists()


def test_state_is_private_dirs_0700_files_0600(tmp_path):
    state = tmp_path / "state"
    (state / "autosaves").mkdir(parents=True, mode=0o755)
    os.chmod(state / "autosaves", 0o755)  # as an older slotwise left it
    a = Autosave(state, clock=lambda: T0)
    assert a.lock() is None
    a.save(Build(chassis="C"))
    assert stat.S_IMODE(os.stat(state / "autosaves").st_mode) == 0o700
    assert stat.S_IMODE(os.stat(a.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(a.lock_path).st_mode) == 0o600
    dest = a.discard()
    assert dest is not None
    assert stat.S_IMODE(os.stat(dest.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(dest).st_mode) == 0o600
    a.unlock()


def test_stale_temp_and_lock_files_are_cleaned(tmp_path):
    state = tmp_path / "state"
    a = Autosave(state, build_id="20261201T030000Z-aaaaaa")
    a.save(Build(chassis="C"))
    old_tmp = a.dir / f".{a.path.name}.x1y2z3.tmp"
    old_tmp.write_text("half a sa")
    stale = time.time() - 24 * 3600  # a day old: a save takes milliseconds
    os.utime(old_tmp, (stale, stale))
    fresh_tmp = a.dir / f".{a.path.name}.q9w8e7.tmp"  # a save in progress right now
    fresh_tmp.write_text("half")
    orphan_lock = a.dir / "20261130T030000Z-bbbbbb.lock"  # its slotwise died, build discarded
    orphan_lock.write_text("1 host\n")
    held = Autosave(state, build_id="20261201T040000Z-cccccc")
    assert held.lock() is None  # a live slotwise that has not saved yet
    AutosaveStore(state).entries()
    assert not old_tmp.exists() and fresh_tmp.exists()
    assert not orphan_lock.exists() and held.lock_path.exists()
    held.unlock()


def test_discard_takes_the_lock_or_refuses(tmp_path):
    state = tmp_path / "state"
    mine = Autosave(state, build_id="b1")
    mine.save(Build(chassis="C"))
    other = Autosave(state, build_id="b1")  # another slotwise resumed it
    assert other.lock() is None
    with pytest.raises(AutosaveError, match="open in another slotwise"):  # AutosaveBusy
        mine.discard()
    assert mine.exists()
    other.unlock()
    assert mine.discard() is not None and not mine.lock_path.exists()


def test_lock_on_a_full_disk_still_locks(tmp_path, monkeypatch):
    a = Autosave(tmp_path / "state", build_id="b1")
    a.dir.mkdir(parents=True)
    real_write = os.write

    def full(fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    assert a.lock() is None  # the flock holds; only the pid note could not be written
    monkeypatch.setattr(os, "write", real_write)
    assert Autosave(tmp_path / "state", build_id="b1").lock() is not None
    a.unlock()
