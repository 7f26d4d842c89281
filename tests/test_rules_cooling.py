"""Cooling rules and the heat budget."""

from fixtures_catalog.helpers import H200, assert_edit_fixes, base_build, of_rule, one, run

from engine.build import Environment


def test_heat_budget_in_watts_and_btu():
    r = run(base_build())
    heat = r.budget("heat")
    assert heat.used == r.budget("power").used
    assert f"{heat.used * 3.412:,.0f} BTU/h" in heat.detail


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


def test_ambient_above_rating():
    b = base_build(env=Environment(ambient_c=40))
    f = one(run(b), "cooling.ambient")
    assert f.severity == "warning"
    assert_edit_fixes(b, f)
    assert not of_rule(run(base_build(env=Environment(ambient_c=35))), "cooling.ambient")


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
