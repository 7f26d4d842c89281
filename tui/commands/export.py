"""`slotwise export BOM.toml --format toml|md|csv [--out FILE] [--force] [--prices LIST]`.

toml: the canonical re-write of the BOM (the bytes the app would save; exporting it again gives
the same bytes).  md: the customer document (build, line items with part numbers, power and
prices, workload verdict in words, open points, assumptions; no rule ids, catalog to-dos or file
paths); --notes FILE writes the engineering notes beside it.  Service lines (warranty, on-site
service, assembly) are quoted only when chosen: the BOM's [meta] services or --service CODE.
csv: the line items laid out like a vendor BOM (type, part number, description, quantity, power, prices) for ERP import.  Without --out the result goes to stdout.  An existing
--out file is only replaced with --force (exit 2 otherwise); writes are atomic.

Prices: the unit prices saved in the BOM are kept; --prices (a TOML/CSV price list or URL;
examples/prices-example.toml shows the format) replaces them.  A BOM that cannot be loaded faithfully (unknown SKU, malformed
TOML, ...) is not exported: exit 2 with the problems on stderr; run `slotwise validate` for more.

md only: when the build's workload does not fit one server (or training misses its target days)
a "Cluster sizing" section sizes a cluster of copies of it
(--kw-per-rack sets the rack power).  With a price list (--prices or the BOM's own prices) and
--cloud-gpu-hour, a "Total cost of ownership" section compares owning the server with renting
its GPUs (--years, --pue, --kwh-price, --utilization: the same flags as `slotwise suggest`).
"""

from __future__ import annotations

import argparse

from slotwise.engine.bom import export_bom
from slotwise.engine.bom.csv_export import to_csv
from slotwise.engine.bom.markdown import engineering_notes, to_markdown
from slotwise.engine.build.companions import check_services, services_hint
from slotwise.engine.plan.cluster import DEFAULT_KW_PER_RACK
from slotwise.engine.plan.for_build import BuildTco, cluster_for_build, tco_for_build
from slotwise.tui.cli import UsageError
from slotwise.tui.commands.common import (
    add_catalog_flag,
    emit,
    get_catalog,
    load_price_list,
    write_file,
)
from slotwise.tui.commands.flags import cli_words
from slotwise.tui.commands.tco_args import add_tco_value_flags, tco_params
from slotwise.tui.commands.validate import read_valid_bom
from slotwise.tui.commands.workload_args import _positive_float

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
        "--notes",
        metavar="FILE",
        help="md only: also write the engineering notes (rule ids, fixes, catalog to-dos, PCIe "
        "lanes, part-number sources) to FILE; the customer document has none of them",
    )
    p.add_argument(
        "--compare",
        nargs="+",
        metavar="OTHER.toml",
        help="md only: add an 'Options compared' section, this build against the others, "
        "all under this build's workload",
    )
    p.add_argument(
        "--prices",
        metavar="FILE_OR_URL",
        help="price list (TOML/CSV file or URL) for unit prices; default: the BOM's own",
    )
    p.add_argument("--offline", action="store_true", help="no network: cached price list only")
    p.add_argument(
        "--service",
        action="append",
        metavar="CODE",
        help="a service line to quote (repeat for more): "
        + services_hint()
        + "; replaces the BOM's [meta] services for this export; 'none' quotes none",
    )
    c = p.add_argument_group("cluster sizing (md)")
    c.add_argument(
        "--kw-per-rack",
        type=_positive_float,
        default=DEFAULT_KW_PER_RACK,
        metavar="KW",
        help=f"rack power for cluster sizing ({DEFAULT_KW_PER_RACK:g})",
    )
    t = p.add_argument_group("total cost of ownership (md; needs prices and --cloud-gpu-hour)")
    add_tco_value_flags(t)
    add_catalog_flag(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.format != "md" and args.cloud_gpu_hour is not None:
        raise UsageError("--cloud-gpu-hour: the TCO section is only in --format md")
    if args.format != "md" and args.compare:
        raise UsageError("--compare: the comparison section is only in --format md")
    if args.format != "md" and args.notes:
        raise UsageError("--notes: the engineering notes go with --format md")
    catalog = get_catalog(args)
    loaded, build = read_valid_bom(args.bom, catalog)
    meta = loaded.meta
    if args.service is not None:
        codes = [c for c in args.service if c.strip().lower() != "none"]
        try:
            services = check_services(codes)
        except ValueError as exc:
            raise UsageError(f"--service: {exc}") from None
        meta = loaded.meta.model_copy(update={"services": services})
    prices, currency, note = loaded.prices, loaded.currency, loaded.price_note
    pl = load_price_list(args)
    if pl is not None:
        prices = {sku: e.price for sku, e in pl.entries.items()}
        currency = pl.currency
        note = pl.note

    from slotwise.engine.check.evaluate import evaluate

    report = evaluate(build, catalog)
    if args.format == "toml":
        text = export_bom(build, catalog, meta, report, prices, currency, note)
    elif args.format == "md":
        text = to_markdown(
            build,
            catalog,
            meta,
            report,
            prices,
            currency,
            note,
            cluster=cluster_for_build(build, catalog, report, args.kw_per_rack, prices=prices),
            tco=_tco(args, build, catalog, report, prices, currency),
        )
        if args.compare:
            text += "\n" + _comparison(args, build, catalog)
        text = cli_words(text)  # engine text names inputs; the CLI says flags
        if args.notes:
            notes = cli_words(engineering_notes(build, catalog, meta, report))
            write_file(args.notes, notes, args.force)
    else:
        text = to_csv(build, catalog, prices, currency, meta.services)

    emit(args, text)
    return 0


def _tco(args, build, catalog, report, prices, currency) -> BuildTco | None:
    """The TCO section's data: only with a price list and a cloud price per GPU-hour."""
    if args.cloud_gpu_hour is None:
        return None
    if not prices:
        raise UsageError(
            "--cloud-gpu-hour: the TCO needs prices; add --prices FILE_OR_URL "
            "(or save prices in the BOM)"
        )
    return tco_for_build(build, catalog, report, prices, currency or "", tco_params(args))


def _comparison(args: argparse.Namespace, build, catalog) -> str:
    """The customer-facing 'Options compared' section: this build first, then the others."""
    from pathlib import Path

    from slotwise.engine.plan.compare import Option, compare_builds, comparison_markdown
    from slotwise.tui.commands.compare import load_options

    first = Option(label=Path(args.bom).name, build=build)
    others = load_options(list(args.compare), catalog)
    return comparison_markdown(compare_builds([first, *others], catalog))
