"""Probe the state directory and the outputs as a hostile sender or a broken disk would (issue #29).

    python bench/state_probe.py                # injected read-only / full conditions
    python bench/state_probe.py --mounts       # as root: real read-only and full tmpfs mounts

Three parts, each counted:

1. **Broken state directory** — the app (headless, through Textual's Pilot) is started, resumes
   or starts a build, places a GPU, exports the BOM and quits, with the state directory
   (a) under a regular file (every mkdir fails, ENOTDIR), (b) read-only, (c) full.  Read-only
   and full are real tmpfs mounts with ``--mounts`` (root), else injected: every write, create,
   rename, unlink and chmod under the state directory fails with EROFS / ENOSPC.  A crash is an
   exception out of the app or a non-zero exit; the export must be written.
2. **Planted symbolic links** — for each place slotwise writes (a lock, an autosave,
   ``autosaves/``, ``trash/``, a trash entry, the legacy autosave, a temporary file) a link to a
   victim file is planted and the store's whole life runs (tests/fuzz_cases.py ``case_state``,
   every plant several times), then the app starts on the same directory.  Harm is any change
   of a victim's content, mode or existence.
3. **Control bytes** — BOMs with escape sequences in slot ids, SKUs, keys, meta and the file name
   go through validate (text, JSON) and export (TOML, CSV, Markdown) (``case_control``); any
   control byte in stdout, stderr or an export counts.

The last line is ``crashes=C symlink_harm=H control_bytes=B`` and the exit status is 1 unless all
three are 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "tests" / "tui")]

import fuzz_cases  # noqa: E402  (after the path set-up)

_WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


@contextlib.contextmanager
def injected(root: Path, err: int) -> Iterator[None]:
    """Every write under ``root`` fails with ``err`` (EROFS: read-only, ENOSPC: full)."""
    real = {
        n: getattr(os, n) for n in ("open", "mkdir", "replace", "rename", "unlink", "chmod", "link")
    }
    base = str(root)

    def under(path) -> bool:
        try:
            return os.path.abspath(os.fspath(path)).startswith(base)
        except TypeError:
            return False

    def fail(path):
        raise OSError(err, os.strerror(err), os.fspath(path))

    def open_(path, flags, *a, **k):
        if under(path) and flags & _WRITE:
            if err == errno.ENOSPC and not (flags & os.O_CREAT and not os.path.lexists(path)):
                return real["open"](path, flags, *a, **k)  # full: existing files still open
            fail(path)
        return real["open"](path, flags, *a, **k)

    def guard(name):
        def f(path, *a, **k):
            if under(path):
                fail(path)
            return real[name](path, *a, **k)

        return f

    os.open = open_  # type: ignore[assignment]
    for name in ("mkdir", "replace", "rename", "unlink", "chmod", "link"):
        setattr(os, name, guard(name))
    try:
        yield
    finally:
        for name, fn in real.items():
            setattr(os, name, fn)


@contextlib.contextmanager
def mounted(path: Path, opts: str) -> Iterator[bool]:
    """A tmpfs at ``path`` (root only); yields False when it cannot be mounted."""
    path.mkdir(parents=True, exist_ok=True)
    ok = (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(path)], capture_output=True
        ).returncode
        == 0
    )
    try:
        yield ok
    finally:
        if ok:
            subprocess.run(["umount", str(path)], capture_output=True)


async def _app_session(catalog, state: Path, out: Path) -> tuple[bool, list[str]]:
    """One app session; (exported, toasts).  Raises whatever the app raises."""
    from datetime import UTC, datetime

    from slotwise.tui.app import SlotwiseApp, fixed_clock
    from slotwise.tui.screens.build import BuildScreen
    from slotwise.tui.screens.recover import RecoverScreen
    from tests.tui.tui_helpers import choose_chassis, pick, started

    app = SlotwiseApp(
        catalog=catalog,
        state_dir=state,
        cursor_blink=False,
        clock=fixed_clock(datetime(2026, 12, 1, 3, 0, tzinfo=UTC)),
    )
    app.animation_level = "none"
    said: list[str] = []
    notify = app.notify

    def record(message: str, **kw) -> None:
        said.append(message)
        notify(message, **kw)

    app.notify = record  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        for _ in range(3):  # a message about set-aside autosaves may come first
            if isinstance(app.screen, RecoverScreen | BuildScreen):
                break
            if type(app.screen).__name__ == "ChassisChooser":
                break
            await pilot.press("escape")
            await pilot.pause()
        if isinstance(app.screen, RecoverScreen):
            await pilot.press("enter")
            await pilot.pause()
        if not isinstance(app.screen, BuildScreen):
            await choose_chassis(pilot)
        await pick(pilot, "slot:1", "h200")
        exported = app.export_to(out, force=True)
        await pilot.press("ctrl+q")
        await pilot.pause()
        if not isinstance(app.screen, BuildScreen):
            await pilot.press("y")
            await pilot.pause()
    if app._exception is not None:  # noqa: SLF001 - the probe's point
        raise app._exception
    return exported and out.exists(), said


def _seed_autosave(state: Path) -> None:
    from slotwise.engine.build import Build
    from slotwise.tui.autosave import AutosaveStore
    from tests.tui.tui_helpers import CHASSIS, GPU

    AutosaveStore(state).new().save(
        Build(chassis=CHASSIS, slots={"3": GPU}), undo=[Build(chassis=CHASSIS)]
    )


def broken_state(catalog, tmp: Path, use_mounts: bool) -> Counter[str]:
    got: Counter[str] = Counter()
    conditions = ["under-a-file", "read-only", "full"]
    for cond in conditions:
        d = tmp / cond
        d.mkdir()
        state = d / "state"
        out = d / "export.toml"
        ctx: contextlib.AbstractContextManager = contextlib.nullcontext()
        how = "real"
        if cond == "under-a-file":
            (d / "file").write_text("a regular file")
            state = d / "file" / "state"
        elif use_mounts:
            opts = "size=64k" if cond == "full" else "size=1m"
            stack = contextlib.ExitStack()
            ok = stack.enter_context(mounted(state, opts))
            if ok:
                _seed_autosave(state)
                if cond == "full":
                    with contextlib.suppress(OSError), open(state / "filler", "wb") as fh:
                        while True:
                            fh.write(b"\0" * 4096)
                else:
                    subprocess.run(["mount", "-o", "remount,ro", str(state)], check=True)
                ctx = stack
            else:
                stack.close()
                use_mounts = False
        if cond != "under-a-file" and not use_mounts:
            how = "injected"
            _seed_autosave(state)
            ctx = injected(state, errno.EROFS if cond == "read-only" else errno.ENOSPC)
        try:
            with ctx:
                exported, said = asyncio.run(_app_session(catalog, state, out))
        except Exception as exc:  # noqa: BLE001 - counted
            got["crashes"] += 1
            print(f"  {cond} ({how}): CRASH {type(exc).__name__}: {exc}")
            continue
        warned = [m for m in said if "SLOTWISE_STATE_DIR" in m]
        print(
            f"  {cond} ({how}): exported={exported} warnings={len(warned)}"
            + (f" ({warned[0][:110]}...)" if warned else "")
        )
        got["crashes"] += 0 if exported else 1
    return got


def planted_links(catalog, tmp: Path, rounds: int) -> Counter[str]:
    got: Counter[str] = Counter()
    plants: Counter[str] = Counter()
    for seed in range(rounds):
        with tempfile.TemporaryDirectory(dir=tmp) as d:
            try:
                outcome = fuzz_cases.case_state(random.Random(f"state:{seed}"), Path(d))
            except fuzz_cases.ContractBroken as exc:
                got["harm"] += 1
                print(f"  state:{seed}: HARM {exc}")
                continue
            except Exception as exc:  # noqa: BLE001
                got["crashes"] += 1
                print(f"  state:{seed}: CRASH {type(exc).__name__}: {exc}")
                continue
        plants[outcome] += 1
    print(f"  store: {rounds} runs, by plant and outcome: {dict(sorted(plants.items()))}")
    # the app on a state directory with a link planted at each place
    for plant in ("lock", "json", "autosaves", "trash"):
        d = tmp / f"app-{plant}"
        victim = d / "victim.txt"
        d.mkdir()
        victim.write_text("precious\n")
        os.chmod(victim, 0o4755)
        before = (victim.read_bytes(), os.stat(victim).st_mode)
        state = d / "state"
        _seed_autosave(state)
        (bid,) = [p.stem for p in (state / "autosaves").glob("*.json")]
        target = {
            "lock": state / "autosaves" / f"{bid}.lock",
            "json": state / "autosaves" / f"{bid}.json",
            "autosaves": state / "autosaves",
            "trash": state / "trash",
        }[plant]
        if plant == "autosaves":
            os.rename(target, d / "moved")
        elif plant == "json":
            target.unlink()
        if plant in ("autosaves", "trash"):
            target.symlink_to(d)
        else:
            target.symlink_to(victim)
        try:
            exported, said = asyncio.run(_app_session(catalog, state, d / "export.toml"))
        except Exception as exc:  # noqa: BLE001
            got["crashes"] += 1
            print(f"  app, planted {plant}: CRASH {type(exc).__name__}: {exc}")
            continue
        harmed = not victim.exists() or (victim.read_bytes(), os.stat(victim).st_mode) != before
        got["harm"] += int(harmed)
        print(
            f"  app, planted {plant}: exported={exported} victim {'CHANGED' if harmed else 'untouched'}"
        )
    return got


def control_bytes(rounds: int) -> Counter[str]:
    got: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as d:
        for seed in range(rounds):
            case = Path(d) / str(seed)
            case.mkdir()
            try:
                outcomes[fuzz_cases.case_control(random.Random(f"control:{seed}"), case)] += 1
            except fuzz_cases.ContractBroken as exc:
                got["control"] += 1
                print(f"  control:{seed}: {exc}")
            except Exception as exc:  # noqa: BLE001
                got["crashes"] += 1
                print(f"  control:{seed}: CRASH {type(exc).__name__}: {exc}")
    print(f"  {rounds} hostile BOMs through validate / export: {dict(outcomes)}")
    return got


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mounts", action="store_true", help="real read-only / full tmpfs (root)")
    p.add_argument("--rounds", type=int, default=40, help="store and control runs (40)")
    args = p.parse_args(argv)
    os.environ["SLOTWISE_OFFLINE"] = "1"
    catalog = fuzz_cases.bundled_catalog()
    total: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="slotwise-probe-") as d:
        tmp = Path(d)
        print(
            "1. broken state directory (app: start, resume or new build, place a GPU, export, quit)"
        )
        total += broken_state(catalog, tmp, args.mounts)
        print("2. planted symbolic links")
        total += planted_links(catalog, tmp, args.rounds)
        print("3. control bytes in hostile BOMs")
        total += control_bytes(args.rounds)
    print(
        f"crashes={total['crashes']} symlink_harm={total['harm']} control_bytes={total['control']}"
    )
    return 1 if any(total.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
