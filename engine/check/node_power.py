"""A server's worst-case power draw from its build alone, for callers without a report.

The draw itself is :func:`engine.check.rules.power.draw_detail` (the one function that adds up a
node's parts, fans and board); this module only resolves the build's parts first.  ``suggest``
sizes its first PSU set with it before the build is evaluated; everything with a report reads
``Report.power`` / ``Report.wall_power_w``, which come from the same function.
"""

from __future__ import annotations

from slotwise.engine.build import Build
from slotwise.engine.check.evaluate import make_context
from slotwise.engine.check.rules.power import DrawDetail, draw_detail
from slotwise.parts.catalog import Catalog


def node_draw(build: Build, catalog: Catalog) -> DrawDetail | None:
    """The build's worst-case DC draw by part; None when its chassis is not in the catalog."""
    ctx = make_context(build, catalog, build.workload)
    return None if ctx is None else draw_detail(ctx)
