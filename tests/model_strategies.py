"""Hypothesis strategies derived from pydantic models, so a field added to a model is generated
(and round-tripped) without anyone remembering to add it to a test.

:func:`field_strategy` reads a field's annotation: ``Optional`` (None or the inner type),
``Literal`` (its values), ``bool``, ``int`` / ``float`` with their ``Ge`` / ``Gt`` / ``Le`` / ``Lt``
bounds, ``str`` with its ``max_length``, and ``tuple[X, ...]``. A field whose type it cannot read
raises :class:`Underivable` naming it, so a test fails instead of silently skipping the field;
``overrides`` give a strategy for such fields (or for values the model's validators narrow).
"""

from __future__ import annotations

import math
import types
import typing
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types as at
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError


class Underivable(TypeError):
    """A field's type has no derived strategy: give one in ``overrides``."""


def _bounds(metadata: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for m in metadata:
        for name in ("ge", "gt", "le", "lt", "max_length", "min_length"):
            v = getattr(m, name, None)
            if v is not None:
                out[name] = v
        if isinstance(m, at.Interval):
            out.update({k: v for k, v in vars(m).items() if v is not None})
    return out


def _numbers(kind: type, b: dict[str, Any]) -> st.SearchStrategy[Any]:
    lo = b.get("ge", b.get("gt"))
    hi = b.get("le", b.get("lt"))
    if kind is int:
        lo_i = None if lo is None else math.ceil(lo) + (1 if "gt" in b else 0)
        hi_i = None if hi is None else math.floor(hi) - (1 if "lt" in b else 0)
        return st.integers(
            lo_i if lo_i is not None else -(2**31), hi_i if hi_i is not None else 2**31
        )
    return st.floats(
        min_value=lo,
        max_value=hi,
        exclude_min="gt" in b,
        exclude_max="lt" in b,
        allow_nan=False,
        allow_infinity=False,
    )


def _from_type(tp: Any, metadata: list[Any], where: str) -> st.SearchStrategy[Any]:
    origin = get_origin(tp)
    if origin is Annotated:
        inner, *extra = get_args(tp)
        meta = list(metadata)
        for e in extra:
            meta += list(getattr(e, "metadata", []) or []) + [e]
        return _from_type(inner, meta, where)
    if origin in (Union, types.UnionType):
        return st.one_of(*(_from_type(a, metadata, where) for a in get_args(tp)))
    if tp is type(None):
        return st.none()
    if origin is Literal:
        return st.sampled_from(get_args(tp))
    if tp is bool:
        return st.booleans()
    if tp in (int, float):
        return _numbers(tp, _bounds(metadata))
    if tp is str:
        b = _bounds(metadata)
        return st.text(
            alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
            min_size=b.get("min_length", 0),
            max_size=min(b.get("max_length", 30), 30),
        )
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(_from_type(args[0], [], where), max_size=5).map(tuple)
    raise Underivable(f"{where}: no derived strategy for {tp!r}; give one in overrides")


def field_strategy(model: type[BaseModel], name: str) -> st.SearchStrategy[Any]:
    info = model.model_fields[name]
    return _from_type(info.annotation, list(info.metadata), f"{model.__name__}.{name}")


@st.composite
def instances(
    draw: st.DrawFn,
    model: type[BaseModel],
    overrides: typing.Mapping[str, st.SearchStrategy[Any]],
    base: typing.Mapping[str, Any] | None = None,
) -> Any:
    """An instance of ``model`` with every field drawn (from ``overrides`` or derived). A value
    the model's own validators refuse in combination with those before it keeps its default, so
    the draw never fails but every field is tried."""
    values: dict[str, Any] = dict(base or {})
    for name in model.model_fields:
        if name in values:
            continue
        strategy = overrides[name] if name in overrides else field_strategy(model, name)
        value = draw(strategy)
        try:
            model.model_validate({**values, name: value})
        except ValidationError:
            continue
        values[name] = value
    return model.model_validate(values)
