"""System memory rules."""

import pytest
from fixtures_catalog.helpers import H200, assert_edit_fixes, base_build, of_rule, one, run

from slotwise.engine.rules.memory import balanced_counts

TEN = {str(i): H200 for i in range(1, 11)}


def test_balanced_counts():
    assert balanced_counts(8, 2, 32) == [16, 32]
    assert balanced_counts(12, 2, 24) == [24]
    assert balanced_counts(8, 1, 16) == [8, 16]


@pytest.mark.parametrize(
    ("changes", "rule", "severity"),
    [
        ({"dimm": None, "dimm_count": 0}, "memory.no_dimms", "error"),
        ({"dimm": "DDR5-NOPE"}, "memory.unknown_dimm", "error"),
        ({"dimm_count": 40}, "memory.too_many_dimms", "error"),
        ({"dimm_count": 12}, "memory.unbalanced", "warning"),
        ({"dimm_count": 18}, "memory.unbalanced", "warning"),
    ],
)
def test_dimm_rules_with_edits(changes, rule, severity):
    b = base_build(**changes)
    f = one(run(b), rule)
    assert f.severity == severity
    assert_edit_fixes(b, f)


def test_two_dimms_per_channel_speed_info():
    b = base_build(dimm="DDR5-4800-64GB-RDIMM", dimm_count=32)
    f = one(run(b), "memory.2dpc_speed")
    assert f.severity == "info" and "4400 MT/s" in f.message
    assert not of_rule(run(base_build()), "memory.2dpc_speed")


def test_dimm_faster_than_cpu_runs_at_cpu_speed():
    f = one(run(base_build()), "memory.speed_capped")
    assert "4800 MT/s" in f.message


def test_ddr4_is_an_error_and_unlisted_dimm_a_warning():
    r = run(base_build(dimm="FIX-DIMM-DDR4"))
    assert one(r, "memory.wrong_type").severity == "error"
    assert one(r, "memory.dimm_not_listed").severity == "warning"


def test_host_memory_vs_gpu_memory():
    # 16 x 64 GB = 1,024 GB for 10 x 141 GB = 1,410 GB: below 1x
    low = base_build(slots=TEN, bridges=(), dimm="DDR5-4800-64GB-RDIMM")
    f = one(run(low), "memory.host_vs_gpu")
    assert f.severity == "warning" and "0.73x" in f.message
    assert not f.edit  # 32 x 64 GB is still below 2x: fix says use larger DIMMs
    # 16 x 96 GB = 1,536 GB: between 1x and 2x -> info, edit to 32 DIMMs
    mid = base_build(slots=TEN, bridges=())
    f = one(run(mid), "memory.host_vs_gpu")
    assert f.severity == "info"
    assert_edit_fixes(mid, f)
    assert not of_rule(run(base_build()), "memory.host_vs_gpu")  # 1,536 GB for 564 GB
