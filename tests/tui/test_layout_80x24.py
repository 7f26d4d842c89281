"""The build screen at 80x24 (issue #14): the keys that matter and the unexported flag are on
screen, the findings pane keeps its place after a fix and never splits a figure from its unit."""

from __future__ import annotations

from rich.console import Console

from scripts import screenshots as shots
from slotwise.engine.check.report import Finding
from slotwise.tui.widgets.findings import FindingsList, finding_renderable
from tests.tui.tui_helpers import pick, screen_text, select_finding, started


async def test_build_screen_at_80x24_shows_quit_help_export_undo_fix(make_app, catalog):
    app = make_app(build=shots.demo_build(catalog))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        for focus in ("f2", "tab"):  # map focused, then the findings
            await pilot.press(focus)
            await pilot.pause()
            rows = screen_text(app)
            assert len(rows) == 24 and all(len(r) <= 80 for r in rows)
            bottom = rows[-1]
            for hint in ("F1 Help", "^Q Quit", "^S Export", "^Z Undo", "f Fix"):
                assert hint in bottom, (hint, bottom)
        assert "UNEXPORTED" not in rows[0]  # a fresh build has nothing to lose
        await pick(pilot, "psu", "2700", 3)  # an edit: the flag appears, still at 80 columns
        rows = screen_text(app)
        assert rows[0].lstrip().startswith("✎ UNEXPORTED"), rows[0]
        await pilot.press("ctrl+s")  # and the keys shown do what they say
        await pilot.pause()
        from slotwise.tui.screens.export import ExportScreen

        assert isinstance(app.screen, ExportScreen)


async def test_status_line_says_what_was_not_verified(make_app, catalog):
    app = make_app(build=shots.demo_build(catalog))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        status = screen_text(app)[0]
        unverified = [f.rule for f in app.report.findings if ".unknown_" in f.rule]
        assert unverified, "the demo build has a figure the catalog does not know"
        assert "not verified" in status and unverified[0].split(".")[0] in status, status


async def test_findings_keep_their_place_after_a_fix(make_app, catalog):
    app = make_app(build=shots.demo_build(catalog))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        findings = app.screen.query_one(FindingsList)
        fixable = next(f for f in app.report.findings if f.edit)
        at = app.report.findings.index(fixable)
        await select_finding(pilot, fixable.rule)
        await pilot.press("f")
        await pilot.pause()
        assert fixable not in app.report.findings
        assert findings.highlighted == min(at, len(app.report.findings) - 1)
        assert findings.highlighted != 0 or at == 0
        # Another finding stays selected when it is still there after an unrelated edit.
        await pilot.press("down")
        keep = findings.current
        await pick(pilot, f"slot:{shots.free_gpu_slot(catalog)}", "l4")
        if keep in app.report.findings:
            assert findings.current == keep


def test_a_figure_never_wraps_away_from_its_unit():
    f = Finding(
        rule="memory.gpu",
        severity="warning",
        message="weights 140.2 GiB, optimizer 0.1 GiB, activations 0.1 GiB, kv 12 GiB on "
        "8 GPUs at 5,500 W and 100-127 V",
        fix="fit 4 x SMCI-PSU-2700W-TITANIUM",
    )
    for width in range(24, 70):
        console = Console(width=width, record=True, color_system=None)
        console.print(finding_renderable(f))
        lines = console.export_text().splitlines()
        for line in lines:
            assert not line.rstrip().endswith(("0.1", "140.2", "12", "5,500", "100-127", "4")), (
                width,
                lines,
            )
        text = " ".join(x.strip() for x in lines)
        assert "activations 0.1 GiB" in text and "\u00a0" not in text


async def test_no_color_picker_highlight_is_reverse_bold(make_app, catalog, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(build=shots.demo_build(catalog))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("f2")
        await pilot.press("enter")  # the picker on the first row
        await pilot.pause()
        from textual.widgets import OptionList

        ol = app.screen.query_one("#picker-list", OptionList)
        style = ol.get_component_rich_style("option-list--option-highlighted")
        assert style.reverse and style.bold


async def test_removing_a_bridged_card_says_the_bridge_went_too(make_app, catalog):
    from tests.tui.tui_helpers import goto

    app = make_app(build=shots.demo_build(catalog))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        bridge = app.history.current.bridges[0]
        await goto(pilot, f"slot:{bridge.slots[0]}")
        await pilot.press("x")
        await pilot.pause()
        assert not app.history.current.bridges
        said = [n.message for n in app._notifications]
        assert any("NVLink bridge went with the card" in m and bridge.sku in m for m in said)
        await pilot.press("u")
        assert app.history.current.bridges == (bridge,)
