"""Fixtures for the TUI tests: the real bundled catalog, a private state dir (never the
developer's autosave), a fixed clock and no cursor blink, so runs and snapshots are
deterministic."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from slotwise.tui.app import SlotwiseApp, fixed_clock

FIXED_NOW = datetime(2026, 1, 15, 9, 30, tzinfo=UTC)


@pytest.fixture
def state_dir(tmp_path, monkeypatch):
    d = tmp_path / "state"
    monkeypatch.setenv("SLOTWISE_STATE_DIR", str(d))
    monkeypatch.delenv("SLOTWISE_CATALOG", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return d


@pytest.fixture
def make_app(catalog, state_dir):
    def make(**kw) -> SlotwiseApp:
        kw.setdefault("catalog", catalog)
        app = SlotwiseApp(
            state_dir=state_dir, clock=fixed_clock(FIXED_NOW), cursor_blink=False, **kw
        )
        app.animation_level = "none"  # no scroll/tab animations for the pilot to wait on
        return app

    return make


@pytest.fixture(autouse=True)
def _idle_checked_every_5_ms(monkeypatch):
    """The Pilot waits for the app to go idle after every key and every pause
    (``textual._wait.wait_for_idle``): it sleeps SLEEP_GRANULARITY (20 ms) at a time until the
    process used less than SLEEP_IDLE (1 ms) of CPU during one sleep, so each key costs at least
    40 ms of sleeping, and the suite presses thousands.  Looking every 5 ms keeps the same test
    of idleness (under 1 ms of CPU in the last sleep; a worker thread or a timer still computing
    uses more) and the same 1 s ceiling, with a quarter of the sleep.  The waits that matter for
    correctness are Textual's own message-queue drain (``Pilot._wait_for_screen``) and
    ``app.workers.wait_for_complete()``, which do not change."""
    import textual._wait

    monkeypatch.setattr(textual._wait, "SLEEP_GRANULARITY", 1 / 200)
