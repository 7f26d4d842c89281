"""Bills of materials: a build as a versioned, diff-friendly TOML file (the saved build's truth).

API::

    text = export_bom(build, catalog, meta, report=None, prices=None, currency=None,
                      price_note=None)
    loaded = import_bom(text, catalog, filename="x.toml")   # LoadedBom(build, meta, problems, ...)
    loaded = read_bom(path, catalog)                         # never raises on a bad file
    write_bom(path, text, force=False)                       # atomic; BomExistsError if it exists

``export -> import -> export`` gives identical bytes: keys are written in one fixed order, the
build's slots / bridges / drives in canonical order (:func:`engine.bom.items.canonical_build`),
floats with Python's shortest round-trip ``repr``.  ``export_bom`` never reads the clock: give
it a :class:`BomMeta` (``BomMeta.new(clock=...)`` / ``meta.touched(clock)`` set the times).

Layout (schema 1)::

    schema = 1
    [meta]          customer, project, engineer, created, updated (ISO 8601 UTC),
                    slotwise_version, catalog_version (the tool and catalog that wrote [summary]),
                    quote_date, valid_until (YYYY-MM-DD, optional), notes (optional free text)
    [chassis]       sku, description
    [environment]   input_voltage, ambient_c, redundancy, ... (engine.build.Environment fields)
    [cpu] [memory] [psu]   sku, count          [baseboard]  sku
    [slots]         "<slot id>" = "<GPU or NIC SKU>", in the chassis manual's slot order
    [[bridges]]     sku, slots = [..], count    [[drives]]  bay, sku, count
    [workload]      engine.workload.Workload fields (unset ones left out); ``trainer`` names
                    the trainer profile, [workload.trainer_overrides] its overridden fields
                    (a file with the older per-field trainer knobs, or ``recipe``, still
                    loads: they become trainer_overrides / trainer)
    [pricing]       currency, total, unpriced, note (e.g. "example prices, not a quote")
    [[line_items]]  sku, part_number ("PN needed" where no public source gives one; "included"
                    for a part built into the chassis), part_number_vendor / _confidence,
                    maker_part_number, description, quantity, unit_power_w, total_power_w,
                    unit_price, extended_price
    [summary]       errors, warnings, infos, GPUs, power, heat, [[summary.budgets]],
                    [[summary.findings]], [summary.workload]

``[line_items]``, ``[pricing]`` and ``[summary]`` are derived: on import they are not trusted
(only the unit prices are kept, so a re-export does not lose them) and they are recomputed on
export.  Everything else is what the user chose.

Bad files never raise and never lose data.  ``import_bom`` loads whatever it can and lists each
problem as a :class:`BomFinding` (an ``engine.check.report.Finding`` with ``file``, ``line``, ``field``),
severity error unless noted, rule ids:

==========================  =====================================================================
``bom.unreadable``          the file cannot be read (missing, permissions, not UTF-8, not a regular
                            file such as a FIFO or /dev/zero, over ``MAX_BOM_BYTES``)
``bom.malformed``           not valid TOML (line and column from tomllib), nested deeper than
                            ``safe_io.MAX_DEPTH``, or a number too long to read; nothing is loaded
``bom.schema_newer``        ``schema`` is newer than this slotwise reads; loaded as far as possible
``bom.missing_field``       a required field is absent (``schema``, ``chassis.sku``, ...)
``bom.bad_value``           a value has the wrong type or range (the value is quoted)
``bom.unknown_field``       a key this schema does not know (typo?) - it would be dropped on save
``bom.unknown_sku``         a SKU not in the catalog (kept in the build, so nothing is lost)
``bom.wrong_kind``          a SKU of the wrong kind for where it sits (a CPU in a GPU slot)
``bom.unknown_slot``        a card or bridge in a slot the chassis does not have (kept)
``bom.unknown_bay``         drives in a bay the chassis does not have (kept; with no bay layout
                            in the catalog any bay is taken and the storage rule says so)
``bom.line_items_stale``    warning: hand-edited line items disagree with the build
``bom.config_outside``      ``workload.config`` names a file outside the BOM's folder (absolute,
                            ``~``, ``..`` or a link out): not read (engine.bom.config_path)
==========================  =====================================================================
"""

