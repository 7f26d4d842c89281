"""Compare cells stay short (issue 28, item 14): an option with unpriced parts gets a short cell
and the full list in the notes; a short training job reads in hours, as the app says; power
is labelled as drawn at the wall (item 13)."""

from __future__ import annotations

from slotwise.engine.bom import read_bom
from slotwise.engine.cost.pricing import PriceEntry, PriceList
from slotwise.engine.plan.compare import (
    Option,
    _duration,
    _no_price,
    compare_builds,
    comparison_markdown,
    comparison_text,
)
from slotwise.parts.catalog import load_catalog
from tests.paths import REPO

EX = REPO / "examples"


def test_duration_in_hours_below_a_day_and_days_from_a_day():
    assert _duration(3.5) == "3.5\u00a0h"
    assert _duration(0.1 * 24) == "2.4\u00a0h"
    assert _duration(24) == "1.0\u00a0days"
    assert _duration(60) == "2.5\u00a0days"
    assert _duration(None) == "n/a"


def test_no_price_cell_is_short():
    many = [f"PART-NUMBER-{i:02d}-WITH-A-LONG-NAME" for i in range(8)]
    cell = _no_price(many)
    assert cell == "no price: PART-NUMBER-00-WITH-A-LONG-NAME +7 more"
    assert len(cell) < 60
    assert _no_price(["ONE"]) == "no price: ONE"


def test_comparison_with_unpriced_parts_keeps_cells_short_and_lists_them_in_notes():
    catalog = load_catalog()
    a = read_bom(str(EX / "h200-nvl-lora-421ge.toml"), catalog).build
    b = read_bom(str(EX / "l40s-inference-521ge.toml"), catalog).build
    prices = PriceList(
        currency="USD", entries={"XEON-8480+": PriceEntry(sku="XEON-8480+", price=9000.0)}
    )
    cmp = compare_builds(
        [Option(label="A", build=a), Option(label="B", build=b)], catalog, prices=prices
    )
    row = cmp.row("price")
    assert row is not None
    assert all(c.text.startswith("no price: ") and len(c.text) < 60 for c in row.cells)
    assert len(cmp.notes) == 2 and cmp.notes[0].startswith("A: no price for ")
    assert cmp.notes[0].count(",") >= 2  # the whole list is kept, in the notes
    text = comparison_text(cmp)
    assert max(len(line) for line in text.splitlines() if not line.startswith(("A:", "B:"))) < 140
    assert cmp.notes[0] in text and cmp.notes[1] in comparison_markdown(cmp)
    assert cmp.to_json()["notes"] == list(cmp.notes)
    power = cmp.row("power_worst_w")
    assert power is not None and "at the wall" in power.label
