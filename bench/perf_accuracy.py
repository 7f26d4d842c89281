"""Accuracy of the training time model against published runs (and serving, when present).

    python bench/perf_accuracy.py [--cases] [--source]

Prints, for the fitting and the held-out set (split rule: tests/evidence/perf_cases.py), the
median |error| and the share of cases within 25 % -- training time and throughput separately.
Error = predicted / published - 1.  ``--cases`` lists every case; ``--source`` adds a line per
source.  If ``tests/evidence/serving_cases.py`` exists and offers ``CASES`` and ``predict``, a
serving section is printed the same way.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.evidence import perf_cases  # noqa: E402


def errors(cases: Iterable[Any], predict: Callable[[Any], float | None]) -> list[tuple[Any, float]]:
    out = []
    for case in cases:
        got = predict(case)
        if got is None:
            continue
        out.append((case, got / case.measured - 1.0))
    return out


def summary(errs: list[tuple[Any, float]]) -> str:
    if not errs:
        return "no cases"
    absval = [abs(e) for _, e in errs]
    within = sum(1 for a in absval if a <= 0.25) / len(absval)
    signed = statistics.median(e for _, e in errs)
    return (
        f"n={len(errs):3d}  median |error| {statistics.median(absval):6.1%}  "
        f"within 25% {within:6.1%}  median signed {signed:+6.1%}"
    )


def report(cases: tuple[Any, ...], predict, kinds: tuple[str, ...], by_source: bool,
           list_cases: bool) -> list[str]:  # fmt: skip
    lines = []
    for kind in kinds:
        for label, held in (("fitting ", False), ("held-out", True)):
            subset = [c for c in cases if c.kind == kind and c.held_out == held]
            errs = errors(subset, predict)
            lines.append(f"{kind:<10} {label}  {summary(errs)}")
            if by_source:
                for src in sorted({c.source for c in subset}):
                    part = [(c, e) for c, e in errs if c.source == src]
                    lines.append(f"    {src:<24} {summary(part)}")
            if list_cases:
                for c, e in sorted(errs, key=lambda x: x[1]):
                    lines.append(f"      {e:+7.1%}  {c.id}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", action="store_true", help="list every case's error")
    ap.add_argument("--source", action="store_true", help="a line per source")
    args = ap.parse_args(argv)
    cases = perf_cases.CASES
    n_src = len({perf_cases.ORGANISATIONS[c.source] for c in cases})
    print(
        f"training: {len(cases)} published figures from {len(perf_cases.SOURCES)} sources "
        f"({n_src} organisations); held out: {len(perf_cases.held_out())}"
    )
    for line in report(cases, perf_cases.predict, ("time", "throughput"), args.source,
                       args.cases):  # fmt: skip
        print(line)
    try:
        serving = importlib.import_module("tests.evidence.serving_cases")
    except ModuleNotFoundError:
        return 0
    cases_s = getattr(serving, "CASES", ())
    predict_s = getattr(serving, "predict", None)
    if cases_s and predict_s:
        kinds = tuple(sorted({c.kind for c in cases_s}))
        print(f"serving: {len(cases_s)} published figures")
        for line in report(tuple(cases_s), predict_s, kinds, args.source, args.cases):
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
