"""Realistic scenarios a pre-sales engineer meets, on the bundled catalog (parts/data)."""

from slotwise.engine.build import BridgeFit, Build, Environment
from slotwise.engine.build.edits import apply_all
from slotwise.engine.check.evaluate import evaluate
from tests.fixtures_catalog.helpers import assert_edit_fixes, bundled_catalog, of_rule

H200 = "NVIDIA-H200-NVL-141GB"
H100NVL = "NVIDIA-H100-NVL-94GB"


def platform(chassis: str, **kw) -> Build:
    base = dict(
        chassis=chassis,
        cpu="XEON-8480+",
        cpu_count=2,
        dimm="DDR5-4800-64GB-RDIMM",
        dimm_count=32,
        psu="SMCI-PSU-2700W-TITANIUM",
        psu_count=4,
    )
    base.update(kw)
    return Build(**base)


def run(build: Build):
    return evaluate(build, bundled_catalog())


def test_ten_h200_nvl_in_421ge_tnrt_on_low_line_is_a_power_error():
    b = platform(
        "SYS-421GE-TNRT",
        slots={str(i): H200 for i in range(1, 11)},
        env=Environment(input_voltage="100-127"),
    )
    r = run(b)
    power = [f for f in of_rule(r, "power.redundancy") if f.severity == "error"]
    assert len(power) == 1, [f.message for f in r.findings]
    f = power[0]
    assert "100-127 V" in f.message
    # 10 x 600 W GPUs alone exceed three low-line PSUs, whatever their exact low-line rating
    assert r.budget("power").used >= 10 * 600
    # (10 x 600 + 2 x 350 + 32 x 10 + the on-board X710-AT2 at its 25 W bound) x (1 + 0.3057)
    # = 7,045 x 1.3057 = 9,198.7 W: more than 3 x 2,700 W = 8,100 W even at 200-240 V, and 4
    # bays allow no more PSUs: the fix is to cap the GPUs or relax redundancy, with no one-key
    # edit.
    assert round(r.budget("power").used, 1) == round(7045 * 1.3057, 1)
    assert "cap the GPUs' power limit" in f.fix
    assert not f.edit


def test_eight_h100_nvl_with_four_bridges_missing():
    pairs = [("1", "2"), ("3", "4"), ("5", "6"), ("7", "8")]
    b = platform(
        "SYS-521GE-TNRT",
        slots={str(i): H100NVL for i in range(1, 9)},
        bridges=tuple(BridgeFit(sku="NVLINK-H100-NVL-2WAY", slots=p, count=2) for p in pairs),
    )
    r = run(b)
    missing = of_rule(r, "nvlink.bridge_count")
    assert [f.slots for f in missing] == pairs
    assert all(f.severity == "error" and f.edit[0].count == 3 for f in missing)
    for f in missing:
        assert_edit_fixes(b, f, bundled_catalog())
    all_fixed = apply_all(b, [e for f in missing for e in f.edit])
    assert not of_rule(run(all_fixed), "nvlink.bridge_count")
    assert sum(br.count for br in all_fixed.bridges) - sum(br.count for br in b.bridges) == 4


def test_four_l40s_with_nvlink_bridges_is_an_error():
    l40s = "NVIDIA-L40S-48GB"
    b = platform(
        "SYS-521GE-TNRT",
        slots={s: l40s for s in ("1", "2", "3", "4")},
        bridges=(
            BridgeFit(sku="NVLINK-H100-PCIE-2WAY", slots=("1", "2"), count=3),
            BridgeFit(sku="NVLINK-H100-PCIE-2WAY", slots=("3", "4"), count=3),
        ),
    )
    r = run(b)
    found = of_rule(r, "nvlink.no_nvlink")
    assert [f.slots for f in found] == [("1", "2"), ("3", "4")]
    assert all(f.severity == "error" and "L40S" in f.message for f in found)
    for f in found:
        assert [e.op for e in f.edit] == ["remove_bridge"]
        assert_edit_fixes(b, f, bundled_catalog())


def test_liquid_only_hgx_b200_system_in_an_air_cooled_room():
    b = Build(
        chassis="SYS-422GA-NBRT-LCC",
        cpu="XEON-6960P",
        cpu_count=2,
        baseboard="HGX-B200-8GPU",
        env=Environment(cooling="air"),
    )
    r = run(b)
    f = of_rule(r, "cooling.liquid_only")
    assert len(f) == 1 and f[0].severity == "error"
    assert "SYS-422GA-NBRT-LCC" in f[0].message
    assert not of_rule(run(b.with_(env=Environment(cooling="liquid"))), "cooling.liquid_only")


def test_hgx_h100_system_power_against_the_dgx_h100_spec():
    """8 x H100 SXM servers draw 10-12 kW at most (DGX H100 user guide: 10.2 kW max).  Every
    part now has a figure, so nothing is listed as unknown and the wall figure lands within
    10 % of the DGX maximum (this build has 2 fewer NICs and no drives than a DGX H100)."""
    b = platform(
        "SYS-821GE-TNHR",
        baseboard="HGX-H100-8GPU",
        psu="SMCI-PSU-3000W-12V-54V",
        psu_count=6,
    )
    r = run(b)
    # DC: 8 x 700 + 400 (4 NVSwitch x 100) + 2 x 350 + 32 x 10 = 7,020 W; with the derived
    # fans/board share 7,020 x 1.3057 = 9,166.0 W
    assert round(r.budget("power").used, 1) == round(7020 * 1.3057, 1)
    assert not of_rule(r, "power.unknown_figures")
    assert 0.9 * 10_200 <= r.power.worst_ac_w <= 1.1 * 10_200


def test_every_bundled_chassis_evaluates_empty_and_with_a_workload():
    from slotwise.engine.workload import Workload

    for sku in bundled_catalog().chassis:
        for wl in (None, Workload(model="llama-3.1-8b")):
            r = run(Build(chassis=sku, workload=wl))
            assert "engine.internal" not in r.rules()
            assert r.errors >= 1  # an empty chassis has no CPU, memory or PSU
