"""The links of one build (its topology), for anything that prices communication.

One function, :func:`build_topology`, turns a build into the
:class:`engine.estimate.links.Links` that training (DP, FSDP/ZeRO, TP), serving (the
tensor-parallel all-reduce, replicas), the rules and the plans all read: the HGX baseboard's
NVSwitch domain, the NVLink bridge groups the build fits (which slots each joins, 2- or 4-way;
a 4-way bridge joins 4 GPUs, never 8), whether the GPU slots hang off PCIe switches or the CPUs'
root complexes, and the scale-out NICs shared by the GPUs.  The derivation itself is
:func:`engine.check.rules.workload_fit.build_links_of` (it needs the build's resolved context).
"""

from __future__ import annotations

from collections import Counter

from slotwise.engine.build import Build
from slotwise.engine.check.evaluate import make_context
from slotwise.engine.check.rules.workload_fit import build_links_of
from slotwise.engine.estimate.links import Links
from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import Gpu


def build_topology(build: Build, catalog: Catalog) -> tuple[Gpu, int, Links] | None:
    """(GPU model, its count, links) of the build's most common GPU; None without GPUs or with
    an unknown chassis."""
    ctx = make_context(build, catalog, None)
    if ctx is None:
        return None
    if ctx.baseboard is not None and ctx.baseboard_gpu is not None:
        gpu = ctx.baseboard_gpu
        count = ctx.baseboard.gpu_count
    else:
        if not ctx.gpus:
            return None
        sku, count = Counter(g.sku for g in ctx.gpus.values()).most_common(1)[0]
        gpu = catalog.gpus[sku]
    return gpu, count, build_links_of(ctx, gpu, count)
