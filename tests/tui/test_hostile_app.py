"""Issue #29 in the app: an unwritable state directory, a build open elsewhere, typed-ahead keys.

Each test is the reproduction the issue gives, run through the Pilot."""

from __future__ import annotations

from slotwise.engine.build import Build
from slotwise.tui.app import SlotwiseApp, fixed_clock
from slotwise.tui.autosave import AutosaveStore
from slotwise.tui.screens.build import BuildScreen
from slotwise.tui.screens.recover import RecoverScreen
from tests.tui.conftest import FIXED_NOW
from tests.tui.tui_helpers import CHASSIS, GPU, choose_chassis, pick, started


def _app(catalog, state_dir, **kw) -> SlotwiseApp:
    app = SlotwiseApp(
        catalog=catalog,
        state_dir=state_dir,
        clock=fixed_clock(FIXED_NOW),
        cursor_blink=False,
        **kw,
    )
    app.animation_level = "none"
    return app


def _toasts(app: SlotwiseApp) -> list[str]:
    """Every toast the app shows (app._notifications drops expired ones on a slow run)."""
    said: list[str] = []
    notify = app.notify

    def record(message: str, **kw) -> None:
        said.append(message)
        notify(message, **kw)

    app.notify = record  # type: ignore[method-assign]
    return said


async def test_unwritable_state_dir_warns_once_and_work_and_export_go_on(catalog, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a regular file where the state directory's parent should be")
    app = _app(catalog, blocker / "state")  # every mkdir under it fails (ENOTDIR)
    said = _toasts(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await choose_chassis(pilot)  # used to die here: Autosave.lock() unguarded
        await pick(pilot, "slot:1", "h200")
        await pick(pilot, "slot:3", "h200")
        assert isinstance(app.screen, BuildScreen)
        assert app.history is not None and app.history.current.slots.get("1") == GPU
        warned = [m for m in said if "SLOTWISE_STATE_DIR" in m]
        assert len(warned) == 1, said  # one warning, not one per edit
        assert "not autosaved" in warned[0] and str(blocker) in warned[0]
        out = tmp_path / "exported.toml"
        assert app.export_to(out, force=False)
        assert f'sku = "{CHASSIS}"' in out.read_text()
    assert blocker.read_text().startswith("a regular file")


async def test_discard_of_a_build_open_in_another_slotwise_is_refused(catalog, tmp_path):
    state = tmp_path / "state"
    store = AutosaveStore(state)
    slot = store.new()
    slot.save(Build(chassis=CHASSIS, slots={"1": GPU}))
    app = _app(catalog, state)
    said = _toasts(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        assert isinstance(app.screen, RecoverScreen)  # listed while nobody edits it
        other = store.open(slot.build_id)  # ... then another slotwise resumes it
        assert other.lock() is None
        await pilot.press("d", "y")
        await pilot.pause()
        assert slot.exists(), "a build open in another slotwise was discarded"
        assert any("open in another slotwise" in m for m in said), said
        other.unlock()


EVIL_BOM = r"""schema = 1

[meta]
customer = "ACME\n\n**Total: 1.00 USD (approved)**\n"
project = "p\u001b]0;PWNED\u0007"

[chassis]
sku = "SYS-521GE-TNRT"

[slots]
"1" = "NVIDIA-L40S-48GB"
"9\u001b[2J" = "NVIDIA-L40S-48GB"

[workload]
model = "mistral-7b-v0.3"
"bad\u001b[31mkey" = 1
"""


async def test_a_bom_with_terminal_escapes_shows_them_escaped(catalog, tmp_path):
    import re

    from slotwise.tui.screens.message import ErrorScreen

    control = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
    bom = tmp_path / "evil\x1b]0;PWNED\x07.toml"
    bom.write_text(EVIL_BOM)  # the same reproduction as tests/test_hostile_text.py
    app = _app(catalog, tmp_path / "state", bom=bom)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        errors = [s for s in app.screen_stack if isinstance(s, ErrorScreen)]
        assert errors, "the problems of the file are shown"
        for s in errors:
            assert not control.search(s.title_text + s.message), (s.title_text, s.message)
        assert app.meta is not None and not control.search(
            app.meta.customer + app.meta.project + app.meta.engineer
        )
        assert app.history is not None
        assert not any(control.search(k + v) for k, v in app.history.current.slots.items())
        for n in app._notifications:
            assert not control.search(n.message)


async def test_a_bom_naming_a_config_outside_its_folder_asks_first(catalog, tmp_path):
    from slotwise.tui.screens.confirm import ConfirmScreen

    secret = tmp_path / "home" / "config.json"
    secret.parent.mkdir()
    secret.write_text('{"model_type": "llama"}')
    folder = tmp_path / "received"
    folder.mkdir()
    bom = folder / "bom.toml"
    bom.write_text(f'schema = 1\n[chassis]\nsku = "{CHASSIS}"\n[workload]\nconfig = "{secret}"\n')
    app = _app(catalog, tmp_path / "state", bom=bom)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        asked = [s for s in app.screen_stack if isinstance(s, ConfirmScreen)]
        assert asked and str(secret) in asked[0].question
        assert app.history is not None and app.history.current.workload is not None
        assert app.history.current.workload.config is None  # not read before the answer
        while not isinstance(app.screen, ConfirmScreen):
            await pilot.press("escape")  # the problems message first
            await pilot.pause()
        await pilot.press("enter")  # Enter keeps it unread
        await pilot.pause()
        assert app.history.current.workload.config is None
