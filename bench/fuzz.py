"""Fuzz every input boundary (issue #15) and count tracebacks and hangs.

    python bench/fuzz.py --n 5000            # the long run, by hand
    python bench/fuzz.py --n 200 --seed 7    # another sample
    python bench/fuzz.py --case bom:1234     # replay one case, with its traceback

Each case (tests/fuzz_cases.py: a mutated BOM, catalog overlay file, config.json, autosave,
price list, or a faulty HTTP server answer) runs in a worker process; the parent gives every
case ``--case-timeout`` seconds and counts a case that takes longer as a hang (the worker is
killed and replaced).  A traceback is any exception the API under test does not document (or a
broken promise such as a runaway message or non-standard JSON).  The last line is::

    cases=N tracebacks=T hangs=H

and the exit status is 1 when T or H is not 0.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import fuzz_cases  # noqa: E402  (after the path set-up)


def _worker(conn) -> None:
    fuzz_cases.bundled_catalog()  # load once per worker
    while True:
        job = conn.recv()
        if job is None:
            return
        kind, seed = job
        t0 = time.monotonic()
        try:
            outcome = fuzz_cases.run_case(kind, seed)
            conn.send(("ok", outcome, time.monotonic() - t0))
        except BaseException:  # noqa: BLE001 - the point is to count it
            conn.send(("traceback", traceback.format_exc(), time.monotonic() - t0))


class _Slot:
    def __init__(self, ctx) -> None:
        self.parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child,), daemon=True)
        self.proc.start()
        self.job: tuple[str, int] | None = None
        self.started = 0.0

    def kill(self) -> None:
        self.proc.kill()
        self.proc.join(5)


def run(n: int, seed: int, jobs: int, case_timeout: float, verbose: bool) -> int:
    ctx = mp.get_context("fork" if sys.platform != "win32" else "spawn")
    cases = [(fuzz_cases.pick_kind(i, seed), seed * 1_000_003 + i) for i in range(n)]
    todo = list(reversed(cases))
    slots = [_Slot(ctx) for _ in range(jobs)]
    outcomes: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    tracebacks: list[tuple[tuple[str, int], str]] = []
    hangs: list[tuple[str, int]] = []
    slowest = (0.0, ("", 0))
    done = 0
    t_start = time.monotonic()
    while done < n:
        for i, slot in enumerate(slots):
            if slot.job is None and todo:
                slot.job = todo.pop()
                slot.started = time.monotonic()
                slot.parent.send(slot.job)
            if slot.job is None:
                continue
            if slot.parent.poll(0.01):
                status, detail, took = slot.parent.recv()
                kinds[slot.job[0]] += 1
                if took > slowest[0]:
                    slowest = (took, slot.job)
                if status == "ok":
                    outcomes[f"{slot.job[0]}:{detail}"] += 1
                else:
                    tracebacks.append((slot.job, detail))
                    if verbose:
                        print(f"TRACEBACK {slot.job[0]}:{slot.job[1]}\n{detail}", flush=True)
                slot.job = None
                done += 1
            elif time.monotonic() - slot.started > case_timeout:
                kinds[slot.job[0]] += 1
                hangs.append(slot.job)
                if verbose:
                    print(f"HANG {slot.job[0]}:{slot.job[1]}", flush=True)
                slot.kill()
                slots[i] = _Slot(ctx)
                done += 1
        if verbose and done and done % 500 == 0:
            pass
    for slot in slots:
        if slot.job is None:
            slot.parent.send(None)
        slot.proc.join(2)
        if slot.proc.is_alive():
            slot.kill()
    wall = time.monotonic() - t_start
    print(f"by kind: {dict(sorted(kinds.items()))}")
    print(f"outcomes: {dict(sorted(outcomes.items()))}")
    print(f"slowest case: {slowest[1][0]}:{slowest[1][1]} {slowest[0]:.2f} s; wall {wall:.0f} s")
    for job, tb in tracebacks[:5]:
        print(f"--- traceback in {job[0]}:{job[1]}\n{tb}")
    for job in hangs[:5]:
        print(f"--- hang (> {case_timeout:g} s) in {job[0]}:{job[1]}")
    print(f"cases={n} tracebacks={len(tracebacks)} hangs={len(hangs)}")
    return 1 if tracebacks or hangs else 0


def replay(spec: str) -> int:
    kind, _, seed = spec.partition(":")
    t0 = time.monotonic()
    try:
        print(fuzz_cases.run_case(kind, int(seed)))
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
        return 1
    print(f"{time.monotonic() - t0:.2f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=500, help="number of cases (default 500)")
    p.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument(
        "--case-timeout",
        type=float,
        default=30.0,
        help="seconds one case may take before it counts as a hang (default 30)",
    )
    p.add_argument("--case", metavar="KIND:SEED", help="replay one case and show its traceback")
    p.add_argument("-v", "--verbose", action="store_true", help="print each failure as it comes")
    args = p.parse_args(argv)
    if args.case:
        return replay(args.case)
    return run(args.n, args.seed, max(args.jobs, 1), args.case_timeout, args.verbose)


if __name__ == "__main__":
    raise SystemExit(main())
