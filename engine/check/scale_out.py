"""The sizing answer for a build as the rules see it: the build's GPUs, links and scale-out NICs
handed to :func:`engine.check.sizing.size_servers` (the one place that decides the server count).

A server's *scale-out* NICs are those of the network rule's speed (``network.HGX_MIN_GBPS`` per
port on HGX systems, ``network.PCIE_MIN_GBPS`` on PCIe systems), fitted or built in.  Without
any, the build cannot be one node of a training cluster: the sizing then names the NICs to fit
(one per GPU, the build's own fast model else the catalog's slowest that qualifies, as the network
rule picks it) and the free slots that take them, and sizes the cluster with those NICs.
"""

from __future__ import annotations

from typing import Any

from slotwise.engine.check.rules.context import (
    Ctx,
    engine_cache,
    fields_key,
    memory_memo,
    workload_key,
)
from slotwise.engine.check.rules.network import HGX_MIN_GBPS, PCIE_MIN_GBPS, fast_nic, nic_slots
from slotwise.engine.check.sizing import Fabric, Sizing, size_servers
from slotwise.engine.estimate.links import Links
from slotwise.engine.workload import Workload
from slotwise.parts.schema import Gpu, ModelPreset

_MEMO_MAX = 256


def min_gbps(ctx: Ctx) -> int:
    return HGX_MIN_GBPS if ctx.chassis.gpu_form == "sxm" else PCIE_MIN_GBPS


def fabric_of(ctx: Ctx, gpu: Gpu, count: int, links_with: Any) -> Fabric:
    """The build's scale-out NICs, and when it has none, the fix and the links it would give.
    ``links_with(nic_gbps_total)`` makes the server's links with that much NIC bandwidth."""
    need = min_gbps(ctx)
    fast = [n for n in ctx.nics.values() if n.port_gbps >= need]
    fast += [n for _, n in ctx.onboard_nics if n.port_gbps >= need]
    if fast:
        return Fabric(nics=len(fast), min_gbps=need)
    nic = fast_nic(ctx, need)
    if nic is None:
        return Fabric(nics=0, min_gbps=need, fix=f"fit {need} Gb/s NICs (none in the catalog)")
    where = nic_slots(ctx, nic, count, [])
    if not where:
        fix = f"fit {count} x {nic.sku}, one per GPU (no free slot takes one: another chassis)"
        k = count
    elif len(where) < count:
        fix = (
            f"fit {len(where)} x {nic.sku} in slots {', '.join(where)} (free slots take only "
            f"{len(where)} of the {count}, one per GPU)"
        )
        k = len(where)
    else:
        fix = f"fit {count} x {nic.sku} in slots {', '.join(where)}, one per GPU"
        k = count
    return Fabric(
        nics=0, min_gbps=need, fix=fix, fix_links=links_with(float(k * nic.ports * nic.port_gbps))
    )


def build_sizing(
    ctx: Ctx,
    workload: Workload,
    gpu: Gpu,
    count: int,
    arch: ModelPreset,
    links: Links,
    fabric: Fabric,
    wkey: Any = None,
) -> Sizing:
    """``size_servers`` for this build, memoized per (workload, GPU, count, links, fabric);
    ``wkey`` is the workload's memo key (engine.check.rules.context.workload_key)."""
    memo = engine_cache(ctx.catalog).setdefault("sizing_memo", {})
    if wkey is None:
        wkey = workload_key(ctx.catalog, workload)
    key = (wkey, gpu.sku, count, fields_key(links), fields_key(fabric))
    hit = memo.get(key)
    if hit is None:
        hit = size_servers(
            workload, gpu, count, arch=arch, links=links, fabric=fabric,
            memory=memory_memo(ctx.catalog),
        )  # fmt: skip
        if len(memo) >= _MEMO_MAX:
            memo.clear()
        memo[key] = hit
    return hit
