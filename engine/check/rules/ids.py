"""Every rule id the engine emits, with what it checks, gathered from where each is defined.

Each rule module declares its family's ids (``FAMILY``, :class:`engine.check.rules.family.RuleFamily`);
the two ids below belong to ``evaluate()`` itself.  Ids are stable: the CLI's JSON, saved reports
and the UI key on them.  tests/engine/check/test_evaluate_rule_ids.py checks the declarations against the code.
"""

from __future__ import annotations

from slotwise.engine.check.rules import (
    boot,
    cooling,
    lanes,
    memory,
    network,
    nvlink,
    platform,
    power,
    slots,
    storage,
    workload_fit,
)
from slotwise.engine.check.rules.family import RuleFamily

#: The rule id of a finding that says a rule family or the estimator failed internally.
INTERNAL_RULE = "engine.internal"

#: Ids that ``evaluate()`` emits itself (before or around the rule families).
EVALUATE_RULES: dict[str, str] = {
    "slots.unknown_chassis": "chassis SKU not in the catalog",
    INTERNAL_RULE: "a rule failed on this build (a bug): the report is incomplete",
}

#: Every rule module (its ``FAMILY`` and its ``check``), in the order it is listed for
#: evaluation (engine.check.evaluate derives the order it runs them in from this and their declared
#: dependencies).
RULE_MODULES = (
    platform,
    slots,
    lanes,
    nvlink,
    memory,
    power,
    cooling,
    storage,
    boot,
    workload_fit,
    network,
)
RULE_FAMILIES: tuple[RuleFamily, ...] = tuple(m.FAMILY for m in RULE_MODULES)

RULES: dict[str, str] = {
    **{rid: what for fam in RULE_FAMILIES for rid, what in fam.rules.items()},
    **EVALUATE_RULES,
}
