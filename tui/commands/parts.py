"""`slotwise parts [--kind KIND] [--json]`: list the catalog, unknown figures shown as unknown.

`slotwise parts --gaps [--chassis SKU] [--json]`: every unknown figure a validation rule needs, per
record, with the rules it blocks (the list a distributor fills with a catalog overlay).
"""

from __future__ import annotations

import argparse

from slotwise.parts.gaps import Gap, find_gaps, pn_gaps, related
from slotwise.parts.schema import PART_KINDS, Record
from slotwise.tui.cli import UsageError
from slotwise.tui.commands.common import add_catalog_flag, get_catalog, print_json

# Key figures per kind for the table view: (field, header, unit suffix)
KEY_FIELDS: dict[str, list[tuple[str, str, str]]] = {
    "chassis": [
        ("family", "gen", ""),
        ("form_factor_u", "U", ""),
        ("gpu_form", "GPUs", ""),
        ("max_gpus", "max", ""),
        ("psu_bays", "PSU", ""),
    ],
    "gpu": [
        ("memory_gb", "mem", " GB"),
        ("tdp_w", "TDP", " W"),
        ("width_slots", "width", ""),
        ("bf16_tflops_dense", "BF16", " TF"),
        ("nvlink", "NVLink", ""),
    ],
    "baseboard": [("gpu_sku", "GPU", ""), ("gpu_count", "n", "")],
    "bridge": [("ways", "ways", ""), ("per_group", "per group", "")],
    "cpu": [
        ("cores", "cores", ""),
        ("tdp_w", "TDP", " W"),
        ("pcie_lanes", "lanes", ""),
        ("memory_channels", "ch", ""),
    ],
    "dimm": [("capacity_gb", "size", " GB"), ("speed_mts", "speed", " MT/s")],
    "nic": [("ports", "ports", ""), ("port_gbps", "speed", " Gb/s"), ("power_w", "power", " W")],
    "drive": [("form_factor", "form", ""), ("interface", "if", ""), ("capacity_tb", "size", " TB")],
    "psu": [("watts_high_line", "200-240V", " W"), ("watts_low_line", "100-127V", " W")],
    "model": [
        ("published_params_b", "params", " B"),
        ("num_hidden_layers", "layers", ""),
        ("hidden_size", "hidden", ""),
    ],
}


def register(sub) -> None:
    p = sub.add_parser("parts", help="list the parts catalog", description=__doc__)
    p.add_argument("--kind", choices=PART_KINDS, help="only this kind of part")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--gaps",
        action="store_true",
        help="list the unknown figures validation rules need, per record, with the rules they block",
    )
    p.add_argument(
        "--chassis",
        metavar="SKU",
        help="with --gaps: only this chassis and the parts it lists",
    )
    add_catalog_flag(p)
    p.set_defaults(run=run)


def record_json(rec: Record) -> dict:
    data = rec.model_dump(mode="json")
    data = {"kind": data.pop("kind"), "sku": data.pop("sku"), "name": data.pop("name"), **data}
    return data


def _fmt(value, unit: str) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value}{unit}"


def run(args: argparse.Namespace) -> int:
    cat = get_catalog(args)
    if args.chassis and not args.gaps:
        raise UsageError("--chassis goes with --gaps: slotwise parts --gaps --chassis SKU")
    if args.gaps:
        if args.chassis and args.chassis not in cat.chassis:
            known = ", ".join(sorted(cat.chassis))
            raise UsageError(f"no chassis {args.chassis!r} in the catalog; known: {known}")
        from slotwise.engine.build.companions import companion_gaps

        recs = related(cat, cat.chassis[args.chassis]) if args.chassis else list(cat)
        return _print_gaps(
            find_gaps(cat, args.chassis),
            pn_gaps(cat, args.chassis),
            args.json,
            companion_gaps(recs, cat),
        )
    recs = sorted(cat, key=lambda r: (PART_KINDS.index(r.kind), r.sku))
    if args.kind:
        recs = [r for r in recs if r.kind == args.kind]
    if args.json:
        print_json([record_json(r) for r in recs])
        return 0
    kind = None
    for r in recs:
        if r.kind != kind:
            kind = r.kind
            same = [x for x in recs if x.kind == kind]
            sku_w = max(len(x.sku) for x in same)
            name_w = max(len(x.name) for x in same)
            print(f"\n{kind.upper()}")
        figs = "  ".join(
            f"{hdr} {_fmt(getattr(r, f, None), unit)}" for f, hdr, unit in KEY_FIELDS[r.kind]
        )
        # Whole names, never cut: the columns are as wide as the longest in the kind.
        print(f"  {r.sku:<{sku_w}}  {r.name:<{name_w}}  {figs}  [{r.confidence}]")
    print(f"\n{len(recs)} record(s); catalog version {cat.version}. Sources: slotwise parts --json")
    return 0


def _print_gaps(gaps: list[Gap], pns: list, as_json: bool, derived: list) -> int:
    records = list(dict.fromkeys((g.kind, g.sku) for g in gaps))
    if as_json:
        print_json(
            {
                "count": len(gaps),
                "records": len(records),
                "gaps": [g.as_dict() for g in gaps],
                "pn_needed_count": len(pns),
                "pn_needed": [{"kind": r.kind, "sku": r.sku, "name": r.name} for r in pns],
                "companion_pn_needed_count": len(derived),
                "companion_pn_needed": [
                    {"kind": c.kind, "sku": c.sku, "description": c.description} for c in derived
                ],
            }
        )
        return 0
    current = None
    for g in gaps:
        if (g.kind, g.sku) != current:
            current = (g.kind, g.sku)
            print(f"\n{g.sku} ({g.kind})")
        print(f"  {g.field:<28} {g.why}; blocks {', '.join(g.rules)}")
    print(
        f"\n{len(gaps)} rule-blocking unknown(s) in {len(records)} record(s). Fill a figure from "
        "its datasheet in a catalog overlay (--catalog DIR), with its source."
    )
    if pns:
        print("\nPART NUMBERS NEEDED (a quote lists these as 'PN needed')")
        w = max(len(r.sku) for r in pns)
        for r in pns:
            print(f"  {r.sku:<{w}}  {r.kind:<9}  {r.name}")
    print(
        f"\n{len(pns)} record(s) without a sourced orderable part number. Add "
        "[[<kind>.part_numbers]] (pn, vendor, source, confidence A or B) in an overlay; never "
        "a number guessed from a naming pattern."
    )
    if derived:
        print(
            "\nCOMPANION LINES WITHOUT A PART NUMBER (derived from the parts: cords, transceivers)"
        )
        w = max(len(c.sku) for c in derived)
        for c in derived:
            print(f"  {c.sku:<{w}}  {c.kind:<11}  {c.description}")
        print(
            f"\n{len(derived)} companion line kind(s) without a sourced part number "
            "(engine/build/companions.py names each rule's source)."
        )
    return 0
