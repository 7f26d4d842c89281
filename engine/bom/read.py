"""Reading a BOM: ``import_bom`` (text) and ``read_bom`` (a file) load whatever they can and
list every problem as a located :class:`engine.bom.schema.BomFinding`; they never raise on a bad
file.  The format and the rule ids are described in :mod:`engine.bom.schema`."""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from slotwise.engine.bom.config_path import place_config
from slotwise.engine.bom.locate import KeyLocator
from slotwise.engine.bom.meta import BomMeta
from slotwise.engine.bom.schema import (
    COUNTED,
    MAX_BOM_BYTES,
    MAX_ENTRIES,
    MAX_MESSAGE,
    MAX_SLOT_CHARS,
    SCHEMA_VERSION,
    TOP_KEYS,
    BomFinding,
    LoadedBom,
)
from slotwise.engine.build import MAX_SKU_CHARS, BridgeFit, Build, DriveFit, Environment, Sku
from slotwise.engine.build.items import canonical_build, line_items
from slotwise.engine.inputs import ref
from slotwise.engine.workload import Workload
from slotwise.parts.bounds import PositivePartCount
from slotwise.parts.catalog import Catalog
from slotwise.parts.plain_text import first_control, one_line, visible
from slotwise.parts.safe_io import (
    InputError,
    loads_toml,
    read_text,
    shorten,
    shorten_path,
    shorten_text,
)
from slotwise.parts.schema import Chassis


class _Reader:
    """Collects problems while turning the parsed TOML into a Build."""

    def __init__(self, filename: str, text: str, catalog: Catalog):
        self.filename = filename
        self.loc = KeyLocator(text)
        self.catalog = catalog
        self.problems: list[BomFinding] = []
        self.refused_config: str | None = None

    def add(
        self,
        rule: str,
        field: str | None,
        message: str,
        fix: str | None = None,
        severity: str = "error",
        parts: tuple[str, ...] = (),
        line: int | None = None,
    ) -> None:
        if line is None and field:
            line = self.loc.line(field)
        # Every text of a finding is made safe here, once: a key, SKU or file name from the
        # file may hold control characters (parts.plain_text), shown escaped on one line.
        where = one_line(shorten_path(self.filename)) + (f", line {line}" if line else "")
        field = None if field is None else one_line(field)
        what = f"field '{shorten_text(field)}': " if field else ""
        self.problems.append(
            BomFinding(
                rule=rule,
                severity=severity,
                message=shorten_text(one_line(f"{where}: {what}{message}"), MAX_MESSAGE),
                parts=tuple(visible(x) for x in parts),
                fix=None if fix is None else one_line(fix),
                file=visible(self.filename),
                line=line,
                field=field,
            )
        )

    def controls(self, field: str, value: Any, what: str) -> bool:
        """Report a string holding a control character (not loaded); True when it did."""
        if not isinstance(value, str) or first_control(value) is None:
            return False
        self.add(
            "bom.bad_value",
            field,
            f"the {what} {_show(value)} contains a control character (a terminal escape?)",
            fix="remove the control characters; it was not loaded",
        )
        return True

    # ------------------------------------------------------------------ generic validation
    def model(self, cls: type[BaseModel], raw: Any, path: str):
        """Validate ``raw`` as ``cls``; report each bad key and retry without it.

        Returns the model, or None when it cannot be built even without the bad keys."""
        if not isinstance(raw, dict):
            self.add("bom.bad_value", path, f"expected a table, found {_show(raw)}")
            return None
        data = dict(raw)
        dropped: set[str] = set()  # keys already reported and removed
        for _ in range(len(raw) + 2):
            try:
                return cls.model_validate(data)
            except ValidationError as exc:
                removed = missing = False
                for err in exc.errors():
                    loc = err["loc"]
                    key = str(loc[0]) if loc else None
                    field = f"{path}.{'.'.join(str(x) for x in loc)}" if loc else path
                    if err["type"] == "extra_forbidden":
                        self.add(
                            "bom.unknown_field",
                            field,
                            f"unknown field (value {_show(err.get('input'))})",
                            fix=f"remove it or correct the spelling; {path} takes "
                            + ", ".join(cls.model_fields),
                        )
                    elif err["type"] == "missing":
                        if key not in dropped:  # a bad required value was reported already
                            self.add("bom.missing_field", field, "this field is required")
                        missing = True
                    else:
                        value = data.get(key) if key is not None else raw
                        self.add(
                            "bom.bad_value",
                            field,
                            f"{_clean(err['msg'])} (found {_show(value)})",
                            fix="correct the value; it was not loaded",
                        )
                    if key is not None and key in data:
                        del data[key]
                        dropped.add(key)
                        removed = True
                if missing or not removed:
                    return None
        return None  # pragma: no cover - every retry removes a key

    # ------------------------------------------------------------------ catalog checks
    def sku(self, sku: str, kinds: tuple[str, ...], what: str, field: str) -> None:
        rec = self.catalog.get(sku)
        if rec is None:
            pool = [r.sku for r in self.catalog if r.kind in kinds]
            near = difflib.get_close_matches(sku[:MAX_SKU_CHARS], pool, n=1, cutoff=0.6)
            hint = f"did you mean {near[0]!r}? " if near else ""
            listing = " or ".join(ref("part_list", k) for k in kinds)
            self.add(
                "bom.unknown_sku",
                field,
                f"{what} {_show(sku)} is not in the parts catalog",
                fix=f"{hint}{listing} lists the choices; a part the catalog lacks can be added "
                f"in an overlay catalog ({ref('catalog')})",
                parts=(sku,),
            )
        elif rec.kind not in kinds:
            self.add(
                "bom.wrong_kind",
                field,
                f"{_show(sku)} is a {rec.kind}, not a {what}",
                fix=f"put a {what} here ({ref('part_list', kinds[0])})",
                parts=(sku,),
            )


