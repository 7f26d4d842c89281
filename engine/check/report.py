"""What the engine says about a build: findings (with fixes) and budgets."""

from __future__ import annotations

from itertools import chain
from operator import attrgetter
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from slotwise.engine.build.edits import EditOp
from slotwise.engine.check.verdict import Verdict
from slotwise.engine.estimate import Estimate

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "info": 2}


class Finding(BaseModel):
    """One thing the engine found. ``rule`` is a stable id like ``power.redundancy``."""

    model_config = ConfigDict(frozen=True)

    rule: str
    severity: Severity
    message: str
    parts: tuple[str, ...] = ()
    slots: tuple[str, ...] = ()
    fix: str | None = Field(None, description="what to do, in words")
    edit: tuple[EditOp, ...] = Field((), description="the fix as edits the UI can apply")


class Budget(BaseModel):
    """A used/available figure: lanes per root, watts, BTU/h, GPU memory, hours..."""

    model_config = ConfigDict(frozen=True)

    name: str
    used: float
    available: float | None
    unit: str
    group: str = ""
    detail: str = ""
    # Optional stacked breakdown of `used`, e.g. weights / optimizer / activations / KV cache.
    parts: tuple[tuple[str, float], ...] = ()

    @property
    def over(self) -> bool:
        return self.available is not None and self.used > self.available

    @property
    def ratio(self) -> float | None:
        if not self.available:
            return None
        return self.used / self.available


class PowerFigures(BaseModel):
    """Worst-case and typical draw of one server, DC (what the PSUs deliver) and AC (at the
    wall), with what is derived and whether every figure was known."""

    model_config = ConfigDict(frozen=True)

    worst_dc_w: float
    worst_ac_w: float
    typical_ac_w: float
    typical_mode: str
    typical_basis: str
    efficiency: float = Field(description="PSU efficiency at the worst-case load point")
    efficiency_basis: str
    derived_w: float = Field(0.0, description="watts that come from derived (tier C) figures")
    derived: tuple[str, ...] = ()
    could_move_pct: float = Field(description="how far the total could move, +/- percent")
    verified: bool = Field(description="False: a figure or rating is unknown: not verified")
    not_verified: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {
            "worst_case_dc_w": round(self.worst_dc_w, 1),
            "worst_case_ac_w": round(self.worst_ac_w, 1),
            "typical_ac_w": round(self.typical_ac_w, 1),
            "typical_mode": self.typical_mode,
            "typical_basis": self.typical_basis,
            "psu_efficiency": round(self.efficiency, 4),
            "psu_efficiency_basis": self.efficiency_basis,
            "derived_w": round(self.derived_w, 1),
            "derived": list(self.derived),
            "could_move_pct": round(self.could_move_pct, 1),
            "verified": self.verified,
            "not_verified": list(self.not_verified),
        }


class Report(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    findings: tuple[Finding, ...] = ()
    budgets: tuple[Budget, ...] = ()
    # The estimator's result when the build has a workload, else None.
    estimate: Estimate | None = None
    # What the estimate means for this build (fits, training against the target), decided once
    # here; the CLI, the app and the Markdown export only word it.  None without an estimate.
    verdict: Verdict | None = None
    # Worst-case / typical draw at the wall (engine.check.rules.power), None before a chassis is known.
    power: PowerFigures | None = None

    def of(self, severity: Severity) -> list[Finding]:
        return [f for f in self.findings if f.severity == severity]

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == "warning")

    def rules(self) -> set[str]:
        return {f.rule for f in self.findings}

    def budget(self, name: str) -> Budget | None:
        return next((b for b in self.budgets if b.name == name), None)

    @property
    def wall_power_w(self) -> float | None:
        """The node's power: its worst-case draw at the wall (AC, PSU losses included), else the
        power budget's figure when the report has no wall figures (an injected evaluator).  The
        one node power that clusters, suggestions, comparisons and TCO use."""
        if self.power is not None:
            return self.power.worst_ac_w
        b = self.budget("power")
        return b.used if b is not None else None


def sort_findings(findings: list[Finding]) -> tuple[Finding, ...]:
    """By severity (errors first), then rule id, then slots; equal keys keep their order.

    Sorted by (rule, slots) with the keys read in C, then split by severity in one pass: the
    same order as one sort on (severity, rule, slots), both being stable."""
    by_severity: dict[str, list[Finding]] = {s: [] for s in _SEVERITIES}
    for f in sorted(findings, key=_RULE_SLOTS):
        by_severity[f.severity].append(f)
    return tuple(chain.from_iterable(by_severity.values()))


_RULE_SLOTS = attrgetter("rule", "slots")
_SEVERITIES = sorted(SEVERITY_ORDER, key=SEVERITY_ORDER.__getitem__)
