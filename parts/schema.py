"""Catalog schema: frozen pydantic models for every part kind and for LLM model presets.

Every record carries ``source`` (the datasheet or product page a figure comes from) and
``confidence`` (A = vendor document or verbatim copy, B = careful third party naming its vendor
sources, C = secondary / inferred).  A figure that could not be verified is ``None``: the engine
reports it as unknown rather than guessing.

Every number is one of the bounded types of :mod:`parts.bounds`: finite, no ``true``/``false`` or
string where a number belongs, and inside a documented physical range (the range and its reason
are each field's JSON-schema ``description``).  :class:`ModelPreset` also checks its fields
against each other (heads divide the hidden size, KV heads divide the heads, ...).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from slotwise.parts.bounds import (
    AirflowCfm,
    AmbientC,
    BandwidthGBs,
    BaseboardGpus,
    BridgesPerGroup,
    ChassisCount,
    ContextTokens,
    ContextTokensOrZero,
    CpuCores,
    CpuSockets,
    DimmGB,
    DriveTB,
    ExpertCount,
    GpuMemoryGB,
    HeadDim,
    LatentDim,
    MemoryChannels,
    MemoryMTs,
    ModelHeadsOrZero,
    ModelLayers,
    ModelWidth,
    ModelWidthOrZero,
    MrdimmMTs,
    NicPorts,
    NormsPerLayer,
    NvswitchCount,
    ParamCount,
    ParamsB,
    PartWatts,
    PartWattsInt,
    PcieGen,
    PortGbps,
    PositiveChassisCount,
    PositiveSmall,
    PsuWatts,
    RackUnits,
    RootLanes,
    Share,
    SlotLanes,
    SmallCount,
    Socket,
    SystemWatts,
    Tflops,
    VocabSize,
    WidthSlots,
)
from slotwise.parts.plain_text import refuse_controls

Confidence = Literal["A", "B", "C"]
NonEmpty = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
#: The longest real part number is ~40 characters; a longer "SKU" is a mistake.
MAX_SKU_CHARS = 200


def _file_name_safe(sku: str) -> str:
    """A SKU names files (``suggest --out`` writes ``<rank>-<chassis SKU>.toml``): no path
    separator, and not ``.`` or ``..``."""
    if "/" in sku or "\\" in sku or sku in (".", ".."):
        raise ValueError(f"a SKU names files, so it may not contain / or \\ (found {sku!r})")
    return sku


SkuText = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_SKU_CHARS)
]
#: A part's own SKU (part numbers, which may hold a "/", are SkuText; a model preset's id may be
#: a Hugging Face id such as "org/name", and names no file).
RecordSku = Annotated[SkuText, AfterValidator(_file_name_safe)]

PART_KINDS = (
    "chassis",
    "gpu",
    "baseboard",
    "bridge",
    "cpu",
    "dimm",
    "nic",
    "drive",
    "psu",
    "model",
)


#: Free-text fields: a newline or tab is allowed there; every other string is one line.
_FREE_TEXT_FIELDS = frozenset({"notes", "note"})


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def _no_control_characters(cls, value: object, info: ValidationInfo) -> object:
        """No string of a record (SKU, name, id, source, ...) holds a control character:
        an overlay from a stranger cannot put terminal escapes on the user's screen
        (parts.plain_text)."""
        return refuse_controls(value, allow_lines=info.field_name in _FREE_TEXT_FIELDS)


class PartNumber(_Frozen):
    """An orderable part number of a record, with its own provenance (separate from the
    internal ``sku``).  ``vendor`` is who the number orders from: "Supermicro" for the code a
    Supermicro quote lists (GPU-NV..., MEM-DR5..., AOC-..., HDS-..., PWS-...), or the maker
    ("NVIDIA", "Micron", ...) for its own part number / OPN.  Only a number seen in a public
    source goes here: confidence A (vendor document or vendor-generated BOM) or B (careful third
    party quoting one); a number inferred from a naming pattern is not a part number."""

    pn: SkuText
    vendor: NonEmpty
    source: NonEmpty = Field(description="where the number was seen (URL or repository path)")
    confidence: Literal["A", "B"]
    note: str | None = None


class Companion(_Frozen):
    """A line an order of this part needs beside it (a DPU's software-support contract, its
    auxiliary power cable), as the vendor's own BOM lists it: ``per_unit`` of it per unit of the
    part.  Only from a source that pairs them (a vendor-generated BOM), never by analogy."""

    pn: SkuText
    kind: Literal["service", "cable", "accessory"]
    description: NonEmpty
    per_unit: PositiveSmall = 1
    source: NonEmpty
    confidence: Literal["A", "B"]


class Record(_Frozen):
    """Fields shared by every catalog record (each kind narrows ``kind`` to its literal)."""

    kind: str
    sku: RecordSku
    name: NonEmpty
    source: NonEmpty = Field(description="Datasheet / product page URL the figures come from")
    confidence: Confidence = "A"
    notes: str | None = None
    # Extra sources for individual figures, e.g. {"tdp_w": "https://..."}.
    field_sources: dict[str, str] = Field(default_factory=dict)
    part_numbers: tuple[PartNumber, ...] = Field(
        (), description="orderable part numbers (Supermicro's, the maker's) with their sources"
    )
    companions: tuple[Companion, ...] = Field(
        (), description="lines the vendor's BOM requires with this part (support, cables)"
    )

    def part_number(self, vendor: str | None = None) -> PartNumber | None:
        """The Supermicro number when one is sourced (what a Supermicro quote lists), else the
        maker's; with ``vendor``, that vendor's only."""
        pns = self.part_numbers
        if vendor is not None:
            return next((p for p in pns if p.vendor == vendor), None)
        smc = next((p for p in pns if p.vendor == "Supermicro"), None)
        return smc or (pns[0] if pns else None)


# --------------------------------------------------------------------------- chassis


class Root(_Frozen):
    """A PCIe root: a CPU socket's root complex or a PCIe switch hanging off one."""

    id: NonEmpty
    kind: Literal["cpu", "switch"]
    label: str = ""
    socket: Socket = Field(description="CPU socket (1-based) this root belongs to")
    parent: str | None = Field(None, description="for a switch: the root its upstream port uses")
    lanes: RootLanes | None = Field(None, description="downstream lanes the root can serve")
    upstream_lanes: RootLanes | None = Field(None, description="switch uplink width")
    gen: PcieGen | None = None