def _clean(msg: str) -> str:
    return msg[0].lower() + msg[1:] if msg else msg


def _show(value: Any) -> str:
    return shorten(value, 60)


_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def import_bom(text: str, catalog: Catalog, *, filename: str = "<bom>") -> LoadedBom:
    """Load a BOM text.  Never raises on bad content: see the module docstring for rule ids."""
    r = _Reader(filename, text, catalog)
    try:
        data = loads_toml(text, shorten_path(filename), what="BOM")
    except InputError as exc:
        r.problems.append(
            BomFinding(
                rule="bom.malformed",
                severity="error",
                message=one_line(f"{exc.where}: {exc.reason}"),
                fix=one_line((exc.fix or "fix the file") + "; nothing was loaded"),
                file=filename,
            )
        )
        return LoadedBom(filename=filename, build=None, problems=tuple(r.problems))
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = _AT.search(msg)
        line = int(m.group(1)) if m else None
        col = f", column {m.group(2)}" if m else ""
        reason = _clean(_AT.sub("", msg).strip())
        where = f"{shorten_path(filename)}, line {line}{col}" if line else shorten_path(filename)
        fix = "fix the TOML syntax at that place (quotes, '=', brackets); nothing was loaded"
        lines = text.splitlines()
        if line and line <= len(lines):
            src = lines[line - 1].strip()
            where += f" ({src[:60]})" if src else ""
            # tomllib says "illegal character '\\n'" when a line ends inside a string
            if "'\\n'" in reason and src.count('"') % 2 == 1:
                fix = "a string is not closed: add the closing quote; nothing was loaded"
        r.problems.append(
            BomFinding(
                rule="bom.malformed",
                severity="error",
                message=one_line(f"{where}: not valid TOML: {reason}"),
                fix=fix,
                file=filename,
                line=line,
            )
        )
        return LoadedBom(filename=filename, build=None, problems=tuple(r.problems))
    return _from_data(data, r)


