"""Small helpers shared by the rule families: building findings, wording numbers."""

from __future__ import annotations

from collections.abc import Iterable

from slotwise.engine.check.report import Finding, Severity


def finding(
    rule: str,
    severity: Severity,
    message: str,
    *,
    parts: Iterable[str] = (),
    slots: Iterable[str] = (),
    fix: str | None = None,
    edit: Iterable = (),
) -> Finding:
    return Finding(
        rule=rule,
        severity=severity,
        message=message,
        parts=tuple(dict.fromkeys(parts)),
        slots=tuple(slots),
        fix=fix,
        edit=tuple(edit),
    )


def slot_list(slots: Iterable[str]) -> str:
    items = list(slots)
    if not items:
        return "no slot"
    if len(items) == 1:
        return f"slot {items[0]}"
    return "slots " + ", ".join(items)


def watts(w: float) -> str:
    return f"{w:,.0f} W"


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"
