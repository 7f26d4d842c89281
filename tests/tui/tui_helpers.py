"""Keyboard-driven steps and small builds shared by the flow, form and snapshot tests."""

from __future__ import annotations

from textual import events
from textual._wait import wait_for_idle
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Select, Static

from slotwise.engine.build import Build
from slotwise.engine.workload import Workload
from slotwise.tui.screens.build import BuildScreen
from slotwise.tui.screens.chooser import ChassisChooser
from slotwise.tui.screens.picker import PartPicker
from slotwise.tui.widgets.chassis_map import ChassisMap
from slotwise.tui.widgets.findings import FindingsList

CHASSIS = "SYS-521GE-TNRT"
GPU = "NVIDIA-H200-NVL-141GB"


def gpu_build(workload: Workload | None = None, gpus: int = 1) -> Build:
    """CHASSIS with two CPUs, ``gpus`` x GPU in slots 1.. and ``workload``."""
    slots = {str(i): GPU for i in range(1, gpus + 1)}
    return Build(chassis=CHASSIS, slots=slots, cpu="XEON-8480+", cpu_count=2, workload=workload)


def gpu_slots(catalog, n: int = 8) -> tuple[str, ...]:
    """The first ``n`` slots of CHASSIS that take a double-width card and are not covered by
    a neighbour's card (read from the chassis record, so data corrections do not break tests)."""
    ch = catalog.chassis[CHASSIS]
    covered = {s.covers for s in ch.slots if s.covers}
    ok = [s.id for s in ch.slots if s.double_width and s.id not in covered and s.purpose != "nic"]
    assert len(ok) >= n, ok
    return tuple(ok[:n])


def single_width_slot(catalog) -> str:
    ch = catalog.chassis[CHASSIS]
    return next(s.id for s in ch.slots if not s.double_width and s.purpose != "nic")


def keys_for(text: str) -> list[str]:
    names = {" ": "space", "-": "minus", ".": "full_stop", "+": "plus"}
    return [names.get(c, c) for c in text]


async def started(pilot: Pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def open_workload_form(pilot: Pilot) -> None:
    """Wait for start-up, then F4: the workload form."""
    await started(pilot)
    await pilot.press("f4")
    await pilot.pause()


def verdict_text(app) -> str:
    """The workload form's verdict as it reads now."""
    return str(app.screen.query_one("#verdict", Static).render())


async def choose(pilot: Pilot, select_id: str, text: str) -> None:
    """Pick the option starting ``text`` in the Select ``select_id``, by keyboard."""
    sel = pilot.app.screen.query_one(select_id, Select)
    sel.focus()
    await pilot.pause()
    await pilot.press("enter", *keys_for(text), "enter")
    await pilot.pause()


async def choose_chassis(pilot: Pilot, sku: str = CHASSIS) -> None:
    """Type the SKU into the chooser's filter (typing on the list goes to the filter) until it
    is the only match, then Enter."""
    chooser = pilot.app.screen
    assert isinstance(chooser, ChassisChooser)
    listed = chooser.query_one("#chooser-list", OptionList)
    for key in keys_for(sku.lower().removeprefix("sys-")):
        await pilot.press(key)
        if listed.option_count == 1 and listed.get_option_at_index(0).id == sku:
            break
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(pilot.app.screen, BuildScreen)


async def goto(pilot: Pilot, key: str, walk: int = 4) -> None:
    """Put the map cursor on row ``key``: with the arrow keys when it is within ``walk`` rows
    (keyboard navigation is exercised), else by setting the highlight (keeps tests fast)."""
    cmap = pilot.app.screen.query_one(ChassisMap)
    if pilot.app.screen.focused is not cmap:
        await pilot.press("f2")
    keys = [r.key for r in cmap.rows]
    target = keys.index(key)
    if abs((cmap.highlighted or 0) - target) > walk:
        cmap.highlighted = target
        await pilot.pause()
        return
    for _ in range(len(keys) + 2):
        cur = cmap.highlighted or 0
        if cur == target:
            return
        await pilot.press("down" if cur < target else "up")
    raise AssertionError(f"cursor never reached {key}")


async def set_input(pilot: Pilot, inp: Input, text: str) -> None:
    """Focus ``inp``, delete its value (End, then Ctrl+U: delete everything left of the
    cursor), then paste ``text``.

    The text arrives as one bracketed paste, what a terminal sends when the user pastes: a form
    test needs the value, not ~40 ms of Pilot round trip per character.  Typing character by
    character stays covered where it is the subject (the picker's search, the key-burst and
    typed-ahead tests, ``keys_for``)."""
    inp.focus()
    await pilot.pause()
    if inp.value:
        await pilot.press("end", "ctrl+u")
    if text:
        await paste(pilot, text)


async def paste(pilot: Pilot, text: str) -> None:
    """Send ``text`` as a terminal's bracketed paste, through the driver and with the same
    waits as the Pilot's key press (idle, animations, idle), then a pause."""
    event = events.Paste(text)
    event.set_sender(pilot.app)
    driver = pilot.app._driver
    assert driver is not None
    driver.send_message(event)
    await wait_for_idle(0)
    await pilot.app.animator.wait_until_complete()
    await wait_for_idle(0)
    await pilot.pause()


async def pick(pilot: Pilot, row: str, search: str, count: int | None = None) -> None:
    """Open the picker on ``row``, search, optionally set the count, press Enter."""
    await goto(pilot, row)
    await pilot.press("enter")
    await pilot.pause()
    picker = pilot.app.screen
    assert isinstance(picker, PartPicker)
    await pilot.press(*keys_for(search))
    if count is not None:
        await set_input(pilot, picker.query_one("#picker-count", Input), str(count))
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(pilot.app.screen, BuildScreen), "picker did not close"


async def build_eight_gpus(pilot: Pilot, psus: int = 2) -> None:
    """CPUs, DIMMs, PSUs and 8 GPUs, all through the picker."""
    await pick(pilot, "cpu", "8480", 2)
    await pick(pilot, "dimm", "4800", 16)
    await pick(pilot, "psu", "2700", psus)
    for slot in gpu_slots(pilot.app.catalog):
        await pick(pilot, f"slot:{slot}", "h200")


async def select_finding(pilot: Pilot, rule: str) -> None:
    findings = pilot.app.screen.query_one(FindingsList)
    findings.focus()
    await pilot.pause()
    for _ in range(len(findings.findings) + 1):
        if findings.current and findings.current.rule == rule:
            return
        await pilot.press("down")
    raise AssertionError(f"no finding {rule}: {[f.rule for f in findings.findings]}")


def screen_text(app) -> list[str]:
    """What the terminal shows now, one string per row (as a user would read it)."""
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]
