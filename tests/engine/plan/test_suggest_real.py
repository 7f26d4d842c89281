"""engine.plan.suggest on the bundled catalog with the real evaluator and estimator: every suggested
build validates with zero errors, for a range of workloads and every objective."""

from __future__ import annotations

import pytest

from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.plan.suggest import Constraints, suggest
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import load_catalog
from tests.paths import REPO

WORKLOADS = [
    Workload(model="llama-3.1-8b", method="inference"),
    Workload(model="llama-3.1-70b", method="inference", seq_len=8192, micro_batch=4),
    Workload(model="mistral-7b-v0.3", method="lora", tokens=1e8),
    Workload(model="qwen2.5-32b", method="qlora", tokens=1e8),
    Workload(model="llama-3.1-8b", method="full", tokens=1e10),
    Workload(model="llama-3.1-70b", method="full", tokens=1e11, target_days=7),
    Workload(model="llama-3.1-405b", method="full", tokens=1e10),  # a cluster
]


@pytest.fixture(scope="module")
def cat():
    return load_catalog(overlay=None)


@pytest.mark.parametrize("objective", ["gpus", "power", "time"])
@pytest.mark.parametrize("wl", WORKLOADS, ids=lambda w: f"{w.model}-{w.method}")
def test_real_suggestions_have_zero_errors(cat, wl, objective):
    res = suggest(wl, cat, objective=objective, limit=4)
    assert res.suggestions, res.rejected[:5]
    for s in res.suggestions:
        rep = evaluate(s.build, cat)
        assert rep.errors == 0, [f.message for f in rep.of("error")]
        assert s.report.errors == 0
        if s.nodes > 1:
            assert res.multi_node and s.cluster is not None
            assert s.cluster.total_gpus == s.total_gpus
        else:
            assert s.build.workload == wl
            assert rep.estimate is not None and rep.estimate.fits


@pytest.mark.parametrize(
    "cons",
    [
        Constraints(redundancy="N+N"),
        Constraints(cooling="air"),
        Constraints(cooling="liquid"),
        Constraints(chassis=("X14",)),
        Constraints(max_power_w=3000),
    ],
    ids=str,
)
def test_real_constraints_keep_zero_errors(cat, cons):
    wl = Workload(model="llama-3.1-70b", method="inference")
    res = suggest(wl, cat, cons, objective="gpus", limit=3)
    assert res.suggestions, res.rejected[:3]
    for s in res.suggestions:
        assert evaluate(s.build, cat).errors == 0
        assert s.build.env.input_voltage == cons.voltage
        assert s.build.env.redundancy == cons.redundancy
        if cons.max_power_w:
            assert s.power_w <= cons.max_power_w
        if cons.chassis:
            assert cat.chassis[s.build.chassis].family == "X14"


def test_real_low_line_uses_rated_psus_or_says_why(cat):
    """At 100-127 V only PSUs with a published low-line rating can pass the power rule; when no
    chassis lists one, nothing is suggested and the reason names the voltage."""
    wl = Workload(model="llama-3.1-8b", method="inference")
    res = suggest(wl, cat, Constraints(voltage="100-127"), limit=3)
    for s in res.suggestions:
        assert cat.psus[s.build.psu].watts_low_line
        assert evaluate(s.build, cat).errors == 0
    if not res.suggestions:
        assert any("100-127" in reason for reason, _ in res.rejected)


def test_priced_parts_are_preferred_when_a_price_list_is_loaded(cat):
    """The example price list has no MRDIMM (nor 256 GB RDIMM) price: with it loaded, suggest
    fits priced DIMMs wherever a priced option meets the memory need, and every unpriced part it
    still had to use is named in price_missing.  Without a price list the choice is unchanged
    (power first), so the priced-first order only applies when there is something to quote."""

    from slotwise.engine.cost.pricing import load_prices

    prices = load_prices(str(REPO / "examples" / "prices-example.toml"))
    assert prices.price("DDR5-8800-256GB-MRDIMM") is None
    wl = Workload(model="llama-3.1-70b", method="inference")
    cons = Constraints(chassis=("SYS-522GA-NRT", "SYS-521GE-TNRT"))
    res = suggest(wl, cat, cons, objective="gpus", limit=4, prices=prices)
    assert res.suggestions
    for s in res.suggestions:
        assert prices.price(s.build.dimm) is not None, s.build.dimm
        missing = set(s.quote.missing) if s.quote else set()
        for sku in (s.build.dimm, s.build.cpu, s.build.psu):
            assert (prices.price(sku) is None) == (sku in missing)
    plain = suggest(wl, cat, cons, objective="gpus", limit=4)
    assert [s.build.chassis for s in plain.suggestions]
    for s in plain.suggestions:  # MRDIMMs only on CPUs recorded to run them
        d = cat.dimms[s.build.dimm]
        assert d.type != "DDR5 MRDIMM" or cat.cpus[s.build.cpu].mrdimm_mts


def test_an_unpriced_part_sorts_after_every_priced_one(cat):
    """The order behind the preference: with only the 256 GB RDIMM priced, it leads the DIMM
    options for the 'gpus' objective although it draws twice the power of the unpriced 32-128 GB
    modules (power first would put it last); without a price list power first still holds."""
    from slotwise.engine.cost.pricing import PriceEntry, PriceList
    from slotwise.engine.plan.suggest.fill_in import dimm_options

    ch, cpu = cat.chassis["SYS-522GA-NRT"], cat.cpus["XEON-6960P"]
    only = PriceList(
        currency="USD",
        entries={"DDR5-4800-256GB-RDIMM": PriceEntry(sku="DDR5-4800-256GB-RDIMM", price=2000)},
    )
    first = dimm_options(ch, cpu, 2, cat, "gpus", only)[0][0]
    assert first.sku == "DDR5-4800-256GB-RDIMM"
    plain = dimm_options(ch, cpu, 2, cat, "gpus", None)[0][0]
    assert plain.power_w == 10 and plain.capacity_gb < 256
