"""Hot exit (issue #14): no key, quit path or second instance loses autosaved work.

Each data-loss path the issue lists has a Pilot test here: Ctrl+Q and Esc on the start
screen, the palette's built-in "Quit", two instances on one build, opening a BOM that has an
unexported autosave, corrupt and unknown-chassis autosaves, and undo labels after a resume."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from textual.command import CommandList

from slotwise.engine.build import Build
from slotwise.tui.autosave import AutosaveStore
from slotwise.tui.screens.build import BuildScreen
from slotwise.tui.screens.chooser import ChassisChooser
from slotwise.tui.screens.confirm import ConfirmScreen
from slotwise.tui.screens.message import ErrorScreen
from slotwise.tui.screens.recover import RecoverScreen
from tests.tui.tui_helpers import CHASSIS, GPU, choose_chassis, keys_for, pick, started

BUILD = Build(chassis=CHASSIS, slots={"1": GPU}, cpu="XEON-8480+", cpu_count=2)


def autosave(state_dir, build=BUILD, **kw):
    """An autosaved build as a killed slotwise leaves it; returns its Autosave."""
    slot = AutosaveStore(state_dir).new()
    slot.save(build, undo=[Build(chassis=CHASSIS)], undo_labels=["put H200 in slot 1"], **kw)
    return slot


def files(state_dir) -> list[str]:
    return sorted(p.name for p in (state_dir / "autosaves").glob("*.json"))


async def test_quit_with_unsaved_work_asks_and_resume_restores_with_labels(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await choose_chassis(pilot)
        await pick(pilot, "slot:1", "h200")
        label = app.history.undo_labels[-1]
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, BuildScreen)
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
    assert app.return_code == 0
    saved = app.history.current

    again = make_app()
    async with again.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        assert isinstance(again.screen, RecoverScreen)  # the start screen lists it
        listed = str(again.screen.query_one("#recover-list").get_option_at_index(0).prompt)
        assert "2026-01-15 09:30 UTC" in listed and CHASSIS in listed and f"1 × {GPU}" in listed
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(again.screen, BuildScreen)
        assert again.history.current == saved and again.dirty
        assert again.history.undo_labels == [label]  # not "resumed change"
        await pilot.press("u")  # the undo history came back too
        assert again.history.current.slots == {}
        assert any(f"Undid: {label}" in n.message for n in again._notifications)


async def test_ctrl_q_and_esc_on_the_start_screen_keep_the_autosave(make_app, state_dir):
    slot = autosave(state_dir)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        assert isinstance(app.screen, RecoverScreen)
        await pilot.press("escape")  # not bound: cancel never discards
        await pilot.pause()
        assert isinstance(app.screen, RecoverScreen)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0 and slot.exists()

    app = make_app()  # "n": a new build; the autosave stays listed; quitting keeps it
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, ChassisChooser)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert slot.exists() and files(state_dir) == [slot.path.name]


async def test_discard_needs_y_and_keeps_the_file_in_the_trash(make_app, state_dir):
    slot = autosave(state_dir)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("enter")  # Enter is "keep it" on a destructive question
        await pilot.pause()
        assert isinstance(app.screen, RecoverScreen) and slot.exists()
        await pilot.press("d", "y")
        await pilot.pause()
        assert not slot.exists()
        assert isinstance(app.screen, ChassisChooser)  # nothing left to resume
    (trashed,) = (state_dir / "trash").iterdir()
    assert trashed.name.startswith(slot.build_id + ".discarded-")


async def _palette_quit(pilot) -> None:
    """Ctrl+P, "quit", and choose Textual's own system command (not ours)."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*keys_for("quit"))
    for _ in range(100):
        found = pilot.app.screen.query(CommandList)
        if found:
            cl = found.first()
            hits = [str(cl.get_option_at_index(i).prompt) for i in range(cl.option_count)]
            idx = [i for i, h in enumerate(hits) if "as soon as possible" in h]
            if idx:
                cl.highlighted = idx[0]
                break
        await pilot.pause(0.05)
    else:
        raise AssertionError("the palette never offered Textual's Quit")
    await pilot.press("enter")
    await pilot.pause()


