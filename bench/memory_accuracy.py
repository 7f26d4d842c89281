#!/usr/bin/env python3
"""slotwise's memory estimate against every published measured peak (no GPU needed).

    python bench/memory_accuracy.py            # summary per set
    python bench/memory_accuracy.py --cases    # one line per case, then the summary
    python bench/memory_accuracy.py --by tag   # summary per tag (or: organisation)

The cases are tests/evidence/memory_cases.py.  Sets: ``fitting`` (cases the estimator may be
tuned on), ``held-out`` (never used to choose a constant; the split is a stable hash of the case
id, see ``tests.evidence.memory_cases.held_out``), ``original-38`` (the table the repo had before
issue 12) and ``all``.  The figure compared is ``total_bytes`` per GPU against the published
peak, the same comparison the hidden scoring set uses.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/ holds other scripts (bench/engine.py) that would shadow the ``engine`` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from slotwise.engine.estimate import estimate  # noqa: E402
from tests.evidence.memory_cases import (  # noqa: E402
    A100_80GB,
    CASES,
    ORIGINAL_CASES,
    MeasuredCase,
)


def error(case: MeasuredCase) -> float:
    """Signed relative error of the estimate: estimate / measured - 1."""
    est = estimate(case.make_workload(), A100_80GB, case.gpus, arch=case.arch)
    return est.memory_per_gpu.total_bytes / case.measured_bytes - 1.0


def summary(errors: Iterable[float]) -> dict[str, float]:
    errs = [abs(e) for e in errors]
    if not errs:
        return {"n": 0, "median": float("nan"), "within10": float("nan"), "within25": float("nan")}
    return {
        "n": len(errs),
        "median": statistics.median(errs),
        "within10": sum(e <= 0.10 for e in errs) / len(errs),
        "within25": sum(e <= 0.25 for e in errs) / len(errs),
    }


def sets(cases: tuple[MeasuredCase, ...] = CASES) -> dict[str, tuple[MeasuredCase, ...]]:
    original = {c.id for c in ORIGINAL_CASES}
    return {
        "fitting": tuple(c for c in cases if not c.held_out),
        "held-out": tuple(c for c in cases if c.held_out),
        "original-38": tuple(c for c in cases if c.id in original),
        "all": cases,
    }


def format_summary(name: str, s: dict[str, float]) -> str:
    return (
        f"{name:<14} n={s['n']:<4} median |error| {s['median']:6.1%}   "
        f"within 10 %: {s['within10']:6.1%}   within 25 %: {s['within25']:6.1%}"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--cases", action="store_true", help="print every case")
    p.add_argument("--by", choices=("tag", "organisation"), help="also summarise per group")
    args = p.parse_args(argv)
    errs = {c.id: error(c) for c in CASES}
    if args.cases:
        for c in CASES:
            print(
                f"{'H' if c.held_out else 'F'} {c.id:44s} {errs[c.id]:+7.1%}  "
                f"measured {c.measured_bytes / 2**30:7.2f} GiB  {c.organisation}"
            )
    if args.by:
        groups: dict[str, list[float]] = {}
        for c in CASES:
            keys = c.tags if args.by == "tag" else (c.organisation,)
            for k in keys:
                groups.setdefault(k, []).append(errs[c.id])
        for k in sorted(groups):
            print(format_summary(k[:14], summary(groups[k])))
    orgs = {c.organisation for c in CASES}
    print(f"{len(CASES)} measured peaks from {len(orgs)} organisations")
    for name, chosen in sets().items():
        print(format_summary(name, summary(errs[c.id] for c in chosen)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