def _from_data(data: dict[str, Any], r: _Reader) -> LoadedBom:
    """Read every table of a parsed BOM; each section's problems go to ``r`` (none is fatal
    except a missing chassis, which leaves ``build`` None)."""
    _check_top_keys(data, r)
    schema_version = _read_schema(data, r)
    meta = _read_meta(data, r)
    chassis = _read_chassis(data, r)
    ch = r.catalog.chassis.get(chassis or "")
    fields: dict[str, Any] = _read_parts(data, r)
    fields["slots"] = _read_slots(data, r, ch)
    fields["bridges"] = _read_bridges(data, r, ch)
    fields["drives"] = _read_drives(data, r, ch)
    workload = _read_workload(data, r)
    if workload is not None:
        fields["workload"] = workload

    # --- derived tables: keep the prices, check the rest is not stale
    prices, currency, price_note = _read_pricing(r, data)

    build: Build | None = None
    if chassis is not None:
        try:
            build = canonical_build(Build(chassis=chassis, **fields), r.catalog)
        except ValidationError as exc:  # each part was checked above; this is a safety net
            for err in exc.errors():
                r.add(
                    "bom.bad_value",
                    ".".join(str(x) for x in err["loc"]) or None,
                    _clean(err["msg"]),
                    fix="correct the value; the build was not loaded",
                )
        else:
            _check_line_items(r, data, build, meta.services)

    return LoadedBom(
        filename=r.filename,
        build=build,
        meta=meta,
        problems=tuple(sorted(r.problems, key=lambda p: (p.line is None, p.line or 0))),
        prices=prices,
        currency=currency,
        price_note=price_note,
        schema_version=schema_version,
        refused_config=r.refused_config,
    )


def _check_top_keys(data: dict[str, Any], r: _Reader) -> None:
    """Every top-level key must be one the format knows."""
    for key in data:
        if key not in TOP_KEYS:
            r.add(
                "bom.unknown_field",
                key,
                "unknown top-level field",
                fix="remove it or correct the spelling; known fields: " + ", ".join(TOP_KEYS),
            )


def _read_schema(data: dict[str, Any], r: _Reader) -> int | None:
    """The schema version the file declares (None when missing or unreadable)."""
    schema = data.get("schema")
    schema_version: int | None = None
    if schema is None:
        r.add(
            "bom.missing_field",
            "schema",
            "the file does not say its schema version",
            fix=f"add 'schema = {SCHEMA_VERSION}' as the first line",
            line=1,
        )
    elif not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
        r.add("bom.bad_value", "schema", f"must be a whole number >= 1 (found {_show(schema)})")
    elif schema > SCHEMA_VERSION:
        schema_version = schema
        r.add(
            "bom.schema_newer",
            "schema",
            f"written for schema {schema}; this slotwise reads schema {SCHEMA_VERSION}",
            fix="upgrade slotwise to open it; the parts this version understands were loaded",
        )
    else:
        schema_version = schema

    return schema_version


def _read_meta(data: dict[str, Any], r: _Reader) -> BomMeta:
    """[meta] (who, when, notes); defaults when absent or unreadable."""
    meta = BomMeta()
    raw_meta = data.get("meta")
    if raw_meta is not None:
        got = r.model(BomMeta, raw_meta, "meta")
        if got is not None:
            meta = got

    return meta


