"""TCO flags shared by `slotwise suggest` and `slotwise export`: same names, defaults, checks.

--years N (1-10, 3), --pue X (1.0-5, 1.0), --kwh-price PRICE, --utilization F (0-1, 1.0),
--cloud-gpu-hour PRICE.  See engine.cost.tco for what each one means.
"""

from __future__ import annotations

import argparse

from slotwise.engine.cost.tco import TcoInputs
from slotwise.engine.plan.for_build import TcoParams
from slotwise.tui.commands.workload_args import _positive_float, _positive_int, finite_float


def _limits(name: str) -> tuple[float, float]:
    """(lowest, highest) the engine's TcoInputs accepts for ``name``: the flags check the same
    range the model does, so the two cannot drift apart."""
    lo, hi = float("-inf"), float("inf")
    for rule in TcoInputs.model_fields[name].metadata:
        lo = float(getattr(rule, "ge", getattr(rule, "gt", lo)))
        hi = float(getattr(rule, "le", hi))
    return lo, hi


def fraction(text: str) -> float:
    value = _positive_float(text)
    lo, hi = _limits("utilization")
    if not lo <= value <= hi:
        raise argparse.ArgumentTypeError(
            f"{text!r} must be between 0 and {hi:g}, at least {lo:g} (e.g. 0.7)"
        )
    return value


def _price(name: str):
    """A price flag: finite, 0 or more, at most what TcoInputs accepts for ``name``."""

    def parse(text: str) -> float:
        value = finite_float(text)
        lo, hi = _limits(name)
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{text!r} must be between {lo:g} and {hi:g}")
        return value

    parse.__name__ = name
    return parse


kwh_price = _price("kwh_price")
cloud_gpu_hour = _price("cloud_gpu_hour")


def non_negative(text: str) -> float:
    value = finite_float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value


def pue(text: str) -> float:
    value = _positive_float(text)
    lo, hi = _limits("pue")
    if not lo <= value <= hi:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a PUE is between {lo:.1f} and {hi:g} (e.g. 1.4)"
        )
    return value


def years(text: str) -> int:
    value = _positive_int(text)
    lo, hi = _limits("years")
    if not lo <= value <= hi:
        raise argparse.ArgumentTypeError(f"{text!r}: give {lo:g} to {hi:g} years")
    return value


def tco_params(args: argparse.Namespace) -> TcoParams:
    """The values of the flags :func:`add_tco_value_flags` adds, as the engine takes them."""
    return TcoParams(
        years=args.years,
        utilization=args.utilization,
        pue=args.pue,
        kwh_price=args.kwh_price,
        cloud_gpu_hour=args.cloud_gpu_hour,
    )


def add_tco_value_flags(group) -> None:
    """--years, --pue, --kwh-price, --utilization, --cloud-gpu-hour on ``group``."""
    group.add_argument("--years", type=years, default=3, metavar="N", help="horizon (3)")
    group.add_argument(
        "--pue", type=pue, default=1.0, metavar="X", help="facility PUE (1.0 = IT only)"
    )
    group.add_argument("--kwh-price", type=kwh_price, metavar="PRICE", help="per kWh")
    group.add_argument("--utilization", type=fraction, default=1.0, metavar="F", help="0-1 (1.0)")
    group.add_argument(
        "--cloud-gpu-hour", type=cloud_gpu_hour, metavar="PRICE", help="per GPU-hour"
    )
