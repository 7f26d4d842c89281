"""Start-up (issue #14): the chassis chooser is up before the catalog has loaded, and a chassis
chosen on that early list opens once the catalog is in."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import slotwise.parts.catalog
from slotwise.tui.app import SlotwiseApp, fixed_clock
from slotwise.tui.chassis_preview import chassis_preview
from slotwise.tui.screens.build import BuildScreen
from slotwise.tui.screens.chooser import ChassisChooser
from tests.tui.conftest import FIXED_NOW
from tests.tui.tui_helpers import CHASSIS, keys_for

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


def test_preview_reads_root_keys_only_where_the_cut_is_safe():
    from slotwise.tui.chassis_preview import _root_table

    plain = 'sku = "A"\nmax_gpus = 8\n[field_sources]\nsku = "B"\n'
    assert _root_table(plain) == {"sku": "A", "max_gpus": 8}
    # A line starting with "[" inside a multi-line value is not a table header: the prefix
    # does not parse, so the whole file is read and nothing is lost.
    tricky = 'note = """\n[not a table]\n"""\ngroups = [\n["1", "2"],\n]\n[t]\nx = 1\n'
    assert _root_table(tricky) == {
        "note": "[not a table]\n",
        "groups": [["1", "2"]],
        "t": {"x": 1},
    }


async def test_chooser_keys_are_on_one_hint_line_and_typing_postpones_the_load(
    catalog, state_dir, monkeypatch
):
    """The chooser has a key hint line (Enter, Esc, Help, Quit visible at 80x24), and the
    catalog load waits while keys arrive; choosing a chassis starts it at once."""
    from tests.tui.tui_helpers import screen_text

    calls = []
    gate = threading.Event()

    def slow_load(overlay=None, **kw):
        calls.append(1)
        gate.wait(30)
        return catalog

    monkeypatch.setattr(slotwise.parts.catalog, "load_catalog", slow_load)
    monkeypatch.setattr("slotwise.tui.app.LOAD_AFTER_IDLE_S", 2.0)
    app = SlotwiseApp(state_dir=state_dir, clock=fixed_clock(FIXED_NOW), cursor_blink=False)
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ChassisChooser) and app.catalog is None
        bottom = screen_text(app)[-1]
        for key in ("Enter Choose", "F1 Help", "^Q Quit"):
            assert key in bottom, bottom
        await pilot.pause(0.5)
        for ch in "521g":  # 2.5 s of typing, each key restarts the 2 s wait: no load yet
            await pilot.press(*keys_for(ch))
            await pilot.pause(0.5)
        assert not calls
        await pilot.press("enter")  # a choice: load now
        await pilot.pause(0.1)
        assert calls
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, BuildScreen)


def test_first_frame_loads_no_pydantic_and_no_engine(tmp_path):
    """Up to the chooser's first frame (when the deferred catalog load is armed) nothing heavy
    is imported: a module imported on the way (e.g. the size notice's message screen pulling
    in the engine's input labels) would put pydantic back before the first frame."""
    code = f"""
import asyncio, sys
import slotwise.tui.app as A
seen = {{}}
def armed(self):
    seen["mods"] = sorted(
        m for m in ("pydantic", "slotwise.engine.build", "slotwise.parts.catalog",
                    "slotwise.engine.inputs", "slotwise.engine.check.report")
        if m in sys.modules
    )
A.SlotwiseApp.start_deferred_load = armed
async def main():
    app = A.SlotwiseApp(state_dir={str(tmp_path)!r})
    async with app.run_test(size=(80, 24)):
        for _ in range(30000):
            if seen:
                break
            await asyncio.sleep(0.001)
        app.exit()
asyncio.run(main())
print(seen.get("mods", "never armed"))
"""
    out = subprocess.check_output([sys.executable, "-c", code], cwd=ROOT, text=True, timeout=120)
    assert out.strip() == "[]"
