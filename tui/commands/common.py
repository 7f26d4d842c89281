"""Helpers shared by the headless sub-commands: catalog and price-list loading, JSON output and
writing a result to stdout or --out."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import TYPE_CHECKING, Any

from slotwise.parts.catalog import Catalog, CatalogError, load_catalog
from slotwise.tui.cli import UsageError
from slotwise.tui.commands.flags import cli_words

if TYPE_CHECKING:
    from slotwise.engine.cost.pricing import PriceList


def get_catalog(args) -> Catalog:
    """Load the bundled catalog plus the --catalog / SLOTWISE_CATALOG overlay, or exit 2."""
    try:
        return load_catalog(getattr(args, "catalog", None))
    except CatalogError as exc:
        raise UsageError(str(exc)) from None


def load_price_list(args) -> PriceList | None:
    """The --prices list (the cached copy only with --offline), or None without --prices; a list
    that cannot be read exits 2 naming --prices."""
    if not args.prices:
        return None
    from slotwise.engine.cost.pricing import PriceError, load_prices

    try:
        return load_prices(args.prices, offline=args.offline)
    except PriceError as exc:
        raise UsageError(f"--prices: {exc}") from None


def write_file(path: str, text: str, force: bool) -> None:
    """Write ``text`` to ``path`` atomically; an existing file is only replaced with ``force``
    (--force).  A refusal or an OS error exits 2 naming the file."""
    from slotwise.engine.bom import BomExistsError, write_bom

    try:
        write_bom(path, text, force=force)
    except BomExistsError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot write: {exc.strerror or exc}") from None


def emit(args, text: str) -> None:
    """A command's result: to stdout, or to --out (atomically, replacing it only with --force)."""
    if not args.out:
        sys.stdout.write(text)
        return
    write_file(args.out, text, args.force)


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
