"""Network rules for training that needs more than this one server.

When the workload is training and the estimate says it needs more GPUs than the build has, or
more time than the target (so several such servers must share the job), the east-west fabric
matters.  NVIDIA's Enterprise Reference Architectures size it as follows (shared reference S16,
S46): HGX systems "2-8-9-400" (one 400G NIC per GPU plus one), PCIe systems "2-8-5-200" (one 200G
NIC per two GPUs plus one), and GPUDirect RDMA works best when the NIC sits under the same PCIe
switch as its GPU (traffic then never crosses the CPU).  We warn below the RA ratio and note
(info) anything short of one fast NIC per GPU.
"""

from __future__ import annotations

from engine.rules.common import finding
from engine.rules.context import Ctx

PCIE_MIN_GBPS = 200
HGX_MIN_GBPS = 400


def multi_node_reason(ctx: Ctx) -> str | None:
    """Why the workload needs more than this server, or None."""
    wl = ctx.workload
    est = ctx.estimate
    if wl is None or not wl.training or est is None:
        return None
    gpus = ctx.gpu_count()
    min_gpus = getattr(est, "min_gpus", None)
    if min_gpus and min_gpus > gpus:
        return f"the estimate needs at least {min_gpus} GPUs and the server has {gpus}"
    hours = getattr(est, "train_hours", None)
    if hours is not None and wl.target_days and hours > wl.target_days * 24:
        want = getattr(est, "gpus_for_target_days", None)
        nodes = -(-want // max(gpus, 1)) if want else -(-hours // (wl.target_days * 24))
        return f"finishing in {wl.target_days:g} days takes about {int(nodes)} such servers"
    return None


def check(ctx: Ctx) -> None:
    why = multi_node_reason(ctx)
    if why is None:
        return
    hgx = ctx.chassis.gpu_form == "sxm"
    min_gbps = HGX_MIN_GBPS if hgx else PCIE_MIN_GBPS
    gpus = ctx.gpu_count()
    fast = {sid: n for sid, n in ctx.nics.items() if n.port_gbps >= min_gbps}
    ra_min = gpus if hgx else -(-gpus // 2)
    pattern = "2-8-9-400" if hgx else "2-8-5-200"
    if len(fast) < ra_min:
        ctx.add(
            finding(
                "network.nic_ratio",
                "warning",
                f"multi-node training ({why}) needs a fast east-west fabric: the build has "
                f"{len(fast)} NIC(s) of {min_gbps}G or more for {gpus} GPUs; NVIDIA's reference "
                f"design ({pattern}) uses {ra_min}",
                parts=tuple(sorted({n.sku for n in fast.values()})),
                slots=ctx.sort_slots(fast),
                fix=f"fit {ra_min - len(fast)} more {min_gbps}G+ NICs (e.g. ConnectX-7), one "
                f"per {'GPU' if hgx else 'GPU pair'}",
            )
        )
    elif len(fast) < gpus:
        ctx.add(
            finding(
                "network.nic_ratio",
                "info",
                f"{len(fast)} fast NIC(s) for {gpus} GPUs: this meets NVIDIA's {pattern} design; "
                "one NIC per GPU gives every GPU its own GPUDirect RDMA path",
                slots=ctx.sort_slots(fast),
                fix="add NICs up to one per GPU if all-reduce bandwidth limits scaling",
            )
        )
    if hgx or not fast:
        return
    # GPU-NIC placement: a GPU under a switch with no fast NIC crosses the CPU for RDMA.
    idx = ctx.idx
    nic_roots = {idx.slot[s].root for s in fast}
    lonely = [
        sid
        for sid in ctx.gpus
        if idx.root.get(idx.slot[sid].root) is not None
        and idx.root[idx.slot[sid].root].kind == "switch"
        and idx.slot[sid].root not in nic_roots
    ]
    if lonely:
        ctx.add(
            finding(
                "network.gpu_nic_placement",
                "info",
                f"GPUs in slots {', '.join(ctx.sort_slots(lonely))} share no PCIe switch with "
                "a fast NIC: GPUDirect RDMA traffic for them crosses the CPU root complex",
                slots=ctx.sort_slots(lonely),
                fix="put a NIC in a slot under each GPU switch if the chassis has one",
            )
        )
