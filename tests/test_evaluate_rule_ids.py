"""The rule-id list (engine.rules.ids) matches the code, and the rules not covered elsewhere."""

import re
from pathlib import Path

from fixtures_catalog.helpers import H200, base_build, one, run

from slotwise.engine.build import BridgeFit
from slotwise.engine.rules.ids import RULES

ENGINE = Path(__file__).resolve().parent.parent / "engine"
ID = re.compile(
    r'"((?:slots|platform|lanes|nvlink|memory|power|cooling|storage|network|workload_fit|engine)'
    r'\.[a-z0-9_]+)"'
)


def test_rule_list_matches_the_code():
    sources = list((ENGINE / "rules").glob("*.py")) + [ENGINE / "evaluate.py"]
    used = {
        m for p in sources if p.name != "ids.py" for m in ID.findall(p.read_text(encoding="utf-8"))
    }
    assert used == set(RULES)


def test_liquid_cooled_card_at_an_air_site():
    f = one(run(base_build(slots={"1": "FIX-GPU-LIQUID"}, bridges=())), "cooling.liquid_gpu")
    assert f.severity == "error"


def test_unknown_memory_channels():
    r = run(base_build(chassis="FIX-BARE", cpu="FIX-CPU-NOFIGS", cpu_count=1, slots={}, bridges=()))
    assert one(r, "memory.unknown_channels").severity == "info"


def test_ocp_nic_in_a_pcie_slot():
    f = one(run(base_build(slots={"11": "FIX-NIC-OCP"}, bridges=())), "slots.ocp_nic")
    assert [e.op for e in f.edit] == ["remove"]


def test_bridge_in_a_chassis_without_known_groups():
    b = base_build(
        chassis="FIX-BARE",
        cpu_count=1,
        slots={"1": H200, "2": H200},
        bridges=(BridgeFit(sku="NVLINK-H200-NVL-2WAY", slots=("1", "2")),),
    )
    r = run(b)
    assert one(r, "nvlink.unknown_groups").severity == "info"
    assert r.errors == 0


def test_every_finding_of_the_rule_tests_has_a_listed_id():
    for b in (base_build(), base_build(slots={"3": "FIX-GPU-CONSUMER"}, bridges=())):
        assert run(b).rules() <= set(RULES)


def test_cpu_not_on_the_chassis_list_is_a_warning_with_a_swap():
    from fixtures_catalog.helpers import assert_edit_fixes

    b = base_build(chassis="FIX-HGX-AIR", cpu="XEON-6448Y", slots={}, bridges=(), drives=())
    f = one(run(b), "platform.cpu_not_listed")
    assert f.severity == "warning" and f.edit[0].sku == "XEON-8480+"
    assert_edit_fixes(b, f)
    assert not run(base_build()).rules() & {"platform.cpu_not_listed"}


def test_root_without_a_lane_count_is_reported():
    # FIX-BARE's CPU root has no lane figure and FIX-CPU-NOFIGS none either
    b = base_build(
        chassis="FIX-BARE", cpu="FIX-CPU-NOFIGS", cpu_count=1, slots={"1": H200}, bridges=()
    )
    r = run(b)
    f = one(r, "lanes.unknown_root")
    assert f.severity == "info" and "cpu1 (16 lanes in use)" in f.message
    assert r.budget("lanes:cpu1").available is None
