"""Serving model accuracy on published benchmarks: median |error| and share within 30 %.

    python bench/serving_accuracy.py          # both sets, one line per case with -v
    python bench/serving_accuracy.py --fit    # grid-search the fitted constants on FITTING only
    python bench/serving_accuracy.py --fit-moe  # only the two MoE constants, on FITTING's MoE cases

The cases, their sources and the fitting / held-out rule: tests/evidence/serving_cases.py.
The fitted constants and their grids: engine/estimate/serving_constants.py.
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from slotwise.engine.estimate.serving import DEFAULTS, Constants  # noqa: E402
from tests.evidence.serving_cases import FITTING, HELD_OUT, ServingCase  # noqa: E402
from tests.evidence.serving_predict import error, predict  # noqa: E402

TOLERANCE = 0.30

GRID = {
    "mbu": (0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90),
    "mfu": (0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70),
    "layer_floor_s": (5e-6, 10e-6, 15e-6, 20e-6, 30e-6, 40e-6, 60e-6, 80e-6, 100e-6),
    "moe_layer_floor_s": (0.0, 10e-6, 20e-6, 30e-6, 40e-6, 50e-6, 60e-6, 80e-6, 100e-6),
    "moe_gemm_efficiency": (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    "allreduce_latency_s": (2e-6, 5e-6, 10e-6, 15e-6, 20e-6, 30e-6),
}


def summary(cases: tuple[ServingCase, ...], k: Constants = DEFAULTS) -> tuple[float, float]:
    """(median |error|, share of cases within TOLERANCE)."""
    errs = [abs(error(c, k)) for c in cases]
    return statistics.median(errs), sum(e <= TOLERANCE for e in errs) / len(errs)


def _loss(k: Constants) -> float:
    return statistics.median(abs(math.log(predict(c, k) / c.published)) for c in FITTING)


def fit() -> Constants:
    """Coarse grid search, one constant at a time, repeated until nothing improves."""
    best = DEFAULTS
    best_loss = _loss(best)
    for _ in range(4):
        improved = False
        for name, values in GRID.items():
            for v in values:
                trial = replace(best, **{name: v})
                loss = _loss(trial)
                if loss < best_loss - 1e-9:
                    best, best_loss, improved = trial, loss, True
        if not improved:
            break
    # one joint pass over the two compute/bandwidth constants
    for mbu, mfu in itertools.product(GRID["mbu"], GRID["mfu"]):
        trial = replace(best, mbu=mbu, mfu=mfu)
        loss = _loss(trial)
        if loss < best_loss - 1e-9:
            best, best_loss = trial, loss
    return best


MOE_CONSTANTS = ("moe_layer_floor_s", "moe_gemm_efficiency")


def is_moe(case: ServingCase) -> bool:
    from slotwise.parts.catalog import load_catalog

    arch = load_catalog().models[case.model]
    return bool(arch.num_experts)


def fit_moe() -> Constants:
    """The MoE constants alone, jointly over their grids, on the MoE cases of FITTING (they
    change no dense case's prediction; the dense constants keep their values, so the MoE rows
    do not reshape what dense models are fitted to)."""
    moe = tuple(c for c in FITTING if is_moe(c))

    def loss(k: Constants) -> float:
        return statistics.median(abs(math.log(predict(c, k) / c.published)) for c in moe)

    trials = (
        replace(DEFAULTS, **dict(zip(MOE_CONSTANTS, values, strict=True)))
        for values in itertools.product(*(GRID[name] for name in MOE_CONSTANTS))
    )
    return min(trials, key=loss)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fit", action="store_true", help="fit the constants on FITTING only")
    ap.add_argument("--fit-moe", action="store_true", help="fit the MoE constants only")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    args = ap.parse_args(argv)
    k = DEFAULTS
    if args.fit:
        k = fit()
        print(f"fitted on {len(FITTING)} cases: {k}")
    elif args.fit_moe:
        k = fit_moe()
        print(f"MoE constants fitted on {sum(map(is_moe, FITTING))} MoE cases: {k}")
    if args.verbose:
        for label, cases in (("fitting", FITTING), ("held-out", HELD_OUT)):
            for c in cases:
                p = predict(c, k)
                print(
                    f"{label:<9} {c.id:<30} {c.kind:<17} published {c.published:>10,.2f}  "
                    f"slotwise {p:>10,.2f}  {100 * (p / c.published - 1):+6.1f}%"
                )
    print("Serving model vs published benchmarks (tests/evidence/serving_cases.py)")
    for label, cases in (("fitting", FITTING), ("held-out", HELD_OUT)):
        med, share = summary(cases, k)
        print(
            f"  {label:<9} {len(cases):>3} cases: median |error| {100 * med:5.1f} %, "
            f"within {100 * TOLERANCE:.0f} %: {100 * share:5.1f} %"
        )
    light = [
        c
        for c in HELD_OUT
        if c.kind == "single_user_tok_s" or (c.kind == "itl_ms" and c.batch == 1)
    ]
    if light:
        med, share = summary(tuple(light), k)
        print(
            f"  light load (one user), held-out {len(light)} cases "
            f"({', '.join(sorted({c.source for c in light}))}): median |error| "
            f"{100 * med:5.1f} %"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
