"""`slotwise parts [--kind KIND] [--json]`: list the catalog, unknown figures shown as unknown."""

from __future__ import annotations

import argparse

from parts.schema import PART_KINDS, Record
from tui.commands.common import add_catalog_flag, get_catalog, print_json

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
