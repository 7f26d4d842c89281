"""The real app, in a real terminal, killed by SIGHUP mid-session, resumes exactly.

`python -m slotwise.tui.cli` runs in a pseudo-terminal (as over SSH) with its own state dir.  We make
two edits and one undo through the keyboard, wait until the autosave shows them, send SIGHUP
(what the kernel sends when the SSH session drops) and check the autosave on disk.  A second
`slotwise` offers to resume; after "y" the undo and redo stacks behave exactly as before the
kill.  A second test does the same with a bare subprocess that only uses the Autosave API, so
the guarantee is checked even without a terminal.

POSIX only (pty); each test has a hard time limit so a stuck app can never hang the suite.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import textwrap
import threading
import time
from pathlib import Path

import pytest

from slotwise.engine.build.edits import Place
from slotwise.tui.autosave import Autosave, AutosaveStore
from tests.paths import REPO

ROOT = REPO


def _default_sighup() -> None:
    """A child of `nohup` (or of a CI runner that ignores SIGHUP) inherits SIG_IGN; a user's
    shell over SSH does not.  Restore the default so the hangup kills, as it would there."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


ANSI = re.compile(
    rb"\x1b\[[0-9;?<>=]*[A-Za-z~]|\x1b[()][A-Z0-9]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[=>]"
)

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty"),
    pytest.mark.slow,  # real processes under a pty, killed mid-save
]


class Terminal:
    """The app on a 120x40 pseudo-terminal; output drained by a thread so it never blocks."""

    def __init__(self, state_dir: Path):
        env = dict(
            os.environ,
            SLOTWISE_STATE_DIR=str(state_dir),
            TERM="xterm-256color",
            COLUMNS="120",
            LINES="40",
            TEXTUAL_ANIMATIONS="none",
        )
        env.pop("SLOTWISE_CATALOG", None)
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "slotwise.tui.cli"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=ROOT,
            start_new_session=True,  # its own session and controlling terminal, as under sshd
            preexec_fn=_default_sighup,
        )
        os.close(slave)
        self.raw = bytearray()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.raw.extend(data)

    def mark(self) -> int:
        """A position in the output; ``wait_text(..., since=mark)`` looks only after it."""
        return len(self.raw)

    def text(self, since: int = 0) -> str:
        return ANSI.sub(b"", bytes(self.raw[since:])).decode("utf-8", "replace")

    def wait_text(self, needle: str, since: int = 0, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while needle not in self.text(since):
            if self.proc.poll() is not None:
                raise AssertionError(f"app exited ({self.proc.returncode}):\n{self.text()[-2000:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no {needle!r} on screen:\n{self.text()[-2000:]}")
            time.sleep(0.05)

    def press(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def hangup(self) -> int:
        self.proc.send_signal(signal.SIGHUP)
        try:
            return self.proc.wait(15)
        finally:
            self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        os.close(self.master)


def wait_state(state_dir: Path, pred, timeout: float = 30):
    """Poll the autosave until ``pred(state)`` holds (saves are atomic: never a torn read)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        entries = AutosaveStore(state_dir).entries()
        assert len(entries) <= 1, entries  # one build: one autosave
        last = entries[0].state if entries else None
        if last is not None and pred(last):
            return last
        time.sleep(0.05)
    raise AssertionError(f"autosave never reached the expected state; last: {last!r}")


def stacks(st):
    return st.build, list(st.undo), list(st.redo)


def test_app_killed_by_sighup_resumes_exactly(tmp_path):
    state_dir = tmp_path / "state"
    term = Terminal(state_dir)
    try:
        term.wait_text("SYS-421GE-TNRT")  # the chassis chooser (no autosave yet)
        term.press("\r")  # start a build on the highlighted chassis
        term.wait_text("Pick part")
        for step in (1, 2):
            if step == 2:
                term.press("j")  # next row of the chassis map
            at = term.mark()
            term.press("\r")  # open the part picker on this row
            term.wait_text("search:", since=at)
            term.press("\r")  # fit the first part offered
            wait_state(state_dir, lambda s, n=step: len(s.undo) == n)
        term.press("u")  # undo: one step back, one step to redo
        before = wait_state(state_dir, lambda s: len(s.undo) == 1 and len(s.redo) == 1)
    except BaseException:
        term.close()
        raise
    code = term.hangup()
    assert code == -signal.SIGHUP  # it died of the hangup: no chance to save on the way out

    (entry,) = AutosaveStore(state_dir).entries()
    after = entry.state
    assert entry.locked_by is None  # the dead process's lock is free
    assert stacks(after) == stacks(before)
    assert after.undo_labels[0].startswith("put ")  # step labels survive the kill
    names = sorted(p.name for p in (state_dir / "autosaves").iterdir())
    assert names == [f"{entry.build_id}.json", f"{entry.build_id}.lock"]  # no temp leftovers
    cur, undo, redo = stacks(before)
    assert cur != undo[0] and cur != redo[0]

    # The next `slotwise` lists it on its start screen; "y" resumes the build with both stacks.
    term = Terminal(state_dir)
    try:
        term.wait_text("Recoverable builds")
        at = term.mark()
        term.press("y")
        term.wait_text("Pick part", since=at)
        term.press("r")  # redo the step undone before the kill
        st = wait_state(state_dir, lambda s: len(s.undo) == 2 and not s.redo)
        assert st.build == redo[0] and list(st.undo) == [undo[0], cur]
        term.press("u")
        term.press("u")  # back to the very first state, before any edit
        st = wait_state(state_dir, lambda s: not s.undo and len(s.redo) == 2)
        assert st.build == undo[0]
    finally:
        term.hangup()


DRIVER = textwrap.dedent(
    """
    import sys, time
    from slotwise.tui.autosave import Autosave, AutosaveStore
    from slotwise.engine.build import Build
    from slotwise.engine.build.edits import Place

    autosave = Autosave(sys.argv[1], build_id="loop")
    build, undo = Build(chassis="SYS-421GE-TNRT"), []
    for i in range(1, 100000):          # an endless edit loop: one change, one save
        undo.append(build)
        build = Place(slot=str(i % 10 + 1), sku=f"GPU-{i}").apply(build)
        autosave.save(build, undo=undo[-50:], redo=[])
        if i == 20:
            print("ready", flush=True)
    """
)


def test_sighup_during_save_loop_never_tears_the_autosave(tmp_path):
    """Kill a process that saves as fast as it can: the autosave is always a whole state."""
    for attempt in range(5):
        state_dir = tmp_path / f"s{attempt}"
        proc = subprocess.Popen(
            [sys.executable, "-c", DRIVER, str(state_dir)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=_default_sighup,
        )
        try:
            assert proc.stdout.readline().strip() == "ready"
            time.sleep(0.02 * attempt)
            proc.send_signal(signal.SIGHUP)
            assert proc.wait(15) == -signal.SIGHUP
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(5)
            proc.stdout.close()
        a = Autosave(state_dir, build_id="loop")
        st = a.load()
        assert a.problem is None and st is not None  # never torn, never unreadable
        # the newest edit is the one on top of the last undo entry: build and stack agree
        i = max(int(sku.split("-")[1]) for sku in st.build.slots.values())
        assert i >= 20 and len(st.undo) == min(50, i)
        assert Place(slot=str(i % 10 + 1), sku=f"GPU-{i}").apply(st.undo[-1]) == st.build
        leftovers = [p.name for p in a.dir.iterdir() if p.name != "loop.json"]
        assert all(name.startswith(".loop.json.") for name in leftovers)  # at most a temp