def _read_chassis(data: dict[str, Any], r: _Reader) -> str | None:
    """The [chassis] table's SKU (None when missing or unusable)."""
    chassis: str | None = None
    raw_ch = data.get("chassis")
    if raw_ch is None:
        r.add(
            "bom.missing_field",
            "chassis",
            "no [chassis] table: a BOM needs a chassis",
            fix=f'add [chassis] with sku = "<system SKU>" ({ref("part_list", "chassis")})',
        )
    elif not isinstance(raw_ch, dict):
        r.add("bom.bad_value", "chassis", f"expected a table, found {_show(raw_ch)}")
    else:
        for k in raw_ch:
            if k not in ("sku", "description"):
                r.add(
                    "bom.unknown_field",
                    f"chassis.{k}",
                    "unknown field",
                    fix="remove it; [chassis] takes sku (and description, which is informational)",
                )
        desc = raw_ch.get("description")
        if desc is not None and not isinstance(desc, str):
            r.add(
                "bom.bad_value",
                "chassis.description",
                f"expected the chassis name as a string, found {_show(desc)}",
                fix="remove it (it is informational and rewritten on save) or quote the name",
            )
        elif desc is not None:
            r.controls("chassis.description", desc, "description")
        sku = raw_ch.get("sku")
        if sku is None:
            r.add("bom.missing_field", "chassis.sku", "the chassis has no sku")
        elif not isinstance(sku, str) or not sku.strip():
            r.add("bom.bad_value", "chassis.sku", f"expected a SKU string, found {_show(sku)}")
        elif len(sku) > MAX_SKU_CHARS:
            r.add(
                "bom.bad_value",
                "chassis.sku",
                f"a SKU is at most {MAX_SKU_CHARS} characters, found {_show(sku)}",
                fix=f"write the chassis SKU ({ref('part_list', 'chassis')})",
            )
        elif r.controls("chassis.sku", sku, "SKU"):
            pass
        else:
            chassis = sku
            r.sku(sku, ("chassis",), "chassis", "chassis.sku")

    return chassis


def _read_parts(data: dict[str, Any], r: _Reader) -> dict[str, Any]:
    """[environment], the counted parts (CPUs, DIMMs, PSUs) and [baseboard] as Build fields."""
    fields: dict[str, Any] = {}
    if "environment" in data:
        env = r.model(Environment, data["environment"], "environment")
        if env is not None:
            fields["env"] = env

    # --- counted parts
    for table, (attr, what) in COUNTED.items():
        if table not in data:
            continue
        got = r.model(_Counted, data[table], table)
        if got is None:
            continue
        fields[attr] = got.sku
        fields[f"{attr}_count"] = got.count
        r.sku(got.sku, (attr,), what, f"{table}.sku")

    if "baseboard" in data:
        got = r.model(_Baseboard, data["baseboard"], "baseboard")
        if got is not None:
            fields["baseboard"] = got.sku
            r.sku(got.sku, ("baseboard",), "baseboard", "baseboard.sku")

    return fields


def _read_slots(data: dict[str, Any], r: _Reader, ch: Chassis | None) -> dict[str, str]:
    """[slots]: slot id -> card SKU, kept even where the chassis lacks the slot (a finding)."""
    slot_ids = {s.id for s in ch.slots} if ch else set()
    raw_slots = data.get("slots")
    slots: dict[str, str] = {}
    if raw_slots is not None:
        if not isinstance(raw_slots, dict):
            r.add("bom.bad_value", "slots", f"expected a table, found {_show(raw_slots)}")
        else:
            if len(raw_slots) > MAX_ENTRIES:
                r.add(
                    "bom.bad_value",
                    "slots",
                    f"{len(raw_slots):,} slots: a chassis has at most a few dozen; only the "
                    f"first {MAX_ENTRIES} were read",
                    fix="is this the right file? list the cards of one chassis",
                )
                raw_slots = dict(list(raw_slots.items())[:MAX_ENTRIES])
            for sid, sku in raw_slots.items():
                field = f"slots.{sid}"
                if len(sid) > MAX_SLOT_CHARS or (isinstance(sku, str) and len(sku) > MAX_SKU_CHARS):
                    r.add(
                        "bom.bad_value",
                        field,
                        f"a slot id is at most {MAX_SLOT_CHARS} characters and a SKU at most "
                        f"{MAX_SKU_CHARS}, found {_show(sid)} = {_show(sku)}",
                        fix="use the chassis' slot ids and catalog SKUs; it was not loaded",
                    )
                    continue
                if not isinstance(sku, str) or not sku.strip():
                    r.add(
                        "bom.bad_value",
                        field,
                        f"expected a GPU or NIC SKU string, found {_show(sku)}",
                        fix='write the card\'s SKU, e.g. "3" = "NVIDIA-L40S-48GB"',
                    )
                    continue
                if r.controls(field, sid, "slot id") or r.controls(field, sku, "SKU"):
                    continue
                slots[sid] = sku
                r.sku(sku, ("gpu", "nic"), "GPU or NIC", field)
                if ch and sid not in slot_ids:
                    r.add(
                        "bom.unknown_slot",
                        field,
                        f"{ch.sku} has no slot {sid!r}; {sku} was kept but cannot be fitted there",
                        fix="use one of the slots " + ", ".join(s.id for s in ch.slots),
                        parts=(sku,),
                    )

    return slots


