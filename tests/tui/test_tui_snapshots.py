"""SVG snapshots of the main screens at 80x24 and 160x48 (pytest-textual-snapshot).

Deterministic: bundled catalog, fixed clock, private state dir, no cursor blink, no
animations.  After an intended UI (or catalog) change: ``pytest tests/tui --snapshot-update``
and review the SVGs in tests/tui/__snapshots__.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "slotwise_screenshots", Path(__file__).resolve().parents[2] / "scripts" / "screenshots.py"
)
shots = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(shots)

SIZES = [(80, 24), (160, 48)]


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
def test_new_build_chooser(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=size, run_before=_keys())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_full_build_map_and_findings(snap_compare, make_app, catalog, size):
    app = make_app(build=shots.demo_build(catalog))
    assert snap_compare(app, terminal_size=size, run_before=_keys("tab"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_budgets(snap_compare, make_app, catalog, size):
    app = make_app(build=shots.demo_build(catalog, shots.DEMO_WORKLOAD))
    assert snap_compare(app, terminal_size=size, run_before=_keys("f3"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_workload_verdict(snap_compare, make_app, catalog, size):
    app = make_app(build=shots.demo_build(catalog, shots.DEMO_WORKLOAD))
    assert snap_compare(app, terminal_size=size, run_before=_keys("f4"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_bom_view(snap_compare, make_app, catalog, size):
    app = make_app(build=shots.demo_build(catalog, shots.DEMO_WORKLOAD))
    assert snap_compare(app, terminal_size=size, run_before=_keys("f5"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_part_picker(snap_compare, make_app, catalog, size):
    app = make_app(build=shots.demo_build(catalog))

    async def run(pilot) -> None:
        await _ready(pilot)
        from slotwise.tui.widgets.chassis_map import ChassisMap

        cmap = pilot.app.screen.query_one(ChassisMap)
        cmap.highlighted = cmap.row_for_slot(shots.free_gpu_slot(catalog))
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run)


def test_help_screen(snap_compare, make_app, catalog):
    app = make_app(build=shots.demo_build(catalog))
    assert snap_compare(app, terminal_size=(80, 24), run_before=_keys("f1"))


def test_full_build_no_color(snap_compare, make_app, catalog, monkeypatch):
    """NO_COLOR: monochrome, and the findings still read ✖ ERROR / ▲ WARN / • INFO."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(build=shots.demo_build(catalog))
    assert snap_compare(app, terminal_size=(80, 24), run_before=_keys("tab"))
