"""Power rules: worst-case draw vs PSU capacity under N+1 / N+N at high and low line."""

import pytest

from slotwise.engine.build import Environment
from slotwise.engine.build.edits import apply_all
from slotwise.engine.check.power_model import FANS_BOARD_SHARE
from slotwise.engine.check.rules.power import LOW_LINE_BOUND_W, usable_units
from tests.fixtures_catalog.helpers import H200, assert_edit_fixes, base_build, of_rule, one, run
from tests.paths import REPO

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


def test_low_line_rating_unknown_is_a_warning_not_a_pass():
    b = base_build(psu="FIX-PSU-2700-NOLOW", env=Environment(input_voltage="100-127"))
    r = run(b)
    f = one(r, "power.low_line_unknown")
    assert f.severity == "warning"
    assert f.message.startswith("power not verified: FIX-PSU-2700-NOLOW's output at 100-127 V")
    assert r.budget("power").available is None
    assert not of_rule(r, "power.redundancy")
    assert r.power.verified is False
    assert "FIX-PSU-2700-NOLOW low-line rating unknown" in r.power.not_verified
    assert f.edit[0].op == "set_env" and f.edit[0].env.input_voltage == "200-240"


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


def test_unknown_power_figures_are_listed_as_not_verified():
    b = base_build(slots={**base_build().slots, "13": "FIX-NIC-25G-NOPOWER"})
    r = run(b)
    f = one(r, "power.unknown_figures")
    assert f.severity == "warning"
    assert f.message.startswith("power not verified")
    assert "FIX-NIC-25G-NOPOWER" in f.message and "lower bound" in f.message
    assert r.power.verified is False
    clean = run(base_build())
    assert not of_rule(clean, "power.unknown_figures")
    assert clean.power.verified is True


def test_hgx_fans_board_share_is_derived_when_the_chassis_publishes_none():
    """FIX-HGX-AIR publishes no fans/board/BMC figure: the derived share (0.3057 of the other
    parts, engine.check.power_model) stands in.  The fixture's HGX board and DIMM have no power
    figure, so they are listed and the result is 'not verified'."""
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
    # known parts 8 x 700 + 2 x 350 = 6,300 W; fans/board 6,300 x 0.3057 = 1,925.91 W
    assert FANS_BOARD_SHARE == 0.3057
    assert round(r.budget("power").used, 2) == round(6300 + 6300 * 0.3057, 2) == 8225.91
    unknown = one(r, "power.unknown_figures").message
    assert "HGX-H100-8GPU NVSwitch/board power" in unknown
    assert "32 x DDR5-4800-64GB-RDIMM (power unknown)" in unknown
    assert r.power.verified is False
    assert any("fans, board, BMC" in d and "DGX H100" in d for d in r.power.derived)


def test_worst_case_and_typical_at_the_wall():
    """base_build: 4 x 600 W GPUs, 2 x 350 W CPUs, 16 x 10 W DIMMs, 2 x 25 W drives and the
    chassis' published 400 W fans/board: 3,710 W DC.  FIX-PSU-2700 names no efficiency class,
    so 90 % is assumed (the lowest point of the 80 PLUS Titanium/Platinum curves)."""
    r = run(base_build())
    p = r.power
    assert p.worst_dc_w == 3710
    assert round(p.worst_ac_w, 1) == round(3710 / 0.90, 1) == 4122.2
    assert p.efficiency == 0.90 and "unknown" in p.efficiency_basis
    # typical (no workload -> training): GPUs at 85 %, CPUs at 50 %:
    # 3,710 - 2,400 x 0.15 - 700 x 0.5 = 3,710 - 360 - 350 = 3,000 W DC -> 3,000 / 0.9 AC
    assert p.typical_mode == "training"
    assert round(p.typical_ac_w, 1) == round(3000 / 0.90, 1) == 3333.3
    assert "at the wall 4,122 W worst case, 3,333 W typical (training)" in r.budget("power").detail
    # heat is the wall figure: every watt drawn at the wall ends up as heat
    assert round(r.budget("heat").used, 1) == 4122.2


