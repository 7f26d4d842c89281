"""Workload values typed as text (CLI flags, the app's workload form) -> a validated Workload.

One parser for both front ends: ``parse_field(name, text)`` turns the text of one field into
its value or raises :class:`WorkloadTextError` naming the field and what to type;
``build_workload(fields, trainer)`` names the trainer profile (engine/workload/trainers.py),
whose default method applies when none is given, and validates the result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from slotwise.engine.workload import (
    LORA_MODULES,
    LORA_TARGET_SETS,
    Workload,
    parse_lora_targets,
)
from slotwise.engine.workload.kinds import parse_count
from slotwise.engine.workload.trainers import (
    TrainerError,
    apply_trainer,
    canonical_name,
    trainer_names,
)

#: Field -> what to type, for messages.
FIELD_HELP: dict[str, str] = {
    "seq_len": "a whole number of tokens, e.g. 4096 or 8k (k = 1,024 tokens)",
    "micro_batch": "a whole number of sequences, e.g. 2",
    "tp": "a whole number, e.g. 8",
    "lora_rank": "a whole number, e.g. 16",
    "longest_sample": "a whole number of tokens (the data set's longest sample, e.g. 6000 or "
    "8k), or blank",
    "lora_targets": f"{', '.join(LORA_TARGET_SETS)} or a comma list of {','.join(LORA_MODULES)}",
    "tokens": "a number with an optional k/M/B/T suffix, e.g. 300B",
    "zero_buckets": "a number of elements with an optional k/M/B suffix, e.g. 400M",
    "target_days": "a number of days, e.g. 7",
    "margin": "a percentage from 0 to 100, e.g. 15 (blank = each estimate's held-out error)",
    "mfu": "a fraction such as 0.4",
    "trainer": "a trainer profile (slotwise trainers), e.g. trl or litgpt@2023",
}


class WorkloadTextError(ValueError):
    """A field's text does not parse; ``field`` names it, the message says what to type."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _whole(text: str) -> int:
    value = int(text.strip().replace("_", "").replace(",", ""))
    if value < 1:
        raise ValueError("must be 1 or more")
    return value


def _tokens(text: str) -> int:
    """A context length: a whole number, or with a ``k`` suffix in the binary sense that model
    cards and configs use for context windows ("8k" = 8,192, "128k" = 131,072 tokens:
    Llama 2's 4k context is ``max_position_embeddings = 4096``)."""
    t = text.strip().replace("_", "").replace(",", "")
    if t[-1:] in ("k", "K"):
        value = float(t[:-1]) * 1024
        if not value.is_integer():
            raise ValueError("not a whole number of tokens")
        if value < 1:
            raise ValueError("must be 1 or more")
        return int(value)
    return _whole(t)


def _positive(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise ValueError("must be greater than 0")
    return value


def _percent(text: str) -> float:
    """A planning margin typed in percent ("15" or "15 %") as a fraction (0.15)."""
    value = float(text.strip().rstrip("%").strip())
    if not 0 <= value <= 100:
        raise ValueError("must be from 0 to 100")
    return value / 100


def _trainer(text: str) -> str:
    try:
        return canonical_name(text)
    except TrainerError:
        names = ", ".join(trainer_names())
        raise ValueError(f"unknown trainer {text!r}; use one of {names}") from None


_PARSERS: dict[str, Callable[[str], Any]] = {
    "seq_len": _tokens,
    "micro_batch": _whole,
    "tp": _whole,
    "lora_rank": _whole,
    "longest_sample": _tokens,
    "lora_targets": parse_lora_targets,
    "tokens": parse_count,
    "zero_buckets": parse_count,
    "target_days": _positive,
    "margin": _percent,
    "mfu": _positive,
    "trainer": _trainer,
}


def parse_field(name: str, text: str) -> Any:
    """The value of workload field ``name`` typed as ``text`` (blank -> None)."""
    text = text.strip()
    if not text:
        return None
    try:
        return _PARSERS[name](text)
    except (ValueError, TypeError):
        raise WorkloadTextError(
            name, f"{text!r} is not valid; type {FIELD_HELP.get(name, 'a valid value')}"
        ) from None


def build_workload(fields: Mapping[str, Any], trainer: str | None = None) -> Workload:
    """The Workload of ``fields`` (None = unset) run by ``trainer`` (None = generic)."""
    given = {k: v for k, v in fields.items() if v is not None}
    try:
        completed = apply_trainer(given, trainer)
    except TrainerError as exc:
        raise WorkloadTextError("trainer", str(exc)) from None
    try:
        return Workload(**completed)
    except TrainerError as exc:
        raise WorkloadTextError("trainer_overrides", str(exc)) from None
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = err.get("loc") or ()
        raise WorkloadTextError(str(loc[0]) if loc else "workload", err["msg"]) from None
