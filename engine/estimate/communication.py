"""Time of the collectives a training step runs, over the links of :mod:`engine.estimate.links`.

Ring collectives (Patarasuk & Yuan 2009, "Bandwidth optimal all-reduce algorithms for clusters
of workstations"; the algorithm NCCL uses): an all-reduce of S bytes over n GPUs moves
``2 (n-1)/n x S`` through each GPU's slowest link; an all-gather or a reduce-scatter half that.
Over a hierarchy (NVLink island, PCIe between islands, network between servers) the collective
runs level by level, as NCCL's tree/ring over NVLink + NIC does and as the "hierarchical
all-reduce" of Horovod / Megatron describes: each level only carries the share the level below
could not reduce locally (S / GPUs below it).  The levels run one after the other, so their
times add.  Each call also pays NCCL's per-call ring latency for the level's link
(:func:`engine.estimate.links.collective_latency_s`), once per call: ``calls`` > 1 when the
collective is issued per layer (ZeRO-3 / FSDP gathers each layer's parameters separately).

Which collectives a step runs (ZeRO paper, Rajbhandari et al. 2020, arXiv:1910.02054, section 7;
Megatron-LM, Shoeybi et al. 2019, arXiv:1909.08053, section 3):

* DDP / ZeRO-1 / ZeRO-2: one all-reduce (ZeRO-2: reduce-scatter + all-gather, the same volume)
  of the trainable gradients per optimizer step.
* ZeRO-3 / FSDP: per micro-batch an all-gather of the parameters for the forward, another for
  the backward, and a reduce-scatter of the trainable gradients.
* Tensor parallel: per layer two all-reduces of the layer's activations in the forward and two
  in the backward (attention and MLP blocks), each ``micro_batch x seq x hidden`` elements.
"""

from __future__ import annotations

import math

from slotwise.engine.estimate.links import Links, collective_latency_s


def _stage(share: float, members: int, gbs: float, kind: str, calls: float) -> float:
    """Seconds for one ring level: ``(members-1)/members x share`` bytes at ``gbs`` GB/s plus
    ``calls`` x the per-call latency of a gather over ``members`` GPUs on link ``kind``."""
    if members <= 1 or share <= 0:
        return 0.0
    if gbs <= 0:
        return math.inf
    move = (members - 1) / members * share / (gbs * 1e9)
    return move + calls * collective_latency_s(kind, members, allreduce=False)


def gather_seconds(
    size_bytes: float,
    *,
    group: int,
    per_server: int,
    per_island: int,
    links: Links,
    calls: float = 1.0,
) -> float:
    """All-gather (or reduce-scatter) of ``size_bytes`` over ``group`` GPUs laid out
    ``per_server`` to a server and ``per_island`` to an NVLink island, in ``calls`` calls."""
    group = max(1, group)
    per_server = max(1, min(per_server, group))
    per_island = max(1, min(per_island, per_server))
    islands_in_server = max(1, per_server // per_island)
    servers = max(1, math.ceil(group / per_server))
    inner = "nvlink" if links.island_kind != "none" else "pcie"
    t = _stage(size_bytes, per_island, links.effective_island_gbs(), inner, calls)
    t += _stage(
        size_bytes / per_island, islands_in_server, links.effective_pcie_gbs(), "pcie", calls
    )
    t += _stage(size_bytes / per_server, servers, links.effective_nic_gbs(), "net", calls)
    return t


def allreduce_seconds(
    size_bytes: float,
    *,
    group: int,
    per_server: int,
    per_island: int,
    links: Links,
    calls: float = 1.0,
) -> float:
    """All-reduce = reduce-scatter + all-gather."""
    return 2.0 * gather_seconds(
        size_bytes,
        group=group,
        per_server=per_server,
        per_island=per_island,
        links=links,
        calls=calls,
    )


def dp_layout(tp: int, dp: int, gpus_per_server: int, links: Links) -> tuple[int, int]:
    """(GPUs of one data-parallel group per server, per NVLink island): tensor-parallel ranks
    fill a server first, so a data-parallel group has ``server/tp`` members in each server."""
    per_server = max(1, gpus_per_server // max(1, tp))
    per_island = max(1, links.island // max(1, tp))
    return min(per_server, dp), min(per_island, per_server, dp)


def tp_layout(tp: int, gpus_per_server: int, links: Links) -> tuple[int, int]:
    """(per server, per island) of a tensor-parallel group (kept inside one server)."""
    per_server = min(tp, max(1, gpus_per_server))
    return per_server, min(per_server, max(1, links.island))
