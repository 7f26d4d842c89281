"""Layout snapshots (pytest-textual-snapshot) of the main screens at 80x24 and 160x48.

Layout only: every shot renders the synthetic catalog of tests/fixtures_catalog and a frozen
engine answer (tests/tui/layout.py: a Report and a Comparison read from tests/fixtures/), given
to the app at its engine boundary, so an engine change (a rule's words, a memory or time figure)
cannot alter them; a change here is a change of the app's layout or wording.  What the real
engine shows on the real catalog is in test_e2e_snapshots.py.

Deterministic: fixed clock, private state dir, no cursor blink, no animations.  After an intended
UI change: ``pytest -n 0 tests/tui/test_layout_snapshots.py --snapshot-update`` and review the
SVGs in tests/tui/__snapshots__/test_layout_snapshots.
"""

from __future__ import annotations

import pytest

from tests.tui import layout

SIZES = [(80, 24), (160, 48)]


@pytest.fixture
def layout_app(make_app, monkeypatch):
    """The app on the fixture catalog, with the frozen report and comparison."""
    monkeypatch.setattr("slotwise.tui.screens.compare.comparison_for", layout.frozen_comparison_for)

    def make(**kw):
        return make_app(catalog=layout.layout_catalog(), evaluate=layout.frozen_evaluate, **kw)

    return make


async def _ready(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _keys(*keys):
    async def run(pilot) -> None:
        await _ready(pilot)
        if keys:
            await pilot.press(*keys)
            await pilot.pause()

    return run


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_new_build_chooser(snap_compare, layout_app, size):
    assert snap_compare(layout_app(), terminal_size=size, run_before=_keys())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_full_build_map_and_findings(snap_compare, layout_app, size):
    app = layout_app(build=layout.layout_build())
    assert snap_compare(app, terminal_size=size, run_before=_keys("tab"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_budgets(snap_compare, layout_app, size):
    app = layout_app(build=layout.layout_build())
    assert snap_compare(app, terminal_size=size, run_before=_keys("f3"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_workload_verdict(snap_compare, layout_app, size):
    app = layout_app(build=layout.layout_build())
    assert snap_compare(app, terminal_size=size, run_before=_keys("f4"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_bom_view(snap_compare, layout_app, size):
    app = layout_app(build=layout.layout_build())
    assert snap_compare(app, terminal_size=size, run_before=_keys("f5"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_part_picker(snap_compare, layout_app, size):
    app = layout_app(build=layout.layout_build())

    async def run(pilot) -> None:
        await _ready(pilot)
        from slotwise.tui.widgets.chassis_map import ChassisMap

        cmap = pilot.app.screen.query_one(ChassisMap)
        cmap.highlighted = cmap.row_for_slot(layout.FREE_GPU_SLOT)
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_compare_screen(snap_compare, layout_app, size):
    app = layout_app(build=layout.layout_build())

    async def run(pilot) -> None:
        await _ready(pilot)
        await layout.pin_two_options(pilot)
        await pilot.press("f6")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run)


def test_help_screen(snap_compare, layout_app):
    app = layout_app(build=layout.layout_build())
    assert snap_compare(app, terminal_size=(80, 24), run_before=_keys("f1"))


def test_full_build_no_color(snap_compare, layout_app, monkeypatch):
    """NO_COLOR: monochrome, and the findings still read ✖ ERROR / ▲ WARN / • INFO."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = layout_app(build=layout.layout_build())
    assert snap_compare(app, terminal_size=(80, 24), run_before=_keys("tab"))


def test_frozen_answer_is_what_the_layout_build_gets_its_shape_from():
    """The frozen report still reads as today's Report (a renamed or new required field fails
    here first, with the command to rewrite it) and carries what the shots lay out: a finding of
    each severity, budgets, an estimate and its verdict, the wall power."""
    r = layout.frozen_report()
    assert {f.severity for f in r.findings} == {"error", "warning", "info"}, (
        "rewrite with: python -m tests.tui.layout"
    )
    assert r.budgets and r.estimate is not None and r.verdict is not None and r.power is not None
    assert layout.frozen_comparison().labels == tuple(layout.layout_options()[0])