def _read_bridges(data: dict[str, Any], r: _Reader, ch: Chassis | None) -> tuple[BridgeFit, ...]:
    """[[bridges]]: each bridge's SKU and the slots it joins (checked against the chassis)."""
    slot_ids = {s.id for s in ch.slots} if ch else set()
    bridges: list[BridgeFit] = []
    for i, raw in enumerate(_array(r, data, "bridges")):
        br = r.model(BridgeFit, raw, f"bridges[{i}]")
        if br is None:
            continue
        bridges.append(br)
        r.sku(br.sku, ("bridge",), "NVLink bridge", f"bridges[{i}].sku")
        if ch:
            for sid in br.slots:
                if sid not in slot_ids:
                    r.add(
                        "bom.unknown_slot",
                        f"bridges[{i}].slots",
                        f"{ch.sku} has no slot {sid!r} for bridge {br.sku}",
                        fix=f"join slots of the chassis ({ref('part_details', 'chassis')})",
                        parts=(br.sku,),
                    )

    return tuple(bridges)


def _read_drives(data: dict[str, Any], r: _Reader, ch: Chassis | None) -> tuple[DriveFit, ...]:
    """[[drives]]: each drive's SKU and bay (checked against the chassis' bays)."""
    drives: list[DriveFit] = []
    bay_ids = {b.id for b in ch.drive_bays} if ch else set()
    for i, raw in enumerate(_array(r, data, "drives")):
        d = r.model(DriveFit, raw, f"drives[{i}]")
        if d is None:
            continue
        drives.append(d)
        r.sku(d.sku, ("drive",), "drive", f"drives[{i}].sku")
        # a chassis whose bay layout the catalog lacks takes drives in any bay group (the app's
        # map offers one, "drives"); the storage rule says it could not check them
        if ch and ch.drive_bays and d.bay not in bay_ids:
            r.add(
                "bom.unknown_bay",
                f"drives[{i}].bay",
                f"{ch.sku} has no drive bay {d.bay!r}",
                fix="use one of the bays " + (", ".join(sorted(bay_ids)) or "(none listed)"),
                parts=(d.sku,),
            )

    return tuple(drives)


def _read_workload(data: dict[str, Any], r: _Reader) -> Workload | None:
    """[workload], validated; a model preset the catalog lacks is reported."""
    if "workload" in data:
        wl = r.model(Workload, data["workload"], "workload")
        if wl is not None:
            if wl.model and wl.model not in r.catalog.models:
                r.sku(wl.model, ("model",), "model preset", "workload.model")
            if wl.config:
                wl = _place_config(wl, wl.config, r)
            return wl
    return None


