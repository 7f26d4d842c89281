"""Who a bill of materials is for and when it was written: the ``[meta]`` table of a BOM.

Times are ISO 8601 in UTC, whole seconds.  Nothing here reads the wall clock implicitly: pass a
``clock`` (a function returning an aware ``datetime``) to :meth:`BomMeta.new` /
:meth:`BomMeta.touched`; the default is :func:`utc_now`.  Tests pass a fixed clock.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

from pydantic import BaseModel, ConfigDict, field_validator

from slotwise.engine.build.companions import check_services, parse_services
from slotwise.parts.plain_text import refuse_controls

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def to_utc_seconds(value: datetime) -> datetime:
    """Aware UTC, microseconds dropped.  A naive time is taken to be UTC already."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).replace(microsecond=0)


class BomMeta(BaseModel):
    """The ``[meta]`` table.  ``slotwise_version`` / ``catalog_version`` are filled in by the
    exporter (they say which tool and catalog computed the file's summary)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    customer: str = ""
    project: str = ""
    engineer: str = ""
    created: datetime | None = None
    updated: datetime | None = None
    slotwise_version: str = ""
    catalog_version: str = ""
    notes: str = ""  # free text for the customer file (written only when not empty)
    # The quote: the day it is issued and the last day its prices hold (customer document).
    quote_date: date | None = None
    valid_until: date | None = None
    # Service lines the user chose (Supermicro codes, engine.build.companions.SERVICES): never
    # added unless chosen here, priced only where the price list prices the code.
    services: tuple[str, ...] = ()

    @field_validator("services", mode="before")
    @classmethod
    def _services(cls, v: object) -> object:
        """Known service codes only (upper-cased, each once); a string is split on commas."""
        if isinstance(v, str):
            return parse_services(v)
        if isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v):
            return check_services(v)
        return v

    @field_validator("quote_date", "valid_until", mode="before")
    @classmethod
    def _day(cls, v: object) -> object:
        """A day; a full timestamp (TOML datetime) is cut to its day."""
        return v.date() if isinstance(v, datetime) else v

    @field_validator("customer", "project", "engineer", "slotwise_version", "catalog_version")
    @classmethod
    def _one_line(cls, v: str) -> str:
        """Printed as a heading or a table cell: no control character, newline included."""
        return refuse_controls(v)

    @field_validator("notes")
    @classmethod
    def _free_text(cls, v: str) -> str:
        return refuse_controls(v, allow_lines=True)

    @field_validator("created", "updated")
    @classmethod
    def _utc(cls, v: datetime | None) -> datetime | None:
        return None if v is None else to_utc_seconds(v)

    @classmethod
    def new(cls, *, clock: Clock = utc_now, **fields: str) -> BomMeta:
        """A fresh meta block: ``created`` = ``updated`` = now."""
        now = to_utc_seconds(clock())
        return cls(created=now, updated=now, **fields)

    def touched(self, clock: Clock = utc_now) -> BomMeta:
        """A copy with ``updated`` = now (and ``created`` too if it was never set)."""
        now = to_utc_seconds(clock())
        return self.model_copy(update={"updated": now, "created": self.created or now})