def test_titanium_curve_sets_the_wall_figure():
    """FIX-PSU-3300-C20 is 80 PLUS Titanium.  3,710 W over 4 x 3,200 W (the C19/C20 cap) is
    29.0 % load: efficiency 94 % + (96 - 94) % x (0.290 - 0.20) / 0.30 = 94.6 %."""
    r = run(base_build(psu="FIX-PSU-3300-C20"))
    load = 3710 / (4 * 3200)
    eff = 0.94 + 0.02 * (load - 0.20) / 0.30
    assert abs(r.power.efficiency - eff) < 1e-9
    assert round(r.power.worst_ac_w, 1) == round(3710 / eff, 1)
    assert "80 PLUS Titanium curve at 29% load" in r.power.efficiency_basis


def test_c20_inlet_caps_a_unit_at_200v_x_16a_and_says_so():
    r = run(base_build(psu="FIX-PSU-3300-C20"))
    p = r.budget("power")
    assert p.available == 3 * 3200  # N+1 of 4, each capped from 3,300 W to 200 V x 16 A
    assert "C19/C20 inlet: 200 V x 16 A caps each unit at 3,200 W" in p.detail


def test_chassis_scheme_redundancy_and_the_looser_user_choice():
    """FIX-HGX-AIR has no scheme; the bundled SYS-821GE-TNHR is specified 4+2 with 6 PSUs."""
    from slotwise.engine.check.evaluate import evaluate
    from tests.fixtures_catalog.helpers import bundled_catalog

    b = base_build(
        chassis="SYS-821GE-TNHR",
        slots={},
        bridges=(),
        drives=(),
        baseboard="HGX-H100-8GPU",
        dimm="DDR5-4800-64GB-RDIMM",
        dimm_count=32,
        psu="SMCI-PSU-3000W-12V-54V",
        psu_count=6,
    )
    r = evaluate(b, bundled_catalog())
    assert r.budget("power").available == 5 * 3000  # N+1: 5 of 6 count
    f = one(r, "power.scheme_looser")
    assert "specified 4+2" in f.message and "counts 5 of 6" in f.message
    r2 = evaluate(apply_all(b, f.edit), bundled_catalog())
    assert r2.budget("power").available == 4 * 3000  # 4+2: the 2 spares may fail
    assert "chassis 4+2 at 200-240 V: 4 of 6" in r2.budget("power").detail
    assert not of_rule(r2, "power.scheme_looser")


def test_eight_h200_nvl_in_421ge_tnrt_at_low_line_is_never_ok():
    """The issue's case: 8 x H200 NVL in SYS-421GE-TNRT (2700 W PSUs, low-line rating unknown)
    at 100-127 V.  DC draw (8 x 600 + 2 x 350 + 32 x 10 + 2 x 30.76 (ConnectX-7 per Supermicro's
    BOM) + the on-board X710-AT2 at its 25 W bound) x 1.3057 = 5,906.52 x 1.3057 = 7,712.1 W.  Even at the inlet bound (127 V x 16 A = 2,032 W a unit) N+1 of 4 gives 6,096 W:
    an error whose fix is 200-240 V (3 x 2,700 = 8,100 W carries it)."""
    from slotwise.engine.bom import read_bom
    from slotwise.engine.check.evaluate import evaluate
    from tests.fixtures_catalog.helpers import bundled_catalog

    loaded = read_bom(REPO / "examples" / "broken-100v-power.toml", bundled_catalog())
    b = loaded.build.with_(env=Environment(input_voltage="100-127", redundancy="N+1"))
    r = evaluate(b, bundled_catalog())
    assert round(r.budget("power").used, 1) == round(5906.52 * 1.3057, 1) == 7712.1
    assert ("1 x INTEL-X710-AT2-ONBOARD (on board)", 25.0) in r.budget("power").parts
    f = one(r, "power.redundancy")
    assert f.severity == "error" and "6,096 W" in f.message
    assert f.edit[0].op == "set_env" and f.edit[0].env.input_voltage == "200-240"
    assert not of_rule(evaluate(apply_all(b, f.edit), bundled_catalog()), "power.redundancy")
    # with fewer GPUs the bound no longer proves it short: still not OK, a warning
    small = b.with_(slots={k: v for k, v in b.slots.items() if k in ("1", "2", "10")}, bridges=())
    r3 = evaluate(small, bundled_catalog())
    w = one(r3, "power.low_line_unknown")
    assert w.severity == "warning" and "power not verified" in w.message
    assert r3.power.verified is False
