"""Power is labelled DC (the load on the PSUs) or AC at the wall everywhere it is shown: the
app's BOM tab, compare and the Markdown summary (issue 28, item 13)."""

from __future__ import annotations

from slotwise.engine.bom import read_bom
from slotwise.engine.bom.markdown import to_markdown
from slotwise.engine.check.evaluate import evaluate
from slotwise.parts.catalog import load_catalog
from slotwise.tui.widgets.bom_view import bom_text
from tests.paths import REPO

EX = REPO / "examples"


def _loaded():
    catalog = load_catalog()
    loaded = read_bom(str(EX / "l40s-inference-521ge.toml"), catalog)
    return catalog, loaded, evaluate(loaded.build, catalog)


def test_bom_tab_says_dc_and_wall():
    catalog, loaded, report = _loaded()
    text = bom_text(loaded.build, catalog, loaded.meta, report).plain
    dc = report.budget("power")
    assert f"power, DC (PSU load): {dc.used:,.0f} of {dc.available:,.0f} W" in text
    assert f"power at the wall (AC): worst case {report.power.worst_ac_w:,.0f} W" in text
    assert report.power.worst_ac_w > dc.used  # PSU losses: the wall figure is the larger


def test_markdown_labels_the_budget_dc_and_the_heat_at_the_wall():
    catalog, loaded, report = _loaded()
    md = to_markdown(loaded.build, catalog, loaded.meta, report)
    power = next(line for line in md.splitlines() if line.startswith("| Power,"))
    assert "DC" in power and "at the wall" not in power  # the DC load; the AC figure is below
    assert "the whole server at the wall, worst case:" in md
    assert "| Heat (worst case at the wall, AC) |" in md
