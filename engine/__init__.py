"""slotwise engine: pure logic (rules, estimator, plans, documents). Never imports Textual.

The entry points, by what they decide (each loaded on first use, so importing one does not load the
others; see docs/ARCHITECTURE.md for the tree):

* ``evaluate(build, catalog, workload=None) -> Report`` — is the build valid (engine.check)
* ``estimate_workload(...)`` — what a workload needs: memory, time, serving
  (``engine.estimate.estimate``; the package keeps the name ``estimate``)
* ``suggest(...)`` — builds that run a workload (engine.plan.suggest)
* ``compare_builds(...)`` — options side by side (engine.plan.compare)
* ``compute_tco(inputs)`` — total cost of ownership (engine.cost.tco)
* ``import_bom(...)`` / ``export_bom(...)`` — the TOML bill of materials (engine.bom)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_ENTRY_POINTS = {  # name here -> (module, name there)
    "evaluate": ("slotwise.engine.check.evaluate", "evaluate"),
    "estimate_workload": ("slotwise.engine.estimate", "estimate"),
    "suggest": ("slotwise.engine.plan.suggest", "suggest"),
    "compare_builds": ("slotwise.engine.plan.compare", "compare_builds"),
    "compute_tco": ("slotwise.engine.cost.tco", "compute_tco"),
    "import_bom": ("slotwise.engine.bom", "import_bom"),
    "export_bom": ("slotwise.engine.bom", "export_bom"),
}

__all__ = [
    "compare_builds",
    "compute_tco",
    "estimate_workload",
    "evaluate",
    "export_bom",
    "import_bom",
    "suggest",
]

if TYPE_CHECKING:
    from slotwise.engine.bom import export_bom, import_bom
    from slotwise.engine.check.evaluate import evaluate
    from slotwise.engine.cost.tco import compute_tco
    from slotwise.engine.estimate import estimate as estimate_workload
    from slotwise.engine.plan.compare import compare_builds
    from slotwise.engine.plan.suggest import suggest


def __getattr__(name: str) -> Any:
    target = _ENTRY_POINTS.get(name)
    if target is None:
        raise AttributeError(f"module 'slotwise.engine' has no attribute {name!r}")
    module, attr = target
    return getattr(importlib.import_module(module), attr)
