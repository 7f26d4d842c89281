"""Time to the first usable frame of the app, against a bare Textual app in the same run.

    python bench/startup.py [--runs 5]

Each run starts a fresh interpreter that imports the app, opens it headless at 80x24 with the
real bundled catalog and an empty state dir, and waits until the first screen is usable:

1. the chassis chooser is on screen with its list focused;
2. the process is idle (``pilot.pause()``: Textual's wait until CPU time stops advancing,
   i.e. the frame is drawn and nothing else is running);
3. a key sent through the driver, as a terminal would send it (Down), has moved the list's
   highlight and the screen has been redrawn after it: the user can type and sees the answer.

The parent measures from just before spawning the process to the child's READY line, so
interpreter start-up and imports are included.  The baseline is a bare Textual app (one
focusable list and a footer) put through exactly the same three steps, alternating with
slotwise run by run so both see the same machine load.  The goal (issue #14) is a ratio <= 1.3.

Both children run with bytecode caching on (the untimed warm-up run writes slotwise's .pyc
files, as ``pip install`` does), whatever ``PYTHONDONTWRITEBYTECODE`` says here.

The catalog is not needed for that first screen and loads after it (``SlotwiseApp.
start_deferred_load``: once the keyboard has been quiet for a moment).  So that nothing is
hidden, each slotwise run also reports ``catalog`` = the time until the validated catalog is in
(the child prints a second line then); a chassis chosen before that opens when it arrives.

Prints each run, then ``bare_ms=``, ``first_frame_ms=``, ``catalog_ms=`` (medians) and
``ratio=`` (first_frame_ms / bare_ms) as the last lines.
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

# Steps 1-3 above, shared verbatim by both children.
USABLE = r"""
import asyncio

async def usable(app, pilot, focused_list):
    from textual import events
    for _ in range(5000):
        ol = focused_list(app)
        if ol is not None:
            break
        await asyncio.sleep(0.001)
    else:
        return "TIMEOUT waiting for the focused list"
    await pilot.pause()
    before = ol.highlighted
    app._driver.send_message(events.Key("down", None))
    for _ in range(5000):
        if ol.highlighted != before:
            break
        await asyncio.sleep(0.001)
    else:
        return "TIMEOUT waiting for the key to be answered"
    drawn = asyncio.get_running_loop().create_future()
    app.screen.call_after_refresh(lambda: drawn.done() or drawn.set_result(None))
    await drawn
    return "READY"
"""

CHILD = (
    USABLE
    + r"""
import sys
sys.path.insert(0, {root!r})
from slotwise.tui.app import SlotwiseApp

def focused_list(app):
    from slotwise.tui.screens.chooser import ChassisChooser
    scr = app.screen
    if isinstance(scr, ChassisChooser) and scr.is_mounted and scr.focused is not None:
        if scr.focused.id == "chooser-list":
            return scr.focused
    return None

async def main():
    app = SlotwiseApp(state_dir={state!r})
    async with app.run_test(size=(80, 24)) as pilot:
        print(await usable(app, pilot, focused_list), flush=True)
        for _ in range(60000):
            if app.catalog is not None:
                break
            await asyncio.sleep(0.001)
        print("CATALOG" if app.catalog is not None else "TIMEOUT catalog", flush=True)
        app.exit()

asyncio.run(main())
"""
)

BARE = (
    USABLE
    + r"""
from textual.app import App
from textual.widgets import Footer, OptionList

class Bare(App):
    def compose(self):
        yield OptionList("one", "two", "three")
        yield Footer()

def focused_list(app):
    scr = app.screen
    return scr.focused if scr.is_mounted and isinstance(scr.focused, OptionList) else None

async def main():
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        print(await usable(app, pilot, focused_list), flush=True)
        print("CATALOG", flush=True)
        app.exit()

asyncio.run(main())
"""
)


def one_run(bare: bool = False) -> tuple[float, float]:
    """(ms to READY, ms to the catalog) from just before the process is spawned."""
    with tempfile.TemporaryDirectory() as state:
        code = BARE if bare else CHILD.format(root=str(ROOT), state=state)
        # PYTHONDONTWRITEBYTECODE is dropped: an installed slotwise has its .pyc files (pip
        # compiles them), as Textual in site-packages has; without them every run would time
        # compiling slotwise's sources, which no user's start pays.
        drop = ("SLOTWISE_CATALOG", "NO_COLOR", "PYTHONDONTWRITEBYTECODE")
        env = {k: v for k, v in os.environ.items() if k not in drop}
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
        second = proc.stdout.readline()
        t2 = time.perf_counter()
        _, err = proc.communicate(timeout=60)
        if not line.startswith("READY") or not second.startswith("CATALOG"):
            raise SystemExit(
                f"the app did not become ready: {line.strip()} {second.strip()} {err[-2000:]}"
            )
        return (t1 - t0) * 1000, (t2 - t0) * 1000


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="time to the first usable frame of slotwise")
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args(argv)
    one_run(bare=True)  # warm the OS file cache for both, untimed
    one_run()
    times, bare, catalog = [], [], []
    for i in range(args.runs):
        b, _ = one_run(bare=True)
        ms, cat = one_run()
        bare.append(b)
        times.append(ms)
        catalog.append(cat)
        print(
            f"run {i + 1}: bare Textual {b:.0f} ms, slotwise {ms:.0f} ms, ratio {ms / b:.2f}"
            f" (catalog in at {cat:.0f} ms)"
        )
    print(
        f"slotwise: min {min(times):.0f} ms, median {statistics.median(times):.0f} ms, "
        f"max {max(times):.0f} ms over {len(times)} runs"
    )
    med_b, med = statistics.median(bare), statistics.median(times)
    print(f"bare_ms={med_b:.0f}")
    print(f"first_frame_ms={med:.0f}")
    print(f"catalog_ms={statistics.median(catalog):.0f}")
    print(f"ratio={med / med_b:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
