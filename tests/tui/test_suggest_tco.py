"""Pilot tests of the Suggest (F7) and TCO (F8) screens at 80x24, keyboard only."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Markdown, OptionList, Static

from slotwise.engine.build import Build
from slotwise.engine.workload import Workload
from slotwise.tui.screens.build import BuildScreen
from slotwise.tui.screens.confirm import ConfirmScreen
from slotwise.tui.screens.suggest import SuggestScreen, parse_request
from slotwise.tui.screens.tco import TcoScreen, tco_from_form
from tests.tui.tui_helpers import CHASSIS, gpu_slots, started

PRICES = str(Path(__file__).resolve().parents[2] / "examples" / "prices-example.toml")
WORKLOAD = Workload(model="llama-3.1-8b", method="lora")


def _text(screen, wid: str) -> str:
    widget = screen.query_one(wid)
    if isinstance(widget, Markdown):
        return widget.source  # the TCO body: rendered as Markdown, read back as its text
    return str(widget.render())


def _first_priced(screen: SuggestScreen) -> int:
    """The rank (0-based) of the first suggestion whose every part the price list prices."""
    assert screen.result is not None
    return next(i for i, s in enumerate(screen.result.suggestions) if s.price is not None)


async def _suggested(pilot) -> SuggestScreen:
    await pilot.press("f7")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SuggestScreen)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return screen


async def test_open_rank_one_then_undo(make_app):
    # precision "auto", the app's default: the header shows what the search resolved it to
    start = Build(chassis=CHASSIS, workload=WORKLOAD.model_copy(update={"precision": "auto"}))
    app = make_app(build=start)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        screen = await _suggested(pilot)
        assert screen.result is not None and screen.result.ok
        rows = screen.query_one("#sg-list", OptionList)
        assert rows.option_count == len(screen.result.suggestions) >= 1
        first = screen.result.suggestions[0]
        assert all(s.report.errors == 0 for s in screen.result.suggestions)
        row = str(rows.get_option_at_index(0).prompt)
        assert row.startswith("1 ") and first.build.chassis in row and " 0/" in row
        assert "no price list" in _text(screen, "#sg-status")
        title = _text(screen, "#sg-title")
        assert "lora, bf16" in title and "auto" not in title
        assert first.build != start
        await pilot.press("enter")  # asks first (issue #14): Esc keeps the build
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and "#1" in app.screen.question
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and app.history.current == start
        await pilot.press("enter", "y")
        await pilot.pause()
        assert isinstance(app.screen, BuildScreen)
        assert app.history.current == first.build
        assert app.report.errors == 0
        assert first.build.chassis in _text(app.screen, "#status")
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert app.history.current == start


async def test_no_workload_says_where_to_set_it(make_app, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(build=Build(chassis=CHASSIS))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        screen = await _suggested(pilot)
        assert "Workload tab" in _text(screen, "#sg-status")
        assert screen.query_one("#sg-list", OptionList).option_count == 0
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BuildScreen)


async def test_constraints_narrow_the_search(make_app):
    app = make_app(build=Build(chassis=CHASSIS, workload=WORKLOAD))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        screen = await _suggested(pilot)
        screen.query_one("#sg-chassis", Input).value = CHASSIS
        screen.query_one("#sg-prices", Input).value = PRICES
        screen.query_one("#sg-chassis", Input).focus()
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.result is not None and screen.result.suggestions
        assert {s.build.chassis for s in screen.result.suggestions} == {CHASSIS}
        assert "price USD" in _text(screen, "#sg-head")
        assert app.prices_path == PRICES  # pre-fills the TCO screen
        # a priced suggestion's row ends in its price (the ranking is by target, then GPUs and
        # power: a build with a card the example list does not price may come first)
        at = _first_priced(screen)
        row = str(screen.query_one("#sg-list", OptionList).get_option_at_index(at).prompt)
        price = screen.result.suggestions[at].price
        assert price is not None and row.endswith(f"{price:,.0f}")
        screen.query_one("#sg-maxw", Input).value = "watts"
        screen.query_one("#sg-maxw", Input).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert "Max W" in _text(screen, "#sg-status")
        screen.query_one("#sg-list", OptionList).focus()
        await pilot.press(*["down"] * at, "enter", "y")  # the first priced suggestion
        await pilot.pause()
        await pilot.press("f8")
        await pilot.pause()
        tco = app.screen
        assert isinstance(tco, TcoScreen)
        assert tco.query_one("#tco-prices", Input).value == PRICES
        assert "No break-even month" in _text(tco, "#tco-summary")  # no kWh / cloud price yet
        assert "purchase:" in _text(tco, "#tco-text")


async def test_tco_with_example_prices_shows_break_even(make_app, tmp_path):
    app = make_app(build=Build(chassis=CHASSIS, workload=WORKLOAD))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        screen = await _suggested(pilot)
        screen.query_one("#sg-prices", Input).value = PRICES
        screen.query_one("#sg-prices", Input).focus()
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        at = _first_priced(screen)  # a complete build with GPUs whose parts are all priced
        screen.query_one("#sg-list", OptionList).focus()
        await pilot.press(*["down"] * at, "enter", "y")
        await pilot.pause()
        await pilot.press("f8")
        await pilot.pause()
        tco = app.screen
        assert isinstance(tco, TcoScreen)
        assert tco.query_one("#tco-prices", Input).value == PRICES  # the search's price list
        assert "no price per kwh" in _text(tco, "#tco-summary").lower()
        tco.query_one("#tco-prices", Input).value = ""  # no price list: the summary says so
        tco.query_one("#tco-prices", Input).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert "price list" in _text(tco, "#tco-summary").lower()
        tco.query_one("#tco-prices", Input).value = PRICES
        tco.query_one("#tco-kwh", Input).value = "0.25"
        tco.query_one("#tco-cloud", Input).value = "2.5"
        tco.query_one("#tco-cloud", Input).focus()
        await pilot.press("enter")
        await pilot.pause()
        summary = _text(tco, "#tco-summary")
        assert "month" in summary, summary
        body = _text(tco, "#tco-text")
        assert "purchase:" in body and "0.25 USD/kWh" in body and "2.5 USD per GPU-hour" in body
        assert screen is not tco
        out = tmp_path / "tco.md"
        await pilot.press("ctrl+s")
        await pilot.pause()
        app.screen.query_one("#tco-save-path", Input).value = str(out)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is tco
        saved = out.read_text("utf-8")
        assert f"month {tco.result.break_even_month}" in saved and "0.25 USD/kWh" in saved
        out.write_text("keep me", "utf-8")
        await pilot.press("ctrl+s")
        await pilot.pause()
        app.screen.query_one("#tco-save-path", Input).value = str(out)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("n")  # do not overwrite
        await pilot.pause()
        assert app.screen is tco and out.read_text("utf-8") == "keep me"


def test_tco_names_missing_prices_and_bad_fields(catalog, tmp_path):
    from slotwise.engine.check.evaluate import evaluate

    b = Build(chassis=CHASSIS, slots={gpu_slots(catalog, 1)[0]: "NVIDIA-L4-24GB"})
    partial = tmp_path / "p.toml"
    partial.write_text(
        '[meta]\ncurrency = "EUR"\n\n[[price]]\nsku = "NOT-IN-BUILD"\nprice = 1\n', "utf-8"
    )
    kw = dict(years=3, pue="1.2", utilization="0.5", kwh_price="0.3", cloud_gpu_hour="2")
    out = tco_from_form(b, evaluate(b, catalog), catalog, prices_path=str(partial), **kw)
    # parts without a price: named one by one, running costs still computed, no break-even
    assert out.problem is None and out.result is not None
    assert out.result.inputs.purchase_price is None and out.result.break_even_month is None
    assert out.result.power_cost_month is not None and out.result.cloud_cost_month is not None
    assert set(out.quote.missing) == {CHASSIS, "NVIDIA-L4-24GB"}
    bad = {**kw, "pue": "0.5"}
    out = tco_from_form(b, evaluate(b, catalog), catalog, prices_path=PRICES, **bad)
    assert out.result is None and out.problem.startswith("PUE")
    out = tco_from_form(
        b, evaluate(b, catalog), catalog, prices_path=str(tmp_path / "no.toml"), **kw
    )
    assert out.result is None and out.problem.startswith("Price list file")
    out = tco_from_form(b, evaluate(b, catalog), catalog, prices_path=PRICES, **kw)
    assert out.result is not None and out.result.inputs.gpus == 1
    # TCO energy is priced on the worst case at the wall (AC, PSU losses included)
    assert out.result.inputs.power_w == evaluate(b, catalog).power.worst_ac_w
    no_gpu = Build(chassis=CHASSIS)
    out = tco_from_form(no_gpu, evaluate(no_gpu, catalog), catalog, prices_path=PRICES, **kw)
    assert out.result is None and "no GPUs" in out.problem


def _request(**typed: str):
    """parse_request on a Suggest form left blank but for the ``typed`` fields."""
    blank = {
        "objective": "gpus",
        "chassis": "",
        "gpus": "",
        "cooling": "any",
        "voltage": "200-240",
        "redundancy": "N+1",
        "max_power": "",
        "prices": "",
    }
    return parse_request(**{**blank, **typed})


def test_parse_request_fields():
    req = _request(objective="price")
    assert req.constraints is None and "price list" in req.problem
    req = _request(
        objective="power",
        chassis="X13, SYS-421GE-TNRT",
        gpus="NVIDIA-L4-24GB",
        cooling="air",
        voltage="100-127",
        redundancy="N+N",
        max_power="2000",
    )
    c = req.constraints
    assert req.problem is None
    assert c.chassis == ("X13", "SYS-421GE-TNRT") and c.gpus == ("NVIDIA-L4-24GB",)
    assert (c.cooling, c.voltage, c.redundancy, c.max_power_w) == ("air", "100-127", "N+N", 2000)


def test_cluster_plan_is_shown_when_no_single_server_fits(catalog):
    from slotwise.engine.plan.suggest import suggest
    from slotwise.tui.screens.suggest import detail_text, table

    w = Workload(model="llama-3.1-405b", method="pretrain", tokens=1e12, target_days=30)
    result = suggest(w, catalog, limit=1)
    assert result.multi_node and result.suggestions
    s = result.suggestions[0]
    text = detail_text(s, result)
    assert "## Cluster" in text and f"{s.nodes} x {s.build.chassis}" in text
    head, rows = table(result.suggestions, None)
    assert f" x{s.nodes}" in rows[0] and len(rows[0]) <= 78


async def test_tco_names_each_part_without_a_price_and_saves_to_a_shown_path(
    make_app, catalog, tmp_path, monkeypatch
):
    """The example list lacks a part the build has: the screen names it (per part, in the
    prices table), still shows the power and cloud costs, renders Markdown, and the saved
    file's toast gives its absolute path."""
    b = Build(chassis=CHASSIS, slots={gpu_slots(catalog, 1)[0]: "NVIDIA-L4-24GB"})
    partial = tmp_path / "p.toml"
    partial.write_text(
        f'[meta]\ncurrency = "EUR"\n\n[[price]]\nsku = "{CHASSIS}"\nprice = 1000\n', "utf-8"
    )
    monkeypatch.chdir(tmp_path)
    app = make_app(build=b)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("f8")
        await pilot.pause()
        tco = app.screen
        assert isinstance(tco, TcoScreen)
        tco.query_one("#tco-prices", Input).value = str(partial)
        tco.query_one("#tco-kwh", Input).value = "0.3"
        tco.query_one("#tco-kwh", Input).focus()
        await pilot.press("enter")
        await pilot.pause()
        summary = _text(tco, "#tco-summary")
        assert "Purchase price unknown" in summary and "NVIDIA-L4-24GB" in summary, summary
        body = _text(tco, "#tco-text")
        assert f"| {CHASSIS} | 1 | 1,000 EUR | 1,000 EUR |" in body
        assert "| NVIDIA-L4-24GB | 1 | **no price** | **no price** |" in body
        assert "purchase: unknown" in body and "at 0.3 EUR/kWh" in body
        assert "No Cloud per GPU-hour given" in body and "--cloud-gpu-hour" not in body
        # Markdown is rendered (a table widget), not shown as raw pipes
        assert tco.query_one("#tco-text", Markdown).query("MarkdownTable")
        # save with a bare name: the prompt says where it goes, the toast the absolute path
        await pilot.press("ctrl+s")
        await pilot.pause()
        where = str(app.screen.query_one("#path-where", Static).render())
        assert str(tmp_path) in where
        app.screen.query_one("#tco-save-path", Input).value = "quote-tco.md"
        await pilot.press("enter")
        await pilot.pause()
        saved = tmp_path / "quote-tco.md"
        assert "**no price**" in saved.read_text("utf-8")
        said = [n.message for n in app._notifications]
        assert any(f"Saved the TCO to {saved.resolve()}" in m for m in said), said
