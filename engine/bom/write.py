"""Writing a BOM: the canonical TOML text of a build (``export_bom``) and the atomic file write
(``write_bom``).  The format is described in :mod:`engine.bom.schema`."""

from __future__ import annotations

import importlib.metadata
import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from slotwise.engine.bom.config_path import exported_message
from slotwise.engine.bom.meta import BomMeta
from slotwise.engine.bom.schema import COUNTED, HEADER, SCHEMA_VERSION, BomExistsError
from slotwise.engine.bom.toml_writer import dumps as toml_dumps
from slotwise.engine.bom.workload_snapshot import self_contained
from slotwise.engine.build import Build
from slotwise.engine.build.items import canonical_build, gpu_inventory, line_items
from slotwise.engine.check.report import Report
from slotwise.engine.check.rules.cooling import BTU_PER_W
from slotwise.engine.inputs import plain, ref
from slotwise.engine.store.atomic import atomic_write_text
from slotwise.parts.catalog import Catalog


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
            "services": list(meta.services) or None,
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
    items = line_items(build, catalog, prices, meta.services)
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
                "power_note": i.power_cell,
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
