"""The links a training step's collectives run over, taken from the build's records.

Three levels, each with a one-direction bandwidth per GPU:

* **island**: GPUs joined by NVLink.  An HGX baseboard's NVSwitches join the whole server
  (``Gpu.nvlink_bw_gbs`` is NVIDIA's bidirectional figure, so half of it each way: 450 GB/s for
  H100 SXM).  NVLink bridges on PCIe cards join pairs or quads (``Bridge.bw_gbs``, also
  bidirectional).  Without NVLink an island is one GPU.
* **PCIe** between islands of one server: the card's PCIe generation x16 (PCI-SIG rates after
  128b/130b encoding: Gen4 1.969 GB/s and Gen5 3.938 GB/s per lane and direction), through a
  PCIe switch when the slots hang off one, else through the CPU's root complex.
* **network** between servers: the build's NIC ports (``Nic.ports x Nic.port_gbps``) shared by the
  server's GPUs.  With no NIC in the build, one 400 Gb/s NIC per GPU is assumed: the NVIDIA
  DGX/HGX H100, H200 and B200 reference designs (8 x ConnectX-7 400 Gb/s for 8 GPUs, DGX H100
  user guide, "Introduction to the NVIDIA DGX H100 System") and the torchtitan / Trainy benchmark
  clusters ("400 Gb/s per GPU").

Without a build (``estimate`` on its own) the GPU's standard server is assumed and said so in
the notes (``Links.source``): SXM GPUs on an HGX baseboard's NVSwitch; PCIe cards with an NVLink
connector (H100 NVL, H200 NVL, H100/A100 PCIe) in bridged *pairs* (the smallest bridge NVIDIA
sells for each: "NVL" products are sold as NVLink pairs, H100 NVL product brief PB-11773-001;
H200 NVL supports NVL2 and NVL4 bridges, NVIDIA AI Enterprise RA), through the CPU between
pairs; other PCIe cards through the CPU.  A build's own bridges replace that guess
(:func:`build_links`): a 4-way bridge joins 4 GPUs, never 8; GPUs a bridge does not join talk
over PCIe.

Per-call latency of a ring collective (:func:`collective_latency_s`): NCCL's own cost model,
``baseLat + steps x hwLat`` (NVIDIA/nccl ``src/graph/tuning.cc``, NCCL 2.19-2.23, Ring / LL
protocol, the one small messages use): base 6.6 us, per step 0.6 us over NVLink, 1.0 us over
PCIe and 2.7 us over the network; an all-reduce over n GPUs takes 2 (n - 1) steps.

Achieved bus bandwidth is a share of the link rate (``*_BUS_EFFICIENCY``): NVIDIA's nccl-tests on
DGX H100 report all_reduce bus bandwidth of about 360-370 GB/s on 450 GB/s NVLink (0.8); PCIe and
RoCE/InfiniBand reach a similar share at large message sizes.  These are assumptions stated in
the estimate's notes, not fitted constants.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from slotwise.parts.schema import Gpu

#: One-direction GB/s per PCIe lane (PCI-SIG base specs; 128b/130b encoding from Gen3 on,
#: Gen6 FLIT mode ~ 242/256 efficiency of 64 GT/s).
PCIE_GBS_PER_LANE: dict[int, float] = {3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}

NVLINK_BUS_EFFICIENCY = 0.80
PCIE_BUS_EFFICIENCY = 0.70
#: PCIe peer traffic that crosses the CPU's root complex (no PCIe switch between the cards):
#: the root complex forwards peer-to-peer at a lower rate than a switch, and traffic between the
#: two sockets crosses UPI / xGMI.  Assumed: half the switch figure.
PCIE_CPU_PATH_FACTOR = 0.5
NIC_BUS_EFFICIENCY = 0.80

#: NCCL ring/LL latency model (src/graph/tuning.cc, see the module docstring), microseconds.
NCCL_RING_BASE_US = 6.6
NCCL_RING_STEP_US: dict[str, float] = {"nvlink": 0.6, "pcie": 1.0, "net": 2.7}

LinkKind = Literal["nvlink", "pcie", "net"]


def collective_latency_s(kind: str, members: int, *, allreduce: bool = True) -> float:
    """Seconds of fixed cost of one ring collective over ``members`` GPUs whose slowest hop is
    ``kind`` (NCCL's model; an all-gather or reduce-scatter has half the steps)."""
    if members <= 1:
        return 0.0
    steps = (2 if allreduce else 1) * (members - 1)
    return (NCCL_RING_BASE_US + steps * NCCL_RING_STEP_US.get(kind, 1.0)) * 1e-6


#: One 400 Gb/s NIC per GPU (see the module docstring) when the build names no NIC.
DEFAULT_NIC_GBPS_PER_GPU = 400.0


class Links(BaseModel):
    """Where a collective's bytes travel, per GPU, one direction, in GB/s (link rates)."""

    model_config = ConfigDict(frozen=True)

    island: int
    island_gbs: float | None
    island_kind: Literal["nvswitch", "nvlink-bridge", "none"]
    pcie_gbs: float
    pcie_path: Literal["switch", "cpu"]
    nic_gbps_per_gpu: float
    nic_source: str
    #: Where the topology comes from: "build" (its baseboard / bridges / slots) or the words of
    #: the standard server assumed for the GPU (stated in the estimate's notes).
    source: str = "build"

    def slowest_kind(self, members: int, per_server: int) -> LinkKind:
        """The slowest hop of a group of ``members`` GPUs laid ``per_server`` to a server."""
        if members > max(1, per_server):
            return "net"
        if members > max(1, self.island) or self.island_kind == "none":
            return "pcie"
        return "nvlink"

    def effective_island_gbs(self) -> float:
        return (self.island_gbs or 0.0) * NVLINK_BUS_EFFICIENCY

    def effective_pcie_gbs(self) -> float:
        factor = 1.0 if self.pcie_path == "switch" else PCIE_CPU_PATH_FACTOR
        return self.pcie_gbs * PCIE_BUS_EFFICIENCY * factor

    def effective_nic_gbs(self) -> float:
        return self.nic_gbps_per_gpu / 8.0 * NIC_BUS_EFFICIENCY

    def describe(self, servers: int = 2) -> str:
        """In words; the network part only when the job spans ``servers`` > 1."""
        if self.island_kind == "nvswitch":
            inside = f"NVSwitch {self.island_gbs:.0f} GB/s per GPU each way"
        elif self.island_kind == "nvlink-bridge":
            inside = (
                f"NVLink bridges join {self.island} GPUs at {self.island_gbs:.0f} GB/s each way, "
                f"PCIe ({self.pcie_gbs:.0f} GB/s via {self.pcie_path}) between bridged groups"
            )
        else:
            inside = f"PCIe only, {self.pcie_gbs:.0f} GB/s per GPU each way via {self.pcie_path}"
        if self.source != "build":
            inside += f" ({self.source})"
        if servers <= 1:
            return inside
        return (
            f"{inside}; between servers {self.nic_gbps_per_gpu:g} Gb/s per GPU ({self.nic_source})"
        )


def pcie_gbs(gpu: Gpu) -> float:
    gen = gpu.pcie_gen or 4
    return PCIE_GBS_PER_LANE.get(gen, PCIE_GBS_PER_LANE[4]) * (gpu.pcie_lanes or 16)


def default_links(
    gpu: Gpu,
    gpus_per_server: int,
    *,
    nic_gbps_per_gpu: float | None = None,
) -> Links:
    """Links of the GPU's standard server when no build is given (module docstring): SXM GPUs
    on their baseboard's NVSwitch, bridgeable PCIe cards in NVLink pairs, other PCIe cards
    through the CPU, one 400 Gb/s NIC per GPU between servers."""
    nic, nic_src = _nic(nic_gbps_per_gpu, None)
    if gpu.form == "sxm" and gpu.nvlink == "nvswitch" and gpu.nvlink_bw_gbs:
        return _nvswitch_links(gpu, gpus_per_server, gpu.nvlink_bw_gbs, nic, nic_src).model_copy(
            update={"source": "assumed: HGX baseboard, every GPU on its NVSwitch"}
        )
    if gpu.nvlink == "bridge" and gpu.nvlink_bw_gbs and gpus_per_server >= 2:
        return Links(
            island=2,
            island_gbs=gpu.nvlink_bw_gbs / 2,
            island_kind="nvlink-bridge",
            pcie_gbs=pcie_gbs(gpu),
            pcie_path="cpu",
            nic_gbps_per_gpu=nic,
            nic_source=nic_src,
            source="assumed: NVLink-bridged pairs, the GPU's standard server",
        )
    return Links(
        source="assumed: PCIe cards without NVLink, peers through the CPU",
        island=1,
        island_gbs=None,
        island_kind="none",
        pcie_gbs=pcie_gbs(gpu),
        pcie_path="cpu",
        nic_gbps_per_gpu=nic,
        nic_source=nic_src,
    )


def _nvswitch_links(gpu: Gpu, gpus: int, nvlink_bw_gbs: float, nic: float, nic_src: str) -> Links:
    """Every GPU of the server on the baseboard's NVSwitch (one island, half the bidirectional
    NVLink figure each way), host traffic through the board's PCIe switches."""
    return Links(
        island=max(1, gpus),
        island_gbs=nvlink_bw_gbs / 2,
        island_kind="nvswitch",
        pcie_gbs=pcie_gbs(gpu),
        pcie_path="switch",
        nic_gbps_per_gpu=nic,
        nic_source=nic_src,
    )


def build_links(
    gpu: Gpu,
    gpus: int,
    *,
    baseboard: bool,
    bridge_groups: list[tuple[int, float | None]],
    behind_switch: bool,
    nic_gbps_total: float,
) -> Links:
    """Links of one server of the build: ``bridge_groups`` = (GPUs joined, bidirectional GB/s)
    of each NVLink bridge set; ``behind_switch`` = every GPU slot hangs off a PCIe switch;
    ``nic_gbps_total`` = the server's NIC ports added up (0: none fitted)."""
    nic, nic_src = _nic(nic_gbps_total / max(1, gpus) if nic_gbps_total else None, "build")
    if baseboard and gpu.nvlink_bw_gbs:
        return _nvswitch_links(gpu, gpus, gpu.nvlink_bw_gbs, nic, nic_src)
    path: Literal["switch", "cpu"] = "switch" if behind_switch else "cpu"
    bridged = sum(ways for ways, _ in bridge_groups)
    if bridge_groups and bridged >= gpus:
        # Every GPU bridged: the island is the smallest group (collectives wait for the slowest).
        ways = min(w for w, _ in bridge_groups)
        bws = [bw for _, bw in bridge_groups if bw]
        bw = min(bws) / 2 if bws else (gpu.nvlink_bw_gbs or 0.0) / 2 or None
        if bw:
            return Links(
                island=ways,
                island_gbs=bw,
                island_kind="nvlink-bridge",
                pcie_gbs=pcie_gbs(gpu),
                pcie_path=path,
                nic_gbps_per_gpu=nic,
                nic_source=nic_src,
            )
    return Links(
        island=1,
        island_gbs=None,
        island_kind="none",
        pcie_gbs=pcie_gbs(gpu),
        pcie_path=path,
        nic_gbps_per_gpu=nic,
        nic_source=nic_src,
    )


def _nic(per_gpu: float | None, origin: str | None) -> tuple[float, str]:
    if per_gpu:
        return per_gpu, "the build's NICs" if origin == "build" else "stated"
    return DEFAULT_NIC_GBPS_PER_GPU, "assumed: one 400 Gb/s NIC per GPU, NVIDIA reference design"
