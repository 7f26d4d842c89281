"""Line items as CSV for ERP import.

Columns: ``line,sku,description,quantity,unit_price,extended_price,currency``.  One row per SKU
in BOM order (engine.bom.items).  RFC 4180 quoting and CRLF line ends (what spreadsheet and ERP
importers expect); prices as plain decimals with a dot, empty when the price list has none.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping

from slotwise.engine.bom.items import line_items
from slotwise.engine.build import Build
from slotwise.parts.catalog import Catalog

COLUMNS = ("line", "sku", "description", "quantity", "unit_price", "extended_price", "currency")


def _price(x: float | None) -> str:
    return "" if x is None else f"{x:.2f}"


def to_csv(
    build: Build,
    catalog: Catalog,
    prices: Mapping[str, float] | None = None,
    currency: str | None = None,
) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(COLUMNS)
    for n, item in enumerate(line_items(build, catalog, prices), start=1):
        w.writerow(
            (
                n,
                item.sku,
                item.description,
                item.quantity,
                _price(item.unit_price),
                _price(item.extended_price),
                (currency or "") if item.unit_price is not None else "",
            )
        )
    return buf.getvalue()
