"""A rule family declares itself where it is defined: its stable rule ids (with what each
checks) and the families whose results it reads, so they must run first.

``evaluate`` runs the families in :func:`evaluation_order`: the order they are listed in (which
is also the order of their budgets in the report), moved only as far as a declared dependency
needs.  tests/engine/check/test_evaluate_rule_ids.py checks the declarations against the code: every id a
module emits is one it declares, every declared id is emitted, and a family that reads a
context field another family writes declares it runs after that family.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RuleFamily:
    """One rule module's declaration: ``name`` (the id prefix), ``rules`` (id -> what it
    checks) and ``after`` (families it reads results of)."""

    name: str
    rules: Mapping[str, str] = field(default_factory=dict)
    after: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        wrong = [r for r in self.rules if not r.startswith(f"{self.name}.")]
        if wrong:
            raise ValueError(f"rule family {self.name}: ids outside the family: {wrong}")


def evaluation_order(families: Sequence[RuleFamily]) -> tuple[RuleFamily, ...]:
    """``families`` in listed order, except that each comes after the families it declares in
    ``after`` (a stable topological order).  ValueError for an unknown name or a cycle."""
    by_name = {f.name: f for f in families}
    for f in families:
        unknown = [a for a in f.after if a not in by_name]
        if unknown:
            raise ValueError(f"rule family {f.name} runs after unknown families {unknown}")
    done: dict[str, RuleFamily] = {}
    visiting: set[str] = set()

    def visit(f: RuleFamily) -> None:
        if f.name in done:
            return
        if f.name in visiting:
            raise ValueError(f"rule families depend on each other in a cycle at {f.name}")
        visiting.add(f.name)
        for name in f.after:
            visit(by_name[name])
        visiting.discard(f.name)
        done[f.name] = f

    for f in families:
        visit(f)
    return tuple(done.values())
