"""What the layout snapshots render: a fixed fixture catalog and a frozen engine answer.

The layout snapshots (tests/tui/test_layout_snapshots.py) check how the app lays out a report,
not what the engine decides, so an engine change (a rule's wording, a memory or time figure)
must not alter them.  They render

* a build on the synthetic catalog of ``tests/fixtures_catalog`` (never the bundled data,
  which keeps changing as parts are added), and
* a frozen ``Report`` and ``Comparison`` read from ``tests/fixtures/layout_*.json``, handed to
  the app at its engine boundary: ``SlotwiseApp(evaluate=...)`` (every report the app shows
  comes from that callable) and the compare screen's ``comparison_for``.

The JSON files were written by the engine from ``layout_build()`` once; they change only when
the report's *shape* changes (a field added or renamed), never with an engine number.  To
rewrite them after such a change, from the repository root::

    python -m tests.tui.layout

then review the JSON diff and regenerate the layout snapshots
(``pytest -n 0 tests/tui/test_layout_snapshots.py --snapshot-update``).  What the real engine
says on the real catalog stays covered by the end-to-end snapshots
(tests/tui/test_e2e_snapshots.py) and by the engine's own tests.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

from slotwise.engine.build import Build
from slotwise.engine.check.report import Report
from slotwise.engine.plan.compare import Comparison
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import Catalog
from tests.fixtures_catalog.helpers import base_build, fixture_catalog

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REPORT_JSON = FIXTURES / "layout_report.json"
COMPARISON_JSON = FIXTURES / "layout_comparison.json"

#: A training workload, so the report carries an estimate, a verdict and time budgets.
LAYOUT_WORKLOAD = Workload(model="llama-3.1-70b", method="lora", tokens=2e9, target_days=7)
#: A GPU slot of FIX-PCIE-10 that ``layout_build`` leaves empty (the picker shot opens it).
FREE_GPU_SLOT = "3"


def layout_catalog() -> Catalog:
    return fixture_catalog()


def layout_build(workload: Workload | None = LAYOUT_WORKLOAD) -> Build:
    """4 bridged H200 NVL in FIX-PCIE-10 with 2 PSUs (a power error), 12 DIMMs (an unbalanced
    memory warning) and switch-shared lanes (an info): one finding of each severity."""
    return base_build(psu_count=2, dimm_count=12, workload=workload)


def layout_options() -> tuple[list[str], list[Build]]:
    """The two options ``pin_two_options`` makes: the layout build as it is (2 PSUs), and the
    copy being edited with every PSU bay filled."""
    b = layout_build()
    bays = layout_catalog().chassis[b.chassis].psu_bays
    return ["Option A", "Option B (editing)"], [b, b.with_(psu_count=bays)]


async def pin_two_options(pilot) -> None:
    """Pin the open build as option A, fill the PSU bays of the copy (option B), clear toasts."""
    from slotwise.engine.build.edits import SetCount

    app = pilot.app
    b = app.history.current
    app.pin_option()
    bays = app.catalog.chassis[b.chassis].psu_bays
    app.apply_edits([SetCount(what="psu", sku=b.psu, count=bays)], "fill the PSU bays")
    await pilot.pause()
    app.clear_notifications()
    await pilot.pause()


@lru_cache(maxsize=1)
def frozen_report() -> Report:
    return Report.model_validate_json(REPORT_JSON.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def frozen_comparison() -> Comparison:
    return Comparison.model_validate_json(COMPARISON_JSON.read_text(encoding="utf-8"))


def frozen_evaluate(build: Build, catalog: Catalog, *args, **kwargs) -> Report:
    """The app's evaluate, frozen: the same report whatever the build (layout only)."""
    return frozen_report()


def frozen_comparison_for(labels, builds, catalog, active) -> Comparison:
    """The compare screen's ``comparison_for``, frozen."""
    return frozen_comparison()


def write_frozen() -> None:
    """Run the real engine on the layout build and write the JSON the layout shots render."""
    from slotwise.engine.check.evaluate import evaluate
    from slotwise.engine.plan.compare import Option, compare_builds

    cat = layout_catalog()
    REPORT_JSON.write_text(evaluate(layout_build(), cat).model_dump_json(indent=1) + "\n")
    labels, builds = layout_options()
    opts = [Option(label=lab, build=b) for lab, b in zip(labels, builds, strict=True)]
    cmp = compare_builds(opts, cat, builds[1].workload)
    COMPARISON_JSON.write_text(cmp.model_dump_json(indent=1) + "\n")


if __name__ == "__main__":
    write_frozen()
    print(f"wrote {REPORT_JSON} and {COMPARISON_JSON}", file=sys.stderr)
