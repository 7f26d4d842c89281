"""Budgets as text bars with numbers: lanes per root, power, heat, GPU memory (stacked by what
uses it), time to train.  Over-budget bars say "OVER" in words, not only in colour."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from slotwise.engine.check.report import Budget, Report
from slotwise.tui.input_labels import app_words

STACK_GLYPHS = ("█", "▓", "▒", "▚", "▞", "▤")
STACK_STYLES = ("blue", "magenta", "cyan", "green", "yellow", "white")

TITLES = {
    "power": "Power, DC (PSU load)",
    "heat": "Heat (at the wall, AC)",
    "gpu_memory": "GPU memory per GPU",
    "train_time": "Time to train",
    "serving_users": "Concurrent users (KV cache)",
    "serving_rate": "Tokens/s per user",
}


def title_of(b: Budget) -> str:
    if b.name.startswith("lanes:"):
        return f"PCIe lanes {b.name[6:]}"
    return TITLES.get(b.name, b.name.replace("_", " ").capitalize())


def fmt_amount(value: float | None, unit: str) -> str:
    if value is None:
        return "unknown"
    u = unit.lower()
    if u in ("b", "bytes", "byte"):
        return f"{value / 2**30:,.1f} GiB"
    if u in ("h", "hours", "hour"):
        days = value / 24
        return f"{value:,.0f} h ({days:,.1f} d)" if value >= 48 else f"{value:,.1f} h"
    if float(value).is_integer() or unit == "W":  # watts: whole numbers read best
        return f"{value:,.0f} {unit}"
    return f"{value:,.1f} {unit}"


def bar(b: Budget, width: int) -> Text:
    """A bar of ``width`` cells: stacked parts when the budget has them."""
    t = Text()
    width = max(width, 4)
    scale = max(b.used, b.available or 0) or 1.0
    cells_used = 0
    if b.parts:
        for i, (_, val) in enumerate(b.parts):
            n = round(width * max(val, 0) / scale)
            n = min(n, width - cells_used)
            t.append(
                STACK_GLYPHS[i % len(STACK_GLYPHS)] * n, style=STACK_STYLES[i % len(STACK_STYLES)]
            )
            cells_used += n
    elif b.available is None:  # no limit to compare with: say so instead of a full bar
        t.append("░" * width, style="dim")
        return t
    else:
        n = min(width, round(width * max(b.used, 0) / scale))
        t.append("█" * n, style="red" if b.over else "green")
        cells_used = n
    if b.available is not None and b.available < scale:  # over: mark where the limit is
        limit = round(width * b.available / scale)
        t = Text.assemble(t[:limit], Text("|", style="bold"), t[limit + 1 :])
    t.append("·" * max(0, width - cells_used), style="dim")
    return t


def budget_text(b: Budget, width: int = 60) -> Text:
    out = Text()
    used = fmt_amount(b.used, b.unit)
    avail = "unknown" if b.available is None else fmt_amount(b.available, b.unit)
    pct = "" if b.ratio is None else f" {b.ratio * 100:,.0f}%"
    status = ""
    if b.over:
        status = "  ▲ OVER"
    elif b.available is None:
        status = "  ? limit unknown"
    out.append(f"{title_of(b)}: ", style="bold")
    out.append(f"{used} of {avail}{pct}")
    out.append(status, style="bold red" if b.over else "yellow")
    out.append("\n")
    out.append("[")
    out.append_text(bar(b, width - 2))
    out.append("]\n")
    if b.parts:
        for i, (name, val) in enumerate(b.parts):
            out.append(
                f" {STACK_GLYPHS[i % len(STACK_GLYPHS)]} ",
                style=STACK_STYLES[i % len(STACK_STYLES)],
            )
            out.append(f"{name} {fmt_amount(val, b.unit)}")
        out.append("\n")
    if b.detail:
        out.append(f" {b.detail}\n", style="dim")
    return out


def budgets_text(report: Report | None, width: int = 60) -> Text:
    t = Text()
    if report is None or not report.budgets:
        t.append("No budgets yet: pick a chassis and fit parts.", style="dim")
        return t
    group = None
    for b in sorted(report.budgets, key=lambda b: (_rank(b), b.group, b.name)):
        g = b.group or ("PCIe lanes" if b.name.startswith("lanes:") else "")
        if g != group and g:
            t.append(f"{g.upper()}\n", style="bold underline")
        group = g
        t.append_text(budget_text(b, width))
    return t


def assumptions_text(report: Report | None) -> Text:
    """How the estimate was made (DESIGN.md: every estimate is explainable)."""
    t = Text()
    est = report.estimate if report is not None else None
    if est is None:
        return t
    a = est.assumptions
    t.append("\nESTIMATE ASSUMPTIONS\n", style="bold underline")
    t.append(f" MFU {a.mfu:g}, MBU {a.mbu:g} (model FLOPs / memory-bandwidth utilisation)\n")
    for note in a.notes:
        t.append(f" · {app_words(note)}\n", style="dim")
    return t


def _rank(b: Budget) -> int:
    order = ["power", "heat", "gpu_memory", "train_time", "serving_users", "serving_rate"]
    if b.name in order:
        return order.index(b.name)
    return 10 if b.name.startswith("lanes:") else 5


class BudgetsView(Static):
    def __init__(self, **kw) -> None:
        super().__init__("", **kw)
        self._report: Report | None = None

    def show(self, report: Report | None) -> None:
        self._report = report
        self._redraw()

    def on_resize(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        width = max(20, (self.size.width or 78) - 2)
        text = budgets_text(self._report, min(width, 100))
        text.append_text(assumptions_text(self._report))
        self.update(text)