from __future__ import annotations

import difflib
import importlib.metadata
import os
import re
import tomllib
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from slotwise.engine.bom.config_path import exported_message, place_config
from slotwise.engine.bom.items import canonical_build, gpu_inventory, line_items
from slotwise.engine.bom.locate import KeyLocator
from slotwise.engine.bom.meta import BomMeta
from slotwise.engine.bom.toml_writer import dumps as toml_dumps
from slotwise.engine.bom.workload_snapshot import self_contained
from slotwise.engine.build import MAX_SKU_CHARS, BridgeFit, Build, DriveFit, Environment, Sku
from slotwise.engine.check.report import Finding, Report
from slotwise.engine.check.rules.cooling import BTU_PER_W
from slotwise.engine.inputs import plain, ref
from slotwise.engine.store.atomic import atomic_write_text
from slotwise.engine.workload import Workload
from slotwise.parts.bounds import PositivePartCount
from slotwise.parts.catalog import Catalog
from slotwise.parts.plain_text import first_control, one_line, visible
from slotwise.parts.safe_io import (
    MAX_FILE_BYTES,
    InputError,
    loads_toml,
    read_text,
    shorten,
    shorten_path,
    shorten_text,
)
from slotwise.parts.schema import Chassis

SCHEMA_VERSION = 1
HEADER = (
    "# slotwise bill of materials. Edit freely; [line_items], [pricing] and [summary] are\n"
    "# recomputed from the build on every save. Check it: slotwise validate FILE\n"
)


TOP_KEYS = (
    "schema",
    "meta",
    "chassis",
    "environment",
    "cpu",
    "memory",
    "psu",
    "baseboard",
    "slots",
    "bridges",
    "drives",
    "workload",
    "pricing",
    "line_items",
    "summary",
)
#: A BOM is ~20 kB; the cap only stops a wrong file (a disk image, /dev/zero) from filling memory.
MAX_BOM_BYTES = MAX_FILE_BYTES
MAX_SLOT_CHARS = 64
#: Entries read from [slots], [[bridges]] and [[drives]]: the largest chassis has ~30 slots and
#: bays; a file with more lists is not a build (60,000 bogus slots took the app a minute and
#: ~1 GB).  The rest is one finding, not one per entry.
MAX_ENTRIES = 256
#: A problem's message is cut here (it quotes values, which are shortened already).
MAX_MESSAGE = 2000
COUNTED = {"cpu": ("cpu", "CPU"), "memory": ("dimm", "DIMM"), "psu": ("psu", "PSU")}
BAD_INPUT_PREFIX = "bom."


class BomFinding(Finding):
    """A problem with the BOM file itself, located in the file."""

    file: str = ""
    line: int | None = None
    field: str | None = None


class BomExistsError(FileExistsError):
    """``write_bom`` refused to overwrite an existing file (message says to use --force)."""


class LoadedBom(BaseModel):
    """What :func:`import_bom` could load.  ``build`` is None only when there is no usable
    chassis (or no TOML at all); ``problems`` lists everything that was wrong."""

    model_config = ConfigDict(frozen=True)

    filename: str
    build: Build | None
    meta: BomMeta = BomMeta()
    problems: tuple[BomFinding, ...] = ()
    prices: dict[str, float] = Field(default_factory=dict)
    currency: str | None = None
    price_note: str | None = None
    schema_version: int | None = None
    #: The file's ``workload.config`` when the path policy refused it (engine.bom.config_path:
    #: absolute, ``~`` or out of the BOM's folder); the build was loaded without it.  The app
    #: asks whether to read it; on the command line the user gives the config instead.
    refused_config: str | None = None

    @property
    def errors(self) -> list[BomFinding]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def ok(self) -> bool:
        """True when the file loaded faithfully (no errors; warnings allowed)."""
        return self.build is not None and not self.errors


