#!/usr/bin/env python3
"""slotwise's memory estimate against every published measured peak (no GPU needed).

    python bench/memory_accuracy.py               # the three views, ranges, per organisation
    python bench/memory_accuracy.py --cases       # one line per case first
    python bench/memory_accuracy.py --fit-ranges  # the residual quantiles memory_range ships

The cases are tests/evidence/memory_cases.py.  Every case is scored through the user surface:
the user-level fields its source states, and (views 2 and 3) the trainer profile that ran it
(``case.trainer``, engine/workload/trainers.toml); no case sets a trainer internal.

Views (decided before any fitting, issue 23):

1. user-level only: no trainer named, so the ``generic`` profile (today's TRL stack);
2. trainer named: the case's trainer profile (name and era);
3. leave-one-source-out: the split is by organisation (``case.organisation``): for each
   organisation the range quantiles (engine/estimate/memory_range.py) are computed from the
   other organisations' residuals only and scored on its cases.  The point estimate itself has
   no constant fitted to these cases in this version (the profiles' values come from the
   trainers' code and docs), so its held-out error is the trainer-named error; the per-source
   medians show how it does on each source alone.

Ranges: coverage = share of measured peaks inside [low, high]; width = (high - low) / estimate.
The figure compared is ``total_bytes`` per GPU against the published peak.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/ holds other scripts (bench/engine.py) that would shadow the ``engine`` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from slotwise.engine.estimate import estimate, memory_spread  # noqa: E402
from slotwise.engine.estimate.memory_range import (  # noqa: E402
    RESIDUAL_QUANTILES,
    memory_range,
)
from tests.evidence.memory_cases import A100_80GB, CASES, MeasuredCase  # noqa: E402


class Scored:
    """One case scored one way: estimate, spread totals and paged bytes."""

    def __init__(self, case: MeasuredCase, *, named: bool) -> None:
        w = case.make_workload(with_trainer=named)
        self.case = case
        self.named = named
        self.training = w.training
        est = estimate(w, A100_80GB, case.gpus, arch=case.arch)
        self.total = est.memory_per_gpu.total_bytes
        self.low = est.memory_per_gpu.low_bytes or self.total
        self.high = est.memory_per_gpu.high_bytes or self.total
        self.totals, self.paged, _ = memory_spread(w, case.gpus, arch=case.arch)

    @property
    def error(self) -> float:
        """Signed relative error of the estimate: estimate / measured - 1."""
        return self.total / self.case.measured_bytes - 1.0

    @property
    def residual_low(self) -> float:
        """measured / the lowest total of the spread - 1 (the low end's quantile is of this)."""
        return self.case.measured_bytes / min(self.totals) - 1.0

    @property
    def residual_high(self) -> float:
        """measured / (the highest total + paged state) - 1 (the high end's quantile)."""
        return self.case.measured_bytes / (max(self.totals) + self.paged) - 1.0

    def bounds(self, residuals: tuple[float, float] | None) -> tuple[float, float]:
        if residuals is None:
            return self.low, self.high
        rng = memory_range(
            self.totals,
            named=self.named,
            training=self.training,
            paged_bytes=self.paged,
            residuals=residuals,
        )
        return rng.low_bytes, rng.high_bytes


def quantile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile (numpy's default method)."""
    s = sorted(values)
    if not s:
        return 0.0
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def residual_quantiles(scored: Iterable[Scored]) -> dict[bool, tuple[float, float]]:
    """training -> (low, high) residual quantiles of ``scored``."""
    out = {}
    items = list(scored)
    for training in (True, False):
        lo = [s.residual_low for s in items if s.training == training]
        hi = [s.residual_high for s in items if s.training == training]
        out[training] = (quantile(lo, RESIDUAL_QUANTILES[0]), quantile(hi, RESIDUAL_QUANTILES[1]))
    return out


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


def range_stats(items: Sequence[Scored], loso: bool) -> dict[str, float]:
    """Coverage and median width of the ranges; ``loso``: quantiles without the case's org."""
    inside = []
    widths = []
    by_org: dict[str, dict[bool, tuple[float, float]]] = {}
    for s in items:
        residuals = None
        if loso:
            org = s.case.organisation
            if org not in by_org:
                by_org[org] = residual_quantiles(x for x in items if x.case.organisation != org)
            residuals = by_org[org][s.training]
        low, high = s.bounds(residuals)
        inside.append(low <= s.case.measured_bytes <= high)
        widths.append((high - low) / s.total)
    return {"coverage": sum(inside) / len(inside), "width": statistics.median(widths)}


def format_summary(name: str, s: dict[str, float]) -> str:
    return (
        f"{name:<34} n={s['n']:<4} median |error| {s['median']:6.1%}   "
        f"within 10 %: {s['within10']:6.1%}   within 25 %: {s['within25']:6.1%}"
    )


def score() -> tuple[list[Scored], list[Scored]]:
    """(user-level only, trainer named) scores of every case."""
    return [Scored(c, named=False) for c in CASES], [Scored(c, named=True) for c in CASES]


def error(case: MeasuredCase) -> float:
    """Signed relative error of the estimate through the user surface with the case's trainer
    named: estimate / measured - 1 (view 2 / 3)."""
    return Scored(case, named=True).error


def sets(cases: tuple[MeasuredCase, ...] = CASES) -> dict[str, tuple[MeasuredCase, ...]]:
    """``held-out``: every case, each scored leave-one-source-out (no constant of the point
    estimate is fitted to the evidence; the range quantiles are refitted without the case's
    organisation: :func:`range_stats`); ``all``: the same cases."""
    return {"held-out": cases, "all": cases}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--cases", action="store_true", help="print every case")
    p.add_argument("--fit-ranges", action="store_true", help="print the residual quantiles to ship")
    args = p.parse_args(argv)
    user, named = score()
    if args.fit_ranges:
        for label, items, flag in (("named", named, True), ("no trainer", user, False)):
            for training, (lo, hi) in residual_quantiles(items).items():
                print(
                    f"    ({flag}, {training}): ({lo:.3f}, {hi:.3f}),  # {label}, training={training}"
                )
        return 0
    if args.cases:
        for u, n in zip(user, named, strict=True):
            print(
                f"{n.case.id:46s} user {u.error:+7.1%}  {n.case.trainer or '-':22s} "
                f"{n.error:+7.1%}  measured {n.case.measured_bytes / 2**30:7.2f} GiB  "
                f"{n.case.organisation}"
            )
    orgs = sorted({c.organisation for c in CASES})
    print(f"{len(CASES)} measured peaks from {len(orgs)} organisations\n")
    print("Views (every case through the user surface):")
    print(format_summary("1 user-level only (no trainer)", summary(s.error for s in user)))
    print(format_summary("2 trainer named", summary(s.error for s in named)))
    per_org = [
        statistics.median(abs(s.error) for s in named if s.case.organisation == o) for o in orgs
    ]
    print(
        format_summary("3 leave-one-source-out (named)", summary(s.error for s in named))
        + f"   median of per-source medians {statistics.median(per_org):6.1%}"
    )
    print("\nRanges [low, high] (coverage = measured inside; width = (high-low)/estimate):")
    for label, items in (("no trainer", user), ("trainer named", named)):
        for loso in (False, True):
            r = range_stats(items, loso)
            how = "leave-one-source-out" if loso else "shipped quantiles"
            print(
                f"  {label:<14} {how:<22} coverage {r['coverage']:6.1%}   "
                f"median width {r['width']:6.1%}"
            )
    print("\nPer source (held out from the range quantiles when scored):")
    for o in orgs:
        u = [s for s in user if s.case.organisation == o]
        n = [s for s in named if s.case.organisation == o]
        ru = range_stats([*user], True)  # noqa: F841 (whole-set figure printed above)
        print(
            f"  {o[:22]:<22} n={len(n):<3} user-level {summary(s.error for s in u)['median']:6.1%}"
            f"   named {summary(s.error for s in n)['median']:6.1%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
