"""`slotwise suggest WORKLOAD [--objective gpus|power|price|time] [--limit N] [--out DIR] [--json]`

Searches the catalog for complete servers (CPUs, memory, drives, PSUs, bridges, NICs filled in)
that run the workload, each validated by the rules with zero errors, best first.  When no single
server can run it, sizes a cluster of identical nodes with its fabric, power and racks.

Exit codes: 0 builds found, 1 nothing fits (not even as a cluster), 2 bad input.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from slotwise.engine.build.items import parts_line
from slotwise.engine.cost.pricing import PriceList
from slotwise.engine.cost.tco import TcoResult, tco_markdown
from slotwise.engine.plan.cluster import DEFAULT_KW_PER_RACK, cluster_markdown
from slotwise.engine.plan.suggest import (
    OBJECTIVES,
    Constraints,
    SuggestError,
    Suggestion,
    SuggestResult,
    suggest,
)
from slotwise.parts.catalog import Catalog
from slotwise.tui.cli import UsageError
from slotwise.tui.commands.common import (
    add_catalog_flag,
    get_catalog,
    load_price_list,
    print_json,
)
from slotwise.tui.commands.flags import cli_words
from slotwise.tui.commands.tco_args import add_tco_value_flags, tco_params
from slotwise.tui.commands.workload_args import (
    _positive_float,
    _positive_int,
    add_workload_flags,
    workload_from_args,
)


def register(sub) -> None:
    p = sub.add_parser(
        "suggest",
        help="complete builds (or a cluster) that run a workload, best first",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_workload_flags(p)
    p.add_argument("--objective", choices=OBJECTIVES, default="gpus", help="ranking (gpus)")
    p.add_argument("--limit", type=_positive_int, default=5, metavar="N", help="builds shown (5)")
    p.add_argument(
        "--compare",
        type=_positive_int,
        metavar="N",
        help="print the top N builds side by side (as `slotwise compare`; JSON with --json) "
        "instead of the ranked list",
    )
    p.add_argument("--out", metavar="DIR", help="write each build as DIR/<rank>-<chassis>.toml")
    p.add_argument("--force", action="store_true", help="overwrite BOM files in --out")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    c = p.add_argument_group("constraints")
    c.add_argument(
        "--chassis",
        action="append",
        default=[],
        metavar="SKU_OR_FAMILY",
        help="chassis SKU or family (X13, X14, H13, H14); repeatable",
    )
    c.add_argument(
        "--gpu", action="append", default=[], metavar="SKU", help="allowed GPU; repeatable"
    )
    c.add_argument("--cooling", choices=("air", "liquid"), help="what the site can cool with")
    c.add_argument("--voltage", choices=("200-240", "100-127"), default="200-240", help="input V")
    c.add_argument("--max-power-w", type=_positive_float, metavar="W", help="per server")
    c.add_argument("--budget", type=_positive_float, metavar="AMOUNT", help="needs --prices")
    c.add_argument(
        "--redundancy",
        choices=("N+1", "N+N", "chassis"),
        default="N+1",
        help="PSU policy (chassis: the scheme the chassis specifies, e.g. 4+2)",
    )
    c.add_argument(
        "--kw-per-rack",
        type=_positive_float,
        default=DEFAULT_KW_PER_RACK,
        metavar="KW",
        help=f"rack power for cluster sizing ({DEFAULT_KW_PER_RACK:g})",
    )
    c.add_argument("--max-nodes", type=_positive_int, default=1024, metavar="N", help="(1024)")
    c.add_argument(
        "--prices",
        metavar="FILE_OR_URL",
        help="price list (TOML/CSV file or http(s) URL; token from SLOTWISE_PRICES_TOKEN)",
    )
    c.add_argument(
        "--offline", action="store_true", help="no network: cached price list / config.json only"
    )
    t = p.add_argument_group("total cost of ownership (needs --prices)")
    t.add_argument("--tco", action="store_true", help="add an own-vs-cloud section")
    add_tco_value_flags(t)
    add_catalog_flag(p)
    p.set_defaults(run=run)


def _load_prices(args) -> PriceList | None:
    if not args.prices and args.tco:
        raise UsageError("--tco needs a price list: add --prices FILE_OR_URL")
    return load_price_list(args)


def _resolve(args, workload, catalog):
    from slotwise.engine.model.resolve import ModelResolveError, resolve_arch_with_warnings

    try:
        return resolve_arch_with_warnings(workload, catalog, offline=args.offline)
    except ModelResolveError as exc:
        raise UsageError(str(exc)) from None


def tco_for(s: Suggestion, args, currency: str) -> TcoResult | None:
    """The suggestion's TCO as the engine composes it (servers and fabric power)."""
    return s.tco(currency, **tco_params(args).model_dump())


