"""Time to the first usable frame of the app, against a bare Textual app in the same run.

    python bench/startup.py [--runs 5]

Each run starts a fresh interpreter that imports the app, opens it headless at 80x24 with the
real bundled catalog (loaded in the app's worker, as in use) and an empty state dir, and waits
until the chassis chooser is on screen and has focus, i.e. the user can type.  The parent
measures from just before spawning the process to the child's READY line, so interpreter
start-up and imports are included.

The baseline is a bare Textual app (one focusable list and a footer) timed the same way,
alternating with slotwise run by run so both see the same machine load.  The goal (issue
#14) is a ratio <= 1.3.  Prints each run, then ``bare_ms=``, ``first_frame_ms=`` (medians)
and ``ratio=`` as the last lines.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import asyncio, sys
sys.path.insert(0, {root!r})
from slotwise.tui.app import SlotwiseApp

async def main():
    app = SlotwiseApp(state_dir={state!r})
    async with app.run_test(size=(80, 24)) as pilot:
        from slotwise.tui.screens.chooser import ChassisChooser
        for _ in range(2000):
            scr = app.screen
            if isinstance(scr, ChassisChooser) and scr.focused is not None and scr.is_mounted:
                break
            await asyncio.sleep(0.001)
        else:
            print("TIMEOUT", flush=True)
            return
        await pilot.pause()  # one refresh: the frame is drawn
        print("READY", flush=True)
        app.exit()

asyncio.run(main())
"""


BARE = r"""
import asyncio
from textual.app import App
from textual.widgets import Footer, OptionList

class Bare(App):
    def compose(self):
        yield OptionList("one", "two", "three")
        yield Footer()

async def main():
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(2000):
            if app.screen.focused is not None:
                break
            await asyncio.sleep(0.001)
        await pilot.pause()
        print("READY", flush=True)
        app.exit()

asyncio.run(main())
"""


def one_run(bare: bool = False) -> float:
    with tempfile.TemporaryDirectory() as state:
        code = BARE if bare else CHILD.format(root=str(ROOT), state=state)
        env = {k: v for k, v in os.environ.items() if k not in ("SLOTWISE_CATALOG", "NO_COLOR")}
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", code],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        assert proc.stdout is not None
        line = proc.stdout.readline()
        t1 = time.perf_counter()
        _, err = proc.communicate(timeout=60)
        if not line.startswith("READY"):
            raise SystemExit(f"the app did not become ready: {line.strip()} {err[-2000:]}")
        return (t1 - t0) * 1000


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="time to the first usable frame of slotwise")
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args(argv)
    one_run(bare=True)  # warm the OS file cache for both, untimed
    one_run()
    times, bare = [], []
    for i in range(args.runs):
        b = one_run(bare=True)
        ms = one_run()
        bare.append(b)
        times.append(ms)
        print(f"run {i + 1}: bare Textual {b:.0f} ms, slotwise {ms:.0f} ms, ratio {ms / b:.2f}")
    print(
        f"slotwise: min {min(times):.0f} ms, median {statistics.median(times):.0f} ms, "
        f"max {max(times):.0f} ms over {len(times)} runs"
    )
    med_b, med = statistics.median(bare), statistics.median(times)
    print(f"bare_ms={med_b:.0f}")
    print(f"first_frame_ms={med:.0f}")
    print(f"ratio={med / med_b:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
