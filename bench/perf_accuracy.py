"""Accuracy of the training time model against published runs (and serving, when present).

    python bench/perf_accuracy.py [--cases] [--source]

Prints, for the fitting and the held-out set (split rule: tests/evidence/perf_cases.py), the
median |error| and the share of cases within 25 % -- training time and throughput separately.
Error = predicted / published - 1.  ``--cases`` lists every case; ``--source`` adds a line per
source.  When the serving evidence exists (tests/evidence/serving_cases.py with its FITTING /
HELD_OUT split, predictions from tests/evidence/serving_predict.py), a serving section follows,
one line per kind of figure; bench/serving_accuracy.py is its detailed report.
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
        measured = getattr(case, "measured", None) or case.published  # serving cases: published
        out.append((case, got / measured - 1.0))
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


def _serving_section(by_source: bool, list_cases: bool) -> None:
    """The serving cases of tests/evidence/serving_cases.py (FITTING / HELD_OUT, split by its own
    rule) scored with tests/evidence/serving_predict.py, per kind of figure; silent when the
    serving evidence is absent."""
    try:
        cases_mod = importlib.import_module("tests.evidence.serving_cases")
        predict_mod = importlib.import_module("tests.evidence.serving_predict")
    except ModuleNotFoundError:
        return
    fitting = getattr(cases_mod, "FITTING", ())
    held = getattr(cases_mod, "HELD_OUT", ())
    predict = getattr(predict_mod, "predict", None)
    if not (fitting or held) or predict is None:
        return
    print(f"serving: {len(fitting) + len(held)} published figures (bench/serving_accuracy.py)")
    for kind in sorted({c.kind for c in (*fitting, *held)}):
        for label, subset in (("fitting ", fitting), ("held-out", held)):
            errs = errors([c for c in subset if c.kind == kind], predict)
            print(f"{kind:<14} {label}  {summary(errs)}")
            if by_source:
                for src in sorted({str(c.source) for c, _ in errs}):
                    part = [(c, e) for c, e in errs if str(c.source) == src]
                    print(f"    {src[:60]:<60} {summary(part)}")
            if list_cases:
                for c, e in sorted(errs, key=lambda x: x[1]):
                    print(f"      {e:+7.1%}  {c.id}")


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
    _serving_section(args.source, args.cases)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