def run(args: argparse.Namespace) -> int:
    workload = workload_from_args(args)
    catalog = get_catalog(args)
    prices = _load_prices(args)
    arch, warnings = _resolve(args, workload, catalog)
    from slotwise.engine.estimate.checkpoint import served_precision

    served, note = served_precision(workload, arch)  # the engine decides; words only here
    if note:
        warnings.append(note)
    cons_fields = {
        "chassis": tuple(args.chassis),
        "gpus": tuple(args.gpu),
        "cooling": args.cooling,
        "voltage": args.voltage,
        "max_power_w": args.max_power_w,
        "budget": args.budget,
        "redundancy": args.redundancy,
        "kw_per_rack": args.kw_per_rack,
        "max_nodes": args.max_nodes,
    }
    try:
        result = suggest(
            workload,
            catalog,
            Constraints(**cons_fields),
            objective=args.objective,
            limit=args.limit,
            prices=prices,
            arch=arch,
        )
    except SuggestError as exc:
        raise UsageError(str(exc)) from None
    tcos = {}
    if args.tco and prices is not None:
        tcos = {s.rank: tco_for(s, args, prices.currency) for s in result.suggestions}
    written = _write_boms(args, result, catalog, prices) if args.out else []
    if args.compare:
        return _compare_top(args, result, workload, catalog, prices)
    if args.json:
        out = []
        for s in result.suggestions:
            item = s.to_json()
            if args.tco:
                tco = tcos.get(s.rank)
                item["tco"] = tco.to_json() if tco else None
            if written:
                item["bom"] = str(written[s.rank - 1])
            out.append(item)
        print_json(out)
        if not result.ok:
            import sys

            sys.stderr.write(cli_words("".join(f"note: {n}\n" for n in result.notes)))
            sys.stderr.write(cli_words(_nothing_fits(result)))
    else:
        shown = workload.model_copy(update={"precision": served})  # the header's precision
        print(cli_words(render(result, shown, arch.sku, warnings, tcos, written, prices)))
    return 0 if result.ok else 1


def _write_boms(args, result: SuggestResult, catalog: Catalog, prices) -> list[Path]:
    from slotwise.engine.bom import BomExistsError, export_bom, write_bom
    from slotwise.engine.bom.meta import BomMeta

    out = Path(args.out).expanduser()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot create the directory: {exc}") from None
    paths = []
    price_map = {k: e.price for k, e in prices.entries.items()} if prices else None
    for s in result.suggestions:
        path = out / f"{s.rank}-{_file_part(s.build.chassis)}.toml"
        project = f"suggest rank {s.rank}" + (f", 1 of {s.nodes} nodes" if s.nodes > 1 else "")
        text = export_bom(
            s.build,
            catalog,
            BomMeta.new(project=project),
            s.report,
            prices=price_map,
            currency=prices.currency if prices else None,
            price_note=prices.note if prices else None,
        )
        try:
            paths.append(write_bom(path, text, force=args.force))
        except BomExistsError as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:
            raise UsageError(f"--out: cannot write {path}: {exc}") from None
    return paths


def _nothing_fits(result: SuggestResult) -> str:
    lines = ["Nothing fits, not even as a cluster. Most common reasons:"]
    for reason, n in result.rejected[:8]:
        lines.append(f"  - {reason} ({n}x)")
    return "\n".join(lines) + "\n"


def _money(x: float | None, cur: str | None) -> str:
    return "-" if x is None else f"{x:,.0f} {cur or ''}".strip()


def serving_line(sv, load: str | None = None) -> str:
    """One line of serving figures for a suggested build (engine.estimate.serving.Serving), and
    the load they hold under (the sizing's users per server)."""
    return (
        f"serving at {load or f'{sv.users:,} users on one server'}: first token "
        f"{sv.ttft_s * 1e3:,.0f} ms (idle {sv.ttft_idle_s * 1e3:,.0f} ms), "
        f"{sv.tokens_per_s_per_user:,.1f} tok/s per user, "
        f"{sv.tokens_per_s_per_server:,.0f} tok/s per server"
    )


