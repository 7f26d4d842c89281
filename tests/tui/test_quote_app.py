"""The quote from the app (Pilot, 80x24, keyboard only): the quote details form (i) sets
customer, project, engineer, quote date and validity; the export prompt writes what the file's
extension names: the customer document (.md), the line items (.csv), the BOM (.toml), and
refuses any other extension instead of writing TOML under it."""

from __future__ import annotations

import csv
import io

import pytest
from textual.widgets import Input

from slotwise.engine.bom import read_bom
from slotwise.tui.screens.build import BuildScreen
from slotwise.tui.screens.export import ExportScreen
from slotwise.tui.screens.quote import QuoteScreen
from tests.tui.tui_helpers import choose_chassis, pick, set_input, started

pytestmark = pytest.mark.slow


async def _export(pilot, name: str) -> None:
    await pilot.press("ctrl+s")
    await pilot.pause()
    assert isinstance(pilot.app.screen, ExportScreen)
    await set_input(pilot, pilot.app.screen.query_one(Input), name)
    await pilot.press("enter")
    await pilot.pause()


async def test_quote_details_and_markdown_csv_toml_export(make_app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await choose_chassis(pilot)
        await pick(pilot, "cpu", "8480", 2)
        await pick(pilot, "slot:1", "h200")

        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, QuoteScreen)
        for name, text in (
            ("customer", "ACME Labs"),
            ("project", "Chat cluster"),
            ("engineer", "Dana"),
            ("quote_date", "2026-12-02"),
            ("valid_until", "2026-11-30"),  # before the quote date: refused, form stays
        ):
            await set_input(pilot, app.screen.query_one(f"#quote-{name}", Input), text)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, QuoteScreen)
        await set_input(pilot, app.screen.query_one("#quote-valid_until", Input), "2026-12-31")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, BuildScreen)
        assert (app.open_meta.customer, app.open_meta.project) == ("ACME Labs", "Chat cluster")
        assert str(app.open_meta.valid_until) == "2026-12-31"

        await _export(pilot, "quote.md")
        md = (tmp_path / "quote.md").read_text()
        assert md.startswith("# Chat cluster for ACME Labs\n")
        assert "Prepared by Dana · quote date 2026-12-02 · valid until 2026-12-31" in md
        assert "| GPU | GPU-NVH200NVL | NVIDIA H200 NVL 141GB | 1 |" in md
        assert "schema = 1" not in md  # a document, not TOML under another name
        assert app.dirty  # a document is not the BOM: the build is still unexported

        await _export(pilot, "quote.csv")
        rows = list(csv.DictReader(io.StringIO((tmp_path / "quote.csv").read_text())))
        assert any(r["part_number"] == "GPU-NVH200NVL" for r in rows)

        await _export(pilot, "quote.txt")  # no format of that name: nothing written
        assert not (tmp_path / "quote.txt").exists()
        assert isinstance(app.screen, BuildScreen)

        await _export(pilot, "quote.toml")
        loaded = read_bom(tmp_path / "quote.toml", app.catalog)
        assert loaded.ok and loaded.meta.customer == "ACME Labs"
        assert str(loaded.meta.quote_date) == "2026-12-02"
        assert not app.dirty


async def test_services_engineering_notes_and_options_side_by_side(make_app, tmp_path, monkeypatch):
    """Services typed in the quote details become quote lines (an unknown code is refused in the
    form); a Markdown export writes the customer document with the pinned options A and B side
    by side (the engine's comparison table) and the engineering notes in a file beside it, and
    asks before replacing either."""
    from slotwise.engine.build.edits import SetCount

    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await choose_chassis(pilot)
        await pick(pilot, "cpu", "8480", 2)
        await pick(pilot, "slot:1", "h200")

        await pilot.press("i")
        await pilot.pause()
        box = app.screen.query_one("#quote-services", Input)
        await set_input(pilot, box, "EWCSC, gold")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, QuoteScreen)  # 'gold' is no service code: nothing kept
        assert "not a known service code" in str(app.screen.query_one("#quote-problem").render())
        await set_input(pilot, box, "ewcsc osnbd3")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, BuildScreen)
        assert app.open_meta.services == ("EWCSC", "OSNBD3")

        # option A as it is; option B with one CPU
        app.pin_option()
        b = app.history.current
        assert app.apply_edits([SetCount(what="cpu", sku=b.cpu, count=1)], "one CPU")
        await pilot.pause()

        await _export(pilot, "quote.md")
        md = (tmp_path / "quote.md").read_text()
        assert "| Warranty | EWCSC |" in md and "| On-site service | OSNBD3 |" in md
        assert "## Options compared" in md
        assert "Option A" in md and "Option B (detailed above)" in md
        notes = (tmp_path / "quote.notes.md").read_text()
        assert notes.startswith("# Engineering notes")
        assert "## Part numbers" in notes and "## Findings" in notes

        await _export(pilot, "quote.csv")
        rows = list(csv.DictReader(io.StringIO((tmp_path / "quote.csv").read_text())))
        assert [r["sku"] for r in rows[-2:]] == ["EWCSC", "OSNBD3"]

        # the notes file alone exists: the export still asks before replacing it
        (tmp_path / "quote.md").unlink()
        await _export(pilot, "quote.md")
        from slotwise.tui.screens.confirm import ConfirmScreen

        assert isinstance(app.screen, ConfirmScreen) and "quote.notes.md" in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert not (tmp_path / "quote.md").exists()
