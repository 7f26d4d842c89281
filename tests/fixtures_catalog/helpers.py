"""Helpers for the rule tests: the synthetic catalog, a clean base build, finding lookups."""

from __future__ import annotations

import os
from collections import Counter
from functools import lru_cache
from pathlib import Path
from unittest import mock

from slotwise.engine.build import BridgeFit, Build, DriveFit, Environment
from slotwise.engine.build.edits import apply_all
from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.check.report import Finding, Report
from slotwise.parts.catalog import CATALOG_ENV, Catalog, load_catalog

FIXTURE_DIR = Path(__file__).parent


@lru_cache(maxsize=1)
def fixture_catalog() -> Catalog:
    with mock.patch.dict(os.environ):
        os.environ.pop(CATALOG_ENV, None)
        return load_catalog(bundled=FIXTURE_DIR)


@lru_cache(maxsize=1)
def bundled_catalog() -> Catalog:
    with mock.patch.dict(os.environ):
        os.environ.pop(CATALOG_ENV, None)
        return load_catalog()


H200 = "NVIDIA-H200-NVL-141GB"
H100NVL = "NVIDIA-H100-NVL-94GB"


def base_build(**changes) -> Build:
    """A clean FIX-PCIE-10 build: 4 bridged H200 NVL under CPU 1, balanced memory, 4 PSUs."""
    b = Build(
        chassis="FIX-PCIE-10",
        cpu="XEON-8480+",
        cpu_count=2,
        dimm="FIX-DIMM-96-5600",
        dimm_count=16,
        slots={"1": H200, "2": H200, "4": H200, "5": H200},
        bridges=(BridgeFit(sku="NVLINK-H200-NVL-4WAY", slots=("1", "2", "4", "5")),),
        drives=(DriveFit(bay="front-nvme", sku="FIX-NVME-U2-3.84TB", count=2),),
        psu="FIX-PSU-2700",
        psu_count=4,
        env=Environment(),
    )
    return b.with_(**changes) if changes else b


def run(build: Build, workload=None) -> Report:
    return evaluate(build, fixture_catalog(), workload)


def of_rule(report: Report, rule: str) -> list[Finding]:
    return [f for f in report.findings if f.rule == rule]


def one(report: Report, rule: str) -> Finding:
    found = of_rule(report, rule)
    assert len(found) == 1, f"expected one {rule}, got {[f.message for f in found]}"
    return found[0]


def error_keys(report: Report) -> Counter:
    """Errors keyed both by (rule, parts) and by (rule, slots)."""
    out: Counter = Counter()
    for f in report.findings:
        if f.severity == "error":
            out[("parts", f.rule, f.parts)] += 1
            out[("slots", f.rule, f.slots)] += 1
    return out


def added_errors(before: Report, after: Report) -> set[tuple[str, tuple, tuple]]:
    """Errors in ``after`` that were not in ``before``.  An error is the same when its rule and
    either its parts (a card moved with its problem) or its slots (a part swapped in place) match.
    """
    grown = error_keys(after) - error_keys(before)
    return {
        (f.rule, f.parts, f.slots)
        for f in after.findings
        if f.severity == "error"
        and ("parts", f.rule, f.parts) in grown
        and ("slots", f.rule, f.slots) in grown
    }


def assert_edit_fixes(build: Build, finding: Finding, catalog: Catalog | None = None) -> Build:
    """Applying ``finding.edit`` removes that finding and adds no new error; returns the result."""
    catalog = catalog or fixture_catalog()
    assert finding.edit, f"{finding.rule} carries no edit"
    before = evaluate(build, catalog)
    after_build = apply_all(build, finding.edit)
    after = evaluate(after_build, catalog)
    key = (finding.rule, finding.slots, finding.parts)
    had = sum(1 for f in before.findings if (f.rule, f.slots, f.parts) == key)
    left = [f for f in after.findings if (f.rule, f.slots, f.parts) == key]
    assert len(left) < had, f"{finding.rule} still there after {finding.edit}: {left[0].message}"
    new_errors = added_errors(before, after)
    assert not new_errors, f"{finding.edit} added errors {new_errors}"
    return after_build
