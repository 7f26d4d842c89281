"""The chassis map's legend (F1 and l) and its NVLink rows after a 4-way bridge (issue #14), and
the picker's key labels, driven by keyboard at 80x24."""

from __future__ import annotations

from rich.console import Console
from textual.widgets import Static

from scripts import screenshots as shots
from slotwise.tui.screens.build import BuildScreen
from slotwise.tui.screens.help import HelpScreen, LegendScreen
from slotwise.tui.widgets.chassis_map import ChassisMap
from slotwise.tui.widgets.map_legend import MAP_LEGEND
from tests.tui.tui_helpers import goto, screen_text, started


def _static_text(screen) -> str:
    """Everything the screen's Static widgets hold, as plain text (scrolled-off parts too)."""
    console = Console(width=76, record=True, color_system=None)
    for w in screen.query(Static):
        console.print(w.content)
    return console.export_text()


async def test_l_and_f1_explain_every_map_symbol(make_app, catalog):
    app = make_app(build=shots.demo_build(catalog))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, LegendScreen)
        shown = _static_text(app.screen)
        for symbol, meaning in MAP_LEGEND:
            assert symbol in shown and meaning.split()[0] in shown, symbol
        assert "used 32/?" in shown and "not verified" in shown
        assert "◆" in "\n".join(screen_text(app))  # on screen, not only in the widget
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BuildScreen)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        shown = _static_text(app.screen)
        assert "Chassis map symbols" in shown
        assert all(symbol in shown for symbol, _ in MAP_LEGEND)


async def test_pairs_inside_a_fitted_4_way_bridge_are_not_unbridged(make_app, catalog):
    build = shots.demo_build(catalog)
    (quad,) = build.bridges
    assert len(quad.slots) == 4
    app = make_app(build=build)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        cmap = app.screen.query_one(ChassisMap)
        rows = {r.title: r.body for r in cmap.rows if r.kind == "nvlink"}
        inside = [t for t in rows if t != f"NVLink {'+'.join(quad.slots)}"]
        pairs = [t for t in inside if set(t.removeprefix("NVLink ").split("+")) < set(quad.slots)]
        assert pairs, rows  # the chassis lists the pairs inside the quad
        for title in pairs:
            assert rows[title].startswith("═══ joined by the 4-way bridge"), rows
            assert "no bridge" not in rows[title]
        assert rows[f"NVLink {'+'.join(quad.slots)}"].startswith(f"═══ 1 × {quad.sku}")
        # removing the quad brings the pairs back to "no bridge"
        quad_row = next(r.key for r in cmap.rows if r.title == f"NVLink {'+'.join(quad.slots)}")
        await goto(pilot, quad_row)
        await pilot.press("x")
        await pilot.pause()
        rows = {r.title: r.body for r in cmap.rows if r.kind == "nvlink"}
        assert all(rows[t] == "┄┄┄ no bridge" for t in pairs)


async def test_picker_keys_say_only_what_works(make_app, catalog):
    """Tab is advertised only where it reaches a count field (and it does); the Site dialog
    is about settings, not parts."""
    from textual.widgets import Input

    from slotwise.tui.screens.picker import PartPicker

    app = make_app(build=shots.demo_build(catalog))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        cmap = app.screen.query_one(ChassisMap)
        slot_row = next(r.key for r in cmap.rows if r.kind == "slot")
        for row, counted in ((slot_row, False), ("cpu", True), ("psu", True), ("env", True)):
            await goto(pilot, row)
            await pilot.press("enter")
            await pilot.pause()
            picker = app.screen
            assert isinstance(picker, PartPicker)
            keys = _static_text(picker)
            assert ("Tab:" in keys) == counted, (row, keys)
            if counted:
                await pilot.press("tab")
                await pilot.pause()
                assert picker.focused is picker.query_one("#picker-count", Input), row
            title = str(picker.query_one("#picker-title", Static).content)
            if row == "env":
                assert "pick a setting" in title and "pick a part" not in title
                assert "F6" not in keys and "ambient" in keys
            else:
                assert "pick a part" in title
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, BuildScreen)
