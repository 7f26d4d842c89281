"""Pinned options survive a dropped SSH link: the real app, in a pseudo-terminal, pins option A,
edits B, is killed by SIGHUP; the next `slotwise` resumes the build and A and B are back with
their letters (each option's autosave carries the session and its letter)."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import pytest

from slotwise.tui.autosave import AutosaveStore
from tests.tui.test_autosave_sighup import Terminal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")


def wait_entries(state_dir: Path, pred, timeout: float = 30):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = AutosaveStore(state_dir).entries()
        if pred(last):
            return last
        time.sleep(0.05)
    raise AssertionError(f"autosaves never reached the expected state; last: {last!r}")


def _letters(entries) -> dict[str, object]:
    return {e.state.option: e.state for e in entries if e.state.option}


def test_pinned_options_come_back_after_sighup(tmp_path):
    state_dir = tmp_path / "state"
    term = Terminal(state_dir)
    try:
        term.wait_text("SYS-421GE-TNRT")
        term.press("\r")  # a build on the highlighted chassis
        term.wait_text("Pick part")
        at = term.mark()
        term.press("\r")  # the part picker on the first row
        term.wait_text("search:", since=at)
        term.press("\r")  # fit the first part offered
        wait_entries(state_dir, lambda es: len(es) == 1 and len(es[0].state.undo) == 1)
        at = term.mark()
        term.press("p")  # pin: A is kept, B (a copy) is edited
        term.wait_text("Pinned Option A", since=at)
        term.press("j")
        at = term.mark()
        term.press("\r")
        term.wait_text("search:", since=at)
        term.press("\r")  # B gets a second part: A and B differ
        before = wait_entries(
            state_dir,
            lambda es: set(_letters(es)) == {"A", "B"} and len(_letters(es)["B"].undo) == 1,
        )
    except BaseException:
        term.close()
        raise
    assert term.hangup() == -signal.SIGHUP

    after = AutosaveStore(state_dir).entries()
    states = _letters(after)
    assert set(states) == {"A", "B"}
    assert states["A"].session == states["B"].session is not None
    assert states["A"].build != states["B"].build
    a_build, b_build = states["A"].build, states["B"].build
    assert _letters(before)["A"].build == a_build

    term = Terminal(state_dir)
    try:
        term.wait_text("Recoverable builds")
        term.wait_text("Option A")
        at = term.mark()
        term.press("y")  # resume the highlighted build: its session's options come back
        term.wait_text("are back", since=at)
        at = term.mark()
        term.press("\x1b[17~")  # F6: compare the options
        term.wait_text("Option A", since=at)
        term.wait_text("Option B", since=at)
        # both autosaves are this app's again, letters and builds unchanged
        es = wait_entries(state_dir, lambda es: all(e.locked_by is not None for e in es))
        states = _letters(es)
        assert set(states) == {"A", "B"}
        assert states["A"].build == a_build and states["B"].build == b_build
    finally:
        term.hangup()
