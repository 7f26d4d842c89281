"""Network rules for training that needs more than this one server.

When the workload is training and the estimate says it needs more GPUs than the build has, or
more time than the target (so several such servers must share the job), the east-west fabric
matters.  NVIDIA's Enterprise Reference Architectures size it as follows (shared reference S16,
S46): HGX systems "2-8-9-400" (one 400G NIC per GPU plus one), PCIe systems "2-8-5-200" (one 200G
NIC per two GPUs plus one), and GPUDirect RDMA works best when the NIC sits under the same PCIe
switch as its GPU (traffic then never crosses the CPU).  We warn below the RA ratio and note
(info) anything short of one fast NIC per GPU.  NICs built into the chassis (``onboard_nics``,
e.g. the eight ConnectX-8 of an HGX B300 system) count like fitted ones.
"""

from __future__ import annotations

from slotwise.engine.build.edits import Place
from slotwise.engine.check.rules.common import finding
from slotwise.engine.check.rules.context import Ctx, engine_cache
from slotwise.engine.check.rules.family import RuleFamily
from slotwise.engine.check.rules.slots import destinations
from slotwise.parts.schema import Nic

#: The rule ids this family emits (stable: the CLI's JSON, saved reports and the UI key on them)
#: and what each checks; it reads what workload_fit computed.
FAMILY = RuleFamily(
    "network",
    rules={
        "network.nic_ratio": "multi-node training with too few fast NICs",
        "network.gpu_nic_placement": "GPUs without a fast NIC under the same PCIe switch",
    },
    after=("workload_fit",),
)

PCIE_MIN_GBPS = 200
HGX_MIN_GBPS = 400


def multi_node_reason(ctx: Ctx) -> str | None:
    """Why the workload needs more than this server, or None."""
    wl = ctx.workload
    est = ctx.estimate
    if wl is None or not wl.training or est is None:
        return None
    gpus = ctx.gpu_count()
    min_gpus = est.min_gpus
    if min_gpus and min_gpus > gpus:
        return f"the estimate needs at least {min_gpus} GPUs and the server has {gpus}"
    sz = ctx.sizing
    if sz is not None and (sz.servers or sz.would_take or 1) > 1:
        nodes = sz.servers or sz.would_take
        return f"the workload takes {nodes} such servers ({sz.margin.describe()})"
    return None


def fast_nic(ctx: Ctx, min_gbps: int) -> Nic | None:
    """The NIC to add: the build's own fast NIC model, else the catalog's slowest stand-up NIC
    that still meets ``min_gbps`` per port."""
    have = [
        n
        for n in ctx.nics.values()
        if n.port_gbps >= min_gbps and n.form not in ("OCP3", "onboard")
    ]
    if have:
        return min(have, key=lambda n: n.sku)
    cache = engine_cache(ctx.catalog)
    key = ("fast_nic", min_gbps)
    if key not in cache:
        options = [
            n
            for n in ctx.catalog.nics.values()
            if n.port_gbps >= min_gbps and n.form not in ("OCP3", "onboard", None) and n.pcie_lanes
        ]
        cache[key] = min(options, key=lambda n: (n.port_gbps, n.sku)) if options else None
    return cache[key]


def nic_slots(ctx: Ctx, nic: Nic, k: int, prefer_roots: list[str]) -> list[str]:
    """Up to ``k`` free slots for ``nic``, one under each preferred switch first."""
    chosen: list[str] = []
    roots = list(prefer_roots)
    for _ in range(k):
        options = destinations(ctx, nic, "", avoid=frozenset(chosen))
        if not options:
            break
        pick = next((s for s in options if ctx.idx.slot[s].root in roots), options[0])
        chosen.append(pick)
        if ctx.idx.slot[pick].root in roots:
            roots.remove(ctx.idx.slot[pick].root)
    return chosen


