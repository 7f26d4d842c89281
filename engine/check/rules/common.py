"""Small helpers shared by the rule families: building findings, wording numbers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from slotwise.engine.check.report import Budget, Finding, Severity

# evaluate() builds a few dozen findings and budgets per call (the UI re-runs it on every edit).
# Validating the fields as a dict is the validation ``Finding(**fields)`` runs and gives the same
# object, without BaseModel.__init__'s keyword frame around it.
_validate_finding = Finding.__pydantic_validator__.validate_python
_validate_budget = Budget.__pydantic_validator__.validate_python


def budget(**fields: Any) -> Budget:
    """``Budget(**fields)``, validated the same way (see above)."""
    b: Budget = _validate_budget(fields)
    return b


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
    f: Finding = _validate_finding(
        {
            "rule": rule,
            "severity": severity,
            "message": message,
            # one part or none needs no de-duplication (most findings name one)
            "parts": parts
            if type(parts) is tuple and len(parts) < 2
            else tuple(dict.fromkeys(parts)),
            "slots": tuple(slots),
            "fix": fix,
            "edit": tuple(edit),
        }
    )
    return f


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
