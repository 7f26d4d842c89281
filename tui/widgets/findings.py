"""The findings panel: errors, warnings and notes from the engine, live after every edit.

Each finding reads as symbol + word + rule + message + what to do ("✖ ERROR", "▲ WARN",
"• INFO"), so nothing depends on colour.  Highlighting one tells the screen which slots to
mark on the map; ``f`` (on the screen) applies its fix when the engine offered one as edits.
"""

from __future__ import annotations

from rich.console import Group
from rich.padding import Padding
from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from engine.report import Finding, Report

LABEL = {
    "error": ("✖ ERROR", "bold red"),
    "warning": ("▲ WARN ", "bold yellow"),
    "info": ("• INFO ", "cyan"),
}


def finding_text(f: Finding) -> Text:
    """The finding as flat text (verdict panel, tests)."""
    word, style = LABEL[f.severity]
    t = Text()
    t.append(word, style=style)
    t.append(f" {f.rule}", style="dim")
    where = ", ".join(f.slots)
    if where:
        t.append(f" [slot {where}]", style="dim")
    t.append(f"\n  {f.message}")
    if f.fix:
        t.append("\n  → ", style="bold")
        t.append(f.fix)
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
    body = [head, Padding(Text(f.message), (0, 0, 0, 2))]
    if f.fix:
        fix = Text("→ ", style="bold")
        fix.append(f.fix)
        if f.edit:
            fix.append("  [f: apply]", style="bold green")
        body.append(Padding(fix, (0, 0, 0, 2)))
    return Group(*body)


def summary_text(report: Report | None) -> Text:
    """'✖ 1 ERROR  ▲ 2 WARN  • 3 INFO' (words kept even when zero, so it is never colour-only)."""
    t = Text()
    if report is None:
        t.append("not checked yet")
        return t
    counts = {s: len(report.of(s)) for s in ("error", "warning", "info")}
    for sev, n in counts.items():
        word, style = LABEL[sev]
        sym, _, name = word.partition(" ")
        t.append(
            f"{sym} {n} {name.strip()}{'S' if n != 1 and sev != 'info' else ''}",
            style=style if n else "dim",
        )
        t.append("  ")
    if not report.findings:
        t.append("✔ OK: no findings", style="bold green")
    return t


class FindingsList(OptionList):
    class Selected(Message):
        def __init__(self, finding: Finding | None) -> None:
            super().__init__()
            self.finding = finding

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.findings: tuple[Finding, ...] = ()

    def show(self, report: Report | None) -> None:
        keep = self.current
        self.findings = report.findings if report else ()
        if not self.findings:
            self.set_options(
                [Option(Text("✔ OK: no findings for this build", style="green"), disabled=True)]
            )
            return
        self.set_options([Option(finding_renderable(f)) for f in self.findings])
        if keep is not None and keep in self.findings:
            self.highlighted = self.findings.index(keep)
        else:
            self.highlighted = 0

    @property
    def current(self) -> Finding | None:
        i = self.highlighted
        if i is None or i >= len(self.findings):
            return None
        return self.findings[i]

    def _on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.post_message(self.Selected(self.current))
