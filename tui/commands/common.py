"""Helpers shared by the headless sub-commands: catalog loading and JSON output."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from slotwise.parts.catalog import Catalog, CatalogError, load_catalog
from slotwise.tui.cli import UsageError
from slotwise.tui.commands.flags import cli_words


def get_catalog(args) -> Catalog:
    """Load the bundled catalog plus the --catalog / SLOTWISE_CATALOG overlay, or exit 2."""
    try:
        return load_catalog(getattr(args, "catalog", None))
    except CatalogError as exc:
        raise UsageError(str(exc)) from None


def print_json(data: Any) -> None:
    """Standard JSON only: a non-finite float (which the bounded schema should never let through)
    is written as ``null`` ("unknown"), never as the non-standard ``Infinity``/``NaN``.  Engine
    text in it names inputs as the CLI's flags (:func:`cli_words`)."""
    json.dump(_finite(data), sys.stdout, indent=2, default=str, allow_nan=False)
    sys.stdout.write("\n")


def _finite(value: Any) -> Any:
    if isinstance(value, str):
        return cli_words(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def add_catalog_flag(p) -> None:
    """--catalog on a sub-command, so it may come before or after the command name; the
    default is SUPPRESS so a sub-command never overwrites the value given before it."""
    p.add_argument(
        "--catalog",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="overlay catalog directory (env SLOTWISE_CATALOG); also accepted before COMMAND",
    )
