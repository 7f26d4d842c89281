"""Control characters in user text: refused where text is read, escaped where it is shown.

A file from a stranger (a BOM, an overlay catalog, an autosave) may carry terminal escape
sequences (``ESC ] 0 ;`` sets the window title, ``ESC [ 2 J`` clears the screen, OSC 52 writes
the clipboard) or newlines that forge lines in an export.  Two defences, both here:

* **at load** — :data:`SingleLine` (ids, SKUs, names, keys, meta fields) refuses every control
  character, newline and tab included; :data:`FreeText` (notes) allows newline and tab only.
  Each is a pydantic ``AfterValidator``, so the error names the field;
* **at output** — :func:`visible` writes each control character as ``\\u001b`` (valid inside a
  JSON string, readable in text), keeping newline and tab; :func:`one_line` also folds newlines
  and tabs to one space, for places where a line is expected.

"Control character" is Unicode category Cc: C0 (U+0000-U+001F), DEL (U+007F) and C1
(U+0080-U+009F; U+009B is a one-byte CSI on some terminals).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import AfterValidator

_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# keeps tab, newline and the CR of a CRLF line end (a CSV's own line end)
_CONTROLS_BUT_LINES = re.compile(r"\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_FOLD = re.compile(r"[\t\r\n]+")


def first_control(text: str, *, allow_lines: bool = False) -> int | None:
    """Index of the first control character in ``text`` (None when there is none)."""
    m = (_CONTROLS_BUT_LINES if allow_lines else _CONTROLS).search(text)
    return None if m is None else m.start()


def _escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def visible(text: str) -> str:
    """``text`` with every control character except newline, tab and a CRLF line end written
    as ``\\uXXXX``."""
    return _CONTROLS_BUT_LINES.sub(_escape, text)


def one_line(text: str) -> str:
    """``text`` on one line: control characters escaped, runs of line ends / tabs one space."""
    return _FOLD.sub(" ", visible(text))


def _refuse(value: Any, allow_lines: bool) -> Any:
    if isinstance(value, str):
        at = first_control(value, allow_lines=allow_lines)
        if at is not None:
            what = "" if allow_lines else " (newlines and tabs included)"
            raise ValueError(
                f"contains the control character U+{ord(value[at]):04X} at character {at + 1}; "
                f"control characters are not allowed here{what}: remove it"
            )
    return value


def _single_line(value: Any) -> Any:
    return _refuse(value, allow_lines=False)


def _free_text(value: Any) -> Any:
    return _refuse(value, allow_lines=True)


#: An id, SKU, name or meta field: no control character at all.
SingleLine = AfterValidator(_single_line)
#: Free text such as notes: newline and tab allowed, no other control character.
FreeText = AfterValidator(_free_text)


def refuse_controls(value: Any, *, allow_lines: bool = False) -> Any:
    """Check ``value`` and the strings inside it (lists, tuples, dict keys and values);
    ValueError naming the control character when one is found."""
    if isinstance(value, str):
        return _refuse(value, allow_lines)
    if isinstance(value, dict):
        for k, v in value.items():
            refuse_controls(k)
            refuse_controls(v, allow_lines=allow_lines)
    elif isinstance(value, list | tuple | set | frozenset):
        for v in value:
            refuse_controls(v, allow_lines=allow_lines)
    return value