class Slot(_Frozen):
    id: NonEmpty
    label: NonEmpty = Field(description="label as the manual prints it")
    root: NonEmpty
    gen: PcieGen
    lanes: SlotLanes = Field(description="electrical lanes")
    mechanical: SlotLanes = 16
    full_height: bool = True
    full_length: bool = True
    double_width: bool = Field(True, description="a double-width card fits here")
    covers: str | None = Field(None, description="neighbour slot a double-width card blocks")
    requires_socket: Socket | None = Field(None, description="slot is dead without this CPU")
    purpose: Literal["gpu", "nic", "any"] = "any"
    kind: Literal["pcie", "ocp3"] = Field(
        "pcie",
        description="connector: a PCIe CEM card slot, or an OCP 3.0 / Supermicro AIOM "
        "mezzanine that takes only OCP 3.0 NICs",
    )


class DriveBay(_Frozen):
    id: NonEmpty
    count: PositiveChassisCount
    form_factor: Literal["2.5in", "3.5in", "E1.S", "E3.S", "M.2"]
    interfaces: tuple[Literal["nvme", "sata", "sas"], ...]
    note: str | None = None


class OnboardNic(_Frozen):
    """NICs soldered to the board or to a switch board (e.g. ConnectX-8 on an HGX B300 board or
    on Supermicro's AOM-CX8-GP): they come with the chassis, take no slot, and count as networking.
    """

    sku: NonEmpty = Field(description="the Nic record describing the device")
    count: PositiveChassisCount
    roots: tuple[str, ...] = Field(
        (), description="PCIe roots the devices hang off (one per device, or one for all)"
    )
    note: str | None = None


