"""`slotwise trainers [NAME[@ERA]] [--method M] [--json]`: the trainer profiles, with sources.

Without a name: one line per profile (name, era, what it is, how many fields differ from
``generic``).  With a name: every field of the profile for the method (default lora), the
value, and where the trainer's code or docs says so; fields that differ from ``generic`` are
marked ``*``.  Profiles are data (engine/workload/trainers.toml); ``--trainer NAME`` on
``estimate`` / ``suggest`` / ``compare`` names one, ``--set FIELD=VALUE`` overrides a field.
"""

from __future__ import annotations

import argparse
from typing import Any

from slotwise.engine.workload import METHODS
from slotwise.engine.workload.trainers import (
    GENERIC,
    PROFILE_FIELDS,
    TrainerError,
    canonical_name,
    differences_from_generic,
    get_profile,
    load_profiles,
    profile_sources,
)
from slotwise.tui.cli import UsageError
from slotwise.tui.commands.common import print_json


def register(sub) -> None:
    p = sub.add_parser(
        "trainers",
        help="list the trainer profiles, or show one with its sources",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", nargs="?", metavar="NAME[@ERA]", help="a profile to show")
    p.add_argument(
        "--method", choices=METHODS, default="lora", help="method the profile is shown for (lora)"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    data = load_profiles()
    if not args.name:
        rows: list[dict[str, Any]] = []
        for name, entry in data.profile.items():
            diff = differences_from_generic(name, args.method)
            rows.append(
                {"name": name, "era": entry.era, "title": entry.title, "differs": len(diff)}
            )
        if args.json:
            print_json({"method": args.method, "profiles": rows})
            return 0
        width = max(len(r["name"]) for r in rows)
        for r in rows:
            print(f"{r['name']:<{width}}  {r['era']:<8} {r['differs']:>2} differ  {r['title']}")
        print(f"\n`slotwise trainers NAME` shows one profile with its sources (for {args.method}).")
        return 0
    try:
        name = canonical_name(args.name)
    except TrainerError as exc:
        raise UsageError(str(exc)) from None
    entry = data.profile[name]
    profile = get_profile(name, args.method)
    generic = get_profile(GENERIC, args.method)
    sources = profile_sources(name, args.method)
    fields = [
        {
            "field": f,
            "value": getattr(profile, f),
            "generic": getattr(generic, f),
            "differs": getattr(profile, f) != getattr(generic, f),
            "source": sources.get(f, ""),
        }
        for f in PROFILE_FIELDS
    ]
    if args.json:
        print_json(
            {
                "name": name,
                "era": entry.era,
                "title": entry.title,
                "extends": entry.extends or (None if name == GENERIC else GENERIC),
                "method": args.method,
                "fields": fields,
            }
        )
        return 0
    print(f"{name} ({entry.era}): {entry.title}")
    print(f"fields for method {args.method}; * = differs from generic\n")
    for f in fields:
        mark = "*" if f["differs"] else " "
        print(f"{mark} {f['field']} = {f['value']}")
        print(f"      {f['source']}")
    return 0
