"""`slotwise cluster NODE_BOM.toml (--nodes N | WORKLOAD FLAGS) [--json] [--format md|csv|toml]`.

Plans a cluster of identical copies of a node build: the rail-optimised compute fabric (one rail
per GPU, scalable units of radix/2 nodes, leaf/spine/core as NVIDIA's DGX SuperPOD reference
architectures build it), cables and optics, the storage / in-band / out-of-band networks scaled
from NVIDIA's published BOM, racks, power circuits and PDUs, and the cluster BOM.

N is --nodes, else the fewest copies that run the workload (the BOM's own, or the workload flags)
through the same sizing as the BOM export's "Cluster sizing".  The file may also be a cluster
document (written by --format toml): it is planned again from its inputs; --nodes, --switch and
the site flags given on the command line replace the saved ones.

Output: Markdown (summary, BOM, rack elevations) by default or with --format md; --format csv the
cluster BOM lines; --format toml the cluster document (re-reading and writing it gives the same
bytes); --json the plan (docs/CLI.md lists the keys).  Exit 0, or 2 on bad input.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from slotwise.engine.bom.cluster_doc import (
    ClusterDoc,
    ClusterDocError,
    cluster_csv,
    cluster_document_markdown,
    cluster_toml,
    read_cluster,
    read_input,
)
from slotwise.engine.cost.tco import tco_markdown
from slotwise.engine.plan.cluster import (
    DEFAULT_KW_PER_RACK,
    DEFAULT_RACK_U,
    cluster_tco,
    plan_nodes,
    unpriced_lines,
)
from slotwise.engine.plan.racks import Feed, Site
from slotwise.engine.plan.switches import COMPUTE_SWITCHES
from slotwise.parts.safe_io import InputError
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
from slotwise.tui.commands.workload_args import (
    _positive_float,
    _positive_int,
    add_workload_flags,
    workload_from_args,
)

FORMATS = ("md", "csv", "toml")


def register(sub) -> None:
    p = sub.add_parser(
        "cluster",
        help="plan a cluster of a node build: rail-optimised fabric, optics, racks, power",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="NODE_BOM.toml", help="a node BOM, or a cluster document")
    p.add_argument("--nodes", type=_positive_int, metavar="N", help="how many nodes")
    p.add_argument(
        "--max-nodes",
        type=_positive_int,
        default=1024,
        metavar="N",
        help="the most nodes the workload sizing may use (1024)",
    )
    p.add_argument("--json", action="store_true", help="the plan as JSON (CLI.md keys)")
    p.add_argument("--format", choices=FORMATS, help="md (default), csv BOM lines, toml document")
    p.add_argument("--out", metavar="FILE", help="write here instead of stdout (atomically)")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    f = p.add_argument_group("fabric")
    f.add_argument(
        "--switch",
        choices=[s.key for s in COMPUTE_SWITCHES],
        help="compute switch (default: the reference design's for the NIC speed)",
    )
    f.add_argument(
        "--planes", type=_positive_int, metavar="N", help="fabric planes per GPU link (1)"
    )
    s = p.add_argument_group("site")
    s.add_argument(
        "--kw-per-rack",
        type=_positive_float,
        metavar="KW",
        help=f"rack power limit ({DEFAULT_KW_PER_RACK:g})",
    )
    s.add_argument(
        "--rack-u", type=_positive_int, metavar="U", help=f"rack units ({DEFAULT_RACK_U})"
    )
    s.add_argument("--phases", type=int, choices=(1, 3), help="circuit phases (3)")
    s.add_argument(
        "--volts", type=_positive_float, metavar="V", help="circuit volts, line-line (415)"
    )
    s.add_argument("--amps", type=_positive_float, metavar="A", help="circuit breaker amps (60)")
    s.add_argument(
        "--derating",
        type=_fraction,
        metavar="F",
        help="continuous-load factor of a circuit (0.8)",
    )
    s.add_argument("--provisioning", choices=("N", "2N"), help="circuit provisioning (N)")
    s.add_argument(
        "--cable-m",
        type=_positive_float,
        metavar="M",
        help="longest fabric cable run in metres; picks the reach class (30)",
    )
    s.add_argument("--prices", metavar="FILE_OR_URL", help="price list for the BOM lines")
    s.add_argument("--offline", action="store_true", help="no network: cached data only")
    t = p.add_argument_group("cost of owning the cluster (with --kwh-price)")
    add_tco_value_flags(t)
    add_workload_flags(p, positional=False)
    add_catalog_flag(p)
    p.set_defaults(run=run)


def _fraction(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < v <= 1:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 1, got {text}")
    return v


_SITE_FLAGS = {
    "phases": "--phases",
    "volts": "--volts",
    "amps": "--amps",
    "derating": "--derating",
    "rack_kw": "--kw-per-rack",
    "rack_u": "--rack-u",
    "provisioning": "--provisioning",
    "cable_m": "--cable-m",
}


def _site(args: argparse.Namespace, base: Site | None) -> Site:
    """The site settings: the document's (or the defaults) with the flags given in place."""
    from pydantic import ValidationError

    base = base or Site(rack_kw=DEFAULT_KW_PER_RACK, rack_u=DEFAULT_RACK_U)
    feed = base.feed.model_dump()
    feed.update({k: getattr(args, k) for k in ("phases", "volts", "amps", "derating")})
    site = base.model_dump(exclude={"feed"})
    site.update(
        {
            "rack_kw": args.kw_per_rack,
            "rack_u": args.rack_u,
            "provisioning": args.provisioning,
            "cable_m": args.cable_m,
        }
    )
    try:
        return Site(
            feed=Feed(**{k: v for k, v in feed.items() if v is not None}),
            **{k: v for k, v in site.items() if v is not None},
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        flag = _SITE_FLAGS.get(str(err["loc"][-1]), str(err["loc"][-1]))
        raise UsageError(f"{flag}: {err['msg']}") from None


def _from_document(args: argparse.Namespace, text: str) -> ClusterDoc:
    doc = read_cluster(text, filename=args.file)
    old = doc.plan
    pl = load_price_list(args)
    prices = dict(doc.prices)
    if pl is not None:
        prices.update({k: e.price for k, e in pl.entries.items()})
    plan = plan_nodes(
        old.node,
        args.nodes or old.nodes,
        _site(args, old.site),
        switch=args.switch or old.switch_key,
        planes=args.planes or old.planes,
        prices=prices,
    )
    return ClusterDoc(plan=plan, source_bom=doc.source_bom, prices=prices)


def _from_bom(args: argparse.Namespace) -> ClusterDoc:
    from slotwise.engine.check.evaluate import evaluate
    from slotwise.engine.cost.pricing import quote_build
    from slotwise.engine.plan.for_build import node_spec, nodes_for_workload

    catalog = get_catalog(args)
    _, build = read_valid_bom(args.file, catalog)
    if args.model is not None or args.config is not None:
        build = build.model_copy(update={"workload": workload_from_args(args)})
    report = evaluate(build, catalog)
    pl = load_price_list(args)
    prices = {k: e.price for k, e in pl.entries.items()} if pl is not None else {}
    node_price = None
    if pl is not None:
        q = quote_build(build, pl, catalog)
        node_price = q.total
    spec, notes = node_spec(build, catalog, report, price=node_price)
    nodes = args.nodes
    if nodes is None:
        if build.workload is None:
            raise UsageError(
                f"{args.file}: the build has no workload; give --nodes N or a workload "
                "(--model ID with --method ...)"
            )
        sized = nodes_for_workload(build, catalog, report, args.max_nodes)
        if isinstance(sized, str):
            raise UsageError(f"{args.file}: the node count could not be sized: {sized}")
        nodes = sized
        notes = (
            f"{nodes} node(s): the fewest copies of this build that run the workload.",
            *notes,
        )
    plan = plan_nodes(
        spec, nodes, _site(args, None), switch=args.switch, planes=args.planes or 1, prices=prices
    )
    if notes:
        plan = plan.model_copy(update={"notes": (*plan.notes, *notes)})
    return ClusterDoc(plan=plan, source_bom=Path(args.file).name, prices=prices)


def run(args: argparse.Namespace) -> int:
    if args.json and args.format:
        raise UsageError("--json and --format: choose one output")
    try:
        text, is_doc = read_input(args.file)
    except InputError as exc:
        raise UsageError(str(exc)) from None
    try:
        doc = _from_document(args, text) if is_doc else _from_bom(args)
    except (ClusterDocError, ValueError) as exc:
        raise UsageError(cli_words(str(exc))) from None
    tco = _tco(args, doc)
    if args.json:
        j = _cli_json(doc.plan.to_json())
        j["tco"] = None if tco is None else tco.to_json()
        j["unpriced"] = list(unpriced_lines(doc.plan)) if tco is not None else []
        print_json(j)
        return 0
    fmt = args.format or "md"
    if fmt == "toml":
        out = cluster_toml(doc)
    elif fmt == "csv":
        out = cluster_csv(doc.plan)
    else:
        pl = load_price_list(args)
        currency = pl.currency if pl is not None else None
        out = cluster_document_markdown(doc.plan, currency)
        if tco is not None:
            out += "\n" + tco_markdown(tco)
            out += (
                f"\nThe power above includes the fabric and management networks: "
                f"{doc.plan.fabric_power_w:,.0f} W of {tco.inputs.power_w:,.0f} W.\n"
            )
            missing = unpriced_lines(doc.plan)
            if missing:
                out += "\nPurchase price unknown: no price for " + ", ".join(missing) + ".\n"
        out = cli_words(out)
    emit(args, out)
    return 0


def _tco(args: argparse.Namespace, doc: ClusterDoc):
    """The cluster's TCO when --kwh-price is given: running costs include the fabric."""
    if args.kwh_price is None:
        if args.cloud_gpu_hour is not None:
            raise UsageError("--cloud-gpu-hour: the cluster's cost of owning needs --kwh-price")
        return None
    pl = load_price_list(args)
    currency = pl.currency if pl is not None else "USD"
    return cluster_tco(doc.plan, **tco_params(args).model_dump(), currency=currency)


def _cli_json(j: dict) -> dict:
    j["notes"] = [cli_words(n) for n in j["notes"]]
    return j