def render(result: SuggestResult, workload, model: str, warnings, tcos, written, prices) -> str:
    w = workload
    head = f"{model}: {w.method}, {w.precision}" + (f", {w.tokens:,.0f} tokens" if w.tokens else "")
    lines = [f"Suggested builds for {head} (objective: {result.objective})", ""]
    lines += [f"note: {x}" for x in (*warnings, *result.notes)]
    if not result.ok:
        return "\n".join(lines) + "\n" + _nothing_fits(result)
    cur = prices.currency if prices else None
    lines.append(
        f"{'#':>2}  {'chassis':<20} {'GPUs':<34} {'power/node':>10} {'price':>14} "
        f"{'time':>9}  findings"
    )
    for s in result.suggestions:
        gpus = f"{s.gpus} x {s.gpu}" + (f" x {s.nodes} nodes" if s.nodes > 1 else "")
        th = s.train_hours
        time = "-" if th is None else (f"{th:,.1f} h" if th < 48 else f"{th / 24:,.1f} d")
        power = "-" if s.power_w is None else f"{s.power_w:,.0f} W"
        lines.append(
            f"{s.rank:>2}  {s.build.chassis:<20} {gpus:<34} {power:>10} "
            f"{_money(s.price, cur):>14} {time:>9}  {s.report.errors} errors, "
            f"{s.report.warnings} warnings"
        )
        slots = ", ".join(f"{k}:{v}" for k, v in s.build.slots.items())
        lines.append(f"    {parts_line(s.build)}")
        if slots:
            lines.append(f"    slots {slots}")
        sz = s.sizing
        if sz is not None and sz.serving is not None:
            lines.append(f"    {serving_line(sz.serving, sz.load)}")
        elif s.estimate.serving is not None:
            lines.append(f"    {serving_line(s.estimate.serving)}")
        if sz is not None:
            lines.append(f"    sizing: {sz.summary(short=True)}")
            lines += [f"      {n.text}" for n in sz.needs if n.kind != "memory" or s.nodes > 1]
        if s.quote and s.quote.missing:
            lines.append(f"    no price for: {', '.join(s.quote.missing)}")
        if written:
            lines.append(f"    BOM: {written[s.rank - 1]}")
    first = result.suggestions[0]
    if first.cluster is not None:
        lines += ["", cluster_markdown(first.cluster).rstrip()]
        lines.append(
            "(a training node's BOM carries no workload: the rules check one server, and the "
            "job needs all nodes)"
            if first.build.workload is None
            else "(each serving node's BOM carries its share of the users)"
        )
    for s in result.suggestions:
        if s.rank in tcos:
            tco = tcos[s.rank]
            lines.append("")
            if tco is None:
                lines.append(f"TCO for #{s.rank}: price or power unknown, not computed.")
            else:
                md = tco_markdown(tco).rstrip()
                lines.append(md.replace("## Total", f"## #{s.rank}: total", 1))
    return "\n".join(lines) + "\n"


def _compare_top(args, result: SuggestResult, workload, catalog: Catalog, prices) -> int:
    """`--compare N`: the top N suggestions as compare columns, under the suggest workload."""
    from slotwise.engine.plan.compare import Option, compare_builds, comparison_text

    if args.compare < 2:
        raise UsageError("--compare: give 2 or more (the number of top builds to compare)")
    top = result.suggestions[: args.compare]
    if len(top) < 2:
        raise UsageError(
            f"--compare {args.compare}: only {len(top)} build(s) meet the workload; "
            "nothing to compare (relax the constraints or raise --limit)"
        )
    options = [Option(label=f"#{s.rank} {s.build.chassis}", build=s.build) for s in top]
    cmp = compare_builds(options, catalog, workload, prices)
    if args.json:
        print_json(cmp.to_json())
    else:
        print(cli_words(comparison_text(cmp)), end="")
    return 0 if result.ok else 1


def _file_part(sku: str) -> str:
    """A SKU as part of a file name: only letters, digits and ``._+-`` (every catalog SKU is
    made of these; an overlay's odd SKU can then never name a path outside ``--out``)."""
    return re.sub(r"[^A-Za-z0-9._+-]", "_", sku).lstrip(".")[:100] or "build"
