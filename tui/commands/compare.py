"""`slotwise compare A.toml B.toml [C.toml ...] [--json] [--format text|md|csv] [--out FILE]`.

One column per option, one row per figure a customer decides on: GPUs and their memory, memory
needed per GPU and whether the workload fits, time to train or decode speed, worst-case power and
heat, rack units, servers and racks for the workload, price and cost of owning when a price list
is given, errors and warnings.  Every option is checked against the SAME workload: the workload
flags when given, else the first BOM's own.  The best value of each row is marked "(best)".

Exit codes as `validate`: 0 every option is valid, 1 some option has errors (a workload that
does not fit is one), 2 bad input (a BOM that cannot be read, a bad flag).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from slotwise.engine.plan.cluster import ClusterPlan
from slotwise.engine.plan.compare import (
    Comparison,
    Option,
    compare_builds,
    compare_clusters,
    comparison_csv,
    comparison_markdown,
    comparison_text,
)
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import Catalog
from slotwise.tui.cli import UsageError
from slotwise.tui.commands.common import (
    add_catalog_flag,
    emit,
    get_catalog,
    load_price_list,
    print_json,
)
from slotwise.tui.commands.flags import cli_words
from slotwise.tui.commands.tco_args import add_tco_value_flags, tco_params
from slotwise.tui.commands.validate import read_valid_bom
from slotwise.tui.commands.workload_args import add_workload_flags, workload_from_args


def register(sub) -> None:
    p = sub.add_parser(
        "compare",
        help="compare two or more saved builds side by side for one workload",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("boms", nargs="+", metavar="BOM.toml", help="two or more builds to compare")
    p.add_argument("--json", action="store_true", help="machine-readable output (CLI.md shape)")
    p.add_argument(
        "--format", choices=("text", "md", "csv"), default="text", help="output format (text)"
    )
    p.add_argument("--out", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.add_argument(
        "--prices",
        metavar="FILE_OR_URL",
        help="price list (TOML/CSV file or http(s) URL): adds price and cost-of-owning rows",
    )
    p.add_argument("--offline", action="store_true", help="no network: cached price list only")
    t = p.add_argument_group("cost of owning (needs --prices and --kwh-price)")
    add_tco_value_flags(t)
    add_workload_flags(p, positional=False)
    add_catalog_flag(p)
    p.set_defaults(run=run)


def _workload(args: argparse.Namespace) -> Workload | None:
    """The workload flags' Workload, or None when no model is named (use the first BOM's)."""
    if getattr(args, "model", None) is None and getattr(args, "config", None) is None:
        return None
    return workload_from_args(args)


def load_options(paths: list[str], catalog: Catalog) -> list[Option]:
    """Read every BOM; the first unreadable one is bad input (exit 2), named with its problem."""
    options: list[Option] = []
    seen: dict[str, int] = {}
    for path in paths:
        _, build = read_valid_bom(path, catalog)
        label = Path(path).name
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label} ({seen[label]})"
        options.append(Option(label=label, build=build))
    return options


def render(cmp: Comparison, fmt: str) -> str:
    if fmt == "md":
        return comparison_markdown(cmp, heading="# Options compared")
    if fmt == "csv":
        return comparison_csv(cmp)
    return comparison_text(cmp)


def run(args: argparse.Namespace) -> int:
    if len(args.boms) < 2:
        raise UsageError("compare needs two or more BOM files (one column each)")
    docs = _cluster_documents(args.boms)
    if docs is not None:
        return _emit(args, compare_clusters(docs))
    catalog = get_catalog(args)
    workload = _workload(args)
    if workload is not None:
        from slotwise.engine.model.resolve import ModelResolveError, resolve_arch

        try:  # a model the catalog / cache cannot resolve is bad input, not a column of n/a
            resolve_arch(workload, catalog, offline=args.offline)
        except ModelResolveError as exc:
            raise UsageError(str(exc)) from None
    options = load_options(args.boms, catalog)
    if workload is None and args.margin is not None and options[0].build.workload is not None:
        # --margin alone: the first option's workload with that planning margin
        workload = options[0].build.workload.model_copy(update={"margin": args.margin})
    prices = load_price_list(args)
    tco = None
    if prices is not None and args.kwh_price is not None:
        tco = tco_params(args)
    elif args.kwh_price is not None:
        raise UsageError("--kwh-price: the cost of owning needs prices; add --prices FILE_OR_URL")
    cmp = compare_builds(options, catalog, workload, prices, tco)
    return _emit(args, cmp)


def _cluster_documents(paths: list[str]) -> list[tuple[str, ClusterPlan]] | None:
    """Every file a cluster document: their plans (labelled by file name); none: None; a mix
    is bad input (a node BOM and a cluster are not the same kind of option)."""
    from slotwise.engine.bom.cluster_doc import ClusterDocError, read_cluster, read_input
    from slotwise.parts.safe_io import InputError

    texts: dict[str, str] = {}
    kinds: dict[str, bool] = {}
    for path in paths:
        try:
            texts[path], kinds[path] = read_input(path)
        except InputError:
            texts[path], kinds[path] = "", False  # load_options says what is wrong with it
    if not any(kinds.values()):
        return None
    if not all(kinds.values()):
        bom = next(p for p, k in kinds.items() if not k)
        raise UsageError(
            f"{bom}: not a cluster document; compare takes node BOMs or cluster documents "
            "(slotwise cluster ... --format toml), not both"
        )
    out = []
    for path, text in texts.items():
        try:
            out.append((Path(path).name, read_cluster(text, filename=path).plan))
        except ClusterDocError as exc:
            raise UsageError(cli_words(str(exc))) from None
    return out


def _emit(args: argparse.Namespace, cmp: Comparison) -> int:
    if args.json:
        print_json(cmp.to_json())
        return cmp.exit_code
    emit(args, cli_words(render(cmp, args.format)))
    return cmp.exit_code
