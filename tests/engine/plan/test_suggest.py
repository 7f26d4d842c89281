"""engine.plan.suggest on a small synthetic catalog with injected estimator/evaluator: every suggested
build validates with zero errors, and the ranking equals a brute-force enumeration."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slotwise.engine.plan.suggest import (
    Constraints,
    SuggestError,
    psu_count_for,
    suggest,
)
from slotwise.engine.workload import Workload
from tests.engine.plan.suggest_fixtures import (
    FakeArch,
    brute_force,
    fake_estimate,
    make_fake_evaluator,
    price_list,
    write_catalog,
)

ARCH_7B = FakeArch(7)
ARCH_70B = FakeArch(70)


@pytest.fixture(scope="module")
def cat(tmp_path_factory):
    return write_catalog(tmp_path_factory.mktemp("cat"))


def run(cat, wl, arch, **kw):
    kw.setdefault("estimator", fake_estimate)
    kw.setdefault("evaluator", make_fake_evaluator(arch))
    kw.setdefault("memory_ratio", 1.5)  # what the fake memory rule wants
    return suggest(wl, cat, arch=arch, **kw)


WORKLOADS = [
    (Workload(model="x", method="inference"), ARCH_7B),
    (Workload(model="x", method="inference"), ARCH_70B),
    (Workload(model="x", method="lora", tokens=1e8), ARCH_7B),
    (Workload(model="x", method="full", tokens=1e9), ARCH_7B),
    (Workload(model="x", method="full", tokens=1e9), ARCH_70B),  # needs a cluster
]


@pytest.mark.parametrize("objective", ["gpus", "power", "price", "time"])
@pytest.mark.parametrize(("wl", "arch"), WORKLOADS)
def test_every_suggestion_validates_with_zero_errors(cat, wl, arch, objective):
    ev = make_fake_evaluator(arch)
    res = run(cat, wl, arch, objective=objective, limit=6, prices=price_list(), evaluator=ev)
    assert res.suggestions, res.rejected
    for s in res.suggestions:
        assert s.report.errors == 0
        assert ev(s.build, cat).errors == 0  # re-check independently of the solver's report
        # complete builds: CPUs in every socket, DIMMs, drives, PSUs filled in
        ch = cat.chassis[s.build.chassis]
        assert s.build.cpu and s.build.cpu_count == ch.cpu_sockets
        assert s.build.dimm and s.build.dimm_count > 0
        assert s.build.drives and s.build.psu and s.build.psu_count >= 2
        est = fake_estimate(wl, cat.gpus[s.gpu], s.total_gpus, arch=arch)
        assert est.fits
    assert [s.rank for s in res.suggestions] == list(range(1, len(res.suggestions) + 1))
    keys = [s.key for s in res.suggestions]
    assert keys == sorted(keys)


def _solver_key(s, objective):
    metric = {
        "gpus": s.gpus,
        "power": s.power_w,
        "price": s.price,
        "time": -s.estimate.decode_tokens_per_s,
    }[objective]
    return (metric, s.gpus, s.power_w, s.price if s.price is not None else math.inf)


@pytest.mark.parametrize(
    ("objective", "cons"),
    [
        ("gpus", Constraints()),
        ("power", Constraints()),
        ("price", Constraints()),
        ("price", Constraints(redundancy="N+N")),
        ("power", Constraints(voltage="100-127", max_power_w=2500)),
        ("time", Constraints(budget=150_000)),
    ],
)
def test_ranking_matches_brute_force(cat, objective, cons):
    wl = Workload(model="x", method="inference")
    prices = price_list()
    limit = 5
    res = run(cat, wl, ARCH_70B, constraints=cons, objective=objective, limit=limit, prices=prices)
    expected = brute_force(cat, wl, ARCH_70B, cons, objective, prices)
    assert len(expected) >= limit
    got = [_solver_key(s, objective) for s in res.suggestions]
    # Same objective values, in the same order, as the best builds found by exhaustive search
    # (the secondary figures too: GPU count, power and price of each).
    assert [g[:1] for g in got] == [e[:1] for e in expected[:limit]]
    assert got == [tuple(x) for x in expected[:limit]]


# ------------------------------------------------------------------------------ fill-in details


def test_gpus_never_collide_and_bridges_join_full_groups(cat):
    wl = Workload(model="x", method="inference")
    res = run(cat, wl, ARCH_70B, objective="time", limit=10)
    for s in res.suggestions:
        ch = cat.chassis[s.build.chassis]
        by_id = {x.id: x for x in ch.slots}
        gpu_slots = [k for k, v in s.build.slots.items() if v == s.gpu]
        for sid in gpu_slots:
            assert by_id[sid].covers not in s.build.slots
        for br in s.build.bridges:
            assert set(br.slots) <= set(gpu_slots)
            assert tuple(br.slots) in {tuple(g) for g in ch.nvlink_groups}


def test_gpus_are_balanced_across_sockets(cat):
    wl = Workload(model="x", method="inference")
    res = run(
        cat,
        wl,
        ARCH_7B,
        objective="gpus",
        limit=20,
        constraints=Constraints(chassis=("TEST-A-3GPU",)),
    )
    two = next(s for s in res.suggestions if s.gpus == 2 and s.gpu == "TEST-G48")
    ch = cat.chassis["TEST-A-3GPU"]
    roots = {x.id: x.root for x in ch.slots}
    assert {roots[k] for k in two.build.slots} == {"cpu1", "cpu2"}


def test_low_line_voltage_uses_only_psus_rated_for_it(cat):
    wl = Workload(model="x", method="inference")
    res = run(cat, wl, ARCH_7B, limit=5, constraints=Constraints(voltage="100-127"))
    assert res.suggestions
    for s in res.suggestions:
        assert s.build.psu == "TEST-PSU-2000"
        assert s.build.env.input_voltage == "100-127"


def test_redundancy_n_plus_n_gets_even_psu_sets(cat):
    wl = Workload(model="x", method="inference")
    res = run(cat, wl, ARCH_70B, limit=5, constraints=Constraints(redundancy="N+N"))
    for s in res.suggestions:
        assert s.build.psu_count % 2 == 0
        assert s.build.env.redundancy == "N+N"


def test_psu_count_policy():
    assert psu_count_for(2500, 3000, "N+1", 4) == 2
    assert psu_count_for(3500, 3000, "N+1", 4) == 3
    assert psu_count_for(3500, 3000, "N+N", 4) == 4
    assert psu_count_for(6500, 3000, "N+N", 4) is None


def test_max_power_and_budget_constraints(cat):
    wl = Workload(model="x", method="inference")
    res = run(cat, wl, ARCH_70B, limit=10, constraints=Constraints(max_power_w=1500))
    assert res.suggestions
    assert all(s.power_w <= 1500 for s in res.suggestions)
    res = run(
        cat,
        wl,
        ARCH_70B,
        limit=10,
        prices=price_list(),
        constraints=Constraints(budget=60000),
        objective="price",
    )
    assert res.suggestions
    assert all(s.price <= 60000 for s in res.suggestions)
    res = run(cat, wl, ARCH_70B, prices=price_list(), constraints=Constraints(budget=1000))
    assert not res.suggestions
    assert any("budget" in r for r, _ in res.rejected)


def test_chassis_and_gpu_constraints(cat):
    wl = Workload(model="x", method="inference")
    res = run(cat, wl, ARCH_7B, limit=20, constraints=Constraints(chassis=("X14",)))
    assert {s.build.chassis for s in res.suggestions} == {"TEST-B-4GPU"}
    res = run(cat, wl, ARCH_7B, limit=20, constraints=Constraints(gpus=("TEST-G48",)))
    assert {s.gpu for s in res.suggestions} == {"TEST-G48"}
    with pytest.raises(SuggestError, match="NOPE"):
        run(cat, wl, ARCH_7B, constraints=Constraints(chassis=("NOPE",)))
    with pytest.raises(SuggestError, match="known GPUs"):
        run(cat, wl, ARCH_7B, constraints=Constraints(gpus=("NOPE",)))
    with pytest.raises(SuggestError, match="price list"):
        run(cat, wl, ARCH_7B, objective="price")


def test_no_single_server_sizes_a_cluster(cat):
    wl = Workload(model="x", method="full", tokens=1e9)
    res = run(cat, wl, ARCH_70B, objective="gpus", limit=3)
    assert res.multi_node and res.suggestions
    assert any("No single-server build" in n for n in res.notes)
    for s in res.suggestions:
        plan = s.cluster
        assert plan is not None and s.nodes >= 2
        assert plan.total_gpus == s.gpus * s.nodes
        assert fake_estimate(wl, cat.gpus[s.gpu], s.total_gpus, arch=ARCH_70B).fits
        # one fast NIC per GPU in every node, and the node build itself is valid
        nics = [v for v in s.build.slots.values() if v == plan.nic]
        assert len(nics) == s.gpus and plan.nic_gbps >= 200
        assert s.report.errors == 0
        # fewest nodes: one node less does not fit
        assert not fake_estimate(wl, cat.gpus[s.gpu], s.gpus * (s.nodes - 1), arch=ARCH_70B).fits
        assert plan.fabric is not None and plan.fabric.rails * plan.nodes == s.total_gpus
        assert plan.racks >= 1
        assert s.to_json()["cluster"]["nodes"] == s.nodes


def test_target_days_adds_nodes(cat):
    slow = Workload(model="x", method="full", tokens=1e12)
    fast = slow.model_copy(update={"target_days": 30})
    a = run(cat, slow, ARCH_7B, objective="gpus", limit=1).suggestions[0]
    b = run(cat, fast, ARCH_7B, objective="gpus", limit=1).suggestions[0]
    assert b.total_gpus > a.total_gpus
    assert b.train_hours <= 30 * 24


def test_nothing_fits_even_as_cluster(cat):
    wl = Workload(model="x", method="full", tokens=1e9)
    res = run(
        cat,
        wl,
        FakeArch(70),
        limit=3,
        constraints=Constraints(max_nodes=2, chassis=("TEST-A-3GPU",)),
    )
    assert not res.suggestions and not res.ok
    assert res.rejected


def test_json_has_the_cli_keys(cat):
    res = run(cat, Workload(model="x"), ARCH_7B, limit=1, prices=price_list())
    j = res.suggestions[0].to_json()
    for k in (
        "rank",
        "chassis",
        "gpu",
        "gpus",
        "errors",
        "warnings",
        "power_w",
        "memory_per_gpu",
        "train_hours",
        "price",
    ):
        assert k in j
    assert j["price"] == pytest.approx(res.suggestions[0].quote.total)


def test_injected_evaluator_error_is_repaired_or_rejected(cat):
    """An evaluator whose memory rule wants 4x GPU memory: the solver grows the DIMMs."""
    wl = Workload(model="x", method="inference")
    ev = make_fake_evaluator(ARCH_7B, memory_ratio=4.0)
    res = run(cat, wl, ARCH_7B, limit=3, evaluator=ev)
    assert res.suggestions
    for s in res.suggestions:
        gpu_gb = cat.gpus[s.gpu].memory_gb * s.gpus
        assert cat.dimms[s.build.dimm].capacity_gb * s.build.dimm_count >= 4 * gpu_gb


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    params_b=st.floats(0.5, 400),
    method=st.sampled_from(["inference", "lora", "full"]),
    objective=st.sampled_from(["gpus", "power", "time"]),
    redundancy=st.sampled_from(["N+1", "N+N"]),
)
def test_property_suggestions_are_valid_sorted_and_fit(
    cat, params_b, method, objective, redundancy
):
    arch = FakeArch(params_b)
    wl = Workload(model="x", method=method, tokens=1e9 if method != "inference" else None)
    ev = make_fake_evaluator(arch)
    res = run(
        cat,
        wl,
        arch,
        objective=objective,
        limit=4,
        evaluator=ev,
        constraints=Constraints(redundancy=redundancy, max_nodes=64),
    )
    keys = [s.key for s in res.suggestions]
    assert keys == sorted(keys)
    for s in res.suggestions:
        assert ev(s.build, cat).errors == 0
        assert fake_estimate(wl, cat.gpus[s.gpu], s.total_gpus, arch=arch).fits
        assert (s.nodes > 1) == res.multi_node
    if not res.suggestions:
        # nothing fits: even 64 nodes of the biggest server cannot hold the model
        best = max(cat.gpus.values(), key=lambda g: g.memory_gb)
        assert not fake_estimate(wl, best, 64 * 8, arch=arch).fits


def test_many_slots_use_the_greedy_placer(cat, monkeypatch):
    """Above EXHAUSTIVE_SLOTS the placer grows sets greedily: still valid, never colliding."""
    import slotwise.engine.plan.suggest.placement as sg  # the placer reads its own module constant

    monkeypatch.setattr(sg, "EXHAUSTIVE_SLOTS", 2)
    wl = Workload(model="x", method="inference")
    ev = make_fake_evaluator(ARCH_7B)
    res = run(cat, wl, ARCH_7B, objective="time", limit=6, evaluator=ev)
    assert res.suggestions
    assert max(s.gpus for s in res.suggestions if s.build.chassis == "TEST-A-3GPU") == 3
    for s in res.suggestions:
        assert ev(s.build, cat).errors == 0
