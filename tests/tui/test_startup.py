"""Start-up (issue #14): the chassis chooser is up before the catalog has loaded, and a chassis
chosen on that early list opens once the catalog is in."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from conftest import FIXED_NOW
from tui_helpers import CHASSIS, keys_for

import slotwise.parts.catalog
from slotwise.tui.app import SlotwiseApp, fixed_clock
from slotwise.tui.chassis_preview import chassis_preview
from slotwise.tui.screens.build import BuildScreen
from slotwise.tui.screens.chooser import ChassisChooser

ROOT = Path(__file__).resolve().parents[2]


def test_preview_matches_the_catalog(catalog):
    preview = chassis_preview()
    assert set(preview) == set(catalog.chassis)
    for sku, ch in catalog.chassis.items():
        p = preview[sku]
        assert (p.name, p.family, p.max_gpus, p.psu_bays, p.cooling) == (
            ch.name,
            ch.family,
            ch.max_gpus,
            ch.psu_bays,
            ch.cooling,
        )


def test_importing_the_app_loads_no_engine_and_no_pydantic():
    code = (
        "import sys; import slotwise.tui.app; "
        "print(sorted(m for m in ('pydantic', 'slotwise.engine.build', 'slotwise.parts.catalog', 'slotwise.engine.bom') "
        "if m in sys.modules))"
    )
    out = subprocess.check_output([sys.executable, "-c", code], cwd=ROOT, text=True, timeout=120)
    assert out.strip() == "[]"


async def test_chooser_is_up_before_the_catalog_and_a_choice_waits_for_it(
    catalog, state_dir, monkeypatch
):
    gate = threading.Event()

    def slow_load(overlay=None, **kw):
        gate.wait(30)
        return catalog

    monkeypatch.setattr(slotwise.parts.catalog, "load_catalog", slow_load)
    app = SlotwiseApp(state_dir=state_dir, clock=fixed_clock(FIXED_NOW), cursor_blink=False)
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ChassisChooser) and app.catalog is None
        await pilot.press(*keys_for(CHASSIS.lower().removeprefix("sys-")), "enter")
        await pilot.pause()
        assert app.history is None  # waits for the catalog
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, BuildScreen)
        assert app.history.current.chassis == CHASSIS
