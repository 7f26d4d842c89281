"""TCO screen: buy the current build and pay its power, or rent the same GPUs in a cloud.

Every input is visible and editable; every figure is computed by engine.cost.tco (``compute_tco``,
``tco_markdown``), the purchase price by engine.cost.pricing (``quote_build``) from the price list the
user names, the power from the engine's own power budget of the build.  This screen formats and
reports what is missing; it does no arithmetic of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid, VerticalScroll
from textual.widgets import Footer, Markdown, Select, Static

from slotwise.engine.build import Build
from slotwise.engine.check.report import Report
from slotwise.engine.cost.pricing import Quote
from slotwise.engine.cost.tco import TcoResult, tco_markdown
from slotwise.engine.plan.for_build import TcoParams, tco_for_build
from slotwise.parts.catalog import Catalog
from slotwise.tui.input_labels import app_words
from slotwise.tui.keys import TCO_KEYS, bindings
from slotwise.tui.messages import PricesPathChosen
from slotwise.tui.screens.base import AppScreen
from slotwise.tui.screens.export import PathPrompt
from slotwise.tui.widgets.ordered_input import Input

YEARS = (3, 4, 5)


@dataclass(frozen=True)
class TcoOutcome:
    result: TcoResult | None
    problem: str | None = None
    quote: Quote | None = None  # the build priced line by line (parts without a price too)
    origin: str = ""  # the price list it was priced from


def _number(label: str, text: str, *, optional: bool) -> tuple[float | None, str | None]:
    text = text.strip()
    if not text:
        return None, (None if optional else f"{label}: give a number")
    try:
        return float(text), None
    except ValueError:
        return None, f"{label}: {text!r} is not a number"


def tco_from_form(
    build: Build,
    report: Report | None,
    catalog: Catalog,
    *,
    years: int,
    pue: str,
    utilization: str,
    kwh_price: str,
    cloud_gpu_hour: str,
    prices_path: str,
) -> TcoOutcome:
    """Parse the form and run the engine's TCO for the build; a problem names the field."""
    from pydantic import ValidationError

    from slotwise.engine.cost.pricing import PriceError, load_prices, quote_build

    parsed = {}
    for key, label, text, optional in (
        ("pue", "PUE", pue, False),
        ("utilization", "Utilization", utilization, False),
        ("kwh_price", "Price per kWh", kwh_price, True),
        ("cloud_gpu_hour", "Cloud per GPU-hour", cloud_gpu_hour, True),
    ):
        value, problem = _number(label, text, optional=optional)
        if problem:
            return TcoOutcome(None, problem)
        parsed[key] = value
    if not prices_path.strip():
        return TcoOutcome(
            None, "Price list file: name a TOML/CSV price list (e.g. examples/prices-example.toml)"
        )
    try:
        prices = load_prices(prices_path.strip(), offline=True)
    except PriceError as exc:
        return TcoOutcome(None, f"Price list file: {exc}")
    # Parts without a price (often ones the app's own fixes fitted) do not stop the screen:
    # the purchase price is unknown, each such part is named, the running costs still show.
    quote = quote_build(build, prices, catalog)
    origin = prices.origin or prices_path.strip()
    if report is None:
        return TcoOutcome(None, "The engine could not work out this build's power draw.")
    try:
        outcome = tco_for_build(
            build,
            catalog,
            report,
            {sku: e.price for sku, e in prices.entries.items()},
            prices.currency,
            TcoParams(years=years, **parsed),
            unpriced_ok=True,
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        names = {
            "pue": "PUE",
            "utilization": "Utilization",
            "kwh_price": "Price per kWh",
            "cloud_gpu_hour": "Cloud per GPU-hour",
        }
        field = names.get(str(err["loc"][0]), str(err["loc"][0]))
        return TcoOutcome(None, f"{field}: {err['msg']}", quote, origin)
    if outcome.result is None:
        problem = outcome.problem or "the build could not be priced"
        return TcoOutcome(None, problem[0].upper() + problem[1:] + ".", quote, origin)
    return TcoOutcome(outcome.result, None, quote, origin)


def _fmt_money(x: float | None, currency: str) -> str:
    return "**no price**" if x is None else f"{x:,.0f} {currency}"


def prices_markdown(quote: Quote, origin: str) -> str:
    """Every part of the build with its price from the list, or "no price" (the TCO screen's
    first section; figures are engine.cost.pricing's, this only lays them out)."""
    cur = quote.currency
    lines = [
        f"## Prices from {origin}",
        "",
        "| part | qty | unit price | line |",
        "| --- | ---: | ---: | ---: |",
    ]
    for ln in quote.lines:
        lines.append(
            f"| {ln.sku} | {ln.qty} | {_fmt_money(ln.unit_price, cur)} | "
            f"{_fmt_money(ln.total, cur)} |"
        )
    lines.append("")
    if quote.missing:
        lines.append(
            f"{len(quote.missing)} part(s) have no price in {origin}: "
            + ", ".join(quote.missing)
            + ". Add a price for each to the list (TOML `[[price]]` sku/price, or a CSV row "
            "sku,price,currency) to get the purchase price and the break-even month; the "
            f"priced parts come to {quote.known_total:,.0f} {cur}."
        )
    else:
        lines.append(f"Purchase price: {quote.known_total:,.0f} {cur}.")
    if quote.example:
        lines.append("")
        lines.append("EXAMPLE prices: the list says they are made up, not a quote.")
    return "\n".join(lines) + "\n"


def outcome_markdown(outcome: TcoOutcome) -> str:
    """What the screen shows and saves: the prices, then engine.cost.tco's section."""
    parts = []
    if outcome.quote is not None:
        parts.append(prices_markdown(outcome.quote, outcome.origin))
    if outcome.result is not None:
        parts.append(app_words(tco_markdown(outcome.result)))
    return "\n".join(parts)


def summary_line(result: TcoResult, quote: Quote | None = None) -> str:
    """The answer first: the break-even month, or why there is none."""
    if quote is not None and quote.missing:
        n = len(quote.missing)
        return (
            f"✗ Purchase price unknown: {n} part{'s' if n > 1 else ''} without a price "
            f"({', '.join(quote.missing)}); see Prices below. Running costs are shown."
        )
    if result.break_even_month is not None and result.break_even_month <= result.months:
        return f"✓ Owning becomes cheaper than the cloud in month {result.break_even_month}."
    if result.break_even_month is not None:
        return f"✗ Owning pays off only in month {result.break_even_month}, after the horizon."
    return "– No break-even month: " + (
        app_words(result.notes[0]) if result.notes else "see below."
    )


class SaveMarkdownScreen(PathPrompt):
    """Where to write the TCO Markdown.  Dismisses with the path text, or None."""

    TITLE_MARKUP = "[b]Save the TCO as Markdown[/b] — file to write"
    VERB = "save"
    EXAMPLE = "tco.md"
    INPUT_ID = "tco-save-path"


class TcoScreen(AppScreen[None]):
    BINDINGS = bindings(TCO_KEYS)
    DEFAULT_CSS = """
    TcoScreen #tco-title { height: 1; padding: 0 1; background: $panel; }
    TcoScreen #tco-form {
        grid-size: 3 4; grid-rows: 1; grid-columns: 1fr 1fr 1fr; height: 4;
        padding: 0 1; grid-gutter: 0 1;
    }
    TcoScreen .tco-label { color: $text-muted; }
    TcoScreen #tco-summary { height: auto; padding: 0 1; text-style: bold; }
    TcoScreen #tco-body { height: 1fr; border-top: hkey $primary-darken-2; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.result: TcoResult | None = None
        self.markdown = ""  # what the body shows and Ctrl+S saves

    def compose(self) -> ComposeResult:
        yield Static(
            "[b]Total cost of ownership[/b] — Enter/F9 compute · Ctrl+S save .md · Esc back",
            id="tco-title",
        )
        with Grid(id="tco-form"):
            yield Static("Price list file", classes="tco-label")
            yield Static("Years", classes="tco-label")
            yield Static("PUE (1.0 = IT only)", classes="tco-label")
            yield Input(
                self.app.prices_path or "",
                placeholder="TOML/CSV path",
                compact=True,
                id="tco-prices",
            )
            yield Select(
                [(str(y), y) for y in YEARS],
                value=3,
                allow_blank=False,
                compact=True,
                id="tco-years",
            )
            yield Input("1.0", type="number", compact=True, id="tco-pue")
            yield Static("Utilization (0-1)", classes="tco-label")
            yield Static("Price per kWh", classes="tco-label")
            yield Static("Cloud per GPU-hour", classes="tco-label")
            yield Input("1.0", type="number", compact=True, id="tco-util")
            yield Input(placeholder="unknown", type="number", compact=True, id="tco-kwh")
            yield Input(placeholder="unknown", type="number", compact=True, id="tco-cloud")
        yield Static("", id="tco-summary")
        with VerticalScroll(id="tco-body"):
            yield Markdown("", id="tco-text")
        yield Footer()

    def on_mount(self) -> None:
        self.app.apply_blink(self)
        self.query_one("#tco-prices", Input).focus()
        self.action_run()

    def _val(self, wid: str) -> str:
        return self.query_one(wid, Input).value

    def action_run(self) -> None:
        app = self.app
        outcome = tco_from_form(
            app.editing.current,
            app.report,
            app.catalog,
            years=int(str(self.query_one("#tco-years", Select).value)),
            pue=self._val("#tco-pue"),
            utilization=self._val("#tco-util"),
            kwh_price=self._val("#tco-kwh"),
            cloud_gpu_hour=self._val("#tco-cloud"),
            prices_path=self._val("#tco-prices"),
        )
        summary = self.query_one("#tco-summary", Static)
        body = self.query_one("#tco-text", Markdown)
        self.result = outcome.result
        self.markdown = outcome_markdown(outcome) if outcome.result is not None else ""
        if outcome.result is None:
            summary.update(Text(f"✗ {outcome.problem}"))
            body.update(prices_markdown(outcome.quote, outcome.origin) if outcome.quote else "")
            return
        self.post_message(PricesPathChosen(self._val("#tco-prices").strip()))
        summary.update(Text(summary_line(outcome.result, outcome.quote)))
        body.update(self.markdown)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if self.is_mounted:
            self.action_run()

    def action_save(self) -> None:
        from pathlib import Path

        if self.result is None:
            self.notify("Nothing to save yet: fix the inputs first.", severity="warning")
            return
        markdown = self.markdown
        stem = (
            Path(self.app.bom_path).stem if self.app.bom_path else self.app.editing.current.chassis
        )
        default = f"{stem}-tco.md"

        def chosen(path: str | None) -> None:
            if path is None:
                return
            p = Path(path).expanduser()
            if not p.exists():
                self._write(p, markdown, overwrite=False)
                return
            from slotwise.tui.screens.confirm import ConfirmScreen

            def answer(yes: bool | None) -> None:
                if yes:
                    self._write(p, markdown, overwrite=True)

            self.app.push_screen(
                ConfirmScreen(
                    f"{p} already exists. Overwrite it?",
                    yes="Overwrite",
                    no="Keep it",
                    enter_means_yes=False,
                ),
                answer,
            )

        self.app.push_screen(SaveMarkdownScreen(default), chosen)

    def _write(self, path, markdown: str, *, overwrite: bool) -> None:
        from pathlib import Path

        from slotwise.engine.store.atomic import atomic_write_text
        from slotwise.tui.screens.message import ErrorScreen

        try:
            atomic_write_text(path, markdown, overwrite=overwrite)
        except (FileExistsError, OSError) as exc:
            self.app.push_screen(
                ErrorScreen(
                    "Saving the TCO failed",
                    f"{path}: {exc}\n\nChoose another file name or directory.",
                )
            )
            return
        self.notify(f"Saved the TCO to {Path(path).expanduser().resolve()}", timeout=6)

    def action_close(self) -> None:
        self.dismiss(None)
