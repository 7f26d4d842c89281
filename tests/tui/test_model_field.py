"""The workload form's model fields at 80x24, keyboard only (issue #14): the preset box finds a
preset by its displayed name, no stale verdict sits beside an input error, "fit GPUs first" only
when no GPU is fitted, and the config / HF id field says the app reads cached configs only and
fetches on Enter when the network is allowed (a 127.0.0.1 server stands in for the Hub)."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Select

from slotwise.engine.workload import Workload
from tests.faulty_http import faulty_server
from tests.tui.tui_helpers import gpu_build, keys_for, open_workload_form, set_input, verdict_text

HUB_ID = "ok/model-8b"  # faulty_http's "ok" behaviour serves a Llama-style config.json


@pytest.mark.parametrize(
    ("typed", "sku"),
    [
        ("llama 3.1 70", "llama-3.1-70b"),  # the displayed name, as the issue typed it
        ("Llama-3.1-70B", "llama-3.1-70b"),
        ("70 llama 3.1", "llama-3.1-70b"),  # words in any order
        ("qwen 72", "qwen2.5-72b"),
    ],
)
async def test_preset_box_finds_the_displayed_name(make_app, typed, sku):
    app = make_app(build=gpu_build(gpus=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload_form(pilot)
        model = app.screen.query_one("#wl-model", Select)
        assert app.screen.focused is model  # F4 puts the cursor on the preset box
        await pilot.press(*keys_for(typed))  # typing on the closed box opens it and searches
        await pilot.pause()
        overlay = model.query_one("SelectOverlay")
        assert overlay.border_title == f"search: {typed}"  # the query is on screen
        await pilot.press("enter")
        await pilot.pause()
        assert model.value == sku
        assert app.history.current.workload.model == sku


async def test_preset_search_backspace_edits_the_query(make_app):
    app = make_app(build=gpu_build(gpus=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload_form(pilot)
        model = app.screen.query_one("#wl-model", Select)
        await pilot.press(*keys_for("llama 3.1 8x"))
        await pilot.pause()
        overlay = model.query_one("SelectOverlay")
        assert str(overlay.border_title).startswith("search: llama 3.1 8x (")  # no word match
        await pilot.press("backspace", "backspace", *keys_for("405"))
        await pilot.pause()
        assert overlay.border_title == "search: llama 3.1 405"
        await pilot.press("enter")
        await pilot.pause()
        assert model.value == "llama-3.1-405b"


async def test_no_stale_verdict_beside_an_input_error(make_app):
    app = make_app(build=gpu_build(Workload(model="llama-3.1-8b")))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload_form(pilot)
        assert "✔ OK  fits in memory" in verdict_text(app)
        await set_input(pilot, app.screen.query_one("#wl-config", Input), HUB_ID)
        await pilot.pause()
        verdict = verdict_text(app)
        # the config replaces the preset (issue 28, item 5): no "not both" error, and the
        # verdict is about the new model, never the preset's stale "fits in memory"
        assert "not both" not in verdict
        assert app.screen.query_one("#wl-model", Select).value == Select.NULL
        assert "not in the local cache" in verdict
        assert "in memory" not in verdict, verdict


async def test_no_gpu_says_fit_gpus_first(make_app):
    app = make_app(build=gpu_build(Workload(model="llama-3.1-8b"), gpus=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload_form(pilot)
        assert "fit GPUs first" in verdict_text(app)


async def test_hub_id_not_cached_offers_a_fetch_and_enter_fetches(make_app, tmp_path, monkeypatch):
    monkeypatch.setenv("SLOTWISE_CACHE_DIR", str(tmp_path / "cache"))
    for var in ("SLOTWISE_OFFLINE", "HF_HUB_OFFLINE", "HF_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    with faulty_server() as server:
        monkeypatch.setenv("SLOTWISE_HF_ENDPOINT", server.url)
        app = make_app(build=gpu_build(Workload(config=HUB_ID), gpus=8))
        async with app.run_test(size=(80, 24)) as pilot:
            await open_workload_form(pilot)
            verdict = verdict_text(app)
            assert "fit GPUs first" not in verdict  # 8 GPUs are fitted
            assert "not in the local cache" in verdict and "cached configs only" in verdict
            assert "Press Enter in the config field to fetch it" in verdict
            app.screen.query_one("#wl-config", Input).focus()
            await pilot.pause()
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            verdict = verdict_text(app)
            assert "from the local cache" in verdict and "not in the local cache" not in verdict
            assert "in memory" in verdict, verdict  # an estimate now: the headline
            assert app.report.estimate is not None


async def test_offline_says_fetching_is_off(make_app, tmp_path, monkeypatch):
    monkeypatch.setenv("SLOTWISE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SLOTWISE_OFFLINE", "1")
    app = make_app(build=gpu_build(Workload(config=HUB_ID), gpus=8))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload_form(pilot)
        verdict = verdict_text(app)
        assert "cached configs only" in verdict and "Fetching is off" in verdict
        assert "SLOTWISE_OFFLINE" in verdict and "Press Enter" not in verdict
