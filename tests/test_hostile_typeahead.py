"""Issue #29 item 8: keys typed while a modal opens were lost (or worse: "q" typed ahead of
the part picker quit the app).  In a real terminal, Enter (open the picker) and the search text
arrive in one read; the picker must get the text."""

from __future__ import annotations

import sys
import time

import pytest

from tests.tui.test_autosave_sighup import Terminal

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty"),
    pytest.mark.slow,
]


def test_keys_typed_ahead_of_the_picker_reach_its_search(tmp_path):
    term = Terminal(tmp_path / "state")
    try:
        term.wait_text("SYS-421GE-TNRT")
        term.press("\r")
        term.wait_text("Pick part")
        time.sleep(0.5)
        at = term.mark()
        term.press("\rqzx")  # open the picker and type at once, as a fast typist does
        term.wait_text("search:", since=at)
        term.wait_text("qzx", since=at, timeout=10)
        assert term.proc.poll() is None  # "q" did not quit the app underneath
    finally:
        term.close()
