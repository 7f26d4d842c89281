"""The chassis list for the first frame, read straight from the catalog's TOML files.

Loading the catalog (pydantic models, cross-checks) costs more than the whole rest of the
start-up, and the chassis chooser needs only a few figures of each chassis.  This reads them
with ``tomllib`` (bundled ``parts/data/chassis/*.toml``, then the overlay's ``chassis/``, the
same layering as ``parts.catalog.load_catalog``) so the chooser can be on screen while the
real catalog loads; the chooser switches to the validated records as soon as they arrive.
Anything unexpected (a file it cannot read, a field of the wrong type) returns None: the app
then simply waits for the catalog, which reports the problem properly.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from types import SimpleNamespace

BUNDLED_CHASSIS = Path(__file__).resolve().parent.parent / "parts" / "data" / "chassis"
CATALOG_ENV = "SLOTWISE_CATALOG"  # as parts.catalog.CATALOG_ENV (not imported: it is heavy)

# The fields tui.screens.chooser.chassis_text reads, with the schema's defaults.
_FIELDS: dict[str, tuple[type | tuple[type, ...], object]] = {
    "sku": (str, None),
    "name": (str, ""),
    "family": (str, ""),
    "form_factor_u": ((int, type(None)), None),
    "gpu_form": (str, "pcie"),
    "max_gpus": ((int, type(None)), None),
    "psu_bays": ((int, type(None)), None),
    "cooling": (str, "air"),
    "topology_confidence": ((str, type(None)), None),
}
_COOLING = ("air", "liquid", "air_or_liquid")


def _root_table(text: str) -> dict:
    """The file's root keys.  In TOML every root key comes before the first ``[table]`` /
    ``[[array]]`` header, so only the text up to the first line that starts with ``[`` is
    parsed (the slot, root and source tables are most of a chassis file).  A cut that falls
    inside a multi-line string or array leaves an unterminated value, which does not parse:
    then the whole file is read."""
    cut = text.find("\n[")
    if cut >= 0:
        try:
            return tomllib.loads(text[: cut + 1])
        except tomllib.TOMLDecodeError:
            pass
    return tomllib.loads(text)


def _one(path: Path) -> SimpleNamespace | None:
    data = _root_table(path.read_text(encoding="utf-8"))
    rec = {}
    for field, (types, default) in _FIELDS.items():
        value = data.get(field, default)
        if value is None and field == "sku":
            return None
        if not isinstance(value, types) or isinstance(value, bool):
            return None
        rec[field] = value
    if rec["cooling"] not in _COOLING:
        return None
    return SimpleNamespace(**rec)


def chassis_preview(overlay: str | os.PathLike[str] | None = None) -> dict | None:
    """{sku: chassis-like record} for the chooser, or None when it cannot be read simply."""
    if overlay is None:
        overlay = os.environ.get(CATALOG_ENV) or None
    dirs = [BUNDLED_CHASSIS]
    if overlay:
        op = Path(overlay).expanduser()
        if not op.is_dir():
            return None
        if list(op.glob("*.toml")):
            return None  # an overlay may hold [[chassis]] tables in any file: wait for it
        dirs.append(op / "chassis")
    out: dict = {}
    try:
        for d in dirs:
            for path in sorted(d.glob("*.toml")):
                rec = _one(path)
                if rec is None:
                    return None
                out[rec.sku] = rec
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return out or None
