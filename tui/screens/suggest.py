"""Suggest screen: complete builds for the current build's workload, best first (engine.plan.suggest).

The constraints form mirrors ``slotwise suggest``; the search runs in a worker thread and posts
its result back as a message (no widget is touched from the thread).  Enter on a ranked build
makes it the current build through ``SlotwiseApp.replace_build``: one undo step, so Ctrl+Z
returns to the build you had.  All figures come from the engine; this screen only formats them.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Container, Grid, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Select, Static
from textual.widgets.option_list import Option

from slotwise.engine.build.items import parts_line
from slotwise.engine.plan.suggest import OBJECTIVES, Constraints, Suggestion, SuggestResult
from slotwise.tui.input_labels import app_words
from slotwise.tui.keys import SUGGEST_HINTS, SUGGEST_KEYS, bindings
from slotwise.tui.messages import PricesPathChosen
from slotwise.tui.screens.base import AppScreen
from slotwise.tui.widgets.cursor_list import CursorList
from slotwise.tui.widgets.key_hints import KeyHints
from slotwise.tui.widgets.ordered_input import Input

ANY = "any"


@dataclass(frozen=True)
class SuggestRequest:
    """What the form asked for, parsed; ``problem`` says which field is wrong."""

    constraints: Constraints | None
    objective: str
    prices_path: str | None
    problem: str | None = None


class SuggestDone(Message):
    def __init__(
        self,
        result: SuggestResult | None,
        problem: str | None,
        currency: str | None,
        prices_path: str | None = None,
    ) -> None:
        super().__init__()
        self.result = result
        self.problem = problem
        self.currency = currency
        self.prices_path = prices_path  # the list the result was priced with


def _split(text: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in text.replace(";", ",").split(",") if x.strip())


def parse_request(
    *,
    objective: str,
    chassis: str,
    gpus: str,
    cooling: str,
    voltage: str,
    redundancy: str,
    max_power: str,
    prices: str,
) -> SuggestRequest:
    """The form's text as engine inputs, or a message naming the field to correct."""
    from pydantic import ValidationError

    max_w = None
    if max_power.strip():
        try:
            max_w = float(max_power)
        except ValueError:
            return SuggestRequest(None, objective, None, f"Max W: {max_power!r} is not a number")
        if max_w <= 0:
            return SuggestRequest(None, objective, None, "Max W: give a power above 0 W")
    prices_path = prices.strip() or None
    if objective == "price" and prices_path is None:
        return SuggestRequest(
            None, objective, None, "Objective price needs a price list: fill in Prices"
        )
    try:
        cons = Constraints(
            chassis=_split(chassis),
            gpus=_split(gpus),
            cooling=None if cooling == ANY else cooling,
            voltage=voltage,
            redundancy=redundancy,
            max_power_w=max_w,
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        return SuggestRequest(None, objective, prices_path, f"{err['loc'][0]}: {err['msg']}")
    return SuggestRequest(cons, objective, prices_path)


def _hours(h: float | None) -> str:
    if h is None:
        return "-"
    return f"{h:,.1f} h" if h < 48 else f"{h / 24:,.1f} d"


def _gib(mem) -> str:
    total = (mem or {}).get("total_bytes") if isinstance(mem, dict) else None
    return "-" if total is None else f"{total / 2**30:,.0f}"


def table(suggestions: tuple[Suggestion, ...], currency: str | None) -> tuple[str, list[str]]:
    """A header and one line per ranked build, columns as wide as their widest cell, so the
    usual results fit 80 columns.  Findings are errors/warnings; memory is per GPU (GiB)."""
    cells = []
    for s in suggestions:
        gpus = f"{s.gpus}x{s.gpu.removeprefix('NVIDIA-')}" + (f" x{s.nodes}" if s.nodes > 1 else "")
        power = "-" if s.power_w is None else f"{s.power_w:,.0f}W"
        known = "?" if s.price is None else f"{s.price:,.0f}"
        price = "-" if currency is None else known
        mem = _gib(s.to_json().get("memory_per_gpu"))
        cells.append(
            (
                str(s.rank),
                s.build.chassis,
                gpus,
                f"{s.report.errors}/{s.report.warnings}",
                power,
                mem,
                _hours(s.train_hours),
                price,
            )
        )
    head = (
        "#",
        "chassis",
        "GPUs",
        "E/W",
        "power",
        "GiB/GPU",
        "train",
        "price" if currency is None else f"price {currency}",
    )
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head) - 1)]
    left = {1, 2}  # text columns; figures are right-aligned

    def line(row: tuple[str, ...]) -> str:
        parts = [(row[i].ljust(w) if i in left else row[i].rjust(w)) for i, w in enumerate(widths)]
        return " ".join([*parts, row[-1]]).rstrip()

    return line(head), [line(c) for c in cells]


