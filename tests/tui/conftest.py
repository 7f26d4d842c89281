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
