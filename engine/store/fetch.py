"""One offline-first fetch-and-cache: the Hub's config.json and remote price lists both use it.

:func:`fetch_cached` GETs a URL and keeps the answer in a cache slot (a body file and, where there
is something to remember, a JSON sidecar), so a later call can answer without the network:

* **Offline** (``offline=True`` or ``SLOTWISE_OFFLINE`` / ``HF_HUB_OFFLINE``, see
  :mod:`engine.store.local_paths`): the cache answers, the network is never touched.
* **Online**: the whole answer must arrive within ``timeout_s`` (a total deadline, connect to last
  byte) and within ``max_bytes`` (``parts.safe_io.fetch``); redirects are followed.  When the
  sidecar holds the server's ``ETag`` / ``Last-Modified``, the request carries ``If-None-Match`` /
  ``If-Modified-Since`` and a ``304`` answers from the cache (:attr:`Answer.origin` =
  ``"revalidated"``).
* **Stale fallback**: a timeout, a connection failure (refused, DNS, TLS, too many redirects) or a
  status the caller calls transient (default: 5xx) answers from the cache, with
  :attr:`Answer.reason` saying why (a :class:`Failure`).
* **Errors** are a :class:`FetchError` carrying a :class:`Failure` (what went wrong, as data), so
  each caller words its own one-paragraph message; nothing here raises httpx's exceptions or
  prints a traceback.  A failure with no usable cache says whether the cache was missing or
  unusable.
* **Caching is the caller's decision**: a network answer is only written by :func:`remember`,
  which the caller calls after it has parsed the body, so a malformed download is never cached.
  Writes are atomic (:mod:`engine.store.atomic`); a cache that cannot be written is not an error.
* **Tokens** go in the ``Authorization: Bearer`` header only: the cache holds the body and the
  sidecar fields (url, etag, last_modified, saved, the caller's ``extra``), never request headers.

The sidecar is written when there is something to remember (the server gave a validator or the
caller passed ``extra``); otherwise an old one is removed, so a body never pairs with another
body's validators.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from slotwise.engine.store import local_paths
from slotwise.engine.store.atomic import atomic_write_bytes
from slotwise.parts.safe_io import (
    DeadlineExceeded,
    InputError,
    TooLarge,
    loads_json,
    read_bytes,
)
from slotwise.parts.safe_io import fetch as _http_get

#: A sidecar is a few hundred bytes; anything near this is not ours.
MAX_SIDECAR_BYTES = 1 << 20

FailureKind = Literal[
    "offline",  # the network was not to be used
    "timeout",  # the whole answer did not arrive within the deadline
    "unreachable",  # connection refused, DNS, TLS, too many redirects, protocol error
    "bad_url",  # not a usable http(s) URL
    "bad_token",  # the token has spaces, control or non-ASCII characters
    "too_large",  # the answer is over max_bytes
    "http",  # an HTTP status the caller must word (4xx, or a transient one with no cache)
    "not_modified",  # 304, but the cached copy is gone
]
Origin = Literal["network", "revalidated", "cache"]


@dataclass(frozen=True)
class Failure:
    """Why the network did not give a fresh answer.

    ``detail``: for ``timeout`` the deadline (``"10 s"``); for ``unreachable`` / ``bad_url`` the
    exception's class name and text; for ``too_large`` the size seen (``"9,000,000 bytes"``).
    ``deadline`` tells a total-deadline timeout (:class:`parts.safe_io.DeadlineExceeded`) from one
    httpx raised for a single connect or read.
    """

    kind: FailureKind
    detail: str = ""
    status: int | None = None
    exc_name: str = ""
    deadline: bool = False


class FetchError(Exception):
    """No answer: ``failure`` says why; ``cache`` says what the cache did about it.

    ``cache`` is ``"not tried"`` (a hard failure: bad URL, too large, a 4xx), ``"missing"`` (a
    transient failure or offline, and nothing cached) or ``"unusable"`` (``cache_problem`` says
    why: too large, not a regular file, ...).
    """

    def __init__(
        self,
        failure: Failure,
        *,
        cache: Literal["not tried", "missing", "unusable"] = "not tried",
        cache_problem: str = "",
        cache_path: Path | None = None,
    ) -> None:
        super().__init__(f"{failure.kind}: {failure.detail or failure.status or ''}".rstrip(": "))
        self.failure = failure
        self.cache = cache
        self.cache_problem = cache_problem
        self.cache_path = cache_path


@dataclass(frozen=True)
class CacheSlot:
    """Where one URL's answer lives: ``body`` and, optionally, a JSON ``sidecar`` (validators,
    saved time, the caller's own fields).  Without a sidecar there is no revalidation."""

    body: Path
    sidecar: Path | None = None


