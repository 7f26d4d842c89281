"""Slot rules and CPU (platform) rules: each triggered by one build, absent from the base build."""

import pytest

from slotwise.engine.build import BridgeFit
from tests.fixtures_catalog.helpers import (
    H200,
    assert_edit_fixes,
    base_build,
    of_rule,
    one,
    run,
)


def test_base_build_is_clean():
    r = run(base_build())
    assert r.errors == 0, [f.message for f in r.of("error")]
    assert r.warnings == 0, [f.message for f in r.of("warning")]


def test_unknown_chassis_is_one_error_and_never_raises():
    r = run(base_build(chassis="NOPE-9000"))
    assert [f.rule for f in r.findings] == ["slots.unknown_chassis"]
    assert "NOPE-9000" in r.findings[0].message


def test_unknown_slot_and_unknown_part_and_not_a_card():
    b = base_build(slots={"99": H200, "5": "NO-SUCH-GPU", "6": "XEON-8480+"})
    r = run(b)
    for rule, slot in [
        ("slots.unknown_slot", "99"),
        ("slots.unknown_part", "5"),
        ("slots.not_a_card", "6"),
    ]:
        f = one(r, rule)
        assert f.slots == (slot,)
        assert_edit_fixes(b, f)


def test_double_width_card_blocking_neighbour_moves_the_blocked_card():
    # slot 11 is double-width and covers slot 12; an L4 (single width) sits in 12
    b = base_build(slots={**base_build().slots, "11": H200, "12": "NVIDIA-L4-24GB"})
    r = run(b)
    f = one(r, "slots.double_width_blocked")
    assert f.slots == ("11", "12")
    assert f.severity == "error"
    assert f.edit and f.edit[0].op == "move" and f.edit[0].src == "12"
    assert_edit_fixes(b, f)
    assert not of_rule(run(base_build()), "slots.double_width_blocked")


def test_single_width_card_in_covering_slot_does_not_block():
    b = base_build(slots={**base_build().slots, "11": "NVIDIA-L4-24GB", "12": "NVIDIA-L4-24GB"})
    assert not of_rule(run(b), "slots.double_width_blocked")


def test_double_width_card_in_single_width_slot():
    b = base_build(slots={**base_build().slots, "12": "NVIDIA-L40S-48GB"})
    f = one(run(b), "slots.too_wide")
    assert f.slots == ("12",)
    assert_edit_fixes(b, f)


def test_full_height_card_in_low_profile_slot_and_x16_card_in_x8_mechanical_slot():
    b = base_build(slots={**base_build().slots, "13": "NVIDIA-L40S-48GB", "14": "FIX-NIC-400G"})
    r = run(b)
    assert one(r, "slots.too_tall").slots == ("13",)
    assert one(r, "slots.too_long").slots == ("13",)
    assert one(r, "slots.mechanical").slots == ("14",)
    # a low-profile L4 fits slot 13
    assert not of_rule(run(base_build(slots={"13": "NVIDIA-L4-24GB"})), "slots.too_tall")


def test_x16_card_in_x8_electrical_slot_runs_at_x8():
    b = base_build(slots={**base_build().slots, "12": "NVIDIA-L4-24GB"})
    f = one(run(b), "slots.runs_narrow")
    assert f.severity == "warning"
    assert "runs at x8" in f.message
    assert_edit_fixes(b, f)
    assert not of_rule(run(base_build()), "slots.runs_narrow")


def test_gen5_card_in_gen4_slot_is_info():
    b = base_build(slots={"13": "FIX-NIC-400G"})
    f = one(run(b), "slots.runs_slower_gen")
    assert f.severity == "info"


def test_slot_on_missing_second_cpu_offers_second_cpu():
    b = base_build(cpu_count=1, slots={"6": H200}, bridges=())
    f = one(run(b), "slots.needs_cpu")
    assert f.slots == ("6",)
    assert f.edit[0].op == "set_count" and f.edit[0].count == 2
    assert_edit_fixes(b, f)
    assert not of_rule(run(base_build(cpu_count=1)), "slots.needs_cpu")


