"""bench/power.py against NVIDIA's published DGX maxima, and the derived constants it backs.

Evidence split (bench.power.fit_systems): the fans/board share is derived from DGX H100 only;
DGX B200 and DGX B300 are held out.  Every reference must be within +/-10 % of its published
maximum; the constants in engine.check.power_model must equal what the bench derives."""

import pytest

from bench import power
from slotwise.engine.check.power_model import FANS_BOARD_SHARE, HELD_OUT_MAX_ABS_ERR
from tests.fixtures_catalog.helpers import bundled_catalog


@pytest.fixture(scope="module")
def bench():
    return power


def test_split_is_fixed_by_rule_fit_on_dgx_h100_only(bench):
    assert bench.fit_systems(catalog=bundled_catalog()) == ("DGX H100",)


def test_share_constant_is_the_one_derived_from_the_fit_system(bench):
    ref = next(r for r in bench.REFERENCES if r.name == "DGX H100")
    assert bench.derive_share(ref, bundled_catalog()) == pytest.approx(FANS_BOARD_SHARE, abs=5e-4)


def test_every_reference_within_ten_percent(bench):
    built = [(r, b, ac) for r, b, ac in bench.rows(bundled_catalog()) if ac is not None]
    names = {r.name for r, _, _ in built}
    assert {"DGX H100", "DGX H200", "DGX B200", "DGX B300"} <= names
    for ref, build, ac in built:
        assert abs(ac / ref.published_w - 1) <= 0.10, (ref.name, build.chassis, ac)


def test_held_out_error_constant_matches_the_bench(bench):
    err = bench.held_out_max_abs_err(bundled_catalog())
    assert 0 < err <= 0.10
    assert pytest.approx(err, abs=1e-3) == HELD_OUT_MAX_ABS_ERR
