"""`slotwise export BOM.toml --format toml|md|csv [--out FILE] [--force] [--prices LIST]`.

toml: the canonical re-write of the BOM (the bytes the app would save; exporting it again gives
the same bytes).  md: a customer-facing summary (build, budgets, workload verdict, findings).
csv: the line items for ERP import.  Without --out the result goes to stdout.  An existing
--out file is only replaced with --force (exit 2 otherwise); writes are atomic.

Prices: the unit prices saved in the BOM are kept; --prices (a TOML/CSV price list or URL, see
engine.pricing) replaces them.  A BOM that cannot be loaded faithfully (unknown SKU, malformed
TOML, ...) is not exported: exit 2 with the problems on stderr; run `slotwise validate` for more.
"""

from __future__ import annotations

import argparse
import sys

from engine.bom import BomExistsError, export_bom, read_bom, write_bom
from engine.bom_csv import to_csv
from engine.bom_markdown import to_markdown
from tui.cli import UsageError
from tui.commands.common import add_catalog_flag, get_catalog
from tui.commands.validate import bad_input, input_paragraph

FORMATS = ("toml", "md", "csv")


def register(sub) -> None:
    p = sub.add_parser(
        "export",
        help="re-write a BOM canonically, or as a Markdown summary or CSV line items",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("bom", metavar="BOM.toml", help="the bill of materials to export")
    p.add_argument("--format", choices=FORMATS, required=True, help="output format")
    p.add_argument("--out", metavar="FILE", help="write here instead of stdout")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.add_argument(
        "--prices",
        metavar="LIST",
        help="price list (TOML/CSV file or URL) for unit prices; default: the BOM's own",
    )
    add_catalog_flag(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    catalog = get_catalog(args)
    loaded = read_bom(args.bom, catalog)
    if bad_input(loaded) or loaded.build is None:
        raise UsageError(input_paragraph(loaded) + " Run 'slotwise validate' for details.")
    prices, currency, note = loaded.prices, loaded.currency, loaded.price_note
    if args.prices:
        from engine.pricing import PriceError, load_prices

        try:
            pl = load_prices(args.prices)
        except PriceError as exc:
            raise UsageError(str(exc)) from None
        prices = {sku: e.price for sku, e in pl.entries.items()}
        currency = pl.currency
        note = f"Prices from {pl.label or pl.origin}"
        if pl.any_example:
            note += ": they include example figures, not a quote"
        note += "."

    from engine.evaluate import evaluate

    report = evaluate(loaded.build, catalog)
    if args.format == "toml":
        text = export_bom(loaded.build, catalog, loaded.meta, report, prices, currency, note)
    elif args.format == "md":
        text = to_markdown(loaded.build, catalog, loaded.meta, report, prices, currency, note)
    else:
        text = to_csv(loaded.build, catalog, prices, currency)

    if not args.out:
        sys.stdout.write(text)
        return 0
    try:
        write_bom(args.out, text, force=args.force)
    except BomExistsError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"{args.out}: cannot write: {exc.strerror or exc}") from None
    return 0
