"""engine.check.power_model: 80 PLUS curves, redundancy schemes (arithmetic written out)."""

import pytest

from slotwise.engine.check.power_model import (
    UNKNOWN_EFFICIENCY,
    efficiency_at,
    efficiency_class,
    parse_scheme,
    usable_units,
)


@pytest.mark.parametrize(
    ("cls", "load", "eff"),
    [
        ("titanium", 0.05, 0.90),  # below 10 %: hold the 10 % point
        ("titanium", 0.10, 0.90),
        ("titanium", 0.15, 0.92),  # halfway 90 -> 94
        ("titanium", 0.35, 0.95),  # halfway 94 -> 96 (20 % -> 50 %)
        ("titanium", 0.54, 0.956),  # 96 - 5 x (0.04 / 0.50)
        ("titanium", 1.00, 0.91),
        ("titanium", 1.20, 0.91),  # above full load: hold
        ("platinum", 0.35, 0.92),  # halfway 90 -> 94
        ("platinum", 0.75, 0.925),  # halfway 94 -> 91
        (None, 0.5, UNKNOWN_EFFICIENCY),
    ],
)
def test_efficiency_curve(cls, load, eff):
    assert efficiency_at(cls, load) == pytest.approx(eff)


def test_efficiency_class_from_the_record_text():
    assert efficiency_class("80 PLUS Titanium (96%)") == "titanium"
    assert efficiency_class("80 PLUS Platinum") == "platinum"
    assert efficiency_class("Gold") is None
    assert efficiency_class(None) is None


@pytest.mark.parametrize(
    ("n", "policy", "scheme", "units"),
    [
        (4, "N+1", None, 3),
        (4, "N+N", None, 2),
        (6, "chassis", "4+2", 4),  # the 2 spares may fail
        (8, "chassis", "4+2", 6),  # extra units count, the 2 spares still may fail
        (6, "chassis", "3+3", 3),  # a == b: one of two feeds
        (4, "chassis", "2+2", 2),
        (6, "chassis", "5+1", 5),
        (4, "chassis", None, 3),  # unknown scheme: N+1 (the rule says so)
        (0, "chassis", "4+2", 0),
    ],
)
def test_usable_units(n, policy, scheme, units):
    assert usable_units(n, policy, scheme) == units


def test_parse_scheme():
    assert parse_scheme("4+2") == (4, 2)
    assert parse_scheme(" 3 + 3 ") == (3, 3)
    assert parse_scheme("N+1") is None
    assert parse_scheme(None) is None