@dataclass(frozen=True)
class Answer:
    """Bytes for a URL and where they came from.

    ``origin``: ``"network"`` (a fresh answer: :func:`remember` caches it), ``"revalidated"`` (the
    server said 304: the cached bytes are current) or ``"cache"`` (offline, or ``stale`` says why
    the network failed; ``reason`` says which).  ``status`` and ``headers`` are the server's, when
    it answered.  ``meta`` is the sidecar as read (empty when there is none)."""

    content: bytes
    origin: Origin
    url: str
    slot: CacheSlot
    status: int | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    meta: Mapping[str, Any] = field(default_factory=dict)
    reason: Failure | None = None  # why the cache answered: offline, or the network's failure

    @property
    def stale(self) -> Failure | None:
        """The network failure the cache stood in for (None when fresh, revalidated or offline)."""
        if self.origin != "cache" or self.reason is None or self.reason.kind == "offline":
            return None
        return self.reason


def token_is_usable(token: str) -> bool:
    """A bearer token must be printable ASCII without spaces (it goes into an HTTP header)."""
    return token.isascii() and token.isprintable() and " " not in token


def _default_transient(status: int) -> bool:
    return status >= 500


def fetch_cached(
    url: str,
    slot: CacheSlot,
    *,
    offline: bool = False,
    token: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeout_s: float,
    max_bytes: int,
    transient: Callable[[int], bool] = _default_transient,
    what: str = "cached file",
    client: Any = None,
) -> Answer:
    """The answer for ``url``: from the network when allowed and reachable, else from ``slot``.

    A status below 400 other than 304 is returned as a network answer for the caller to judge
    (call :func:`remember` to cache it); a status ``transient`` accepts falls back to the cache;
    any other status of 400 or more is a :class:`FetchError` of kind ``"http"``.
    """
    if offline or local_paths.offline_from_env():
        return _from_cache(url, slot, Failure("offline"), what=what, max_bytes=max_bytes)

    import httpx  # deferred: importing the engine never needs the network stack

    send = {"User-Agent": "slotwise", **dict(headers or {})}
    token = (token or "").strip()
    if token:
        if not token_is_usable(token):
            raise FetchError(Failure("bad_token"))
        send["Authorization"] = f"Bearer {token}"
    meta = _read_sidecar(slot) if _lexists(slot.body) else {}
    if isinstance(meta.get("etag"), str) and meta["etag"]:
        send["If-None-Match"] = meta["etag"]
    if isinstance(meta.get("last_modified"), str) and meta["last_modified"]:
        send["If-Modified-Since"] = meta["last_modified"]

    try:
        response = _http_get(
            url, headers=send, deadline_s=timeout_s, max_bytes=max_bytes, client=client
        )
    except DeadlineExceeded:
        stale = Failure("timeout", f"{timeout_s:g} s", exc_name="DeadlineExceeded", deadline=True)
        return _from_cache(url, slot, stale, what=what, max_bytes=max_bytes)
    except TooLarge as exc:
        raise FetchError(Failure("too_large", str(exc))) from None
    except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
        raise FetchError(Failure("bad_url", str(exc), exc_name=type(exc).__name__)) from None
    except httpx.TimeoutException as exc:
        stale = Failure("timeout", f"{timeout_s:g} s", exc_name=type(exc).__name__)
        return _from_cache(url, slot, stale, what=what, max_bytes=max_bytes)
    except (httpx.HTTPError, httpx.StreamError) as exc:
        stale = Failure("unreachable", str(exc), exc_name=type(exc).__name__)
        return _from_cache(url, slot, stale, what=what, max_bytes=max_bytes)
    except (ValueError, UnicodeError) as exc:  # a header value httpx cannot encode, ...
        raise FetchError(Failure("bad_url", str(exc), exc_name=type(exc).__name__)) from None

    status = response.status
    if status == 304:
        cached = _from_cache(
            url, slot, Failure("not_modified", status=304), what=what, max_bytes=max_bytes
        )
        return Answer(
            cached.content,
            "revalidated",
            url,
            slot,
            status=304,
            headers=response.headers,
            meta=cached.meta,
        )
    if status >= 400 or status < 200:
        failure = Failure("http", f"HTTP {status}", status=status)
        if status >= 400 and transient(status):
            return _from_cache(url, slot, failure, what=what, max_bytes=max_bytes)
        raise FetchError(failure)
    return Answer(response.content, "network", url, slot, status=status, headers=response.headers)


