"""Line items as CSV, laid out like a vendor's bill of materials, for ERP import.

Columns (a Supermicro BOM's Type / PN / Desc / QTY / Power / Total Power, then prices)::

    line, type, part_number, maker_part_number, pn_confidence, sku, description, quantity,
    unit_power_w, total_power_w, unit_price, extended_price, currency, power_note

``part_number`` is the orderable number (Supermicro's when a public source gives it, else the
maker's), "PN needed" where no source gives one, "included" for a part built into the chassis;
``pn_confidence`` is that number's tier (A vendor document, B careful third party); ``sku`` is
slotwise's internal id.  Power per unit is the catalog's figure (TDP / rated power), empty where
unknown; ``power_note`` says why a companion line has none ("none": a cord or service draws
none; "in the card's figure"; "not verified").  One row per SKU in BOM order (engine.build.items),
the companion lines and chosen services after the parts (engine.build.companions).  RFC 4180 quoting and CRLF line ends
(what spreadsheet and ERP importers expect); prices and watts as plain decimals with a dot.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence

from slotwise.engine.build import Build
from slotwise.engine.build.items import line_items
from slotwise.parts.catalog import Catalog
from slotwise.parts.plain_text import one_line

COLUMNS = (
    "line",
    "type",
    "part_number",
    "maker_part_number",
    "pn_confidence",
    "sku",
    "description",
    "quantity",
    "unit_power_w",
    "total_power_w",
    "unit_price",
    "extended_price",
    "currency",
    "power_note",
)


def _price(x: float | None) -> str:
    return "" if x is None else f"{x:.2f}"


def _watts(x: float | None) -> str:
    return "" if x is None else f"{x:g}"


def to_csv(
    build: Build,
    catalog: Catalog,
    prices: Mapping[str, float] | None = None,
    currency: str | None = None,
    services: Sequence[str] = (),
) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(COLUMNS)
    for n, item in enumerate(line_items(build, catalog, prices, services), start=1):
        w.writerow(
            (
                n,
                item.type_label,
                item.pn_cell,
                item.maker_part_number or "",
                item.part_number_confidence or "",
                one_line(item.sku),  # no control character in a spreadsheet cell either
                one_line(item.description),
                item.quantity,
                _watts(item.unit_power_w),
                _watts(item.total_power_w),
                _price(item.unit_price),
                _price(item.extended_price),
                (currency or "") if item.unit_price is not None else "",
                item.power_cell or "",
            )
        )
    return buf.getvalue()
