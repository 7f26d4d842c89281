"""The workload verdicts are decided once, in the engine (slotwise.engine.check.verdict): the target
check, the servers a target needs, and the verdict the report carries for the front ends."""

from __future__ import annotations

import pytest

from slotwise.engine.bom import read_bom
from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.check.verdict import TargetCheck, servers_for_target, target_check
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import load_catalog
from tests.paths import REPO

EXAMPLES = REPO / "examples"
TRAIN = Workload(model="llama-3.1-8b", method="full", tokens=1e9, target_days=2)


@pytest.mark.parametrize(
    ("hours", "met"), [(47.9, True), (48.0, True), (48.1, False), (None, None)]
)
def test_target_check_is_met_within_the_days_unknown_without_a_time(hours, met):
    check = target_check(TRAIN, hours)
    assert check is not None and check.met is met and check.target_hours == 48


@pytest.mark.parametrize(
    "workload",
    [
        None,
        Workload(model="llama-3.1-8b", method="inference", target_days=2),
        Workload(model="llama-3.1-8b", method="full", target_days=2),  # no tokens
        Workload(model="llama-3.1-8b", method="full", tokens=1e9),  # no target
    ],
)
def test_no_target_check_where_no_target_applies(workload):
    assert target_check(workload, 100.0) is None


def test_servers_for_target_from_the_gpu_count_else_from_the_time():
    check = TargetCheck(target_days=1, train_hours=50)
    assert servers_for_target(check, 20, 8) == 3  # ceil(20 / 8)
    assert servers_for_target(check, None, 8) == 3  # ceil(50 h / 24 h)


def test_the_report_carries_the_verdict_of_its_estimate():
    catalog = load_catalog()
    loaded = read_bom(EXAMPLES / "h200-nvl-lora-421ge.toml", catalog)
    build = loaded.build
    assert build is not None and build.workload is not None
    report = evaluate(build, catalog)
    est, v = report.estimate, report.verdict
    assert est is not None and v is not None
    assert (v.fits, v.gpus, v.min_gpus, v.train_hours) == (
        est.fits,
        est.gpus,
        est.min_gpus,
        est.train_hours,
    )
    assert v.need_bytes == est.memory_per_gpu.total_bytes
    assert v.target is not None and v.target == target_check(build.workload, est.train_hours)
