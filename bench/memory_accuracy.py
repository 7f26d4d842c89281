#!/usr/bin/env python3
"""slotwise's memory estimate against every published measured peak (no GPU needed).

    python bench/memory_accuracy.py               # the three views, ranges, per organisation
    python bench/memory_accuracy.py --cases       # one line per case first
    python bench/memory_accuracy.py --fit-ranges  # the residual quantiles memory_range ships
    python bench/memory_accuracy.py --fit-ranges --write   # ... written to memory_residuals.toml

The cases are tests/evidence/memory_cases.py.  Every case is scored through the user surface:
the user-level fields its source states, and (views 2 and 3) the trainer profile that ran it
(``case.trainer``, engine/workload/trainers.toml); no case sets a trainer internal.

Views (decided before any fitting, issue 23):

1. user-level only: no trainer named, so the ``generic`` profile (today's common stack);
2. trainer named: the case's trainer profile (name and era);
3. leave-one-source-out: the split is by organisation (``case.organisation``): for each
   organisation the range quantiles (engine/estimate/memory_range.py: the 5 % / 95 %
   quantiles of every case's residual, training and inference pooled) are computed from the
   other organisations' residuals only and scored on its cases.  The point estimate itself has
   no constant fitted to these cases in this version (the profiles' values come from the
   trainers' code and docs), so its held-out error is the trainer-named error; the per-source
   medians show how it does on each source alone.

Ranges: coverage = share of measured peaks inside [low, high]; width = (high - low) / estimate;
shown with the shipped quantiles (fitted on every case) and leave-one-source-out, side by side,
and split by training / inference so that the pooled quantiles hide neither.
The figure compared is ``total_bytes`` per GPU against the published peak.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/ holds other scripts (bench/engine.py) that would shadow the ``engine`` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from slotwise.engine.estimate import estimate, memory_spread  # noqa: E402
from slotwise.engine.estimate.constants import DEFAULT_GPUS_PER_SERVER  # noqa: E402
from slotwise.engine.estimate.fit import usable_bytes  # noqa: E402
from slotwise.engine.estimate.links import default_links  # noqa: E402
from slotwise.engine.estimate.memory_range import (  # noqa: E402
    RESIDUAL_QUANTILES,
    RESIDUALS_FILE,
    memory_range,
)
from slotwise.engine.store.atomic import atomic_write_text  # noqa: E402
from tests.evidence.memory_cases import A100_80GB, CASES, MeasuredCase  # noqa: E402

#: What estimate() uses for the evidence GPU: its standard server's links and usable memory.
_LINKS = default_links(A100_80GB, DEFAULT_GPUS_PER_SERVER)
_USABLE = usable_bytes(A100_80GB)


class Scored:
    """One case scored one way: estimate, spread totals and paged bytes.

    The spread (what the range quantiles are fitted on) comes from ``memory_spread`` alone; the
    estimate and its shipped range are computed on first use, so ``--fit-ranges --write`` runs
    without a memory_residuals.toml to start from."""

    def __init__(self, case: MeasuredCase, *, named: bool) -> None:
        self.workload = case.make_workload(with_trainer=named)
        self.case = case
        self.named = named
        self.training = self.workload.training
        # on the layout estimate() chooses for the case (its GPU's default links and usable
        # memory), so the spread and the estimate are totals of the same layout
        self.totals, self.paged, _ = memory_spread(
            self.workload, case.gpus, arch=case.arch, fast_group=_LINKS.island, cap=_USABLE
        )

    @cached_property
    def _memory(self) -> tuple[float, float, float]:
        est = estimate(self.workload, A100_80GB, self.case.gpus, arch=self.case.arch)
        m = est.memory_per_gpu
        return m.total_bytes, m.low_bytes or m.total_bytes, m.high_bytes or m.total_bytes

    @property
    def total(self) -> float:
        return self._memory[0]

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
            return self._memory[1], self._memory[2]
        rng = memory_range(
            self.totals,
            named=self.named,
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


def residual_quantiles(scored: Iterable[Scored]) -> tuple[float, float]:
    """(low, high) residual quantiles of ``scored``, training and inference pooled: the low
    quantile of ``residual_low`` and the high one of ``residual_high`` (RESIDUAL_QUANTILES)."""
    items = list(scored)
    return (
        quantile([s.residual_low for s in items], RESIDUAL_QUANTILES[0]),
        quantile([s.residual_high for s in items], RESIDUAL_QUANTILES[1]),
    )


RESIDUALS_METHOD = (
    "Quantiles {q0:g} / {q1:g} (fixed before fitting) of measured / estimate - 1 over every case "
    "of tests/evidence/memory_cases.py, training and inference pooled, each case weighted "
    "alike, linear interpolation (numpy's default). Low: of measured / lowest total - 1; high: "
    "of measured / (highest total + paged optimizer state) - 1. 'named': each case through its "
    "trainer profile (one total); 'no_trainer': through generic, the totals spanning the "
    "[plausible] profiles of its method. The estimate has no constant fitted to these cases, so "
    "every residual is one its source did not shape; the bench's leave-one-source-out view "
    "recomputes the quantiles without each organisation to score the ranges on it."
)


def residuals_toml(user: Sequence[Scored], named: Sequence[Scored]) -> str:
    """memory_residuals.toml as the bench computes it now."""
    q0, q1 = RESIDUAL_QUANTILES
    lines = [
        "# Generated by python bench/memory_accuracy.py --fit-ranges --write: do not edit by hand.",
        "# Read by engine/estimate/memory_range.py; tests/engine/estimate/test_trainers.py checks",
        "# it is what the bench computes from the evidence of this commit.",
        "method = " + _toml_str(RESIDUALS_METHOD.format(q0=q0, q1=q1)),
        'generator = "bench/memory_accuracy.py --fit-ranges --write"',
        f"quantiles = [{RESIDUAL_QUANTILES[0]}, {RESIDUAL_QUANTILES[1]}]",
    ]
    for key, items in (("named", named), ("no_trainer", user)):
        lo, hi = residual_quantiles(items)
        lines += [
            "",
            f"[{key}]",
            f"low = {lo:.4f}",
            f"high = {hi:.4f}",
            f"cases = {len(items)}",
            f"organisations = {len({s.case.organisation for s in items})}",
        ]
    return "\n".join(lines) + "\n"


def _toml_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


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


def range_stats(
    items: Sequence[Scored], loso: bool, training: bool | None = None
) -> dict[str, float]:
    """Coverage and median width of the ranges of ``items`` (only training or only inference
    cases when ``training`` says so); ``loso``: the quantiles without the case's organisation,
    computed over every case of the other organisations (training and inference pooled)."""
    inside = []
    widths = []
    by_org: dict[str, tuple[float, float]] = {}
    for s in items:
        if training is not None and s.training != training:
            continue
        residuals = None
        if loso:
            org = s.case.organisation
            if org not in by_org:
                by_org[org] = residual_quantiles(x for x in items if x.case.organisation != org)
            residuals = by_org[org]
        low, high = s.bounds(residuals)
        inside.append(low <= s.case.measured_bytes <= high)
        widths.append((high - low) / s.total)
    if not inside:
        return {"n": 0, "coverage": float("nan"), "width": float("nan")}
    return {
        "n": len(inside),
        "coverage": sum(inside) / len(inside),
        "width": statistics.median(widths),
    }


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
    p.add_argument(
        "--write", action="store_true", help=f"with --fit-ranges: write them to {RESIDUALS_FILE}"
    )
    args = p.parse_args(argv)
    user, named = score()
    if args.fit_ranges:
        text = residuals_toml(user, named)
        if args.write:
            atomic_write_text(RESIDUALS_FILE, text)
            print(f"wrote {RESIDUALS_FILE}")
        print(text, end="")
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
    print(f"  {'':<14} {'cases':<10} {'shipped quantiles':<28} leave-one-source-out")
    for label, items in (("no trainer", user), ("trainer named", named)):
        for part, training in (("all", None), ("training", True), ("inference", False)):
            r_in = range_stats(items, False, training)
            r_out = range_stats(items, True, training)
            print(
                f"  {label if part == 'all' else '':<14} {part:<10} "
                f"coverage {r_in['coverage']:6.1%} width {r_in['width']:6.1%}   "
                f"coverage {r_out['coverage']:6.1%} width {r_out['width']:6.1%}   "
                f"(n={r_in['n']})"
            )
    print("\nPer source (range coverage: the source held out from the quantiles):")
    for o in orgs:
        u = [s for s in user if s.case.organisation == o]
        n = [s for s in named if s.case.organisation == o]
        q_named = residual_quantiles(s for s in named if s.case.organisation != o)
        q_user = residual_quantiles(s for s in user if s.case.organisation != o)
        cov_n = sum(lo <= s.case.measured_bytes <= hi for s in n for lo, hi in [s.bounds(q_named)])
        cov_u = sum(lo <= s.case.measured_bytes <= hi for s in u for lo, hi in [s.bounds(q_user)])
        print(
            f"  {o[:22]:<22} n={len(n):<3} user-level {summary(s.error for s in u)['median']:6.1%}"
            f" (range {cov_u / len(u):4.0%})   named {summary(s.error for s in n)['median']:6.1%}"
            f" (range {cov_n / len(n):4.0%})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