def remember(answer: Answer, *, extra: Mapping[str, Any] | None = None) -> bool:
    """Cache a network answer the caller has accepted; True when it was written.

    The body goes to ``slot.body``; the sidecar gets the URL, the server's ``ETag`` /
    ``Last-Modified``, the time saved and ``extra`` (never a request header, so never a token).
    A cache that cannot be written is not an error: the answer is in hand."""
    if answer.origin != "network":
        return False
    slot = answer.slot
    headers = {k.lower(): v for k, v in answer.headers.items()}
    validators = {
        "etag": headers.get("etag"),
        "last_modified": headers.get("last-modified"),
    }
    try:
        slot.body.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(slot.body, answer.content)
        if slot.sidecar is None:
            return True
        if any(validators.values()) or extra:
            meta = {
                "url": answer.url,
                **dict(extra or {}),
                **validators,
                "saved": email.utils.format_datetime(datetime.now(UTC), usegmt=True),
            }
            slot.sidecar.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(slot.sidecar, json.dumps(meta, indent=1).encode("utf-8"))
        else:
            with contextlib.suppress(FileNotFoundError):
                slot.sidecar.unlink()
    except OSError:
        return False
    return True


def read_cached(
    slot: CacheSlot, *, what: str, max_bytes: int
) -> tuple[bytes, dict[str, Any]] | None:
    """The cached body and sidecar of ``slot``; None when no body is cached.

    Raises :class:`InputError` when the body is there but unusable (too large, not a regular
    file, unreadable).  An unreadable or malformed sidecar reads as empty."""
    if not _lexists(slot.body):
        return None
    data = read_bytes(slot.body, max_bytes=max_bytes, what=what)
    return data, _read_sidecar(slot)


# ------------------------------------------------------------------------------ internals


def _lexists(path: Path) -> bool:
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):
        return False


def _read_sidecar(slot: CacheSlot) -> dict[str, Any]:
    if slot.sidecar is None or not _lexists(slot.sidecar):
        return {}
    try:
        raw = read_bytes(slot.sidecar, max_bytes=MAX_SIDECAR_BYTES, what="cache sidecar")
        meta = loads_json(raw.decode("utf-8"), str(slot.sidecar), what="cache sidecar")
    except (InputError, ValueError, UnicodeDecodeError):  # InputError is a ValueError
        return {}
    return meta if isinstance(meta, dict) else {}


def _from_cache(url: str, slot: CacheSlot, why: Failure, *, what: str, max_bytes: int) -> Answer:
    try:
        cached = read_cached(slot, what=what, max_bytes=max_bytes)
    except InputError as exc:
        raise FetchError(
            why, cache="unusable", cache_problem=str(exc), cache_path=slot.body
        ) from None
    if cached is None:
        raise FetchError(why, cache="missing", cache_path=slot.body)
    content, meta = cached
    return Answer(content, "cache", url, slot, meta=meta, reason=why)


__all__ = [
    "Answer",
    "CacheSlot",
    "Failure",
    "FetchError",
    "fetch_cached",
    "read_cached",
    "remember",
    "token_is_usable",
]
