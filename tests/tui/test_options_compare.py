"""Options in the app: pin two options, compare them, open one, undo on its own history."""

from __future__ import annotations

from textual.widgets import DataTable

from scripts import screenshots as shots
from slotwise.engine.build.edits import SetCount
from slotwise.tui.screens.build import BuildScreen
from slotwise.tui.screens.compare import CompareScreen


async def _ready(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _two_options(app) -> None:
    """Option A: the demo build with 4 PSUs; option B: a copy changed to 2 PSUs."""
    ch = app.catalog.chassis[app.history.current.chassis]
    psu = app.history.current.psu
    assert app.apply_edits([SetCount(what="psu", sku=psu, count=ch.psu_bays)], "PSUs to max")
    app.pin_option()
    assert app.apply_edits([SetCount(what="psu", sku=psu, count=2)], "two PSUs")


async def test_pin_compare_open_undo(make_app, catalog):
    app = make_app(build=shots.demo_build(catalog, shots.DEMO_WORKLOAD))
    async with app.run_test(size=(80, 24)) as pilot:
        await _ready(pilot)
        assert isinstance(app.screen, BuildScreen)
        ch = catalog.chassis[app.history.current.chassis]
        start_psus = app.history.current.psu_count
        _two_options(app)
        await pilot.pause()
        assert len(app.options) == 2 and app.options.active == 1
        assert app.history.current.psu_count == 2
        # the copy has its own history: the pin is not an undo step of it
        assert app.history.undo_labels == ["two PSUs"]

        await pilot.press("f6")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        table = app.screen.query_one(DataTable)
        labels = [str(c.label) for c in table.columns.values()]
        assert labels == ["", "Option A", "Option B (editing)"]
        row_keys = [r.key.value for r in table.rows.values()]
        assert "power_worst_w" in row_keys and "errors" in row_keys
        assert table.row_count == len(app.screen.comparison.rows)

        await pilot.press("1")  # open option A
        await pilot.pause()
        assert isinstance(app.screen, BuildScreen)
        assert app.options.active == 0
        assert app.history.current.psu_count == ch.psu_bays
        # undo on A walks A's own history: back to the PSU count it started with
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert app.history.current.psu_count == start_psus
        # B kept its change, untouched by A's undo
        assert app.options.options[1].build.psu_count == 2


async def test_each_option_has_its_own_autosave(make_app, catalog, state_dir):
    from slotwise.tui.autosave import AutosaveStore

    app = make_app(build=shots.demo_build(catalog, shots.DEMO_WORKLOAD))
    async with app.run_test(size=(80, 24)) as pilot:
        await _ready(pilot)
        _two_options(app)
        await pilot.pause()
        slots = [o.slot for o in app.options.options]
        assert all(s is not None for s in slots) and slots[0].path != slots[1].path
        assert all(s.exists() for s in slots)
    # after the app ends, both options are recoverable builds of their own
    entries = AutosaveStore(state_dir).entries()
    assert len(entries) >= 2


async def test_compare_needs_two_options_and_keeps_three_at_most(make_app, catalog):
    app = make_app(build=shots.demo_build(catalog, shots.DEMO_WORKLOAD))
    async with app.run_test(size=(80, 24)) as pilot:
        await _ready(pilot)
        await pilot.press("f6")
        await pilot.pause()
        assert isinstance(app.screen, BuildScreen)  # nothing to compare yet: a message instead
        for _ in range(4):
            await pilot.press("p")
            await pilot.pause()
        assert len(app.options) == 3