# ==================================================================================== export


def _tool_version() -> str:
    try:
        return importlib.metadata.version("slotwise")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - not installed
        return "unknown"


def _iso(dt: datetime | None) -> str | None:
    return None if dt is None else dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def _num(x: float | int | None) -> float | int | None:
    """Derived figures: integral floats as ints, others to 3 decimals (stable bytes)."""
    if x is None:
        return None
    if isinstance(x, bool):
        return x
    if isinstance(x, float):
        if x != x or x in (float("inf"), float("-inf")):
            return None
        r = round(x, 3)
        return int(r) if r.is_integer() and abs(r) < 2**53 else r
    return x


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def _model_table(model: BaseModel) -> dict[str, Any]:
    """A model's fields in declaration order, unset (None) ones, empty tables and fields that
    are not part of the document (``exclude=True``) left out, tuples as lists."""
    out: dict[str, Any] = {}
    for name, info in type(model).model_fields.items():
        v = getattr(model, name)
        if v is None or info.exclude or (isinstance(v, dict) and not v):
            continue
        if isinstance(v, tuple):
            v = list(v)
        elif isinstance(v, dict):
            v = {k: v[k] for k in sorted(v)}
        out[name] = v
    return out


def _summary(build: Build, catalog: Catalog, report: Report) -> dict[str, Any]:
    n_gpus, gpu_mem = gpu_inventory(build, catalog)
    s: dict[str, Any] = {
        "errors": report.errors,
        "warnings": report.warnings,
        "infos": sum(1 for f in report.findings if f.severity == "info"),
        "gpus": n_gpus,
        "gpu_memory_total_gb": _num(float(gpu_mem)),
    }
    power = report.budget("power")
    if power is not None:
        s["power_w"] = _num(power.used)
        s["power_available_w"] = _num(power.available)
    if report.power is not None:
        s["power_wall_w"] = _num(report.power.worst_ac_w)
        s["power_typical_w"] = _num(report.power.typical_ac_w)
        s["power_verified"] = report.power.verified
    heat = report.budget("heat")
    if heat is not None:
        s["heat_w"] = _num(heat.used)
        s["heat_btu_h"] = _num(heat.used * BTU_PER_W)
    s = _drop_none(s)
    est = report.estimate
    if est is not None:
        wl = {
            "fits": est.fits,
            "min_gpus": est.min_gpus,
            "memory_per_gpu_bytes": _num(est.memory_per_gpu.total_bytes),
            "train_hours": _num(est.train_hours),
            "decode_tokens_per_s": _num(est.decode_tokens_per_s),
        }
        s["workload"] = _drop_none(wl)
    if report.budgets:
        s["budgets"] = [
            _drop_none(
                {
                    "name": b.name,
                    "used": _num(b.used),
                    "available": _num(b.available),
                    "unit": b.unit,
                }
            )
            for b in report.budgets
        ]
    if report.findings:
        s["findings"] = [
            _drop_none(
                {
                    "severity": f.severity,
                    "rule": f.rule,
                    "message": plain(exported_message(f.rule, f.message)),
                    "fix": None if f.fix is None else plain(f.fix),
                }
            )
            for f in report.findings
        ]
    return s


def _evaluate(build: Build, catalog: Catalog) -> Report:
    from slotwise.engine.check.evaluate import (
        evaluate,  # late import: evaluate pulls in every rule module
    )

    return evaluate(build, catalog)


