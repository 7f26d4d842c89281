"""The findings panel: errors, warnings and notes from the engine, live after every edit.

Each finding reads as symbol + word + rule + message + what to do ("✖ ERROR", "▲ WARN",
"• INFO"), so nothing depends on colour.  Highlighting one tells the screen which slots to
mark on the map; ``f`` (on the screen) applies its fix when the engine offered one as edits.
"""

from __future__ import annotations

import re
import textwrap

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from slotwise.engine.check.report import Finding, Report
from slotwise.tui.input_labels import app_words
from slotwise.tui.widgets.cursor_list import CursorList

LABEL = {
    "error": ("✖ ERROR", "bold red"),
    "warning": ("▲ WARN ", "bold yellow"),
    "info": ("• INFO ", "cyan"),
}


NBSP = "\u00a0"
# A figure followed by its unit ("0.1 GiB", "5,500 W", "2 x", "100-127 V", "30 °C"): the space
# between them must not become a line break.
_FIGURE_UNIT = re.compile(r"(\d[\d,.]*%?) (?=[A-Za-z°µ×%/]+\b|x\b|°)")


def bind_units(text: str) -> str:
    """Join each figure to its unit with a no-break space."""
    return _FIGURE_UNIT.sub(lambda m: m.group(1) + NBSP, text)


class Unbroken:
    """Text wrapped at the width it is drawn at, never breaking at a no-break space (Rich's
    own wrapping treats U+00A0 as a space; ``textwrap`` does not).  Continuation lines keep the
    first line's indent."""

    def __init__(self, text: Text, indent: int = 0) -> None:
        self.text = text
        self.indent = indent

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, self.indent + self.text.cell_len)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(options.max_width - self.indent, 8)
        for para in self.text.split("\n", allow_blank=True):
            yield from self._wrap(para, width)

    def _wrap(self, para: Text, width: int):
        plain = para.plain
        lines = textwrap.wrap(plain, width, break_on_hyphens=False, tabsize=1) or [""]
        pos = 0
        for line in lines:
            start = plain.find(line, pos)
            if start < 0:  # textwrap changed the whitespace: show it unstyled
                piece = Text(line)
            else:
                piece = para[start : start + len(line)]
                pos = start + len(line)
            out = Text(" " * self.indent)
            out.append_text(piece)
            out.plain = out.plain.replace(NBSP, " ")
            yield out


def finding_text(f: Finding) -> Text:
    """The finding as flat text (verdict panel, tests)."""
    word, style = LABEL[f.severity]
    t = Text()
    t.append(word, style=style)
    t.append(f" {f.rule}", style="dim")
    where = ", ".join(f.slots)
    if where:
        t.append(f" [slot {where}]", style="dim")
    t.append(f"\n  {app_words(f.message)}")
    if f.fix:
        t.append("\n  → ", style="bold")
        t.append(app_words(f.fix))
        if f.edit:
            t.append("  [f: apply]", style="bold green")
    return t


def finding_renderable(f: Finding) -> Group:
    """The finding for the list: wrapped lines stay indented under the headline."""
    word, style = LABEL[f.severity]
    head = Text()
    head.append(word, style=style)
    head.append(f" {f.rule}", style="dim")
    if f.slots:
        head.append(f" [slot {', '.join(f.slots)}]", style="dim")
    body: list = [head, Unbroken(Text(bind_units(app_words(f.message))), indent=2)]
    if f.fix:
        fix = Text("→ ", style="bold")
        fix.append(bind_units(app_words(f.fix)))
        if f.edit:
            fix.append(f"{NBSP}{NBSP}[f:{NBSP}apply]", style="bold green")
        body.append(Unbroken(fix, indent=2))
    return Group(*body)


def summary_text(report: Report | None, compact: bool = False) -> Text:
    """'✖ 1 ERROR  ▲ 2 WARN  • 3 INFO' (words kept even when zero, so it is never colour-only).

    ``compact`` (the status line): single spaces, and counts of zero left out, so a build
    with warnings reads "▲ 2 WARNS", never "✖ 0 ERRORS" alone."""
    t = Text()
    if report is None:
        t.append("not checked yet")
        return t
    counts = {s: len(report.of(s)) for s in ("error", "warning", "info")}
    sep = " " if compact else "  "
    for sev, n in counts.items():
        if compact and not n:
            continue
        word, style = LABEL[sev]
        sym, _, name = word.partition(" ")
        if t.plain:
            t.append(sep)
        t.append(
            f"{sym} {n} {name.strip()}{'S' if n != 1 and sev != 'info' else ''}",
            style=style if n else "dim",
        )
    if not compact:
        t.append(sep)
    if not report.findings:
        t.append("✔ OK: no findings", style="bold green")
    elif compact and not counts["error"]:
        t.append(" (no errors)", style="dim")
    return t


#: Rule ids that say "a figure this check needs is unknown, so it was not verified".
_UNVERIFIED_MARKS = ("not_verified", ".unknown_figures", ".unknown_")


def unverified_areas(report: Report | None) -> list[str]:
    """Which areas (rule prefixes: power, lanes, nvlink ...) could not be fully verified."""
    if report is None:
        return []
    areas = []
    for f in report.findings:
        if f.severity == "error" or not any(m in f.rule for m in _UNVERIFIED_MARKS):
            continue
        area = f.rule.split(".")[0]
        if area not in areas:
            areas.append(area)
    # the power rule's own verdict: a figure or rating it needed was unknown
    power = report.power
    if power is not None and not power.verified and "power" not in areas:
        areas.insert(0, "power")
    return areas


def unverified_text(report: Report | None) -> Text:
    """'? power, lanes not verified' for the status line (empty when all was checked)."""
    areas = unverified_areas(report)
    t = Text()
    if areas:
        t.append(f"? {', '.join(areas)} not verified", style="bold yellow")
    return t


class FindingsList(CursorList):
    class Selected(Message):
        def __init__(self, finding: Finding | None) -> None:
            super().__init__()
            self.finding = finding

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.findings: tuple[Finding, ...] = ()

    def show(self, report: Report | None) -> None:
        """Show ``report``; the highlight stays on the same finding, or (when a fix removed
        it) on the one that took its place, never jumping back to the top."""
        keep, at = self.current, self.highlighted or 0
        self.findings = report.findings if report else ()
        if not self.findings:
            self.set_options(
                [Option(Text("✔ OK: no findings for this build", style="green"), disabled=True)]
            )
            return
        self.set_options([Option(finding_renderable(f)) for f in self.findings])
        if keep is not None and keep in self.findings:
            self.highlighted = self.findings.index(keep)
        elif keep is not None and (
            same := [i for i, f in enumerate(self.findings) if f.rule == keep.rule]
        ):
            self.highlighted = same[0]
        else:
            self.highlighted = min(at, len(self.findings) - 1)

    @property
    def current(self) -> Finding | None:
        i = self.highlighted
        if i is None or i >= len(self.findings):
            return None
        return self.findings[i]

    def _on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.post_message(self.Selected(self.current))
