"""Bounded number types for every figure in the catalog, the build and the workload.

Each alias is ``Annotated[int | float, ...]`` with three guarantees, so a typo or a hostile file
(PSU 10^19 W, GPU memory ``inf``, 10^9 layers, ``true`` where a count belongs, a negative DIMM
power) is one clear validation message naming the field instead of a silent absurd figure, an
``OverflowError`` deep in a formula, or a non-standard ``Infinity`` in ``parts --json``:

* strict kind: ``true``/``false`` and strings are refused for a number (pydantic would otherwise
  read ``true`` as 1 and ``"8"`` as 8);
* finite: ``inf`` and ``nan`` are refused (``allow_inf_nan=False``), and so is an integer too
  large for a float;
* a stated physical range (``ge``/``gt``/``le``): wide enough for every real part and model we
  know of with a margin for the next generations, narrow enough that a slipped exponent or unit
  (W vs kW, GB vs MB, billions vs units) is caught.  Each range's reason is in the comment next
  to it; a real figure that falls outside is a reason to widen the range, never to change the
  figure.

To bound a new field, reuse the alias of its quantity (``power_w: PartWatts | None = None``), or
add one here next to the others, so every range is documented in one place::

    Lumens = Annotated[float, float_range(0, 1e6, "lm", "why this range"), FloatSized]
    Widgets = Annotated[int, int_range(1, 64, "widgets", "why this range"), StrictNumber]
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BeforeValidator, Field


def _strict_number(value: Any) -> Any:
    """Refuse bools and strings where a number belongs (pydantic's lax mode would coerce)."""
    if isinstance(value, bool):
        raise ValueError("expected a number, not true/false")
    if isinstance(value, str | bytes):
        raise ValueError("expected a number, not a string (remove the quotes)")
    return value


def _float_sized(value: Any) -> Any:
    """Refuse inf/nan first (so the message says so, not "less than"), and an int too large for
    a float before pydantic converts it (OverflowError)."""
    value = _strict_number(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"must be a finite number, not {value}")
    if isinstance(value, int) and value.bit_length() > 1000:
        raise ValueError("the number is far too large")
    return value


StrictNumber = BeforeValidator(_strict_number)
FloatSized = BeforeValidator(_float_sized)


def _describe(lo: float | None, hi: float | None, unit: str, why: str, gt: bool) -> str:
    low = "" if lo is None else (f"> {lo:g}" if gt else f">= {lo:g}")
    high = "" if hi is None else f"<= {hi:g}"
    rng = " and ".join(x for x in (low, high) if x)
    return f"{unit}; {rng}: {why}" if rng else unit


def int_range(lo: int | None, hi: int | None, unit: str, why: str) -> Any:
    """The ``Field`` of a bounded int: [lo, hi], with the range and its reason as description."""
    return Field(ge=lo, le=hi, description=_describe(lo, hi, unit, why, False))


def float_range(
    lo: float | None, hi: float | None, unit: str, why: str, *, positive: bool = False
) -> Any:
    """The ``Field`` of a bounded finite float: [lo, hi], or (lo, hi] with ``positive``."""
    low: dict[str, Any] = {"gt": lo} if positive else {"ge": lo}
    return Field(
        le=hi, allow_inf_nan=False, description=_describe(lo, hi, unit, why, positive), **low
    )


# ------------------------------------------------------------------------------ power

#: One part's power (GPU/CPU TDP, a NIC, a DIMM, a drive, fans): the largest GPU module today
#: (GB300) is about 1,400 W; 5,000 W leaves room and catches a W/kW slip.
PartWatts = Annotated[
    float,
    float_range(0, 5_000, "W", "one part's power; never negative", positive=False),
    FloatSized,
]
PartWattsInt = Annotated[
    int,
    int_range(1, 5_000, "W", "one part's TDP; the largest GPU module is ~1,400 W"),
    StrictNumber,
]
#: A power supply's rated output: server PSUs are 800-5,500 W; 20 kW catches 10^19.
PsuWatts = Annotated[
    int,
    int_range(1, 20_000, "W", "a PSU's rated output; server PSUs are 800-5,500 W"),
    StrictNumber,
]
#: Whole-board / whole-system power beyond the parts (NVSwitches, fans, BMC).
SystemWatts = Annotated[
    int,
    int_range(0, 50_000, "W", "board/system overhead; an 8-GPU HGX is ~15 kW whole"),
    StrictNumber,
]

#: A server's published airflow: an 8U HGX box moves ~1,100 CFM; 20,000 catches unit slips.
AirflowCfm = Annotated[
    float,
    float_range(1, 20_000, "CFM", "one server's airflow at full load"),
    FloatSized,
]

#: A share of a whole (0..1), e.g. the heat a liquid-cooled system's cold plates take.
Share = Annotated[
    float,
    float_range(0, 1, "share", "a fraction of a whole, 0-1", positive=False),
    FloatSized,
]

# ------------------------------------------------------------------------------ memory, storage

#: A GPU's memory: the largest today carry 288 GB; 4 TB leaves room and catches GB/MB slips.
GpuMemoryGB = Annotated[
    float,
    float_range(
        1, 4_096, "GB", "one GPU's memory (smallest data-center card 4 GB, largest today 288 GB)"
    ),
    FloatSized,
]
#: A DIMM's capacity (largest 256 GB today).
DimmGB = Annotated[
    int, int_range(1, 4_096, "GB", "one DIMM's capacity (largest today 256 GB)"), StrictNumber
]
#: A drive's capacity (largest SSD today 122.88 TB).
DriveTB = Annotated[
    float,
    float_range(0.01, 1_000, "TB", "one drive (a 16 GB boot module to ~123 TB today)"),
    FloatSized,
]
#: Memory / interconnect bandwidth of one device (HBM3e: 8,000 GB/s; NVLink 5: 1,800 GB/s).
BandwidthGBs = Annotated[
    float,
    float_range(0.01, 100_000, "GB/s", "one device's bandwidth (a 1 GbE port is 0.125 GB/s)"),
    FloatSized,
]
#: Memory transfer rate (DDR5 MRDIMM 8,800 MT/s).
MemoryMTs = Annotated[
    int,
    int_range(100, 20_000, "MT/s", "DIMM speed (DDR5 MRDIMM tops out near 8,800)"),
    StrictNumber,
]
#: MRDIMM speed a CPU runs; 0 = it takes no MRDIMMs (4th/5th Gen Xeon).
MrdimmMTs = Annotated[
    int,
    int_range(0, 20_000, "MT/s", "MRDIMM speed, 0 for a CPU that takes none"),
    StrictNumber,
]

# ------------------------------------------------------------------------------ compute

#: Dense throughput of one GPU in TFLOPS (B200 FP8 dense ~4,500; FP4 sparse ~20,000).
Tflops = Annotated[
    float,
    float_range(0.01, 100_000, "TFLOPS", "one GPU's throughput (no data-center GPU below 1)"),
    FloatSized,
]
#: CPU cores per socket (the largest today: 288 E-cores).
CpuCores = Annotated[
    int, int_range(1, 1_024, "cores", "per socket (largest today 288)"), StrictNumber
]

# ------------------------------------------------------------------------------ PCIe, slots

PcieGen = Annotated[
    int, int_range(3, 6, "PCIe generation", "slotwise covers Gen3-Gen6 parts"), StrictNumber
]
SlotLanes = Annotated[int, int_range(1, 16, "lanes", "a PCIe slot or card is x1-x16"), StrictNumber]
#: Lanes of a CPU socket or switch (a 5th-gen Xeon 80, an EPYC 128/160, a switch up to 144).
RootLanes = Annotated[int, int_range(1, 512, "lanes", "a CPU or PCIe switch"), StrictNumber]
WidthSlots = Annotated[int, int_range(1, 4, "slots", "a card is 1-4 slots wide"), StrictNumber]
Socket = Annotated[int, int_range(1, 16, "socket", "a CPU socket number (1-based)"), StrictNumber]
#: How many of something a chassis has (slots, fans, DIMM slots, drive bays, GPUs).
ChassisCount = Annotated[int, int_range(0, 1_024, "count", "per chassis"), StrictNumber]
PositiveChassisCount = Annotated[int, int_range(1, 1_024, "count", "per chassis"), StrictNumber]
CpuSockets = Annotated[int, int_range(1, 2, "sockets", "X13/X14 GPU servers"), StrictNumber]
MemoryChannels = Annotated[int, int_range(1, 64, "channels", "per socket (12 today)"), StrictNumber]
BaseboardGpus = Annotated[
    int, int_range(1, 144, "GPUs", "on one baseboard (HGX: 4 or 8)"), StrictNumber
]
NvswitchCount = Annotated[int, int_range(0, 64, "NVSwitch chips", "on one baseboard"), StrictNumber]
BridgesPerGroup = Annotated[
    int, int_range(1, 8, "bridges", "one GPU pair/quad needs"), StrictNumber
]
#: Rack units of a chassis.
RackUnits = Annotated[int, int_range(1, 10, "U", "a server is 1-10U"), StrictNumber]
#: Network port count and speed (800 Gb/s today; 1.6 Tb/s announced).
NicPorts = Annotated[int, int_range(1, 64, "ports", "on one card"), StrictNumber]
PortGbps = Annotated[int, int_range(1, 3_200, "Gb/s", "one port (800 Gb/s today)"), StrictNumber]
#: Temperatures (inlet / ambient).
AmbientC = Annotated[
    float, float_range(-40, 85, "deg C", "an inlet/ambient temperature"), FloatSized
]

# ------------------------------------------------------------------------------ models

#: Hidden / intermediate sizes (Llama-3.1-405B: 16,384 / 53,248).
ModelWidth = Annotated[
    int, int_range(1, 1 << 22, "units", "a layer width (the largest models: ~53k)"), StrictNumber
]
ModelWidthOrZero = Annotated[
    int, int_range(0, 1 << 22, "units", "a layer width; 0 where the layer has none"), StrictNumber
]
#: Transformer layers (the deepest published decoders have ~126; 10^9 is a typo).
ModelLayers = Annotated[
    int, int_range(1, 4_096, "layers", "decoder layers (the deepest today ~126)"), StrictNumber
]
#: Attention heads, KV heads (the largest: 128).
ModelHeads = Annotated[
    int, int_range(1, 8_192, "heads", "attention heads (the largest today: 128)"), StrictNumber
]
ModelHeadsOrZero = Annotated[
    int,
    int_range(0, 8_192, "heads", "attention heads; 0 only for attention-free models"),
    StrictNumber,
]
#: Head dimension (64-256 in practice).
HeadDim = Annotated[
    int, int_range(1, 8_192, "units", "per attention head (64-256 in practice)"), StrictNumber
]
#: Vocabulary (the largest published: 262,144).
VocabSize = Annotated[
    int, int_range(1, 1 << 24, "tokens", "vocabulary (the largest today ~262k)"), StrictNumber
]
#: Context length of a model or a request (10M tokens is the longest advertised).
ContextTokens = Annotated[
    int,
    int_range(1, 1 << 27, "tokens", "a context (10M tokens is the longest today)"),
    StrictNumber,
]
ContextTokensOrZero = Annotated[
    int, int_range(0, 1 << 27, "tokens", "learned position rows; 0 for none"), StrictNumber
]
#: Small structural sizes (Mamba state size, conv kernel, groups).
PositiveSmall = Annotated[
    int, int_range(1, 65_536, "count", "a small structural size"), StrictNumber
]
#: Norm layers per decoder layer (2 in Llama, 4 in Gemma 2/3).
NormsPerLayer = Annotated[int, int_range(0, 16, "norms", "per decoder layer (2-4)"), StrictNumber]
#: A parameter count (weights outside the decoder stack: a vision tower is ~10^9).
ParamCount = Annotated[
    int, int_range(0, 10**14, "parameters", "100 T at most (the largest models ~2 T)"), StrictNumber
]
#: Routed experts (DeepSeek-V3: 256).
ExpertCount = Annotated[
    int, int_range(1, 65_536, "experts", "routed experts (DeepSeek-V3: 256)"), StrictNumber
]
SmallCount = Annotated[
    int, int_range(0, 65_536, "count", "shared experts, dense layers, ranks"), StrictNumber
]
#: Low-rank / latent dimensions (DeepSeek-V3 q_lora_rank 1,536).
LatentDim = Annotated[int, int_range(1, 1 << 22, "units", "a latent or LoRA rank"), StrictNumber]
#: Parameters in billions (the largest published dense+MoE models: ~2,000 B).
ParamsB = Annotated[
    float, float_range(0, 100_000, "billion parameters", "a model", positive=True), FloatSized
]

# ------------------------------------------------------------------------------ workload, build

MicroBatch = Annotated[
    int, int_range(1, 1 << 20, "sequences", "per GPU per step / concurrent requests"), StrictNumber
]
LoraRank = Annotated[
    int, int_range(1, 65_536, "rank", "a LoRA adapter's rank (8-256 in practice)"), StrictNumber
]
TensorParallel = Annotated[int, int_range(1, 4_096, "GPUs", "tensor-parallel degree"), StrictNumber]
#: Tokens to train on: the largest published runs use ~36 T (3.6e13); 1e16 is ~300x that.
TrainTokens = Annotated[
    float,
    float_range(1, 1e16, "tokens", "to train on (largest runs today ~3.6e13)"),
    FloatSized,
]
#: Elements of DeepSpeed ZeRO-1/2 gradient bucket buffers (``reduce_bucket_size``, default 5e8,
#: twice with ``overlap_comm``); 1e11 is far above any configuration.
BucketElements = Annotated[
    float,
    float_range(
        0, 1e11, "elements", "of DeepSpeed gradient buckets (5e8 by default)", positive=True
    ),
    FloatSized,
]
#: A latency objective in seconds (an hour at most).
TargetSeconds = Annotated[
    float, float_range(0, 3600, "seconds", "a latency objective", positive=True), FloatSized
]
#: Wall-clock target in days (a century at most).
TargetDays = Annotated[
    float,
    float_range(0.001, 36_525, "days", "wanted wall-clock time (from ~1.5 minutes to 100 years)"),
    FloatSized,
]
#: A fraction in (0, 1] (model FLOPs utilisation).
Fraction = Annotated[
    float,
    float_range(
        0.01, 1, "fraction", "model FLOPs utilisation: below 1% no training run is planned"
    ),
    FloatSized,
]
#: A dropout probability in [0, 1] (0 = no dropout).
DropoutRate = Annotated[
    float, float_range(0, 1, "probability", "a dropout probability; 0 = off"), FloatSized
]
#: A planning margin in [0, 1] (0.15 = 15 % better than the target; 0 = none).
PlanningMargin = Annotated[
    float, float_range(0, 1, "fraction", "a planning margin; 0 = none"), FloatSized
]
#: Concurrent users of a serving deployment (a large public service: ~10^6 at once).
ConcurrentUsers = Annotated[int, int_range(1, 1 << 30, "users", "served at once"), StrictNumber]
#: Tokens per second (per user or per GPU; the fastest decoders today: ~10^4 tokens/s).
TokenRate = Annotated[
    float,
    float_range(0.001, 1e7, "tokens/s", "a generation speed (one token in 1,000 s and up)"),
    FloatSized,
]
#: Counts of a part in one build (CPUs, DIMMs, PSUs, bridges, drives).
PartCount = Annotated[int, int_range(0, 1_024, "parts", "in one server"), StrictNumber]
PositivePartCount = Annotated[int, int_range(1, 1_024, "parts", "in one server"), StrictNumber]
#: A price in the list's currency.
Price = Annotated[float, float_range(0, 1e12, "currency units", "one part's price"), FloatSized]


# ------------------------------------------------------------------------------ clusters

#: Nodes in one cluster plan: the largest published SuperPOD tables stop near 2,000 nodes; a
#: three-tier fabric of 144-port switches ends near 93,000 8-GPU nodes.
ClusterNodes = Annotated[
    int, int_range(1, 100_000, "nodes", "one cluster; a three-tier fabric ends below"), StrictNumber
]
#: GPUs (rails) per cluster node: 8 on HGX/DGX; a 72-GPU rack system counts as one node.
NodeGpus = Annotated[int, int_range(1, 72, "GPUs", "per cluster node (8 on HGX)"), StrictNumber]
#: Fast NICs per cluster node.
NodeNics = Annotated[int, int_range(0, 72, "NICs", "per cluster node"), StrictNumber]
#: A node's worst case at the wall: an 8-GPU B300 node is ~14.5 kW; 200 kW catches W/kW slips.
NodeWatts = Annotated[
    float, float_range(0, 200_000, "W", "one node at the wall", positive=True), FloatSized
]
#: A rack's power limit: dense liquid-cooled racks are ~140 kW today.
RackKw = Annotated[
    float, float_range(0, 2_000, "kW", "one rack's power limit", positive=True), FloatSized
]
RackHeightU = Annotated[int, int_range(1, 100, "U", "a rack is 42-52U"), StrictNumber]
NodeHeightU = Annotated[int, int_range(1, 60, "U", "one node"), StrictNumber]
CircuitVolts = Annotated[
    float, float_range(0, 1_000, "V", "a branch circuit (120-480 V)", positive=True), FloatSized
]
CircuitAmps = Annotated[
    float, float_range(0, 1_000, "A", "a branch circuit's rating", positive=True), FloatSized
]
CableMetres = Annotated[
    float, float_range(0, 100_000, "m", "the longest fabric cable run", positive=True), FloatSized
]
