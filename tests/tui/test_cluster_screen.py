"""Pilot test of the cluster screen (c on the build screen) at 80x24, keyboard only."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Markdown

from slotwise.engine.bom import read_bom
from slotwise.tui.screens.build import BuildScreen
from slotwise.tui.screens.cluster import ClusterScreen, cluster_from_form
from tests.tui.tui_helpers import started

EX = Path(__file__).resolve().parents[2] / "examples"


def _text(screen, wid: str) -> str:
    widget = screen.query_one(wid)
    if isinstance(widget, Markdown):
        return widget.source
    return str(widget.render())


async def test_cluster_screen_opens_at_80x24_and_plans(make_app, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(bom=str(EX / "hgx-h200-finetune-821ge.toml"))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ClusterScreen)
        # the build's workload fits one server: blank Nodes sizes 1 node
        screen.query_one("#cl-nodes", Input).value = "127"
        await pilot.press("enter")
        await pilot.pause()
        summary = _text(screen, "#cl-summary")
        assert summary.startswith("✓ 127 nodes, 1016 GPUs") and "32/16/0" in summary
        body = _text(screen, "#cl-text")
        assert "## Rack elevations" in body and "circuits" in body and "PN needed" in body
        screen.query_one("#cl-kw", Input).value = "5"
        await pilot.press("enter")
        await pilot.pause()
        assert "Rack power (kW)" in _text(screen, "#cl-summary")  # app words, not a flag
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BuildScreen)


def test_form_problems_name_the_field(catalog):
    from slotwise.engine.check.evaluate import evaluate

    cat = catalog
    build = read_bom(EX / "hgx-h200-finetune-821ge.toml", cat).build
    report = evaluate(build, cat)
    bad = cluster_from_form(build, report, cat, nodes="x", rack_kw="40", volts="415", amps="60")
    assert bad.plan is None and bad.problem.startswith("Nodes:")
    bad = cluster_from_form(build, report, cat, nodes="4", rack_kw="0", volts="415", amps="60")
    assert bad.problem.startswith("Rack kW:")
    ok = cluster_from_form(build, report, cat, nodes="", rack_kw="40", volts="415", amps="60")
    assert ok.plan is not None and ok.plan.nodes >= 1


async def test_a_cluster_document_opens_in_the_app_at_80x24(
    make_app, tmp_path, capsys, monkeypatch
):
    from slotwise.tui.cli import main
    from slotwise.tui.screens.chooser import ChassisChooser

    monkeypatch.setenv("NO_COLOR", "1")
    doc = tmp_path / "cluster.toml"
    main(["cluster", str(EX / "hgx-h200-finetune-821ge.toml"), "--nodes", "63", "--format",
          "toml", "--out", str(doc)])  # fmt: skip
    capsys.readouterr()
    app = make_app(bom=str(doc))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        screen = app.screen
        assert isinstance(screen, ClusterScreen) and screen.doc is not None
        assert screen.query_one("#cl-nodes", Input).value == "63"
        assert _text(screen, "#cl-summary").startswith("✓ 63 nodes, 504 GPUs")
        assert "16/8/0" in _text(screen, "#cl-summary")  # H100 RA 2-SU: 16 leaf / 8 spine
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ChassisChooser)


async def test_a_bad_cluster_document_says_what_is_wrong(make_app, tmp_path):
    from slotwise.tui.screens.message import ErrorScreen

    doc = tmp_path / "bad.toml"
    doc.write_text("[cluster]\nformat = 1\nnodes = 0\n")
    app = make_app(bom=str(doc))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.pause()
        assert isinstance(app.screen, ErrorScreen)
        assert "[cluster] nodes" in app.screen.message


async def test_a_cluster_suggestion_opens_in_the_cluster_view(make_app):
    from textual.widgets import OptionList

    from slotwise.engine.build import Build
    from slotwise.engine.workload import Workload
    from slotwise.tui.screens.suggest import SuggestScreen
    from tests.tui.tui_helpers import CHASSIS

    wl = Workload(model="llama-3.1-405b", method="full", tokens=1e10)  # no single server runs it
    app = make_app(build=Build(chassis=CHASSIS, workload=wl))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("f7")
        await pilot.pause()
        sg = app.screen
        assert isinstance(sg, SuggestScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert sg.result is not None and sg.result.multi_node
        sg.query_one("#sg-list", OptionList).focus()
        await pilot.press("f6")
        await pilot.pause()
        view = app.screen
        assert isinstance(view, ClusterScreen) and view.doc is not None
        first = sg.result.suggestions[0]
        assert _text(view, "#cl-summary").startswith(f"✓ {first.nodes} nodes")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is sg