def _place_config(wl: Workload, given: str, r: _Reader) -> Workload:
    """``workload.config`` under the path policy of engine.bom.config_path: read relative to
    the BOM, never a path out of its folder (refused: loaded without it, with a finding)."""
    placed = place_config(given, r.filename)
    if placed.config is not None:
        return wl.model_copy(update={"config": placed.config})
    r.refused_config = given
    r.add(
        "bom.config_outside",
        "workload.config",
        f"the model config {_show(given)} was not read: {placed.refused}; a BOM may only name a "
        "config.json in its own folder (or a Hugging Face id)",
        fix="copy the config.json next to the BOM and write its name (config = "
        f'"config.json"), or give the model with {ref("config")}',
    )
    return wl.model_copy(update={"config": None})


class _Counted(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sku: Sku = Field(min_length=1)
    count: PositivePartCount


class _Baseboard(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sku: Sku = Field(min_length=1)


def _array(r: _Reader, data: dict[str, Any], key: str) -> list[Any]:
    raw = data.get(key)
    if raw is None:
        return []
    if not isinstance(raw, list):
        r.add("bom.bad_value", key, f"expected [[{key}]] tables, found {_show(raw)}")
        return []
    if len(raw) > MAX_ENTRIES:
        r.add(
            "bom.bad_value",
            key,
            f"{len(raw):,} [[{key}]] entries; only the first {MAX_ENTRIES} were read",
            fix="is this the right file? list the parts of one chassis",
        )
        return raw[:MAX_ENTRIES]
    return raw


def _read_pricing(
    r: _Reader, data: dict[str, Any]
) -> tuple[dict[str, float], str | None, str | None]:
    prices: dict[str, float] = {}
    currency = note = None
    pricing = data.get("pricing")
    if isinstance(pricing, dict):
        for key in ("currency", "note"):
            got = pricing.get(key)
            if isinstance(got, str) and not r.controls(f"pricing.{key}", got, key):
                if key == "currency":
                    currency = got
                else:
                    note = got
    items = data.get("line_items")
    if isinstance(items, list):
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            sku, price = item.get("sku"), item.get("unit_price")
            if price is None or not isinstance(sku, str):
                continue
            if r.controls(f"line_items[{i}].sku", sku, "SKU"):
                continue
            if isinstance(price, bool) or not isinstance(price, int | float) or price < 0:
                r.add(
                    "bom.bad_value",
                    f"line_items[{i}].unit_price",
                    f"expected a price >= 0, found {_show(price)}",
                    fix="correct the price; it was not loaded",
                )
                continue
            prices[sku] = float(price)
    return prices, currency, note


def _check_line_items(
    r: _Reader, data: dict[str, Any], build: Build, services: tuple[str, ...] = ()
) -> None:
    items = data.get("line_items")
    if not isinstance(items, list):
        return
    have = [
        (i.get("sku"), i.get("quantity")) for i in items if isinstance(i, dict)
    ]  # what the file says
    want = [(i.sku, i.quantity) for i in line_items(build, r.catalog, services=services)]
    if sorted(map(repr, have)) != sorted(map(repr, want)):
        r.add(
            "bom.line_items_stale",
            "line_items",
            "the line items do not match the parts in the build; they are derived and will be "
            "recomputed from the build when the file is saved",
            fix="edit the build tables (slots, cpu, memory, ...) rather than the line items",
            severity="warning",
        )


def read_bom(path: str | os.PathLike[str], catalog: Catalog) -> LoadedBom:
    """Read and import a BOM file; an unreadable file is a ``bom.unreadable`` problem."""
    name = str(path)
    try:
        text = read_text(path, max_bytes=MAX_BOM_BYTES, what="BOM")
    except InputError as exc:
        why = exc.reason.removeprefix("cannot read the BOM: ")
    else:
        return import_bom(text, catalog, filename=name)
    finding = BomFinding(
        rule="bom.unreadable",
        severity="error",
        message=one_line(f"{shorten_path(name)}: cannot read the BOM: {why}"),
        fix="give the path of a BOM file (a regular file); check the path and permissions",
        file=name,
    )
    return LoadedBom(filename=name, build=None, problems=(finding,))
