"""Drive-bay rules."""

import pytest

from slotwise.engine.build import DriveFit
from tests.fixtures_catalog.helpers import assert_edit_fixes, base_build, of_rule, one, run


def drives(*fits):
    return base_build(drives=tuple(DriveFit(bay=b, sku=s, count=n) for b, s, n in fits))


@pytest.mark.parametrize(
    ("fits", "rule", "to_bay"),
    [
        ((("front-sata", "FIX-NVME-U2-3.84TB", 4),), "storage.bay_mismatch", "front-nvme"),
        ((("front-nvme", "FIX-E1S-NVME", 2),), "storage.bay_mismatch", "e1s"),
        ((("rear-9", "FIX-SATA-1.92TB", 2),), "storage.unknown_bay", "front-sata"),
    ],
)
def test_drives_in_wrong_bays_move(fits, rule, to_bay):
    b = drives(*fits)
    f = one(run(b), rule)
    assert f.severity == "error"
    assert f.edit[-1].bay == to_bay
    assert_edit_fixes(b, f)


def test_nvme_in_sata_only_bay_message():
    f = one(run(drives(("front-sata", "FIX-NVME-U2-3.84TB", 4))), "storage.bay_mismatch")
    assert "NVME drive" in f.message and "SATA" in f.message


def test_too_many_drives_and_unknown_drive():
    b = drives(("front-nvme", "FIX-NVME-U2-3.84TB", 10))
    f = one(run(b), "storage.too_many")
    assert f.edit[0].count == 8
    assert_edit_fixes(b, f)
    u = drives(("front-nvme", "SSD-NOPE", 1))
    assert_edit_fixes(u, one(run(u), "storage.unknown_drive"))
    assert not [f for f in run(base_build()).findings if f.rule.startswith("storage.")]


def test_no_drives_is_fine():
    assert not of_rule(run(base_build(drives=())), "storage.too_many")
