"""Line numbers for keys in a TOML text, so BOM problems can say "line 12, field slots.3".

``tomllib`` returns plain dicts without positions.  This scanner walks the text once and
records the line of every table header (``[chassis]``, ``[[bridges]]``) and of every
``key = value`` line under it.  It understands the subset of TOML a BOM uses (tables, arrays of
tables, bare/quoted/dotted keys, multi-line strings and arrays are skipped over); where it cannot
place a key it falls back to the table's header line, and to ``None`` when even that is unknown.

Paths are dotted with ``[i]`` for array-of-tables entries: ``bridges[1].slots``, ``meta.customer``,
``slots.3`` (a key that is not a bare key is kept as written between its quotes).
"""

from __future__ import annotations

import re

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(
    r"""^\s*((?:"[^"]*"|'[^']*'|[A-Za-z0-9_\-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_\-]+))*)\s*="""
)


def _split_key(raw: str) -> list[str]:
    parts = []
    for piece in re.findall(r"""("[^"]*"|'[^']*'|[A-Za-z0-9_\-]+)""", raw):
        parts.append(piece[1:-1] if piece[0] in "\"'" else piece)
    return parts


class KeyLocator:
    """Maps dotted paths to 1-based line numbers in one TOML text."""

    def __init__(self, text: str):
        self.lines: dict[str, int] = {}
        counters: dict[str, int] = {}
        table = ""
        in_multiline: str | None = None
        depth = 0  # open brackets of a multi-line array value
        for n, line in enumerate(text.splitlines(), start=1):
            if in_multiline:
                if in_multiline in line:
                    in_multiline = None
                continue
            if depth > 0:
                depth += _bracket_delta(line)
                continue
            m = _HEADER.match(line)
            if m and not _KEY.match(line):
                name = ".".join(_split_key(m.group(2)))
                if m.group(1) == "[[":
                    idx = counters.get(name, 0)
                    counters[name] = idx + 1
                    # nested arrays of tables restart when their parent entry changes
                    for k in list(counters):
                        if k.startswith(name + ".") or k.startswith(name + "["):
                            del counters[k]
                    table = f"{name}[{idx}]"
                else:
                    table = self._resolve(name, counters)
                self.lines.setdefault(table, n)
                continue
            km = _KEY.match(line)
            if not km:
                continue
            key = ".".join(_split_key(km.group(1)))
            path = f"{table}.{key}" if table else key
            self.lines.setdefault(path, n)
            rest = line[km.end() :]
            for quote in ('"""', "'''"):
                if rest.count(quote) == 1:
                    in_multiline = quote
            if not in_multiline:
                depth = max(0, _bracket_delta(rest))

    def _resolve(self, name: str, counters: dict[str, int]) -> str:
        # "[summary.totals]" under the current "[[summary.budgets]]" entry keeps its parent index
        for arr, count in counters.items():
            if name.startswith(arr + "."):
                return f"{arr}[{count - 1}]{name[len(arr) :]}"
        return name

    def line(self, path: str) -> int | None:
        """Line of ``path``; else of its nearest enclosing table; else None."""
        while path:
            if path in self.lines:
                return self.lines[path]
            if path.endswith("]"):
                path = path[: path.rfind("[")]
            elif "." in path:
                path = path[: path.rfind(".")]
            else:
                break
        return None


def _bracket_delta(text: str) -> int:
    """Net open square brackets on a line, ignoring quoted strings and comments."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', "", text)
    text = text.split("#", 1)[0]
    return text.count("[") - text.count("]")
