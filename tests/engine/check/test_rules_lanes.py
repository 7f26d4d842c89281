"""PCIe lane rules: per-root budgets, switch oversubscription, roots beyond the CPU's lanes."""

from tests.fixtures_catalog.helpers import H200, assert_edit_fixes, base_build, of_rule, one, run


def test_lane_budget_per_root():
    r = run(base_build())
    sw1 = r.budget("lanes:sw1")
    assert (sw1.used, sw1.available, sw1.unit) == (32, 48, "lanes")
    cpu1 = r.budget("lanes:cpu1")
    assert (cpu1.used, cpu1.available) == (32, 80)  # two switch uplinks x16
    # CPU 2's root is idle but present; slots on it count once CPU 2 is fitted
    assert r.budget("lanes:cpu2").used == 32


def test_switch_oversubscription_info_at_2_to_1_warning_above():
    r = run(base_build())
    two = [f for f in of_rule(r, "lanes.switch_oversubscribed") if "sw1" in f.message]
    assert two and two[0].severity == "info" and "2:1" in two[0].message
    three = run(base_build(slots={**base_build().slots, "3": H200}))
    f = [f for f in of_rule(three, "lanes.switch_oversubscribed") if "sw1" in f.message][0]
    assert f.severity == "warning" and "3:1" in f.message
    single = run(base_build(slots={"1": H200}, bridges=()))
    assert not [f for f in of_rule(single, "lanes.switch_oversubscribed") if "sw1" in f.message]


def test_cpu_with_fewer_lanes_than_the_root_is_over_budget():
    # FIX-CPU-1S has 48 lanes; CPU 1's root carries 2 uplinks (32) + slot 11 (16) + slot 12 (8)
    b = base_build(
        cpu="FIX-CPU-1S",
        cpu_count=1,
        slots={"1": H200, "11": "NVIDIA-L4-24GB", "12": "NVIDIA-L4-24GB"},
        bridges=(),
    )
    r = run(b)
    f = one(r, "lanes.root_over")
    assert f.severity == "error" and "48" in f.message
    assert r.budget("lanes:cpu1").available == 48
    ok = base_build(cpu="FIX-CPU-1S", cpu_count=1, slots={"1": H200}, bridges=())
    assert not of_rule(run(ok), "lanes.root_over")


def test_root_over_edit_moves_a_card_when_a_free_root_exists():
    b = base_build(
        cpu="FIX-CPU-1S",
        cpu_count=1,
        slots={"11": "NVIDIA-L4-24GB", "12": "NVIDIA-L4-24GB"},
        bridges=(),
    )
    f = one(run(b), "lanes.root_over")
    assert f.edit and f.edit[0].op == "move"
    assert_edit_fixes(b, f)


def test_nic_in_the_switch_own_nic_slot_is_the_gpudirect_layout_not_a_warning():
    """SYS-422GA-NRT (bundled catalog): each of its 4 PCIe switches carries 2 GPU slots and its
    own NIC slot (purpose "nic"): 2 GPUs + 1 NIC = 48 lanes over a x16 uplink.  That is the
    vendor's GPUDirect RDMA layout: one info finding, no warnings (issue 28, item 6)."""
    from slotwise.engine.build import Build
    from slotwise.engine.check.evaluate import evaluate
    from tests.fixtures_catalog.helpers import bundled_catalog

    gpu, nic = "NVIDIA-RTX-PRO-6000-BSE-96GB", "NVIDIA-CX7-400G-1P-OSFP"
    slots = {str(i): gpu for i in range(1, 9)}
    b = Build(chassis="SYS-422GA-NRT", cpu="XEON-6960P", cpu_count=2, slots=slots)
    with_nics = b.with_(slots={**slots, **{s: nic for s in ("9", "10", "11", "12")}})
    r = evaluate(with_nics, bundled_catalog())
    found = of_rule(r, "lanes.switch_oversubscribed")
    assert [f.severity for f in found] == ["info"], [f.message for f in found]
    assert "GPUDirect" in found[0].message and "sw1" in found[0].message
    assert not [f for f in r.findings if f.severity == "warning" and f.rule.startswith("lanes.")]
    # the GPUs alone: 2:1 per switch, the usual shared-uplink information, no GPUDirect line
    r = evaluate(b, bundled_catalog())
    found = of_rule(r, "lanes.switch_oversubscribed")
    assert [f.severity for f in found] == ["info"] and "GPUDirect" not in found[0].message
