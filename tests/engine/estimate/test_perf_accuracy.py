"""The time model against published runs (tests/evidence/perf_cases.py), as the issue asks:
held-out median |error| <= 12 % for training time and <= 15 % for throughput, with defaults."""

from __future__ import annotations

import ast
import statistics

import pytest

from tests.evidence import perf_cases
from tests.paths import REPO

ROOT = REPO


def _median_abs_error(kind: str, held: bool) -> float:
    errs = []
    for case in perf_cases.CASES:
        if case.kind != kind or case.held_out != held:
            continue
        got = perf_cases.predict(case)
        assert got is not None, case.id
        errs.append(abs(got / case.measured - 1.0))
    return statistics.median(errs)


def test_evidence_is_large_varied_and_split_before_fitting():
    cases = perf_cases.CASES
    assert len(cases) >= 60
    assert len({c.id for c in cases}) == len(cases)
    assert len({perf_cases.ORGANISATIONS[c.source] for c in cases}) >= 6
    for c in cases:
        assert c.source in perf_cases.SOURCES and c.settings and c.measured > 0
        assert c.arch in perf_cases.ARCHS
    for kind in ("time", "throughput"):
        subset = [c for c in cases if c.kind == kind]
        assert sum(c.held_out for c in subset) >= len(subset) / 3, kind
    # The split is a function of the source alone, so no result can move a case, and no
    # source sits on both sides.
    renamed = perf_cases.PerfCase(**{**cases[0].__dict__, "measured": 1.0})
    assert renamed.held_out == cases[0].held_out
    for source in {c.source for c in cases}:
        assert len({c.held_out for c in cases if c.source == source}) == 1, source


# Held out BY SOURCE since issue 24 (perf_cases module docstring): the targets, 12 %
# (time) and 15 % (throughput).  The model reaches 10.4 % and 13.7 % (session 9: the eager host
# floor and the trainers' attention kernel; 13.9 % and 18.2 % before, 19.3 % and 18.6 % before
# the changes on the same split; history in docs/evidence.md).
@pytest.mark.parametrize(("kind", "limit"), [("time", 0.12), ("throughput", 0.15)])
def test_held_out_median_error_within_target(kind, limit):
    assert _median_abs_error(kind, True) <= limit


def test_fitting_script_reads_only_the_fitting_cases():
    src = (ROOT / "bench" / "fit_perf.py").read_text()
    tree = ast.parse(src)
    called = {
        n.func.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
    }
    assert "fitting" in called and "held_out" not in called and "CASES" not in src


def test_engine_never_imports_the_evidence():
    for path in (ROOT / "engine").rglob("*.py"):
        assert "tests.evidence" not in path.read_text(), path