class Chassis(Record):
    kind: Literal["chassis"] = "chassis"
    family: Literal["X13", "X14", "H13", "H14"]
    form_factor_u: RackUnits | None = None
    gpu_form: Literal["pcie", "sxm"]
    max_gpus: ChassisCount | None = None
    cpu_sockets: CpuSockets
    cpu_max_tdp_w: PartWattsInt | None = None
    cpu_skus: tuple[str, ...] = ()
    dimm_slots: ChassisCount | None = None
    dimm_skus: tuple[str, ...] = ()
    gpu_skus: tuple[str, ...] = Field((), description="GPUs the vendor lists as supported")
    baseboard_skus: tuple[str, ...] = ()
    psu_bays: PositiveChassisCount | None = None
    psu_skus: tuple[str, ...] = ()
    psu_default_count: PositiveChassisCount | None = None
    fans: ChassisCount | None = None
    cooling: Literal["air", "liquid", "air_or_liquid"] = "air"
    max_gpu_tdp_air_w: PartWattsInt | None = None
    max_ambient_c: AmbientC | None = None
    drive_bays: tuple[DriveBay, ...] = ()
    onboard_nics: tuple[OnboardNic, ...] = Field(
        (), description="NICs/DPUs built into the system (included, take no slot)"
    )
    roots: tuple[Root, ...] = ()
    slots: tuple[Slot, ...] = ()
    nvlink_groups: tuple[tuple[str, ...], ...] = Field(
        (), description="slot groups a bridge may join: pairs (2-way) or quads (4-way)"
    )
    topology_confidence: Confidence | None = None
    topology_note: str | None = None
    system_overhead_w: SystemWatts | None = Field(
        None, description="fans, board, BMC at full load, when the vendor publishes it"
    )
    psu_redundancy: str | None = Field(
        None,
        pattern=r"^\s*\d+\s*\+\s*\d+\s*$",
        description="the PSU scheme the vendor specifies, 'a+b': a units carry the load, b spare",
    )
    airflow_cfm: AirflowCfm | None = Field(None, description="published airflow at full load")
    liquid_heat_share: Share | None = Field(
        None, description="share of the heat the cold plates take (liquid systems)"
    )


# --------------------------------------------------------------------------- GPUs


class Gpu(Record):
    kind: Literal["gpu"] = "gpu"
    memory_gb: GpuMemoryGB
    memory_type: str | None = None
    memory_bw_gbs: BandwidthGBs | None = None
    tdp_w: PartWattsInt | None = Field(None, description="max configurable TDP")
    form: Literal["pcie", "sxm"]
    width_slots: WidthSlots | None = None
    length: Literal["FHFL", "FHHL", "HHHL", "LP", "SXM"] | None = None
    cooling: Literal["passive", "blower", "open_air", "liquid", "sxm"] | None = None
    pcie_gen: PcieGen | None = None
    pcie_lanes: SlotLanes | None = None
    nvlink: Literal["none", "bridge", "nvswitch"] | None = None
    nvlink_bw_gbs: BandwidthGBs | None = None
    bridges_per_pair: BridgesPerGroup | None = None
    bf16_tflops_dense: Tflops | None = None
    fp8_tflops_dense: Tflops | None = None
    fp32_tflops: Tflops | None = None
    datacenter: bool = True
    ecc: bool | None = None


class Baseboard(Record):
    """An HGX baseboard: the GPUs, NVSwitches and their power as one field-replaceable unit."""

    kind: Literal["baseboard"] = "baseboard"
    gpu_sku: NonEmpty
    gpu_count: BaseboardGpus
    nvswitch_count: NvswitchCount | None = None
    liquid_only: bool = False
    board_power_w: SystemWatts | None = Field(
        None, description="beyond the GPUs' TDP (NVSwitch, retimers)"
    )
    power_method: str | None = Field(
        None, description="set when board_power_w is derived (tier C): how, and from what"
    )


class Bridge(Record):
    kind: Literal["bridge"] = "bridge"
    gpu_skus: tuple[str, ...]
    ways: Literal[2, 4]
    per_group: BridgesPerGroup = 1
    bw_gbs: BandwidthGBs | None = None


# --------------------------------------------------------------------------- platform


class Cpu(Record):
    kind: Literal["cpu"] = "cpu"
    family: str
    socket: str
    cores: CpuCores | None = None
    tdp_w: PartWattsInt | None = None
    pcie_lanes: RootLanes | None = None
    pcie_gen: PcieGen | None = None
    memory_channels: MemoryChannels | None = None
    memory_mts_1dpc: MemoryMTs | None = None
    memory_mts_2dpc: MemoryMTs | None = None
    mrdimm_mts: MrdimmMTs | None = Field(
        None, description="MRDIMM (MCR DIMM) speed it runs; 0: takes none; None: not known"
    )
    max_sockets: Socket | None = None


