"""Cooling rules and the heat budget."""

from slotwise.engine.build import Environment
from tests.fixtures_catalog.helpers import H200, assert_edit_fixes, base_build, of_rule, one, run


def test_heat_budget_in_watts_and_btu():
    """Heat = worst-case draw at the wall: 3,710 W DC / 0.90 (efficiency class unknown) =
    4,122.2 W; x 3.412 = 14,065 BTU/h; FIX-PCIE-10 is air-cooled, rated 35 C."""
    r = run(base_build())
    heat = r.budget("heat")
    assert heat.used == r.power.worst_ac_w
    assert round(heat.used, 1) == round(3710 / 0.9, 1) == 4122.2
    assert "14,065 BTU/h at worst-case wall draw" in heat.detail
    assert "all 4,122 W to air" in heat.detail
    assert "inlet 25 C of 35 C rated" in heat.detail


def test_liquid_system_heat_split_is_not_verified_without_a_published_share():
    b = base_build(
        chassis="FIX-HGX-LIQUID",
        slots={},
        bridges=(),
        drives=(),
        baseboard="FIX-HGX-B200-LIQUID",
        psu="FIX-PSU-3000",
        psu_count=6,
        env=Environment(cooling="liquid"),
    )
    heat = run(b).budget("heat")
    assert "air/liquid split not verified" in heat.detail


def test_liquid_only_chassis_with_air_site():
    b = base_build(
        chassis="FIX-HGX-LIQUID",
        slots={},
        bridges=(),
        drives=(),
        baseboard="FIX-HGX-B200-LIQUID",
        psu="FIX-PSU-3000",
        psu_count=6,
    )
    r = run(b)
    f = one(r, "cooling.liquid_only")  # the chassis; its board's own requirement is implied
    assert f.parts == ("FIX-HGX-LIQUID",) and f.severity == "error"
    assert_edit_fixes(b, f)
    liquid = b.with_(env=Environment(cooling="liquid"))
    assert not of_rule(run(liquid), "cooling.liquid_only")


def test_liquid_only_baseboard_in_air_chassis():
    b = base_build(
        chassis="FIX-HGX-AIR",
        slots={},
        bridges=(),
        drives=(),
        baseboard="FIX-HGX-B200-LIQUID",
        psu="FIX-PSU-3000",
        psu_count=6,
    )
    f = one(run(b), "cooling.liquid_only")
    assert f.parts == ("FIX-HGX-B200-LIQUID",)
    assert_edit_fixes(b, f)


def test_gpu_above_air_limit():
    b = base_build(slots={"6": "FIX-GPU-HOT"}, bridges=())
    f = one(run(b), "cooling.gpu_tdp_air")
    assert f.severity == "error" and "600 W" in f.message and f.slots == ("6",)
    assert not of_rule(run(base_build()), "cooling.gpu_tdp_air")


def test_ambient_above_rating_is_an_error():
    b = base_build(env=Environment(ambient_c=45))
    r = run(b)
    f = one(r, "cooling.ambient")
    assert f.severity == "error" and "45 C" in f.message and "35 C" in f.message
    assert r.errors >= 1  # never "OK: 0 errors" at 45 C on a 35 C chassis
    assert_edit_fixes(b, f)
    assert not of_rule(run(base_build(env=Environment(ambient_c=35))), "cooling.ambient")


def _bare(**env):
    from tests.engine.check.test_rules_unknowns import bare

    return bare().with_(env=Environment(**env)) if env else bare()


def test_unknown_rating_is_checked_against_the_family_ashrae_class():
    """FIX-BARE (X13) publishes no rating; FIX-PCIE-10 and FIX-HGX-AIR, the other X13 chassis,
    are rated 35 C: ASHRAE class A2, derived (tier C), stated in the finding."""
    b = _bare(ambient_c=45)
    f = one(run(b), "cooling.ambient_class")
    assert f.severity == "error"
    assert "ASHRAE class A2" in f.message and "35 C" in f.message and "tier C" in f.message
    assert "FIX-PCIE-10" in f.message or "FIX-HGX-AIR" in f.message
    assert_edit_fixes(b, f)
    ok = run(_bare(ambient_c=30))
    assert not of_rule(ok, "cooling.ambient_class")
    info = one(ok, "cooling.unknown_ambient")
    assert info.severity == "info" and "ASHRAE class A2" in info.message
    assert "tier C" in info.message
    assert "ASHRAE A2" in ok.budget("heat").detail


def test_open_air_consumer_card():
    b = base_build(slots={**base_build().slots, "6": "FIX-GPU-CONSUMER"})
    f = one(run(b), "cooling.open_air_gpu")
    assert f.severity == "error"
    assert [e.op for e in f.edit] == ["place"]  # swapped for a supported passive card
    assert_edit_fixes(b, f)
    assert not of_rule(run(base_build(slots={"1": H200}, bridges=())), "cooling.open_air_gpu")


def test_cpu_above_chassis_tdp():
    b = base_build(cpu="FIX-CPU-HOT")
    f = one(run(b), "cooling.cpu_tdp")
    assert f.edit[0].sku == "XEON-8480+"
    assert_edit_fixes(b, f)