def bom_document(
    build: Build,
    catalog: Catalog,
    meta: BomMeta,
    report: Report | None = None,
    prices: Mapping[str, float] | None = None,
    currency: str | None = None,
    price_note: str | None = None,
) -> dict[str, Any]:
    """The BOM as ordered plain data (what ``export_bom`` serialises)."""
    build = canonical_build(build, catalog)
    if report is None:
        report = _evaluate(build, catalog)
    doc: dict[str, Any] = {"schema": SCHEMA_VERSION}
    doc["meta"] = _drop_none(
        {
            "customer": meta.customer,
            "project": meta.project,
            "engineer": meta.engineer,
            "created": _iso(meta.created),
            "updated": _iso(meta.updated),
            "slotwise_version": _tool_version(),
            "catalog_version": catalog.version,
            "quote_date": None if meta.quote_date is None else meta.quote_date.isoformat(),
            "valid_until": None if meta.valid_until is None else meta.valid_until.isoformat(),
            "notes": meta.notes or None,
        }
    )
    ch = catalog.get(build.chassis)
    doc["chassis"] = _drop_none(
        {"sku": build.chassis, "description": ch.name if ch is not None else None}
    )
    doc["environment"] = _model_table(build.env)
    for table, (attr, _) in COUNTED.items():
        sku = getattr(build, attr)
        if sku:
            doc[table] = {"sku": sku, "count": getattr(build, f"{attr}_count")}
    if build.baseboard:
        doc["baseboard"] = {"sku": build.baseboard}
    if build.slots:
        doc["slots"] = dict(build.slots)
    if build.bridges:
        doc["bridges"] = [
            {"sku": b.sku, "slots": list(b.slots), "count": b.count} for b in build.bridges
        ]
    if build.drives:
        doc["drives"] = [{"bay": d.bay, "sku": d.sku, "count": d.count} for d in build.drives]
    if build.workload is not None:
        # a config.json path or Hub id is stored as its architecture fields: the file answers
        # the same on a machine without that path (engine.bom.workload_snapshot)
        doc["workload"] = _model_table(self_contained(build.workload))
    items = line_items(build, catalog, prices)
    priced = [i.extended_price for i in items if i.extended_price is not None]
    if priced or currency or price_note:
        doc["pricing"] = _drop_none(
            {
                "currency": currency,
                "total": round(sum(priced), 2) if priced else None,
                "unpriced": [i.sku for i in items if i.unit_price is None] or None,
                "note": price_note or None,
            }
        )
    doc["line_items"] = [
        _drop_none(
            {
                "sku": i.sku,
                "part_number": i.pn_cell,
                "part_number_vendor": i.part_number_vendor,
                "part_number_confidence": i.part_number_confidence,
                "maker_part_number": i.maker_part_number,
                "description": i.description,
                "quantity": i.quantity,
                "unit_power_w": _num(i.unit_power_w),
                "total_power_w": _num(i.total_power_w),
                # an on-board part's 0 is "included with the chassis", not a price to keep
                "unit_price": None if i.included else i.unit_price,
                "extended_price": None if i.included else i.extended_price,
            }
        )
        for i in items
    ]
    doc["summary"] = _summary(build, catalog, report)
    return doc


def export_bom(
    build: Build,
    catalog: Catalog,
    meta: BomMeta,
    report: Report | None = None,
    prices: Mapping[str, float] | None = None,
    currency: str | None = None,
    price_note: str | None = None,
) -> str:
    """The canonical TOML text of a BOM.  ``report`` defaults to ``evaluate(build, catalog)``.

    ``prices`` (unit price by SKU) and ``currency`` fill the line items; ``price_note`` says
    where they come from or that they are examples, and is kept in ``[pricing] note``."""
    doc = bom_document(build, catalog, meta, report, prices, currency, price_note)
    return HEADER + "\n" + toml_dumps(doc)


def write_bom(path: str | os.PathLike[str], text: str, force: bool = False) -> Path:
    """Write atomically.  An existing file is only replaced with ``force``."""
    p = Path(path)
    try:
        return atomic_write_text(p, text, overwrite=force)
    except FileExistsError:
        raise BomExistsError(f"{p} already exists; use {ref('force')} to overwrite it") from None


# ==================================================================================== import


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
            _check_line_items(r, data, build)

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


def _check_line_items(r: _Reader, data: dict[str, Any], build: Build) -> None:
    items = data.get("line_items")
    if not isinstance(items, list):
        return
    have = [
        (i.get("sku"), i.get("quantity")) for i in items if isinstance(i, dict)
    ]  # what the file says
    want = [(i.sku, i.quantity) for i in line_items(build, r.catalog)]
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
