"""Input limits shared by every reader of user-supplied files and network answers.

Every boundary of slotwise (a BOM, a catalog overlay file, a config.json, the autosave, a price
list, a Hub or price-list download) goes through these few functions, so bad input is refused
the same way everywhere, with a message that names the path (or URL) and says what to do:

* :func:`read_bytes` / :func:`read_text` — regular files only (a FIFO, a device such as
  ``/dev/zero``, a socket or a directory is refused *before* it is opened, and the descriptor is
  opened ``O_NONBLOCK`` and checked again with ``fstat``, so a file swapped for a FIFO between the
  two checks cannot block either), at most ``max_bytes`` (the read stops one byte past the cap,
  so ``/dev/zero`` or a growing file never fills memory), UTF-8 text.  Every ``OSError``
  (missing file, dangling symlink, symlink loop, directory, name too long, permission) becomes an
  :class:`InputError` whose message names the path and the cause in words.
* :func:`loads_toml` / :func:`loads_json` — a nesting cap checked by a linear bracket scan
  *before* the recursive parser runs (``tomllib`` and ``json`` raise ``RecursionError`` near
  1,000 levels), then again on the parsed structure (TOML dotted keys nest without brackets), and
  integers too long for Python's int/str conversion limit (4,300 digits) are a clear error
  instead of a ``ValueError`` from the parser.
* :func:`fetch` — an HTTP GET with a *total* wall-clock deadline (a server that trickles one byte
  at a time cannot keep it open past the deadline; httpx's own timeouts are per read) and a size
  cap checked against ``Content-Length`` and while streaming.
* :func:`shorten` — the one helper every message uses to quote a user value: at most ``limit``
  characters, so a 10 MB SKU is never echoed back whole.

Nothing here imports the engine (``parts`` must not), so both ``parts`` and ``engine`` use it.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import sys
import threading
import time
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: Default cap for a hand-edited TOML input (BOM, catalog file, price list).  The largest real
#: input is a BOM of ~20 kB or a chassis file of ~40 kB; 2 MiB is 50x that and still parses in
#: about 2 s at worst (tomllib reads a long string about 1 MB/s).
MAX_FILE_BYTES = 2 * 1024 * 1024
#: Default nesting cap (arrays / tables / objects inside each other).  A BOM nests 4 deep, a
#: catalog chassis 3, an autosave 6, a Hugging Face config.json at most ~5.
MAX_DEPTH = 64
#: A Hugging Face config.json is a few kB; a larger file or answer is not one.
MAX_CONFIG_BYTES = 4 * 1024 * 1024
#: Default size cap for a network answer (a config.json, a price list).
MAX_DOWNLOAD_BYTES = 16 * 1024 * 1024
#: Default total deadline for one network request, connect to last byte, in seconds.
DEFAULT_DEADLINE_S = 30.0
#: How many characters of a user value a message quotes.
QUOTE_LIMIT = 80

_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class InputError(ValueError):
    """An input could not be used; ``str()`` is one sentence naming the path and the cause."""

    def __init__(self, where: str, reason: str, fix: str | None = None):
        self.where = where
        self.reason = reason
        self.fix = fix
        text = f"{where}: {reason}"
        if fix:
            text += f"; {fix}"
        super().__init__(text)


# ------------------------------------------------------------------------------ messages


def shorten(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` cut to at most ``limit`` characters (with the length said when cut).

    Safe for any value: an integer too long for ``repr`` (over 4,300 digits), a deeply nested
    list or a 10 MB string all come back short."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        if value.bit_length() > 200:
            digits = int(value.bit_length() * 0.30103) + 1
            return f"{'-' if value < 0 else ''}<an integer of about {digits:,} digits>"
        return repr(value)
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return repr(value[: max(limit - 30, 8)]) + f"... ({len(value):,} characters)"
    try:
        text = repr(value)
    except (RecursionError, ValueError):
        return f"<a {type(value).__name__} too deep or too large to show>"
    if len(text) <= limit:
        return text
    return text[: max(limit - 3, 8)] + "..."


def shorten_text(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` itself (no quotes) cut to ``limit`` characters, saying how long it was."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 30, 8)] + f"... ({len(text):,} characters)"


def shorten_path(path: str | os.PathLike[str], limit: int = 200) -> str:
    """A path for a message: whole when short, else its start and end."""
    text = os.fspath(path)
    if isinstance(text, bytes):  # pragma: no cover - bytes paths are not used
        text = text.decode(errors="replace")
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]}...{text[-(limit // 2 - 3) :]} ({len(text):,} characters)"


_ERRNO_WORDS = {
    errno.ENOENT: "no such file",
    errno.EISDIR: "it is a directory, not a file",
    errno.ENOTDIR: "a part of the path is not a directory",
    errno.ELOOP: "a symbolic link loop (the link points back to itself)",
    errno.ENAMETOOLONG: "the path (or one of its names) is too long for the file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENXIO: "it is a FIFO or device without a reader/writer",
    errno.EAGAIN: "it is not ready to be read (a FIFO or device?)",
    errno.EIO: "an input/output error from the disk",
}


def describe_os_error(exc: OSError, path: str | os.PathLike[str] | None = None) -> str:
    """An OSError in words; a missing file that is a symlink is called a dangling symlink."""
    if exc.errno == errno.ENOENT and path is not None:
        try:
            if os.path.islink(path):
                return f"a symbolic link whose target does not exist ({os.readlink(path)})"
        except (OSError, ValueError):
            pass
    words = _ERRNO_WORDS.get(exc.errno or -1)
    if words:
        return words
    return exc.strerror or type(exc).__name__


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words ("a FIFO (named pipe)", "a directory", ...)."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


# ------------------------------------------------------------------------------ files


def read_bytes(
    path: str | os.PathLike[str], *, max_bytes: int = MAX_FILE_BYTES, what: str = "file"
) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; :class:`InputError` otherwise."""
    shown = shorten_path(path)
    fix = f"give the path of a {what}"
    try:
        st = os.stat(path)
    except OSError as exc:
        raise InputError(shown, f"cannot read the {what}: {describe_os_error(exc, path)}") from None
    except ValueError as exc:  # embedded NUL byte
        raise InputError(shown, f"cannot read the {what}: {exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(shown, f"cannot read the {what}: it is {kind_of(st.st_mode)}", fix)
    if st.st_size > max_bytes:
        raise InputError(shown, _too_big(what, st.st_size, max_bytes))
    try:
        fd = os.open(path, os.O_RDONLY | _O_NONBLOCK | _O_CLOEXEC)
    except OSError as exc:
        raise InputError(shown, f"cannot read the {what}: {describe_os_error(exc, path)}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped for something else since the first check
            raise InputError(shown, f"cannot read the {what}: it is {kind_of(st.st_mode)}", fix)
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise InputError(shown, _too_big(what, total, max_bytes, at_least=True))
    except OSError as exc:
        raise InputError(shown, f"cannot read the {what}: {describe_os_error(exc, path)}") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def _too_big(what: str, size: int, cap: int, at_least: bool = False) -> str:
    more = "more than " if at_least else ""
    return (
        f"the {what} is {more}{size:,} bytes, over the {cap:,}-byte limit; is this the right file?"
    )


def decode_utf8(data: bytes, where: str, what: str = "file") -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            where, f"the {what} is not UTF-8 text (byte {exc.start:,})", "save it as UTF-8"
        ) from None


def read_text(
    path: str | os.PathLike[str], *, max_bytes: int = MAX_FILE_BYTES, what: str = "file"
) -> str:
    """:func:`read_bytes` decoded as UTF-8 (a BOM-less text file); :class:`InputError`."""
    return decode_utf8(read_bytes(path, max_bytes=max_bytes, what=what), shorten_path(path), what)


def is_regular_file(path: str | os.PathLike[str]) -> bool:
    """True for a regular file (following symlinks); False for anything else or any error."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


# ------------------------------------------------------------------------------ parsing

# Outside strings and comments, only these characters change the nesting depth or start a
# string or comment.
_TOML_SPECIAL = re.compile(r"""[\[\]{}"'#.=,\n]""")
_JSON_SPECIAL = re.compile(r'[\[\]{}"]')
# Each pattern matches from just after the opening quote to just after the closing one, written
# as "run of plain characters, then (escape or lone quote, run)*" so a 1 MB string is one fast
# regex step rather than a million alternations.
_TOML_ENDS = {
    '"""': re.compile(r'[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""(?:"{1,2})?', re.S),
    "'''": re.compile(r"[^']*(?:'(?!'')[^']*)*'''(?:'{1,2})?", re.S),
    '"': re.compile(r'[^"\\\n]*(?:\\.[^"\\\n]*)*"'),
    "'": re.compile(r"[^'\n]*'"),
}
_JSON_STRING_END = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"', re.S)


def bracket_depth(text: str, syntax: str = "toml", stop_at: int | None = None) -> int:
    """The deepest nesting in ``text``: ``[ ]`` / ``{ }`` outside strings (and TOML comments),
    plus, for TOML, the dotted-key parts (``a.b.c = 1`` nests three tables without a bracket,
    and tomllib handles a long dotted key in quadratic time).

    Linear in the text; stops early once ``stop_at`` is exceeded.  Used as a guard before a
    parser, so it errs on the side of counting (an unclosed string ends the scan; a float's
    decimal point counts one level)."""
    special = _TOML_SPECIAL if syntax == "toml" else _JSON_SPECIAL
    depth = deepest = dots = 0
    pos = 0
    n = len(text)
    while pos < n:
        m = special.search(text, pos)
        if m is None:
            break
        c = m.group()
        pos = m.end()
        if c == ".":
            dots += 1
            if depth + dots > deepest:
                deepest = depth + dots
                if stop_at is not None and deepest > stop_at:
                    return deepest
            continue
        if c in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop_at is not None and deepest > stop_at:
                    return deepest
        elif c in "]}":
            depth = max(depth - 1, 0)
        elif c == "#":
            nl = text.find("\n", pos)
            pos = n if nl < 0 else nl + 1
        elif c in "=,\n":
            pass
        elif syntax == "json":
            e = _JSON_STRING_END.match(text, pos)
            pos = n if e is None else e.end()
        else:
            opener = c * 3 if text.startswith(c * 3, m.start()) else c
            pos = m.start() + len(opener)
            e = _TOML_ENDS[opener].match(text, pos)
            pos = n if e is None else e.end()
            continue  # a quoted key part: the dots around it still count
        dots = 0
    return deepest


def data_depth(value: Any, stop_at: int | None = None) -> int:
    """Nesting depth of parsed data (dicts and lists), computed without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, d = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        d += 1
        if d > deepest:
            deepest = d
            if stop_at is not None and deepest > stop_at:
                return deepest
        stack.extend((c, d) for c in children)
    return deepest


def _too_deep(where: str, what: str, limit: int) -> InputError:
    return InputError(
        where,
        f"the {what} nests too deeply (arrays/tables more than {limit} levels deep)",
        "this is not a file slotwise wrote; remove the runaway brackets or dotted keys",
    )


def _huge_number(where: str, what: str, exc: ValueError) -> InputError:
    return InputError(
        where,
        f"the {what} has a number too long to read ({exc})",
        "write a number of sensible size",
    )


def loads_toml(text: str, where: str, *, what: str = "file", max_depth: int = MAX_DEPTH) -> dict:
    """``tomllib.loads`` behind a nesting cap; ``tomllib.TOMLDecodeError`` passes through
    (callers turn its line/column into their own message), every other failure is an
    :class:`InputError` naming ``where``."""
    if bracket_depth(text, "toml", stop_at=max_depth) > max_depth:
        raise _too_deep(where, what, max_depth)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except RecursionError:
        raise _too_deep(where, what, max_depth) from None
    except ValueError as exc:  # int too long for int() ("Exceeds the limit (4300 digits)")
        raise _huge_number(where, what, exc) from None
    if data_depth(data, stop_at=max_depth) > max_depth:
        raise _too_deep(where, what, max_depth)
    return data


def loads_json(
    text: str,
    where: str,
    *,
    what: str = "file",
    max_depth: int = MAX_DEPTH,
    nonfinite: bool = False,
) -> Any:
    """``json.loads`` behind a nesting cap; ``json.JSONDecodeError`` passes through, a number
    too long for Python and runaway nesting are :class:`InputError`.  ``NaN``/``Infinity``
    literals are refused (they are not JSON) unless ``nonfinite``: a Hugging Face config.json
    is written by Python's ``json.dump``, which writes ``float("inf")`` as ``Infinity``, and
    some real ones hold it (NVIDIA's Nemotron-H: ``"time_step_limit": [0.0, Infinity]``).  For
    those the literals are read as floats; every field the estimator uses must still be a
    finite whole number (``engine.model.arch.reader.ConfigReader`` refuses anything else)."""
    if bracket_depth(text, "json", stop_at=max_depth) > max_depth:
        raise _too_deep(where, what, max_depth)
    try:
        return json.loads(text, parse_constant=float if nonfinite else _refuse_constant)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise _too_deep(where, what, max_depth) from None
    except _NonFinite as exc:
        raise InputError(
            where, f"the {what} holds {exc.args[0]}, which is not a JSON number"
        ) from None
    except ValueError as exc:
        raise _huge_number(where, what, exc) from None


class _NonFinite(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _NonFinite(name)


# ------------------------------------------------------------------------------ network


@dataclass(frozen=True)
class Fetched:
    """A complete HTTP answer read within the deadline."""

    url: str
    status: int
    headers: dict[str, str]
    content: bytes

    @property
    def status_code(self) -> int:
        return self.status

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


class DeadlineExceeded(Exception):
    """The server did not deliver the whole answer within the total deadline."""


class TooLarge(Exception):
    """The answer is larger than the size cap."""


def fetch(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    deadline_s: float = DEFAULT_DEADLINE_S,
    max_bytes: int = MAX_DOWNLOAD_BYTES,
    client: Any = None,
) -> Fetched:
    """GET ``url`` (redirects followed) and read the whole body within ``deadline_s`` seconds.

    httpx's timeouts bound each connect/read separately, so a server that trickles its headers
    or body a byte at a time never trips them.  Here the request runs in a worker thread and the
    caller waits at most ``deadline_s`` for the complete answer; the worker itself checks the
    wall clock after every chunk and each of its reads waits at most ``deadline_s``, so it stops
    soon after.  Raises :class:`DeadlineExceeded`, :class:`TooLarge` (``Content-Length`` or the
    bytes read so far over ``max_bytes``), or httpx's own ``HTTPError`` subclasses (connection
    refused, DNS, bad URL, ...), which callers map to their messages."""
    import httpx  # deferred: only a network boundary needs it

    end = time.monotonic() + deadline_s
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["ok"] = _get(httpx, client, url, headers, deadline_s, end, max_bytes)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="slotwise-fetch", daemon=True)
    worker.start()
    worker.join(max(deadline_s, 0.0) + 0.05)
    if worker.is_alive():
        raise DeadlineExceeded(f"{deadline_s:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["ok"]


def _get(
    httpx: Any,
    client: Any,
    url: str,
    headers: Mapping[str, str] | None,
    deadline_s: float,
    end: float,
    max_bytes: int,
) -> Fetched:
    own = client is None
    if own:
        client = httpx.Client(follow_redirects=True)
    try:
        timeout = httpx.Timeout(max(min(deadline_s, 60.0), 0.05))
        try:
            with client.stream("GET", url, headers=dict(headers or {}), timeout=timeout) as resp:
                declared = resp.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > max_bytes:
                    raise TooLarge(f"{int(declared):,} bytes")
                chunks: list[bytes] = []
                total = 0
                for chunk in resp.iter_bytes():
                    chunks.append(chunk)
                    total += len(chunk)
                    if total > max_bytes:
                        raise TooLarge(f"more than {max_bytes:,} bytes")
                    if time.monotonic() > end:
                        raise DeadlineExceeded(f"{deadline_s:g} s")
                return Fetched(
                    str(resp.url), resp.status_code, dict(resp.headers), b"".join(chunks)
                )
        except httpx.TimeoutException:
            if time.monotonic() >= end - 0.01 * deadline_s:
                raise DeadlineExceeded(f"{deadline_s:g} s") from None
            raise
    finally:
        if own:
            client.close()


def platform_max_path() -> int:
    """The longest path the OS accepts (4096 on Linux); used to refuse longer names early."""
    try:
        return int(os.pathconf("/", "PC_PATH_MAX"))
    except (OSError, ValueError, AttributeError):  # pragma: no cover - Windows
        return 260 if sys.platform == "win32" else 4096


__all__ = [
    "DEFAULT_DEADLINE_S",
    "MAX_DEPTH",
    "MAX_DOWNLOAD_BYTES",
    "MAX_FILE_BYTES",
    "DeadlineExceeded",
    "Fetched",
    "InputError",
    "TooLarge",
    "bracket_depth",
    "data_depth",
    "decode_utf8",
    "describe_os_error",
    "fetch",
    "is_regular_file",
    "loads_json",
    "loads_toml",
    "read_bytes",
    "read_text",
    "shorten",
    "shorten_path",
    "shorten_text",
]