async def test_palette_quit_goes_through_the_unsaved_work_check(make_app, state_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await choose_chassis(pilot)
        await pick(pilot, "slot:1", "h200")
        await _palette_quit(pilot)
        assert isinstance(app.screen, ConfirmScreen), app.screen
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, BuildScreen) and app.return_code is None
        assert app.slot.exists()


async def test_second_instance_edits_a_copy_and_never_touches_the_first(make_app, state_dir):
    first = autosave(state_dir)
    assert first.lock() is None  # the first slotwise is running and editing it
    before = first.path.read_bytes()
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        assert isinstance(app.screen, RecoverScreen)
        listed = str(app.screen.query_one("#recover-list").get_option_at_index(0).prompt)
        assert f"open in another slotwise (pid {os.getpid()})" in listed
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, BuildScreen) and app.history.current == BUILD
        assert app.slot.build_id != first.build_id  # a copy in its own slot
        await pick(pilot, "slot:3", "h200")
        await pilot.press("ctrl+q", "y")
        await pilot.pause()
    assert first.path.read_bytes() == before  # untouched
    assert len(files(state_dir)) == 2
    first.unlock()

    # A second instance that starts afresh and quits leaves the first's autosave alone.
    assert first.lock() is None
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("n")
        await pilot.pause()
        await choose_chassis(pilot)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert first.path.read_bytes() == before
    first.unlock()


async def test_stale_lock_of_a_killed_slotwise_is_taken_over(make_app, state_dir):
    slot = autosave(state_dir)
    dead = int(subprocess.check_output([sys.executable, "-c", "import os; print(os.getpid())"]))
    slot.lock_path.write_text(f"{dead} {socket.gethostname()}\n")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        listed = str(app.screen.query_one("#recover-list").get_option_at_index(0).prompt)
        assert "another slotwise" not in listed
        await pilot.press("enter")
        await pilot.pause()
        assert app.slot.build_id == slot.build_id  # the same build, not a copy
        assert slot.lock_path.read_text().split()[0] == str(os.getpid())


async def test_opening_a_bom_with_an_unexported_autosave_asks(make_app, state_dir, tmp_path):
    app = make_app(build=BUILD)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        bom = tmp_path / "customer.toml"
        assert app.export_to(bom, force=False)
    edited = BUILD.with_(slots={"1": GPU, "3": GPU})
    slot = autosave(state_dir, build=edited, bom_path=str(bom), saved=BUILD)

    app = make_app(bom=str(bom))  # "n": open the file as saved; the autosave is kept
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "not in the file" in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, BuildScreen) and app.history.current == BUILD
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert slot.exists() and slot.load().build == edited

    app = make_app(bom=str(bom))  # "y": resume the autosave
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("y")
        await pilot.pause()
        assert app.history.current == edited and app.slot.build_id == slot.build_id
        assert app.dirty


async def test_bad_autosaves_are_set_aside_with_a_message(make_app, state_dir):
    good = autosave(state_dir)
    deep = AutosaveStore(state_dir).new()
    deep.path.write_text('{"version": 1, "build": ' + "[" * 50_000 + "]" * 50_000 + "}")
    alien = autosave(state_dir, build=Build(chassis="SYS-NOT-IN-CATALOG"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        assert isinstance(app.screen, ErrorScreen)
        msg = app.screen.message
        assert "nests too deeply" in msg and "SYS-NOT-IN-CATALOG" in msg
        assert f"{deep.path}.unreadable-1" in msg and f"{alien.path}.unreadable-1" in msg
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RecoverScreen)  # the good one is still offered
        assert [e.build_id for e in app.screen.entries] == [good.build_id]
    assert os.path.exists(f"{deep.path}.unreadable-1")
    assert os.path.exists(f"{alien.path}.unreadable-1")
