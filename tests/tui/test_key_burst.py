"""Keys that arrive in one burst keep their order in Input fields (issue 28, item 16).

Textual 8.2.8 runs an Input's bound keys (Backspace, arrows ...) after the characters that
follow them in the same burst (https://github.com/Textualize/textual/issues/6605); the app's
Input (tui.widgets.ordered_input) runs them inline.  Each burst is posted in one go, before
the app handles any key, as the terminal driver does with one read."""

from __future__ import annotations

import time

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Input as TextualInput

from slotwise.tui.widgets.ordered_input import Input
from tests.tui.tui_helpers import CHASSIS, GPU, open_workload_form, screen_text, started

BURST = ["backspace"] * 4 + list("4096")


def _burst(app, keys: list[str]) -> None:
    for key in keys:
        char = key if len(key) == 1 else ("\x7f" if key == "backspace" else None)
        app.post_message(events.Key(key, char))


class _One(App):
    def __init__(self, cls) -> None:
        super().__init__()
        self.cls = cls

    def compose(self) -> ComposeResult:
        yield self.cls("2048", id="field")


@pytest.mark.parametrize("keys, want", [(BURST, "4096"), (["left", "left", "x"], "20x48")])
async def test_a_burst_keeps_its_order_in_the_apps_input(keys, want):
    app = _One(Input)
    async with app.run_test() as pilot:
        field = app.query_one("#field", Input)
        field.focus()
        await pilot.pause()
        field.cursor_position = len(field.value)
        _burst(app, keys)
        await pilot.pause()
        await pilot.pause()
        assert field.value == want


async def test_the_burst_shows_the_upstream_bug_on_a_bare_textual_input():
    """Documents why the workaround exists: when this starts to pass on a bare Input, the
    upstream fix has been released and tui.widgets.ordered_input can go."""
    app = _One(TextualInput)
    async with app.run_test() as pilot:
        field = app.query_one("#field", TextualInput)
        field.focus()
        await pilot.pause()
        field.cursor_position = len(field.value)
        _burst(app, BURST)
        await pilot.pause()
        await pilot.pause()
        assert field.value != "4096"


def _inference_app(make_app):
    """The app on a one-GPU build serving Llama 3.1 8B (a workload form with number fields)."""
    from slotwise.engine.build import Build
    from slotwise.engine.workload import Workload

    build = Build(
        chassis=CHASSIS,
        slots={"1": GPU},
        workload=Workload(model="llama-3.1-8b", method="inference"),
    )
    return make_app(build=build)


async def test_a_burst_in_the_workload_form_at_80x24(make_app):
    app = _inference_app(make_app)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("f4")
        await pilot.pause()
        seq = app.screen.query_one("#wl-seq", Input)
        seq.focus()
        await pilot.pause()
        seq.cursor_position = len(seq.value)
        _burst(app, BURST)
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert seq.value == "4096"
        assert app.editing.current.workload.seq_len == 4096
        assert any("4096" in row for row in screen_text(app))


async def test_keys_held_for_a_modal_keep_their_order_when_focus_moves_first(make_app):
    """Keys typed while a modal opens are held; the modal's search field can take the focus
    before the held keys are released.  A key that reaches the app after the focus moved but
    before the release must queue behind the held ones ("123", not "312": a loaded CI machine
    once showed "xqz" for "qzx" in tests/test_hostile_typeahead.py)."""
    app = _inference_app(make_app)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload_form(pilot)
        field = app.screen.query_one("#wl-seq", Input)
        field.value = ""
        app.hold_keys()  # a modal is opening
        _burst(app, ["1", "2"])
        await pilot.pause()
        field.focus()  # the modal's field takes the focus ...
        await pilot.pause()
        _burst(app, ["3"])  # ... a key arrives before the release
        app.release_keys()
        await pilot.pause()
        await pilot.pause()
        assert field.value == "123"


async def test_keys_typed_right_after_f4_reach_the_workload_form(make_app):
    """F4 then "qwen" in one burst (a slow link delivers them together): the form is mounted and
    focused on its first showing while the keys wait, so "q" searches the preset box instead of
    asking to quit the build underneath."""
    from textual.widgets import Select

    from slotwise.tui.screens.build import BuildScreen

    app = _inference_app(make_app)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        _burst(app, ["f4", *"qwen"])

        def searched() -> str:
            if not isinstance(app.screen, BuildScreen) or not app.screen.query("#wl-model"):
                return ""
            model = app.screen.query_one("#wl-model", Select)
            return str(model.query_one("SelectOverlay").border_title or "")

        # Waits for what the keys did, not for a number of pauses: on a loaded machine the
        # Pilot's idle check can pass before the held keys are replayed.
        deadline = time.monotonic() + 10
        while not searched().startswith("search: qwen") and time.monotonic() < deadline:
            await pilot.pause(0.05)
        assert isinstance(app.screen, BuildScreen), type(app.screen).__name__
        assert searched().startswith("search: qwen"), searched()
