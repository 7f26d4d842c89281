"""Issue #29 item 8: SIGTERM (``kill PID``) left the terminal in the alternate screen with mouse
reporting on.  Now the app quits keeping the work (the autosave, the lock freed) and Textual puts
the terminal back.  The real app in a pseudo-terminal, as in tests/tui/test_autosave_sighup.py."""

from __future__ import annotations

import signal
import sys

import pytest

from slotwise.tui.autosave import AutosaveStore
from tests.tui.test_autosave_sighup import Terminal, wait_state

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty"),
    pytest.mark.slow,
]


def test_sigterm_quits_keeping_work_and_restores_the_terminal(tmp_path):
    state_dir = tmp_path / "state"
    term = Terminal(state_dir)
    try:
        term.wait_text("SYS-421GE-TNRT")
        term.press("\r")
        term.wait_text("Pick part")
        at = term.mark()
        term.press("\r")
        term.wait_text("search:", since=at)
        term.press("\r")
        before = wait_state(state_dir, lambda s: len(s.undo) == 1)
        end = term.mark()
        term.proc.send_signal(signal.SIGTERM)
        code = term.proc.wait(15)
        tail = bytes(term.raw[end:])
    finally:
        term.close()
    assert code == 0  # quit, not killed by the signal
    assert b"\x1b[?1049l" in tail  # left the alternate screen
    assert b"\x1b[?1000l" in tail  # mouse reporting off
    (entry,) = AutosaveStore(state_dir).entries()
    assert entry.state.build == before.build and entry.locked_by is None
