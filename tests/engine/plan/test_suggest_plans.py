"""Suggestions a customer could order (issue 25): ranked by meeting every target with the
planning margin, sized by the one sizing answer (the same count validate, compare and estimate
give), serving scaled by replicas, complete (boot drives, 0 errors), layouts engines run, and a
search stopped by the node limit says so."""

from __future__ import annotations

import json

import pytest

from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.estimate.layout import tp_problem
from slotwise.engine.model.resolve import resolve_arch
from slotwise.engine.plan.suggest import Constraints, suggest
from slotwise.engine.workload import Workload
from slotwise.tui.cli import main

SERVE_200 = Workload(
    model="llama-3.1-70b", method="inference", users=200, tokens_per_user_s=30, seq_len=8192
)
SERVE_10K = Workload(model="llama-3.1-70b", method="inference", users=10_000, seq_len=8192)


@pytest.fixture(scope="module")
def serve_200(catalog):
    return suggest(SERVE_200, catalog, limit=5)


@pytest.fixture(scope="module")
def serve_10k(catalog):
    return suggest(SERVE_10K, catalog, limit=3)


def test_70b_200_users_first_build_meets_the_target_in_the_fewest_servers(serve_200):
    sugs = serve_200.suggestions
    assert sugs
    first = sugs[0]
    sz = first.sizing
    assert sz is not None and not sz.unknown and sz.servers == first.nodes
    serving = sz.need("serving")
    assert serving is not None and serving.servers == first.nodes  # met with the margin
    assert first.nodes == min(s.nodes for s in sugs)
    # known figures before unknown ones, then the objective (total GPUs) and servers
    classes = [s.key[0] for s in sugs]
    assert classes == sorted(classes)


@pytest.mark.parametrize("which", ["serve_200", "serve_10k"])
def test_suggest_count_is_the_one_validate_and_estimate_give(
    request, catalog, tmp_path, capsys, which
):
    res = request.getfixturevalue(which)
    wl = SERVE_200 if which == "serve_200" else SERVE_10K
    for s in res.suggestions:
        report = evaluate(s.build.with_(workload=wl), catalog)
        assert report.verdict.servers == s.nodes, (s.build.chassis, s.gpu)
    # through the CLI: suggest --out writes the builds; estimate --bom under the same workload
    from slotwise.engine.bom import export_bom
    from slotwise.engine.bom.meta import BomMeta

    s = res.suggestions[0]
    bom = tmp_path / "first.toml"
    bom.write_text(export_bom(s.build, catalog, BomMeta.new(project="t"), s.report))
    argv = ["estimate", "--bom", str(bom), "--json", "--model", "llama-3.1-70b"]
    argv += ["--method", "inference", "--users", str(wl.users), "--seq-len", "8192"]
    if wl.tokens_per_user_s:
        argv += ["--tokens-per-user-s", "30"]
    capsys.readouterr()
    main(argv)
    assert json.loads(capsys.readouterr().out)["sizing"]["servers"] == s.nodes


def test_every_suggestion_is_complete_and_valid(serve_200, serve_10k, catalog):
    arch = resolve_arch(SERVE_200, catalog)
    for s in (*serve_200.suggestions, *serve_10k.suggestions):
        assert s.build.drives, f"{s.build.chassis}: no boot drive"
        report = evaluate(s.build, catalog)
        assert report.errors == 0
        # the boot rule agrees (engine.check.rules.boot: the same boot-pair function)
        assert not [f for f in report.findings if f.rule.startswith("boot.")]
        assert tp_problem(arch, s.estimate.tp) is None, (s.build.chassis, s.estimate.tp)


def test_ten_thousand_users_get_a_cluster_of_replicas(serve_10k):
    assert serve_10k.ok
    first = serve_10k.suggestions[0]
    assert first.nodes > 1
    assert not first.sizing.fabric_needed  # replicas, no model split across servers
    share = first.build.workload
    assert share is not None and share.users == -(-10_000 // first.nodes)


def test_a_search_stopped_by_max_nodes_says_which_cap_and_what_it_takes(catalog, capsys):
    wl = Workload(
        model="llama-3.1-405b", method="pretrain", tokens=15e12, target_days=60, seq_len=8192
    )
    res = suggest(wl, catalog, Constraints(max_nodes=64), limit=1)
    assert not res.ok
    note = next(n for n in res.notes if "max_nodes" in n)
    assert "would run the workload is" in note
    code = main(
        ["suggest", "--model", "llama-3.1-405b", "--method", "pretrain", "--tokens", "15T"]
        + ["--target-days", "60", "--seq-len", "8192", "--max-nodes", "64", "--limit", "1"]
    )
    out = capsys.readouterr().out
    assert code == 1 and "--max-nodes 64" in out and "raise the limit" in out


def test_suggest_json_carries_the_sizing(capsys):
    main(
        ["suggest", "--model", "llama-3.1-8b", "--method", "inference", "--users", "64"]
        + ["--tokens-per-user-s", "20", "--limit", "1", "--json"]
    )
    data = json.loads(capsys.readouterr().out)
    sz = data[0]["sizing"]
    assert sz["servers"] == data[0]["nodes"] and "margin" in sz["margin_text"]


def test_a_clustered_suggestion_tco_counts_its_fabric_power(serve_10k):
    """The TCO of a suggestion is the engine's (engine.cost.tco.servers_tco via
    Suggestion.tco): every server at the wall plus the fabric's switches."""
    import dataclasses

    from slotwise.engine.cost.pricing import Quote, QuoteLine

    s = next(x for x in serve_10k.suggestions if x.nodes > 1 and x.cluster is not None)
    assert s.power_w is not None and s.cluster.fabric_power_w > 0
    priced = dataclasses.replace(
        s, quote=Quote(currency="USD", lines=(QuoteLine("server", 1, 250_000.0),), example=True)
    )
    tco = priced.tco("USD", kwh_price=0.2)
    assert tco is not None
    assert tco.inputs.power_w == pytest.approx(s.power_w * s.nodes + s.cluster.fabric_power_w)
    assert any("fabric" in n for n in tco.notes)