def detail_text(s: Suggestion, result: SuggestResult) -> str:
    from slotwise.engine.plan.cluster import cluster_markdown

    b = s.build
    lines = [
        f"#{s.rank} {b.chassis}: {s.gpus} x {s.gpu}"
        + (f" per node, {s.nodes} nodes" if s.nodes > 1 else "")
    ]
    if s.cluster is not None:
        lines += ["", cluster_markdown(s.cluster).rstrip()]
        lines.append(
            "(a cluster node carries no workload: the rules check one server, the job needs "
            "all nodes)"
        )
        lines += ["", "Each node:"]
    lines.append(parts_line(b))
    if b.slots:
        lines.append("slots " + ", ".join(f"{k}:{v}" for k, v in b.slots.items()))
    if s.quote is not None and s.quote.missing:
        lines.append("no price for: " + ", ".join(s.quote.missing))
    lines += [f"note: {n}" for n in result.notes]
    return app_words("\n".join(lines))


class SuggestScreen(AppScreen[None]):
    BINDINGS = bindings(SUGGEST_KEYS)
    # a wide terminal shows the ranked list and the highlighted build side by side
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    DEFAULT_CSS = """
    SuggestScreen #sg-title { height: 1; padding: 0 1; background: $panel; }
    SuggestScreen #sg-form {
        grid-size: 4 4; grid-rows: 1; grid-columns: 1fr 1fr 1fr 1fr; height: 4;
        padding: 0 1; grid-gutter: 0 1;
    }
    SuggestScreen .sg-label { color: $text-muted; }
    SuggestScreen #sg-status { height: auto; max-height: 3; padding: 0 1; }
    SuggestScreen #sg-head { height: 1; padding: 0 1; text-style: bold; }
    SuggestScreen #sg-list { height: 1fr; border: none; padding: 0 0 0 1; }
    SuggestScreen #sg-body { height: 1fr; layout: vertical; }
    SuggestScreen #sg-ranked { height: 1fr; }
    SuggestScreen #sg-detail { height: 7; border-top: hkey $primary-darken-2; padding: 0 1; }
    SuggestScreen.-wide #sg-body { layout: horizontal; }
    SuggestScreen.-wide #sg-ranked { width: 1fr; height: 1fr; }
    SuggestScreen.-wide #sg-detail {
        width: 1fr; height: 1fr; border-top: none; border-left: vkey $primary-darken-2;
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self.result: SuggestResult | None = None
        self.currency: str | None = None

    def compose(self) -> ComposeResult:
        env = self.app.editing.current.env
        yield Static("", id="sg-title")
        with Grid(id="sg-form"):
            yield Static("Objective", classes="sg-label")
            yield Static("Cooling", classes="sg-label")
            yield Static("Input V", classes="sg-label")
            yield Static("PSU redundancy", classes="sg-label")
            yield Select(
                [(o, o) for o in OBJECTIVES],
                value="gpus",
                allow_blank=False,
                compact=True,
                id="sg-objective",
            )
            yield Select(
                [(c, c) for c in (ANY, "air", "liquid")],
                value=ANY,
                allow_blank=False,
                compact=True,
                id="sg-cooling",
            )
            yield Select(
                [(v, v) for v in ("200-240", "100-127")],
                value=env.input_voltage,
                allow_blank=False,
                compact=True,
                id="sg-voltage",
            )
            yield Select(
                [(r, r) for r in ("N+1", "N+N")],
                value=env.redundancy,
                allow_blank=False,
                compact=True,
                id="sg-redundancy",
            )
            yield Static("Chassis (SKU/family)", classes="sg-label")
            yield Static("GPU model", classes="sg-label")
            yield Static("Max W/server", classes="sg-label")
            yield Static("Price list file", classes="sg-label")
            yield Input(placeholder="any, e.g. X13", compact=True, id="sg-chassis")
            yield Input(placeholder="any", compact=True, id="sg-gpu")
            yield Input(placeholder="no limit", type="number", compact=True, id="sg-maxw")
            yield Input(
                self.app.prices_path or "",
                placeholder="none (TOML/CSV)",
                compact=True,
                id="sg-prices",
            )
        yield Static("", id="sg-status")
        with Container(id="sg-body"):
            with Vertical(id="sg-ranked"):
                yield Static("", id="sg-head")
                yield CursorList(id="sg-list")
            with VerticalScroll(id="sg-detail"):
                yield Static("", id="sg-detail-text")
        # the same one-line key hints as the build screen (not Textual's Footer)
        yield KeyHints(always=SUGGEST_HINTS, more=("app.help", "app.quit"), id="sg-hints")

    def on_mount(self) -> None:
        self.app.apply_blink(self)
        self._show_title(None)
        self.query_one("#sg-list", OptionList).focus()
        self.action_run()

    def _show_title(self, precision: str | None) -> None:
        """The workload in one line; ``precision`` is the one the search estimated in (the
        engine's resolution of "auto"), None before a search has run."""
        w = self.app.editing.current.workload
        title = "[b]Suggest[/b] — "
        if w is None:
            title += "no workload"
        else:
            title += f"{w.model or w.config}: {w.method}, {precision or w.precision}"
        self.query_one("#sg-title", Static).update(title + " · F9 search · Enter open · Esc back")

    # ------------------------------------------------------------------------- search
    def _request(self) -> SuggestRequest:
        def sel(wid: str) -> str:
            return str(self.query_one(wid, Select).value)

        def txt(wid: str) -> str:
            return self.query_one(wid, Input).value

        return parse_request(
            objective=sel("#sg-objective"),
            chassis=txt("#sg-chassis"),
            gpus=txt("#sg-gpu"),
            cooling=sel("#sg-cooling"),
            voltage=sel("#sg-voltage"),
            redundancy=sel("#sg-redundancy"),
            max_power=txt("#sg-maxw"),
            prices=txt("#sg-prices"),
        )

    def _status(self, text: str) -> None:
        self.query_one("#sg-status", Static).update(Text(app_words(text)))

    def action_run(self) -> None:
        workload = self.app.editing.current.workload
        if workload is None:
            self._status(
                "This build has no workload. Set one on the Workload tab (F4) first, then "
                "come back (F7)."
            )
            return
        req = self._request()
        if req.problem:
            self._status(f"✗ {req.problem}")
            return
        self._status("Searching the catalog …")
        self.query_one("#sg-list", OptionList).clear_options()
        self.query_one("#sg-head", Static).update("")
        self.query_one("#sg-detail-text", Static).update("")
        self._search(workload, req)

    @work(thread=True, exclusive=True, group="suggest")
    def _search(self, workload, req: SuggestRequest) -> None:
        from slotwise.engine.cost.pricing import PriceError, load_prices
        from slotwise.engine.model.resolve import ModelResolveError
        from slotwise.engine.plan.suggest import SuggestError, suggest

        prices = None
        try:
            if req.prices_path:
                prices = load_prices(req.prices_path, offline=True)
            result = suggest(
                workload,
                self.app.catalog,
                req.constraints,
                objective=req.objective,
                prices=prices,
            )
        except PriceError as exc:
            self.post_message(SuggestDone(None, f"Price list: {exc}", None))
            return
        except (SuggestError, ModelResolveError) as exc:
            self.post_message(SuggestDone(None, str(exc), None))
            return
        except Exception as exc:  # the engine should not raise; never show a traceback
            self.post_message(
                SuggestDone(None, f"the search failed: {type(exc).__name__}: {exc}", None)
            )
            return
        currency = prices.currency if prices else None
        self.post_message(SuggestDone(result, None, currency, req.prices_path))

    def on_suggest_done(self, message: SuggestDone) -> None:
        if message.problem:
            self._status(f"✗ {message.problem}")
            return
        result = message.result
        if result is None:  # a problem was reported above; a result always comes without one
            return
        self.result = result
        self.currency = message.currency
        self._show_title(result.precision or None)
        if message.prices_path is not None:
            self.post_message(PricesPathChosen(message.prices_path))
        options = self.query_one("#sg-list", OptionList)
        options.clear_options()
        if not result.ok:
            reasons = "; ".join(f"{r} ({n}x)" for r, n in result.rejected[:3])
            self._status("✗ Nothing fits, not even as a cluster. " + reasons)
            self.query_one("#sg-detail-text", Static).update(
                Text(app_words("\n".join(f"note: {n}" for n in result.notes)))
            )
            return
        n = len(result.suggestions)
        kind = "cluster plans" if result.multi_node else "builds"
        self._status(
            f"✓ {n} {kind}, zero errors each, best {result.objective} first"
            + ("; no price list" if self.currency is None else "")
            + ". Enter opens one (Ctrl+Z undoes)."
        )
        head, rows = table(result.suggestions, self.currency)
        self.query_one("#sg-head", Static).update(Text(head))
        options.add_options(
            [
                Option(Text(row), id=str(s.rank))
                for s, row in zip(result.suggestions, rows, strict=True)
            ]
        )
        options.highlighted = 0
        options.focus()

    # ------------------------------------------------------------------------- events
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run()

    def _selected(self, option_id: str | None) -> Suggestion | None:
        if self.result is None or option_id is None:
            return None
        return next((s for s in self.result.suggestions if str(s.rank) == option_id), None)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        s = self._selected(event.option.id)
        if s is not None and self.result is not None:
            self.query_one("#sg-detail-text", Static).update(Text(detail_text(s, self.result)))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        s = self._selected(event.option.id)
        if s is None:
            return
        label = f"open suggested build #{s.rank} ({s.build.chassis}, {s.gpus} x {s.gpu})"
        if s.nodes > 1:
            label += f", one of {s.nodes} cluster nodes (a node carries no workload)"
        if s.build == self.app.editing.current:
            self.notify("That build is already the current one.")
            return

        def answer(yes: bool | None) -> None:
            if not yes:
                return  # stay on the list
            self.app.replace_build(s.build, label)
            self.app.notify(f"Opened {label[5:]}. Ctrl+Z returns to the previous build.")
            self.dismiss(None)

        from slotwise.tui.screens.confirm import ConfirmScreen

        self.app.push_screen(
            ConfirmScreen(
                f"Replace the build you are editing with suggested build #{s.rank} "
                f"({s.build.chassis}, {s.gpus} x {s.gpu})?\n\nCtrl+Z on the build screen "
                "brings your build back.",
                yes="Replace",
                no="Keep mine",
            ),
            answer,
        )

    def action_cluster(self) -> None:
        """The highlighted suggestion's cluster in the cluster view (engine.plan.cluster's plan,
        as suggest made it)."""
        from slotwise.engine.bom.cluster_doc import ClusterDoc
        from slotwise.tui.screens.cluster import ClusterScreen

        options = self.query_one("#sg-list", OptionList)
        index = options.highlighted
        option = None if index is None else options.get_option_at_index(index)
        s = None if option is None else self._selected(option.id)
        if s is None or s.cluster is None:
            self.notify("The highlighted suggestion is one server: there is no cluster to plan.")
            return
        self.app.push_screen(ClusterScreen(ClusterDoc(plan=s.cluster)))

    def action_close(self) -> None:
        self.dismiss(None)
