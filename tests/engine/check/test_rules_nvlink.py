"""NVLink bridge rules."""

from slotwise.engine.build import BridgeFit
from slotwise.engine.workload import Workload
from tests.fixtures_catalog.helpers import (
    H100NVL,
    H200,
    assert_edit_fixes,
    base_build,
    of_rule,
    one,
    run,
)

BR2 = "NVLINK-H100-NVL-2WAY"


def h100_pairs(count: int, pairs=(("1", "2"), ("6", "7"))):
    slots = {s: H100NVL for p in pairs for s in p}
    return base_build(
        slots=slots, bridges=tuple(BridgeFit(sku=BR2, slots=p, count=count) for p in pairs)
    )


def test_h100_nvl_needs_three_bridges_per_pair():
    b = h100_pairs(count=1)
    found = of_rule(run(b), "nvlink.bridge_count")
    assert [f.slots for f in found] == [("1", "2"), ("6", "7")]
    for f in found:
        assert f.severity == "error"
        assert f.edit[0].op == "add_bridge" and f.edit[0].count == 3
        assert_edit_fixes(b, f)
    assert not of_rule(run(h100_pairs(count=3)), "nvlink.bridge_count")


def test_bridge_for_other_gpu_model_is_replaced():
    b = base_build(
        slots={"1": H200, "2": H200},
        bridges=(BridgeFit(sku=BR2, slots=("1", "2"), count=3),),
    )
    f = one(run(b), "nvlink.wrong_gpu")
    assert f.edit[-1].sku == "NVLINK-H200-NVL-2WAY"
    assert_edit_fixes(b, f)


def test_bridge_on_gpu_without_nvlink_is_removed():
    b = base_build(
        slots={"1": "NVIDIA-L40S-48GB", "2": "NVIDIA-L40S-48GB"},
        bridges=(BridgeFit(sku="NVLINK-H200-NVL-2WAY", slots=("1", "2")),),
    )
    f = one(run(b), "nvlink.no_nvlink")
    assert [e.op for e in f.edit] == ["remove_bridge"]
    assert_edit_fixes(b, f)


def test_group_not_allowed_and_empty_slot_and_wrong_ways_and_unknown():
    slots = {"1": H200, "2": H200, "3": H200, "4": H200}
    cases = {
        "nvlink.group_not_allowed": (("1", "4"), "NVLINK-H200-NVL-2WAY"),
        "nvlink.empty_slot": (("9", "10"), "NVLINK-H200-NVL-2WAY"),
        "nvlink.wrong_ways": (("1", "2", "4"), "NVLINK-H200-NVL-4WAY"),
        "nvlink.unknown_bridge": (("1", "2"), "NVLINK-NOPE"),
        "nvlink.unknown_slot": (("1", "77"), "NVLINK-H200-NVL-2WAY"),
    }
    for rule, (group, sku) in cases.items():
        b = base_build(slots=slots, bridges=(BridgeFit(sku=sku, slots=group),))
        f = one(run(b), rule)
        assert f.severity == "error", rule
        assert_edit_fixes(b, f)


def test_overlapping_bridges():
    b = base_build(
        slots={"1": H200, "2": H200, "3": H200},
        bridges=(
            BridgeFit(sku="NVLINK-H200-NVL-2WAY", slots=("1", "2")),
            BridgeFit(sku="NVLINK-H200-NVL-2WAY", slots=("2", "3")),
        ),
    )
    f = one(run(b), "nvlink.overlap")
    assert_edit_fixes(b, f)


def test_four_way_island_must_stay_under_one_cpu():
    slots = {s: H200 for s in ("3", "4", "5", "6")}
    b = base_build(
        slots=slots, bridges=(BridgeFit(sku="NVLINK-H200-NVL-4WAY", slots=tuple(slots)),)
    )
    f = one(run(b), "nvlink.cross_socket")
    assert f.severity == "error"
    assert_edit_fixes(b, f)
    # a 2-way pair across sockets is only information (NVIDIA: acceptable, not recommended)
    pair = base_build(
        slots={"5": H200, "6": H200},
        bridges=(BridgeFit(sku="NVLINK-H200-NVL-2WAY", slots=("5", "6")),),
    )
    assert one(run(pair), "nvlink.cross_socket").severity == "info"


def test_unbridged_nvlink_gpus_warning_with_tp_info_without():
    b = base_build(bridges=())
    f = one(run(b), "nvlink.unbridged")
    assert f.severity == "info"
    assert f.edit[0].sku == "NVLINK-H200-NVL-4WAY" and f.edit[0].slots == ("1", "2", "4", "5")
    assert_edit_fixes(b, f)
    tp = run(b, Workload(model="llama-3.1-8b", tp=4))
    assert [x.severity for x in of_rule(tp, "nvlink.unbridged")] == ["warning"]
    assert not of_rule(run(base_build()), "nvlink.unbridged")


def test_unbridgeable_leftover_gpu_has_no_edit():
    b = base_build(slots={**base_build().slots, "8": H200})
    found = of_rule(run(b), "nvlink.unbridged")
    assert [f.slots for f in found] == [("8",)]
    assert not found[0].edit