class Dimm(Record):
    kind: Literal["dimm"] = "dimm"
    capacity_gb: DimmGB
    type: Literal["DDR5 RDIMM", "DDR5 MRDIMM", "DDR4 RDIMM"]
    speed_mts: MemoryMTs
    power_w: PartWatts | None = None
    power_method: str | None = Field(
        None, description="set when power_w is derived (tier C): how, and from what"
    )


class Nic(Record):
    kind: Literal["nic"] = "nic"
    family: str
    role: Literal["nic", "dpu", "supernic"] = "nic"
    ports: NicPorts
    port_gbps: PortGbps
    pcie_gen: PcieGen | None = None
    pcie_lanes: SlotLanes | None = None
    form: Literal["HHHL", "FHHL", "OCP3", "FHFL", "onboard"] | None = Field(
        None, description="card form factor; 'onboard' = a device built into a system board"
    )
    width_slots: WidthSlots = 1
    cage: Literal["OSFP", "QSFP112", "QSFP56", "SFP56", "RJ45"] | None = Field(
        None,
        description="the port connector cage (what a transceiver or cable plugs into); "
        "None: not verified",
    )
    power_w: PartWatts | None = None
    power_method: str | None = Field(
        None, description="set when power_w is derived (tier C): how, and from what"
    )
    power_includes_modules: bool = Field(
        False,
        description="power_w is a vendor BOM figure taken to include the card's pluggable "
        "modules (their quote lines then carry no power of their own)",
    )


class Drive(Record):
    kind: Literal["drive"] = "drive"
    form_factor: Literal["2.5in", "3.5in", "E1.S", "E3.S", "M.2"]
    interface: Literal["nvme", "sata", "sas"]
    capacity_tb: DriveTB
    power_w: PartWatts | None = None
    power_method: str | None = Field(
        None, description="set when power_w is derived (tier C): how, and from what"
    )


class Psu(Record):
    kind: Literal["psu"] = "psu"
    watts_high_line: PsuWatts = Field(description="output at 200-240 V AC")
    watts_low_line: PsuWatts | None = Field(None, description="output at 100-127 V AC")
    efficiency: str | None = None
    inlet: Literal["C13/C14", "C15/C16", "C19/C20"] | None = Field(
        None, description="IEC 60320 inlet; C19/C20 carries at most 16 A"
    )


# --------------------------------------------------------------------------- LLM presets


MixerType = Literal[
    "full_attention",
    "sliding_attention",
    "chunked_attention",
    "linear_attention",
    "mamba",
    "mamba2",
    "none",
]
MlpType = Literal["dense", "moe", "none"]


class SsmSpec(_Frozen):
    """A state-space (Mamba) mixer's shape, as ``MambaConfig`` / ``Mamba2Config`` /
    ``JambaConfig`` / ``NemotronHConfig`` define it (``engine.model.arch.hybrid``)."""

    version: Literal[1, 2]
    d_inner: ModelWidth = Field(description="expand x hidden_size (Mamba-2: heads x head_dim)")
    state_size: PositiveSmall
    conv_kernel: PositiveSmall
    dt_rank: ModelWidthOrZero = Field(0, description="Mamba-1 time_step_rank")
    n_heads: SmallCount = Field(0, description="Mamba-2 heads")
    n_groups: PositiveSmall = Field(1, description="Mamba-2 B/C groups")
    conv_bias: bool = True
    proj_bias: bool = False
    inner_norms: bool = Field(False, description="Jamba's dt/B/C RMSNorms inside the mixer")


class LinearAttentionSpec(_Frozen):
    """A Gated DeltaNet mixer's shape (Qwen3-Next / Qwen3.5 ``linear_attention`` layers, as
    ``Qwen3_5TextConfig`` names it: ``linear_num_key_heads`` x ``linear_key_head_dim`` for q and k,
    ``linear_num_value_heads`` x ``linear_value_head_dim`` for v, ``linear_conv_kernel_dim``)."""

    key_heads: PositiveSmall
    value_heads: PositiveSmall
    key_head_dim: PositiveSmall
    value_head_dim: PositiveSmall
    conv_kernel: PositiveSmall

    @property
    def key_dim(self) -> int:
        return self.key_heads * self.key_head_dim

    @property
    def value_dim(self) -> int:
        return self.value_heads * self.value_head_dim