def test_gpu_not_on_supported_list_is_warning():
    b = base_build(slots={"1": "NVIDIA-H100-SXM5-80GB"})
    r = run(b)
    assert of_rule(r, "slots.sxm_in_pcie")[0].severity == "error"
    f = one(r, "slots.sxm_in_pcie")
    assert_edit_fixes(b.with_(bridges=()), f)


def test_consumer_gpu_is_error_with_explanation():
    b = base_build(slots={"3": "FIX-GPU-CONSUMER"}, bridges=())
    r = run(b)
    f = one(r, "slots.consumer_gpu")
    assert f.severity == "error"
    assert "licence" in f.message and "ECC" in f.message
    assert "open-air" in f.message
    assert "NVIDIA-" in (f.fix or "")  # names a data-centre alternative
    assert [e.op for e in f.edit] == ["place"]
    assert_edit_fixes(b, f)
    # the consumer card is also off the chassis' supported list
    assert one(r, "slots.gpu_not_listed").severity == "warning"
    assert not of_rule(run(base_build()), "slots.consumer_gpu")


def test_mixed_gpu_models_warning():
    b = base_build(slots={**base_build().slots, "6": "NVIDIA-L40S-48GB"})
    f = one(run(b), "slots.mixed_gpus")
    assert f.severity == "warning"
    assert set(f.parts) == {H200, "NVIDIA-L40S-48GB"}


def test_gpu_in_nic_slot_purpose_warning():
    b = base_build(slots={**base_build().slots, "14": "NVIDIA-L4-24GB"})
    r = run(b)
    f = one(r, "slots.purpose")
    assert_edit_fixes(b, f)


def test_unknown_card_figures_are_reported_not_passed():
    b = base_build(slots={**base_build().slots, "6": "FIX-GPU-NOFIGS"})
    f = one(run(b), "slots.unknown_figures")
    assert f.severity == "info"
    assert "FIX-GPU-NOFIGS" in f.message and "lanes unknown" in f.message


def test_hgx_system_without_baseboard_and_wrong_baseboard():
    b = base_build(
        chassis="FIX-HGX-AIR", slots={}, bridges=(), drives=(), psu="FIX-PSU-3000", psu_count=6
    )
    f = one(run(b), "slots.no_baseboard")
    fixed = assert_edit_fixes(b, f)
    assert fixed.baseboard == "HGX-H100-8GPU"
    wrong = b.with_(baseboard="FIX-HGX-B200-LIQUID")
    assert_edit_fixes(wrong, one(run(wrong), "slots.baseboard_not_supported"))
    unknown = b.with_(baseboard="HGX-NOPE")
    assert_edit_fixes(unknown, one(run(unknown), "slots.unknown_baseboard"))
    in_pcie = base_build(baseboard="HGX-H100-8GPU")
    assert_edit_fixes(in_pcie, one(run(in_pcie), "slots.baseboard_in_pcie_chassis"))


def test_too_many_gpus():
    slots = {str(i): "NVIDIA-L4-24GB" for i in range(1, 15)}
    r = run(base_build(slots=slots, bridges=()))
    assert one(r, "slots.too_many_gpus").severity == "error"


# ------------------------------------------------------------------ CPUs (platform.*)


def test_no_cpu_and_unknown_cpu():
    b = base_build(cpu=None, cpu_count=0)
    assert_edit_fixes(b, one(run(b), "platform.no_cpu"))
    u = base_build(cpu="XEON-NOPE")
    assert_edit_fixes(u, one(run(u), "platform.unknown_cpu"))


@pytest.mark.parametrize(
    ("cpu", "count", "rule"),
    [
        ("XEON-8480+", 3, "platform.cpu_count"),
        ("FIX-CPU-1S", 2, "platform.cpu_max_sockets"),
        ("FIX-CPU-OTHER-SOCKET", 2, "platform.cpu_socket"),
    ],
)
def test_cpu_count_and_socket_rules(cpu, count, rule):
    b = base_build(cpu=cpu, cpu_count=count)
    f = one(run(b), rule)
    assert f.severity == "error"
    assert_edit_fixes(b, f)


def test_bridge_fixture_sanity():
    assert base_build().bridges == (
        BridgeFit(sku="NVLINK-H200-NVL-4WAY", slots=("1", "2", "4", "5")),
    )
