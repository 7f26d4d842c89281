"""suggest follows the power figures: PSU count from the worst case incl. the derived fans/board
share, never a 100-127 V build whose PSU low-line rating is unknown (the real engine)."""

from __future__ import annotations

import pytest

from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.plan.suggest import Constraints, psu_count_for, suggest
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import load_catalog

WL = Workload(model="llama-3.1-70b", method="lora", tokens=2e9)


@pytest.fixture(scope="module")
def cat():
    return load_catalog(overlay=None)


def test_psu_count_arithmetic():
    # HGX H200 in SYS-821GE-TNHR, 3,000 W units: the DC worst case is 9,717 W (parts 7,396 W x
    # 1.3057).  N+1: ceil(9,717 / 3,000) = 4, + 1 = 5 PSUs (the old 6,476 W sum gave 3 + 1 = 4).
    assert psu_count_for(9717, 3000, "N+1", 8) == 5
    assert psu_count_for(6476, 3000, "N+1", 8) == 4
    # the chassis' own 4+2 scheme: n - 2 units count; 4 x 3,000 = 12,000 >= 9,749 -> 6 PSUs
    assert psu_count_for(9749, 3000, "chassis", 8, "4+2") == 6
    # N+N: 2 x ceil(9,749 / 3,000) = 8 PSUs (8 bays)
    assert psu_count_for(9749, 3000, "N+N", 8) == 8


def test_suggested_psu_count_covers_the_engine_worst_case(cat):
    res = suggest(WL, cat, Constraints(gpus=("NVIDIA-H200-SXM-141GB",)), limit=2)
    assert res.suggestions, res.rejected[:5]
    for s in res.suggestions:
        rep = evaluate(s.build, cat)
        psu = cat.psus[s.build.psu]
        dc = rep.budget("power").used
        # the count is the fewest that carries the DC worst case under N+1 (bays permitting)
        assert (s.build.psu_count - 1) * psu.watts_high_line >= dc
        assert (s.build.psu_count - 2) * psu.watts_high_line < dc
        assert s.power_w == rep.power.worst_ac_w  # ranked and reported at the wall


def test_low_line_never_proposes_a_psu_with_unknown_low_line_rating(cat):
    res = suggest(
        WL,
        cat,
        Constraints(voltage="100-127", gpus=("NVIDIA-H200-NVL-141GB",)),
        limit=5,
    )
    reasons = dict(res.rejected)
    assert "SYS-421GE-TNRT: none of its PSUs has a published rating at 100-127 V input" in reasons
    for s in res.suggestions:
        psu = cat.psus[s.build.psu]
        assert psu.watts_low_line is not None, s.build.psu
        assert s.build.chassis != "SYS-421GE-TNRT"
        rep = evaluate(s.build, cat)
        assert rep.power.verified and rep.errors == 0
