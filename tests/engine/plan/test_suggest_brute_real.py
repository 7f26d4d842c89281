"""Ranking optimality with the REAL rules engine and estimator: on the small synthetic catalog
(plus the bundled model presets), suggest()'s top builds equal an exhaustive enumeration judged
by engine.check.evaluate.evaluate and engine.estimate.estimate."""

from __future__ import annotations

import math
import shutil

import pytest

from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.check.rules.memory import RATIO_GOOD
from slotwise.engine.estimate import estimate
from slotwise.engine.model.resolve import resolve_arch
from slotwise.engine.plan.suggest import Constraints, suggest
from slotwise.engine.workload import Workload
from tests.engine.plan.suggest_fixtures import best_keys, price_list, valid_builds, write_catalog
from tests.paths import REPO

pytestmark = pytest.mark.slow  # brute force over the real catalog

MODELS = REPO / "parts" / "data" / "models.toml"


@pytest.fixture(scope="module")
def cat(tmp_path_factory):
    root = tmp_path_factory.mktemp("cat")
    (root / "chassis").mkdir()
    shutil.copy(MODELS, root / "models.toml")
    return write_catalog(root)


def real_estimate(workload, gpu, gpus, *, arch):
    # one server holds all the GPUs, as suggest() tells the real estimator for single nodes
    return estimate(workload, gpu, gpus, arch=arch, gpus_per_server=gpus)


WL = Workload(model="llama-3.1-70b", method="inference")


def memory_as_the_rule_wants(cat):
    """The solver's fill-in policy: DIMMs in every channel of every CPU, and host memory >= the
    memory rule's RATIO_GOOD x GPU memory (the real rule only informs or warns below these, so
    error-free builds may have less)."""

    def keep(build, report):
        # and one server runs it with the planning margin (the one sizing answer,
        # engine.check.sizing): a build that fits only inside the margin is not suggested
        one = report.verdict is not None and report.verdict.servers == 1
        return one and _memory_ok(cat, build)

    return keep


def _memory_ok(cat, build):
    gpu_gb = sum(cat.gpus[s].memory_gb for s in build.slots.values())
    if build.baseboard:
        bb = cat.baseboards[build.baseboard]
        gpu_gb += cat.gpus[bb.gpu_sku].memory_gb * bb.gpu_count
    channels = cat.cpus[build.cpu].memory_channels * build.cpu_count
    every_channel = build.dimm_count % channels == 0
    return every_channel and cat.dimms[build.dimm].capacity_gb * build.dimm_count >= (
        RATIO_GOOD * gpu_gb
    )


@pytest.fixture(scope="module")
def valid(cat):
    """All error-free builds, enumerated once and judged by the real evaluate()."""
    arch = resolve_arch(WL, cat, offline=True)
    return valid_builds(
        cat,
        WL,
        arch,
        Constraints(),
        price_list(),
        evaluator=evaluate,
        estimator=real_estimate,
        keep=memory_as_the_rule_wants(cat),
        needs=lambda build: _memory_ok(cat, build),  # keep's build-only half, before evaluate
    )


@pytest.mark.parametrize("objective", ["gpus", "power", "price", "time"])
def test_real_engine_ranking_matches_brute_force(cat, valid, objective):
    arch = resolve_arch(WL, cat, offline=True)
    res = suggest(WL, cat, objective=objective, limit=4, prices=price_list(), arch=arch)
    expected = best_keys(valid, objective)
    assert len(expected) >= 4 and len(res.suggestions) == 4
    got = []
    for s in res.suggestions:
        tps = s.estimate.decode_tokens_per_s
        time = math.inf if tps is None else -tps
        metric = {"gpus": s.gpus, "power": s.power_w, "price": s.price, "time": time}[objective]
        got.append((metric, s.gpus, s.power_w, math.inf if s.price is None else s.price))
        assert evaluate(s.build, cat).errors == 0
    assert got == [tuple(e) for e in expected[:4]]