def _lonely_gpu_roots(ctx: Ctx, fast_slots, min_gbps: int) -> tuple[list[str], list[str]]:
    """(GPU slots, their switch roots) for GPUs under a switch without a fast NIC (fitted in a
    slot of that switch, or built in on it)."""
    idx = ctx.idx
    root_of = idx.root_of_slot
    nic_roots = {root_of[s] for s in fast_slots}
    nic_roots |= {r for r, n in ctx.onboard_nics if r is not None and n.port_gbps >= min_gbps}
    under_switch = idx.switch_slots
    lonely = [sid for sid in ctx.gpus if sid in under_switch and root_of[sid] not in nic_roots]
    roots = list(dict.fromkeys(map(root_of.__getitem__, ctx.sort_slots(lonely))))
    return lonely, roots


def check(ctx: Ctx) -> None:
    why = multi_node_reason(ctx)
    if why is None:
        return
    hgx = ctx.chassis.gpu_form == "sxm"
    min_gbps = HGX_MIN_GBPS if hgx else PCIE_MIN_GBPS
    gpus = ctx.gpu_count()
    fast = {sid: n for sid, n in ctx.nics.items() if n.port_gbps >= min_gbps}
    built_in = [n for _, n in ctx.onboard_nics if n.port_gbps >= min_gbps]
    have = len(fast) + len(built_in)
    with_onboard = f" ({len(built_in)} on board)" if built_in else ""
    ra_min = gpus if hgx else -(-gpus // 2)
    pattern = "2-8-9-400" if hgx else "2-8-5-200"
    nic = fast_nic(ctx, min_gbps)
    # GPUs under a switch without a fast NIC: read by the ratio fix and the placement note.
    placement = not hgx and have > 0
    lonely, roots = (
        _lonely_gpu_roots(ctx, fast, min_gbps) if have < ra_min or placement else ([], [])
    )
    if have < ra_min:
        k = ra_min - have
        where = nic_slots(ctx, nic, k, roots) if nic is not None else []
        edit = (
            tuple(Place(slot=s, sku=nic.sku) for s in where)
            if nic is not None and len(where) == k
            else ()
        )
        ctx.add(
            finding(
                "network.nic_ratio",
                "warning",
                f"multi-node training ({why}) needs a fast east-west fabric: the build has "
                f"{have} NIC(s){with_onboard} of {min_gbps}G or more for {gpus} GPUs; NVIDIA's "
                f"reference design ({pattern}) uses {ra_min}",
                parts=tuple(sorted({n.sku for n in [*fast.values(), *built_in]})),
                slots=ctx.sort_slots(fast),
                fix=(
                    f"fit {k} x {nic.sku} in slots {', '.join(where)}"
                    if edit and nic is not None
                    else f"fit {k} more {min_gbps}G+ NICs, one per {'GPU' if hgx else 'GPU pair'}"
                    + (" (the chassis has no free slot for them)" if nic is not None else "")
                ),
                edit=edit,
            )
        )
    elif have < gpus:
        ctx.add(
            finding(
                "network.nic_ratio",
                "info",
                f"{have} fast NIC(s){with_onboard} for {gpus} GPUs: this meets NVIDIA's {pattern} design; "
                "one NIC per GPU gives every GPU its own GPUDirect RDMA path",
                slots=ctx.sort_slots(fast),
                fix="add NICs up to one per GPU if all-reduce bandwidth limits scaling",
            )
        )
    if not placement:
        return
    # GPU-NIC placement: a GPU under a switch with no fast NIC crosses the CPU for RDMA.
    if lonely:
        edit = ()
        fix = "put a NIC in a slot under each GPU switch if the chassis has one"
        if nic is not None:
            # one NIC per lonely switch, only in a free slot on that switch
            where = []
            for r in roots:
                here = [
                    s
                    for s in destinations(ctx, nic, "", avoid=frozenset(where))
                    if ctx.idx.slot[s].root == r
                ]
                if here:
                    where.append(here[0])
            if len(where) == len(roots):
                edit = tuple(Place(slot=s, sku=nic.sku) for s in where)
                fix = f"fit {nic.sku} in slots {', '.join(where)} (one under each GPU switch)"
        ctx.add(
            finding(
                "network.gpu_nic_placement",
                "info",
                f"GPUs in slots {', '.join(ctx.sort_slots(lonely))} share no PCIe switch with "
                "a fast NIC: GPUDirect RDMA traffic for them crosses the CPU root complex",
                slots=ctx.sort_slots(lonely),
                fix=fix,
                edit=edit,
            )
        )
