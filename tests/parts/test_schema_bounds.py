"""Every number in the catalog, the build and the workload is bounded (issue #15): finite, never a
bool or a string, inside a documented physical range; and the bundled catalog sits inside.

The first two tests are a gate for new fields: a numeric field added without a range (or with
a bare ``int``/``float`` that accepts ``true`` and ``inf``) fails here, naming the field; use
a type from parts/bounds.py."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from slotwise.engine.build import Build
from slotwise.engine.cost.pricing import PriceEntry
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import load_catalog
from slotwise.parts.schema import MODEL_BY_KIND

CAT = load_catalog()
MODELS: list[type[BaseModel]] = [*MODEL_BY_KIND.values(), Workload, Build, PriceEntry]


def _numeric_properties(model: type[BaseModel]):
    """(schema name, field, property schema) for every int/float property, nested ones too."""
    schema = model.model_json_schema()
    defs = schema.get("$defs", {})
    for name, sch in [(model.__name__, schema), *defs.items()]:
        for field, prop in sch.get("properties", {}).items():
            options = prop.get("anyOf", [prop])
            for opt in options:
                if opt.get("type") in ("integer", "number"):
                    yield name, field, opt
                elif opt.get("type") == "array":
                    items = opt.get("items", {})
                    for it in items.get("prefixItems", []) + [items]:
                        if it.get("type") in ("integer", "number"):
                            yield name, f"{field}[]", it


def test_every_numeric_field_has_a_documented_range():
    unbounded = []
    for model in MODELS:
        for name, field, prop in _numeric_properties(model):
            low = {"minimum", "exclusiveMinimum", "ge", "gt"} & set(prop)
            high = {"maximum", "exclusiveMaximum", "le", "lt"} & set(prop)
            if not (low and high) and "enum" not in prop:
                unbounded.append(f"{name}.{field}")
    # Literal[2, 4] style enums are bounded by their choices.
    assert not unbounded, "numeric fields without a range (use parts/bounds.py): " + ", ".join(
        sorted(set(unbounded))
    )


def _numeric_fields(model: type[BaseModel]) -> list[str]:
    schema = model.model_json_schema()
    out = []
    for field, prop in schema.get("properties", {}).items():
        if any(o.get("type") in ("integer", "number") for o in prop.get("anyOf", [prop])):
            out.append(field)
    return out


def _base(kind: str) -> dict[str, Any]:
    rec = next(r for r in sorted(CAT, key=lambda r: r.sku) if r.kind == kind)
    return rec.model_dump(mode="python")


BASES: list[tuple[str, type[BaseModel], dict[str, Any]]] = [
    (kind, cls, _base(kind)) for kind, cls in MODEL_BY_KIND.items()
] + [("workload", Workload, {"model": "llama-3.1-8b"})]


@pytest.mark.parametrize("kind,cls,base", BASES, ids=[b[0] for b in BASES])
def test_bool_string_inf_nan_and_huge_are_refused_for_every_number(kind, cls, base):
    fields = _numeric_fields(cls)
    assert fields, kind
    for field in fields:
        for bad in (True, False, "8", math.inf, -math.inf, math.nan, 10**400, -(10**400)):
            with pytest.raises(ValidationError) as info:
                cls.model_validate({**base, field: bad})
            assert field in str(info.value), (kind, field, bad)


@pytest.mark.parametrize("kind,cls,base", BASES, ids=[b[0] for b in BASES])
@settings(max_examples=30, deadline=None)
@given(
    value=st.one_of(
        st.integers(min_value=-(10**30), max_value=10**30),
        st.floats(allow_nan=True, allow_infinity=True),
        st.booleans(),
        st.text(max_size=5),
        st.none(),
    ),
    data=st.data(),
)
def test_any_value_is_either_refused_or_finite_and_in_range(kind, cls, base, value, data):
    fields = _numeric_fields(cls)
    field = data.draw(st.sampled_from(fields))
    try:
        got = getattr(cls.model_validate({**base, field: value}), field)
    except ValidationError:
        return
    if got is None:
        return
    assert not isinstance(got, bool) and isinstance(got, int | float)
    assert math.isfinite(got)
    prop = next(
        o
        for o in cls.model_json_schema()["properties"][field].get(
            "anyOf", [cls.model_json_schema()["properties"][field]]
        )
        if o.get("type") in ("integer", "number")
    )
    if "maximum" in prop:
        assert got <= prop["maximum"]
    if "minimum" in prop:
        assert got >= prop["minimum"]
    if "exclusiveMinimum" in prop:
        assert got > prop["exclusiveMinimum"]


def test_bundled_catalog_sits_inside_the_ranges():
    # load_catalog() validated every record already; this re-validates each one from its own
    # dump so a range narrowed later fails here naming the record.
    for rec in CAT:
        type(rec).model_validate(rec.model_dump(mode="python"))


def test_ranges_are_described_in_the_schema():
    psu = MODEL_BY_KIND["psu"].model_json_schema()["properties"]["watts_high_line"]
    assert psu["minimum"] == 1 and psu["maximum"] == 20_000
    mem = MODEL_BY_KIND["gpu"].model_json_schema()["properties"]["memory_gb"]
    # a realistic floor, not just > 0: 1e-300 GB gave "usable -0.50 GiB" (issue #29)
    assert mem["minimum"] == 1 and mem["maximum"] == 4096
    assert "GB; >= 1 and <= 4096: one GPU's memory" in mem["description"]