class ModelPreset(Record):
    """Architecture fields as in the model's config.json (names follow Hugging Face).

    The fields after ``attention_bias`` describe what differs from a Llama-style decoder (SwiGLU
    MLP, RMSNorm, no biases, untied unless ``tie_word_embeddings``); their defaults are the
    Llama values, so a Llama-style preset needs none of them.  ``engine.model.arch`` fills
    them from a config.json per model family; ``engine.model.params`` counts from them.
    """

    kind: Literal["model"] = "model"
    sku: SkuText  # a preset id or a Hugging Face id ("org/name"): names no file
    model_type: str
    hidden_size: ModelWidth
    intermediate_size: ModelWidthOrZero = Field(description="dense MLP width (0: no dense MLP)")
    num_hidden_layers: ModelLayers
    num_attention_heads: ModelHeadsOrZero = Field(description="0 only for attention-free models")
    num_key_value_heads: ModelHeadsOrZero
    head_dim: HeadDim | None = None
    vocab_size: VocabSize
    tie_word_embeddings: bool = False
    max_position_embeddings: ContextTokens | None = None
    attention_bias: bool = False
    # Mixture of experts
    num_experts: ExpertCount | None = None
    num_experts_per_tok: ExpertCount | None = None
    moe_intermediate_size: ModelWidth | None = None
    n_shared_experts: SmallCount | None = None
    first_k_dense_replace: SmallCount | None = None
    # Multi-head latent attention (DeepSeek-V2/V3)
    q_lora_rank: LatentDim | None = None
    kv_lora_rank: LatentDim | None = None
    qk_nope_head_dim: HeadDim | None = None
    qk_rope_head_dim: HeadDim | None = None
    v_head_dim: HeadDim | None = None
    # Layout beyond a Llama-style decoder (defaults = Llama)
    layer_types: tuple[MixerType, ...] | None = Field(
        None, description="per layer mixer; None = full attention everywhere"
    )
    mlp_layer_types: tuple[MlpType, ...] | None = Field(
        None, description="per layer FFN; None = dense, or MoE after first_k_dense_replace"
    )
    sliding_window: ContextTokens | None = Field(None, description="tokens a sliding layer keeps")
    mlp_gated: bool = Field(True, description="gate+up+down (SwiGLU/GeGLU) vs up+down (GELU)")
    mlp_bias: bool = False
    attention_qkv_bias: bool | None = Field(None, description="None: from attention_bias")
    attention_out_bias: bool | None = Field(None, description="None: from attention_bias")
    norm_bias: bool = Field(False, description="LayerNorm with bias (vs RMSNorm)")
    norm_params: bool = Field(True, description="False: non-parametric LayerNorm (OLMo 1)")
    norms_per_layer: NormsPerLayer | None = Field(None, description="None: 2 (4 for Gemma 2/3)")
    final_norm: bool = True
    qk_norm: Literal["none", "head", "full"] = Field(
        "none", description="head: one head_dim weight for q and k; full: per head"
    )
    position_embeddings: ContextTokensOrZero = Field(
        0, description="learned absolute position rows"
    )
    embedding_proj_dim: ModelWidth | None = Field(None, description="OPT word_embed_proj_dim")
    lm_head_bias: bool = False
    embedding_norm: bool = Field(False, description="BLOOM: a LayerNorm right after the embedding")
    # Per-layer widths (DeciLM / Nemotron-NAS: a different FFN width in every layer)
    layer_intermediate_sizes: tuple[ModelWidthOrZero, ...] | None = Field(
        None, description="per layer dense MLP width; None = intermediate_size everywhere"
    )
    norms_per_sublayer: bool = Field(
        False, description="one norm before each attention/FFN block present (DeciLM no-ops)"
    )
    linear_replacements: SmallCount = Field(
        0, description="DeciLM: attention or FFN blocks replaced by one hidden x hidden Linear"
    )
    attention_sinks: bool = Field(False, description="gpt-oss: one learned sink per head")
    shared_expert_intermediate_size: ModelWidthOrZero | None = None
    shared_expert_gate: bool = Field(False, description="Qwen2-MoE sigmoid gate on the shared")
    router_bias: bool = Field(False, description="per-expert router bias / score correction")
    expert_bias: bool = Field(False, description="gpt-oss: biases on every expert projection")
    moe_latent_size: ModelWidth | None = Field(
        None, description="Nemotron 3 LatentMoE: routed experts run at this width, not hidden_size"
    )
    ssm: SsmSpec | None = None
    linear_attention: LinearAttentionSpec | None = None
    # DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2, GLM-5): layers that run one
    indexer_layers: SmallCount = Field(0, description="layers with a DSA lightning indexer")
    indexer_heads: SmallCount = 0
    indexer_head_dim: SmallCount = 0
    attention_output_gate: bool = Field(
        False, description="Qwen3-Next / Qwen3.5: q_proj also yields a sigmoid gate per head"
    )
    extra_params: ParamCount = Field(
        0, description="weights outside the decoder stack (vision tower, projector)"
    )
    # Published figures the computed counts are checked against
    published_params_b: ParamsB = Field(description="total parameters, billions")
    published_active_params_b: ParamsB | None = None
    hf_id: str | None = None
    # The format the checkpoint's weights are stored in, from its config.json
    # quantization_config (engine.model.checkpoint): "fp8" for an FP8 checkpoint, None when
    # unstated or not one of slotwise's precisions; ``stored_format`` says what was found.
    stored_precision: Literal["fp8"] | None = None
    stored_format: str | None = Field(None, max_length=300)

    @model_validator(mode="after")
    def _consistent(self) -> ModelPreset:
        """Cross-field checks every estimator formula relies on (each would otherwise divide by
        zero or count a fractional head): per-layer lists match num_hidden_layers, attention
        layers have heads and mamba layers an ssm shape, the attention heads split the hidden
        size evenly unless ``head_dim`` (or MLA's latent ranks) says otherwise, KV heads divide
        the attention heads (grouped-query attention), and a token picks at most every expert."""
        for name in ("layer_types", "mlp_layer_types", "layer_intermediate_sizes"):
            value = getattr(self, name)
            if value is not None and len(value) != self.num_hidden_layers:
                raise ValueError(
                    f"{name} lists {len(value)} layers but num_hidden_layers is "
                    f"{self.num_hidden_layers}"
                )
        mixers = self.layer_types or ("full_attention",)
        if any(m.endswith("attention") and m != "linear_attention" for m in mixers) and not (
            self.num_attention_heads and self.num_key_value_heads
        ):
            raise ValueError("attention layers need num_attention_heads and num_key_value_heads")
        if any(m.startswith("mamba") for m in mixers) and self.ssm is None:
            raise ValueError("mamba layers need the ssm shape")
        if "linear_attention" in mixers and self.linear_attention is None:
            raise ValueError("linear_attention layers need the linear_attention shape")
        problems = []
        no_head_dim = self.head_dim is None and self.kv_lora_rank is None
        heads, kv = self.num_attention_heads, self.num_key_value_heads
        if no_head_dim and heads and self.hidden_size % heads:
            problems.append(
                f"num_attention_heads {self.num_attention_heads} does not divide hidden_size "
                f"{self.hidden_size} (and there is no head_dim)"
            )
        if heads and kv and heads % kv:
            problems.append(
                f"num_key_value_heads {self.num_key_value_heads} does not divide "
                f"num_attention_heads {self.num_attention_heads}"
            )
        experts, per_tok = self.num_experts, self.num_experts_per_tok
        if experts is not None and per_tok is not None and per_tok > experts:
            problems.append(
                f"num_experts_per_tok {self.num_experts_per_tok} is more than num_experts "
                f"{self.num_experts}"
            )
        dense = self.first_k_dense_replace
        if dense is not None and dense > self.num_hidden_layers:
            problems.append(
                f"first_k_dense_replace {self.first_k_dense_replace} is more than "
                f"num_hidden_layers {self.num_hidden_layers}"
            )
        if (
            self.published_active_params_b is not None
            and self.published_active_params_b > self.published_params_b * 1.0001
        ):
            problems.append(
                f"published_active_params_b {self.published_active_params_b:g} is more than "
                f"published_params_b {self.published_params_b:g}"
            )
        if problems:
            raise ValueError("; ".join(problems))
        return self


Part = Chassis | Gpu | Baseboard | Bridge | Cpu | Dimm | Nic | Drive | Psu | ModelPreset

MODEL_BY_KIND: dict[str, type[Record]] = {
    "chassis": Chassis,
    "gpu": Gpu,
    "baseboard": Baseboard,
    "bridge": Bridge,
    "cpu": Cpu,
    "dimm": Dimm,
    "nic": Nic,
    "drive": Drive,
    "psu": Psu,
    "model": ModelPreset,
}
