"""End-to-end snapshots: the real bundled catalog and the real engine, at 80x24.

Three shots only, on purpose: they change whenever a catalog record or an engine figure they
show changes (then regenerate with ``pytest -n 0 tests/tui/test_e2e_snapshots.py
--snapshot-update`` and say in the commit which figure moved).  How the screens are laid out is
checked on a fixture catalog and a frozen report in test_layout_snapshots.py.

The demo build is the one scripts/screenshots.py renders for the README.
"""

from __future__ import annotations

from scripts import screenshots as shots

SIZE = (80, 24)


async def _ready(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _keys(*keys):
    async def run(pilot) -> None:
        await _ready(pilot)
        await pilot.press(*keys)
        await pilot.pause()

    return run


def test_e2e_full_build_map_and_findings(snap_compare, make_app, catalog):
    """The rules' findings on the demo build (8 x H200 NVL, 2 PSUs)."""
    app = make_app(build=shots.demo_build(catalog))
    assert snap_compare(app, terminal_size=SIZE, run_before=_keys("tab"))


def test_e2e_workload_verdict(snap_compare, make_app, catalog):
    """The estimator's figures and the verdict for the demo workload."""
    app = make_app(build=shots.demo_build(catalog, shots.DEMO_WORKLOAD))
    assert snap_compare(app, terminal_size=SIZE, run_before=_keys("f4"))


def test_e2e_compare_screen(snap_compare, make_app, catalog):
    """compare_builds on two options of the demo build."""
    app = make_app(build=shots.demo_build(catalog, shots.DEMO_WORKLOAD))

    async def run(pilot) -> None:
        await _ready(pilot)
        await shots.pin_two_options(pilot)
        await pilot.press("f6")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run)
