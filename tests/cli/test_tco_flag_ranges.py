"""The TCO flags check the ranges the engine's TcoInputs model declares (one home for them)."""

from __future__ import annotations

import argparse

import pytest
from pydantic import ValidationError

from slotwise.engine.cost.tco import TcoInputs
from slotwise.tui.commands.tco_args import fraction, pue, years

BASE = {"purchase_price": 1.0, "power_w": 1000.0, "gpus": 8}


@pytest.mark.parametrize(
    ("flag", "field", "good", "bad"),
    [
        (pue, "pue", ("1", "1.4", "5"), ("0.99", "5.01")),
        (years, "years", ("1", "10"), ("11",)),
        (fraction, "utilization", ("0.01", "1"), ("1.01",)),
    ],
)
def test_a_flag_accepts_exactly_what_the_model_accepts(flag, field, good, bad):
    for text in good:
        value = flag(text)
        TcoInputs(**BASE, **{field: value})
    for text in bad:
        with pytest.raises(argparse.ArgumentTypeError):
            flag(text)
        with pytest.raises(ValidationError):
            TcoInputs(**BASE, **{field: float(text)})
