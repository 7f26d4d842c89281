"""The fewest nodes that run a workload: doubling, then bisection.

Memory per GPU and time to train both fall (or stay) as nodes are added, so ``ok`` is monotone
in the node count and the smallest passing count is found exactly in O(log n) estimates.
Used by suggest (sizing a cluster from scratch) and by the BOM's cluster section (sizing copies
of a saved build)."""

from __future__ import annotations

from collections.abc import Callable

from slotwise.engine.check.sizing import first_passing


def fewest_passing(
    ok: Callable[[int], bool],
    stuck: Callable[[int], str | None],
    top: int,
    per_node: int,
) -> int | str:
    """Smallest k in [2, top] with ``ok(k)``, or the reason there is none.

    ``stuck(k)`` is asked whenever ``k`` does not pass; a non-None answer (e.g. "training time
    is unknown for this GPU") stops the search, since more nodes cannot help."""
    lo, hi = 1, 2
    while not ok(hi):
        why = stuck(hi)
        if why:
            return why
        if hi >= top:
            return f"not even {top} nodes of {per_node} GPUs run the workload"
        lo, hi = hi, min(hi * 2, top)
    return first_passing(ok, lo, hi)
