"""The app's state is one typed model (tui.state.AppState): screens read it through typed
read-only properties and change it by posting messages, never by writing app fields."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from slotwise.tui.messages import PricesPathChosen
from slotwise.tui.state import AppState, BomPricing

TUI = Path(__file__).resolve().parents[2] / "tui"
STATE_FIELDS = set(AppState.__dataclass_fields__)


def test_screens_and_widgets_never_write_app_state():
    """No ``self.app.<field> = ...`` (or ``app.<field> = ...``) outside the app itself."""
    found = []
    for path in sorted((TUI / "screens").glob("*.py")) + sorted((TUI / "widgets").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else []
            for t in targets:
                if isinstance(t, ast.Attribute) and "app" in ast.unparse(t.value):
                    found.append(f"{path.name}:{node.lineno}: {ast.unparse(t)}")
    assert not found, found


async def test_state_fields_are_read_only_and_a_message_sets_the_price_list(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert {f for f in STATE_FIELDS if not hasattr(type(app), f)} == set()
        with pytest.raises(AttributeError):
            app.prices_path = "x.toml"  # type: ignore[misc]
        app.screen.post_message(PricesPathChosen("examples/prices-example.toml"))
        await pilot.pause()
        assert app.prices_path == app.state.prices_path == "examples/prices-example.toml"


def test_bom_pricing_is_what_export_bom_takes():
    p = BomPricing(prices={"X": 1.0}, currency="EUR", price_note="example")
    assert p.export_kwargs() == {"prices": {"X": 1.0}, "currency": "EUR", "price_note": "example"}
    assert BomPricing().export_kwargs() == {"prices": None, "currency": None, "price_note": None}
