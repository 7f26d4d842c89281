"""Power rules: worst-case draw vs PSU capacity under N+1 / N+N at high and low line."""

import pytest
from fixtures_catalog.helpers import H200, assert_edit_fixes, base_build, of_rule, one, run

from engine.build import Environment
from engine.rules.power import LOW_LINE_BOUND_W, usable_units

TEN = {str(i): H200 for i in range(1, 11)}


def ten(**env):
    return base_build(slots=TEN, bridges=(), env=Environment(**env))


def test_worst_case_sum_and_capacity_budget():
    r = run(base_build())
    p = r.budget("power")
    # 4 x 600 W GPUs + 2 x 350 W CPUs + 16 x 10 W DIMMs + 2 x 25 W drives + 400 W chassis
    assert p.used == 4 * 600 + 2 * 350 + 16 * 10 + 2 * 25 + 400
    assert p.available == 3 * 2700  # N+1 of 4 x 2700 W at 200-240 V
    assert dict(p.parts)["4 x NVIDIA-H200-NVL-141GB"] == 2400
    assert not of_rule(r, "power.redundancy")


@pytest.mark.parametrize(
    ("n", "policy", "units"), [(4, "N+1", 3), (4, "N+N", 2), (3, "N+N", 1), (1, "N+1", 0)]
)
def test_usable_units(n, policy, units):
    assert usable_units(n, policy) == units


def test_too_few_psus_gets_a_count_edit():
    b = ten().with_(psu_count=2)  # 7,310 W vs 1 x 2,700 W
    f = one(run(b), "power.redundancy")
    assert f.severity == "error"
    assert f.edit[0].op == "set_count" and f.edit[0].count == 4
    assert_edit_fixes(b, f)


def test_n_plus_n_short_with_no_count_that_fits_has_no_edit():
    b = ten(redundancy="N+N")  # 7,310 W vs 2 x 2,700 W, bays full
    f = one(run(b), "power.redundancy")
    assert not f.edit
    assert "cap the GPUs' power limit" in f.fix
    assert "without redundancy" in f.message


def test_low_line_rating_known_short_fix_is_high_line():
    b = ten(input_voltage="100-127")  # 3 x 1,800 W = 5,400 W < 7,310 W
    r = run(b)
    f = one(r, "power.redundancy")
    assert "100-127 V" in f.message and "5,400 W" in f.message
    assert f.edit[0].op == "set_env" and f.edit[0].env.input_voltage == "200-240"
    assert r.budget("power").available == 5400
    assert_edit_fixes(b, f)


def test_low_line_rating_unknown_is_info_not_pass():
    b = base_build(psu="FIX-PSU-2700-NOLOW", env=Environment(input_voltage="100-127"))
    r = run(b)
    f = one(r, "power.low_line_unknown")
    assert f.severity == "info"
    assert (
        "could not check low-line capacity of PSU FIX-PSU-2700-NOLOW: rating unknown" in f.message
    )
    assert r.budget("power").available is None
    assert not of_rule(r, "power.redundancy")


def test_low_line_rating_unknown_but_over_the_inlet_bound_is_error():
    # no PSU delivers more than 127 V x 16 A from one low-line inlet
    assert LOW_LINE_BOUND_W == 2032
    b = ten(input_voltage="100-127").with_(psu="FIX-PSU-2700-NOLOW")
    r = run(b)
    f = one(r, "power.redundancy")
    assert "2,032 W" in f.message
    assert r.budget("power").available == 3 * 2032
    assert_edit_fixes(b, f)


def test_no_psu_unknown_psu_not_allowed_and_bays():
    for b, rule in [
        (base_build(psu=None, psu_count=0), "power.no_psu"),
        (base_build(psu="PWS-NOPE"), "power.unknown_psu"),
        (base_build(psu="FIX-PSU-OTHER"), "power.psu_not_allowed"),
        (base_build(psu_count=5), "power.psu_bays"),
    ]:
        f = one(run(b), rule)
        assert f.severity == "error", rule
        assert_edit_fixes(b, f)


def test_unknown_power_figures_are_listed():
    b = base_build(slots={**base_build().slots, "13": "FIX-NIC-25G-NOPOWER"})
    f = one(run(b), "power.unknown_figures")
    assert "FIX-NIC-25G-NOPOWER" in f.message and "lower bound" in f.message
    assert not of_rule(run(base_build()), "power.unknown_figures")


def test_hgx_h100_worst_case_against_dgx_h100_spec():
    """Rule of thumb: an 8 x H100 SXM server draws 10-12 kW at most; NVIDIA's DGX H100 datasheet
    gives ~10.2 kW max system power.  Our sum counts 8 x 700 W GPUs and 2 x 350 W CPUs and lists
    what it cannot know (NVSwitch board, DIMMs, fans): it must stay a lower bound of that spec
    and cover most of it."""
    b = base_build(
        chassis="FIX-HGX-AIR",
        slots={},
        bridges=(),
        drives=(),
        baseboard="HGX-H100-8GPU",
        dimm="DDR5-4800-64GB-RDIMM",
        dimm_count=32,
        psu="FIX-PSU-3000",
        psu_count=6,
    )
    r = run(b)
    used = r.budget("power").used
    assert used == 8 * 700 + 2 * 350
    assert 0.6 * 10_200 <= used <= 10_200
    unknown = one(r, "power.unknown_figures").message
    assert "HGX-H100-8GPU NVSwitch/board power" in unknown
    assert "fans" in unknown
