"""The BOM view: the line items exactly as engine.bom will export them, the summary, and the
canonical TOML text the export writes."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from slotwise.engine.bom import export_bom
from slotwise.engine.bom.meta import BomMeta
from slotwise.engine.build import Build
from slotwise.engine.build.items import line_items
from slotwise.engine.check.report import Report
from slotwise.parts.catalog import Catalog
from slotwise.tui.state import BomPricing
from slotwise.tui.widgets.findings import summary_text


def bom_text(
    build: Build,
    catalog: Catalog,
    meta: BomMeta,
    report: Report | None,
    pricing: BomPricing | None = None,
) -> Text:
    t = Text()
    t.append("LINE ITEMS\n", style="bold underline")
    pricing = pricing or BomPricing()
    items = line_items(build, catalog, pricing.prices, meta.services)
    for it in items:
        t.append(f"{it.quantity:>4} × ", style="bold")
        t.append(f"{it.sku:<30} ", style="bold")
        t.append(f"{it.description}", style="dim")
        if it.extended_price is not None:
            t.append(f"  {it.extended_price:,.2f} {pricing.currency or ''}".rstrip())
        t.append("\n")
    if not items:
        t.append("  (nothing yet)\n", style="dim")
    t.append("\nSUMMARY  ", style="bold underline")
    t.append_text(summary_text(report))
    t.append("\n")
    if report is not None:
        b = report.budget("power")
        if b is not None:
            avail = "unknown" if b.available is None else f"{b.available:,.0f}"
            t.append(f"  power, DC (PSU load): {b.used:,.0f} of {avail} {b.unit}\n")
        p = report.power
        if p is not None:
            t.append(
                f"  power at the wall (AC): worst case {p.worst_ac_w:,.0f} W, typical "
                f"{p.typical_ac_w:,.0f} W\n"
            )
        heat = report.budget("heat")
        if heat is not None:
            t.append(f"  heat (at the wall): {heat.used:,.0f} {heat.unit}\n")
    t.append("\nEXPORTED FILE (canonical TOML; Ctrl+S or e to export)\n", style="bold underline")
    t.append(export_bom(build, catalog, meta, report=report, **pricing.export_kwargs()))
    return t


class BomView(Static):
    def show(
        self,
        build: Build,
        catalog: Catalog,
        meta: BomMeta,
        report: Report | None,
        pricing: BomPricing | None = None,
    ) -> None:
        self.update(bom_text(build, catalog, meta, report, pricing))
