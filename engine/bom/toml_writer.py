"""A small, deterministic TOML writer for BOM files.

tomli-w is correct but decides by line length whether an array of tables is written inline or
as ``[[table]]`` blocks, and always spreads arrays over several lines; a BOM should look the
same whatever its contents.  Layout here:

* in every table: plain values first (one ``key = value`` per line, arrays and inline tables
  on one line), then sub-tables ``[a.b]`` and arrays of tables ``[[a.c]]`` in the order given;
* keys bare when they are ``[A-Za-z_][A-Za-z0-9_-]*``, otherwise quoted (slot ids like ``"1"``);
* floats by Python's ``repr`` (shortest text that reads back to the same float), ``inf``/``nan``
  as TOML spells them;
* strings as TOML basic strings with the standard escapes.

Only what a BOM needs: str, bool, int, float, lists and dicts of those (datetimes are written
as ISO strings by the caller).  Output is checked against ``tomllib`` by the tests.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

_BARE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
_ESC = {"\b": r"\b", "\t": r"\t", "\n": r"\n", "\f": r"\f", "\r": r"\r", '"': r"\"", "\\": r"\\"}


def key(k: str) -> str:
    return k if _BARE.match(k) else string(k)


def string(s: str) -> str:
    out = []
    for ch in s:
        if ch in _ESC:
            out.append(_ESC[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return string(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        if not v:
            return "{}"
        return "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} to a BOM: {v!r}")


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list | tuple) and bool(v) and all(isinstance(x, Mapping) for x in v)


def _emit(table: Mapping[str, Any], prefix: str, out: list[str]) -> None:
    def nested(v: Any) -> bool:
        return isinstance(v, Mapping) or _is_table_array(v)

    for k, v in table.items():
        if not nested(v):
            out.append(f"{key(k)} = {value(v)}")
    for k, v in table.items():
        if not nested(v):
            continue
        name = f"{prefix}{key(k)}"
        for item in [v] if isinstance(v, Mapping) else v:
            out.append("")
            out.append(f"[{name}]" if isinstance(v, Mapping) else f"[[{name}]]")
            _emit(item, name + ".", out)


def dumps(doc: Mapping[str, Any]) -> str:
    """Serialise a document (dicts keep their insertion order)."""
    out: list[str] = []
    _emit(doc, "", out)
    return "\n".join(out).lstrip("\n") + "\n"
