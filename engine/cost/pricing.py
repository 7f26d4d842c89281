"""Price lists: load from a local TOML/CSV file or an HTTP(S) URL, and price a build.

Nothing here invents a price: a part missing from the list makes the build's total unknown and the
quote names the missing SKUs.  A URL goes through the one fetch-and-cache,
:func:`engine.store.fetch.fetch_cached`: revalidated with ETag / If-Modified-Since, cached in the
user cache dir (``SLOTWISE_CACHE_DIR`` overrides, ``prices/<sha256>.body`` + ``.json``) and used
from the cache when offline or when the network is down.  A bearer token is read from ``SLOTWISE_PRICES_TOKEN`` only and
never written anywhere.

File formats (one price per SKU, in the list's currency)::

    # TOML
    [meta]
    currency = "USD"          # required
    label = "Distributor X, 2026-11"
    example = false           # true: every price is illustrative, not a quote
    [[price]]
    sku = "SYS-421GE-TNRT"
    price = 12345.0
    example = false           # optional per line
    source = "quote #123"     # optional

    # CSV: a header row with sku, price and currency (one currency for the whole file);
    # optional columns example (true/false) and source.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from slotwise.engine.build import Build
from slotwise.engine.store import local_paths
from slotwise.engine.store.fetch import CacheSlot, Failure, FetchError, fetch_cached, remember
from slotwise.parts.bounds import Price
from slotwise.parts.catalog import Catalog
from slotwise.parts.safe_io import (
    InputError,
    loads_toml,
    read_text,
    shorten,
    shorten_text,
)
from slotwise.parts.schema import MAX_SKU_CHARS

CACHE_ENV = local_paths.CACHE_ENV
TOKEN_ENV = "SLOTWISE_PRICES_TOKEN"
#: Total time for one download, connect to last byte (parts.safe_io.fetch).
TIMEOUT_S = 10.0
#: A price list of every catalog part is ~10 kB; 8 MiB holds a distributor's whole list.
MAX_PRICE_BYTES = 8 * 1024 * 1024


class PriceError(Exception):
    """A price list could not be read; the message names the file/URL, line and what to do."""


class PriceEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    sku: str = Field(min_length=1, max_length=MAX_SKU_CHARS)
    price: Price
    example: bool = False
    source: str | None = None


class PriceList(BaseModel):
    model_config = ConfigDict(frozen=True)

    currency: str = Field(min_length=1)
    label: str = ""
    example: bool = False
    origin: str = Field("", description="file path or URL the list came from")
    fetched: str | None = Field(None, description="how a URL was obtained: network / cache")
    entries: dict[str, PriceEntry] = Field(default_factory=dict)

    def price(self, sku: str) -> float | None:
        e = self.entries.get(sku)
        return None if e is None else e.price

    @property
    def any_example(self) -> bool:
        return self.example or any(e.example for e in self.entries.values())

    @property
    def note(self) -> str:
        """The note a BOM or quote priced from this list carries: where the prices come from,
        and that example figures are not a quote."""
        note = f"Prices from {self.label or self.origin}"
        if self.any_example:
            note += ": they include example figures, not a quote"
        return note + "."


# ------------------------------------------------------------------------------ parsing


def parse_toml(text: str, origin: str) -> PriceList:
    try:
        data = loads_toml(text, origin, what="price list")
    except InputError as exc:
        raise PriceError(str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise PriceError(f"{origin}: malformed TOML: {exc}; fix the file or the URL") from None
    meta = data.get("meta", {})
    if not isinstance(meta, dict) or not meta.get("currency"):
        raise PriceError(
            f"{origin}: field 'meta.currency' is missing; add a [meta] table with "
            'currency = "USD" (or your currency)'
        )
    rows = data.get("price", [])
    if not isinstance(rows, list):
        raise PriceError(f"{origin}: 'price' must be an array of tables ([[price]])")
    lines = _line_numbers(text)
    entries: dict[str, PriceEntry] = {}
    for i, row in enumerate(rows):
        line = lines[i] if i < len(lines) else None
        where = f"{origin}:{line}" if line else f"{origin} [[price]] #{i + 1}"
        entry = _entry(row, where)
        if entry.sku in entries:
            raise PriceError(f"{where}: SKU {shorten(entry.sku)} is listed twice; keep one price")
        entries[entry.sku] = entry
    extra = set(meta) - {"currency", "label", "example", "as_of", "note"}
    if extra:
        raise PriceError(
            f"{origin}: unknown [meta] field(s) {shorten_text(', '.join(sorted(extra)))}"
        )
    return PriceList(
        currency=str(meta["currency"]),
        label=str(meta.get("label", "")),
        example=bool(meta.get("example", False)),
        origin=origin,
        entries=entries,
    )


def _line_numbers(text: str) -> list[int]:
    return [i + 1 for i, ln in enumerate(text.splitlines()) if ln.strip() == "[[price]]"]


def _entry(row: object, where: str) -> PriceEntry:
    if not isinstance(row, dict):
        raise PriceError(f"{where}: a price entry must be a table with sku and price")
    try:
        return PriceEntry.model_validate(row)
    except ValidationError as exc:
        err = exc.errors()[0]
        fld = ".".join(str(x) for x in err["loc"]) or "entry"
        raise PriceError(f"{where}: field '{fld}': {err['msg']}") from None


def parse_csv(text: str, origin: str) -> PriceList:
    try:
        return _parse_csv(text, origin)
    except csv.Error as exc:  # a field over csv.field_size_limit(), a NUL byte, ...
        raise PriceError(f"{origin}: not a usable CSV file ({exc})") from None


def _parse_csv(text: str, origin: str) -> PriceList:
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in (reader.fieldnames or [])]
    if "sku" not in header or "price" not in header:
        raise PriceError(
            f"{origin}:1: the header row needs columns 'sku' and 'price' "
            f"(found: {shorten_text(', '.join(header)) or 'nothing'})"
        )
    entries: dict[str, PriceEntry] = {}
    currencies: set[str] = set()
    for n, raw in enumerate(reader, start=2):
        if raw.get(None):  # csv.DictReader puts cells beyond the header under the key None
            raise PriceError(
                f"{origin}:{n}: this row has more cells than the header row; quote cells that "
                "contain commas, or add a column name for the extra cell"
            )
        row = {(k or "").strip(): (v or "").strip() for k, v in raw.items() if k is not None}
        if not any(row.values()):
            continue
        where = f"{origin}:{n}"
        if row.get("currency"):
            currencies.add(row["currency"])
        try:
            price = float(row["price"].replace(",", ""))
        except ValueError:
            raise PriceError(
                f"{where}: field 'price': {shorten(row['price'])} is not a number"
            ) from None
        entry = _entry(
            {
                "sku": row["sku"],
                "price": price,
                "example": row.get("example", "").lower() in ("1", "true", "yes", "example"),
                **({"source": row["source"]} if row.get("source") else {}),
            },
            where,
        )
        if entry.sku in entries:
            raise PriceError(f"{where}: SKU {shorten(entry.sku)} is listed twice; keep one price")
        entries[entry.sku] = entry
    if len(currencies) > 1:
        raise PriceError(
            f"{origin}: mixes currencies {shorten_text(', '.join(sorted(currencies)))}; use one"
        )
    if not currencies:
        raise PriceError(f"{origin}: add a 'currency' column (e.g. USD) so prices have a unit")
    return PriceList(currency=currencies.pop(), origin=origin, entries=entries)


def parse_prices(text: str, origin: str, *, fmt: str | None = None) -> PriceList:
    """Parse a price list; ``fmt`` is "toml" or "csv" (default: from the name's extension)."""
    fmt = fmt or ("csv" if origin.lower().split("?")[0].endswith(".csv") else "toml")
    return parse_csv(text, origin) if fmt == "csv" else parse_toml(text, origin)


# ------------------------------------------------------------------------------ loading


def cache_dir() -> Path:
    return local_paths.cache_root() / "prices"


def _cache_slot(url: str) -> CacheSlot:
    key = hashlib.sha256(url.encode()).hexdigest()[:24]
    base = cache_dir()
    return CacheSlot(base / f"{key}.body", base / f"{key}.json")


def load_prices(location: str | Path, *, offline: bool = False, client=None) -> PriceList:
    """A price list from a local file or an http(s) URL (see module doc).  Raises PriceError."""
    loc = str(location)
    if loc.startswith(("http://", "https://")):
        return _load_url(loc, offline=offline, client=client)
    path = Path(loc).expanduser()
    try:
        text = read_text(path, max_bytes=MAX_PRICE_BYTES, what="price list")
    except InputError as exc:
        if exc.reason.endswith("no such file"):
            raise PriceError(
                f"{exc.where}: no such price list; give a TOML/CSV file or a URL"
            ) from None
        raise PriceError(str(exc)) from None
    return parse_prices(text, loc)


def _load_url(url: str, *, offline: bool, client) -> PriceList:
    """Fetch-and-cache through :func:`engine.store.fetch.fetch_cached` (revalidation, offline,
    stale fallback); this function only words the failures and parses the list."""
    try:
        answer = fetch_cached(
            url,
            _cache_slot(url),
            offline=offline,
            token=os.environ.get(TOKEN_ENV),
            timeout_s=TIMEOUT_S,
            max_bytes=MAX_PRICE_BYTES,
            what="cached price list",
            client=client,
        )
    except FetchError as exc:
        raise _price_error(url, exc) from None

    if answer.origin != "network":
        why = _why(answer.reason) if answer.origin == "cache" else "not modified"
        if not answer.meta:  # a body without its sidecar: the format and date are unknown
            raise PriceError(f"{url}: {why}, and there is no cached copy; try again when online")
        pl = _parse_cached(answer.content, url, why, answer.meta.get("format"))
        if answer.origin == "revalidated":
            return pl.model_copy(update={"fetched": "cache (revalidated: 304 not modified)"})
        saved = answer.meta.get("saved", "?")
        return pl.model_copy(update={"fetched": f"cache ({why}; saved {saved})"})

    ctype = answer.headers.get("content-type", "")
    fmt = "csv" if ("csv" in ctype or url.lower().split("?")[0].endswith(".csv")) else "toml"
    try:
        text = answer.content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PriceError(f"{url}: the price list is not UTF-8 text (byte {exc.start:,})") from None
    pl = parse_prices(text, url, fmt=fmt)  # raises on a malformed list: nothing cached
    remember(answer, extra={"format": fmt})
    return pl.model_copy(update={"fetched": "network"})


def _parse_cached(content: bytes, url: str, why: str, fmt: object) -> PriceList:
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PriceError(
            f"{url}: {why}, and the cached copy is unusable (not UTF-8 text at byte "
            f"{exc.start:,}); try again when online"
        ) from None
    return parse_prices(text, url, fmt=fmt if fmt in ("toml", "csv") else None)


def _why(failure: Failure | None) -> str:
    """Why the cache answered, in the words ``PriceList.fetched`` has always used."""
    if failure is None or failure.kind == "offline":
        return "offline"
    if failure.kind == "timeout" and failure.deadline:
        return f"the server did not deliver the list within {TIMEOUT_S:g} s"
    if failure.kind in ("timeout", "unreachable"):
        return f"network error: {failure.exc_name}"
    if failure.kind == "not_modified":
        return "not modified"
    return f"HTTP {failure.status}"


def _price_error(url: str, exc: FetchError) -> PriceError:
    failure = exc.failure
    if exc.cache == "missing":
        return PriceError(
            f"{url}: {_why(failure)}, and there is no cached copy; try again when online"
        )
    if exc.cache == "unusable":
        return PriceError(
            f"{url}: {_why(failure)}, and the cached copy is unusable ({exc.cache_problem})"
        )
    if failure.kind == "too_large":
        return PriceError(
            f"{url}: the answer is {failure.detail}, over the {MAX_PRICE_BYTES:,}-byte limit for "
            "a price list; check the URL"
        )
    if failure.kind == "bad_token":
        return PriceError(
            f"{url}: {TOKEN_ENV} contains spaces, control or non-ASCII characters; set it to the "
            "token exactly as issued (it is never stored)"
        )
    if failure.kind == "bad_url":
        return PriceError(
            f"{url}: not a usable http(s) URL ({shorten_text(failure.detail)}); check the URL"
        )
    if failure.status in (401, 403):
        return PriceError(
            f"{url}: the server refused access (HTTP {failure.status}); set the token in the "
            f"environment variable {TOKEN_ENV} (it is never stored)"
        )
    return PriceError(f"{url}: HTTP {failure.status}; check the URL")


# ------------------------------------------------------------------------------ quoting


@dataclass(frozen=True)
class QuoteLine:
    sku: str
    qty: int
    unit_price: float | None

    @property
    def total(self) -> float | None:
        return None if self.unit_price is None else self.unit_price * self.qty


@dataclass(frozen=True)
class Quote:
    currency: str
    lines: tuple[QuoteLine, ...]
    example: bool

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(sorted({ln.sku for ln in self.lines if ln.unit_price is None}))

    @property
    def total(self) -> float | None:
        """The build's price, or None when any part has no price (never a partial sum)."""
        if self.missing:
            return None
        return sum(ln.total or 0.0 for ln in self.lines)

    @property
    def known_total(self) -> float:
        """Sum of the priced lines only (a lower bound when parts are missing)."""
        return sum(ln.total or 0.0 for ln in self.lines)


def build_lines(build: Build) -> list[tuple[str, int]]:
    """(SKU, quantity) for every part of a build, merged by SKU, in a stable order."""
    qty: dict[str, int] = {}

    def add(sku: str | None, n: int) -> None:
        if sku and n > 0:
            qty[sku] = qty.get(sku, 0) + n

    add(build.chassis, 1)
    add(build.cpu, build.cpu_count)
    add(build.dimm, build.dimm_count)
    add(build.baseboard, 1)
    for sku in build.slots.values():
        add(sku, 1)
    for br in build.bridges:
        add(br.sku, br.count)
    for d in build.drives:
        add(d.sku, d.count)
    add(build.psu, build.psu_count)
    return list(qty.items())


def quote_build(build: Build, prices: PriceList, catalog: Catalog | None = None) -> Quote:
    """Price every part of ``build``; parts the list lacks are named in ``Quote.missing``."""
    lines = tuple(QuoteLine(sku, n, prices.price(sku)) for sku, n in build_lines(build))
    example = prices.example or any(
        prices.entries[ln.sku].example for ln in lines if ln.sku in prices.entries
    )
    return Quote(currency=prices.currency, lines=lines, example=example)
