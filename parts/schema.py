"""Catalog schema: frozen pydantic models for every part kind and for LLM model presets.

Every record carries ``source`` (the datasheet or product page a figure comes from) and
``confidence`` (A = vendor document or verbatim copy, B = careful third party naming its vendor
sources, C = secondary / inferred).  A figure that could not be verified is ``None``: the engine
reports it as unknown rather than guessing.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

Confidence = Literal["A", "B", "C"]
NonEmpty = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]

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


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Record(_Frozen):
    """Fields shared by every catalog record (each kind narrows ``kind`` to its literal)."""

    kind: str
    sku: NonEmpty
    name: NonEmpty
    source: NonEmpty = Field(description="Datasheet / product page URL the figures come from")
    confidence: Confidence = "A"
    notes: str | None = None
    # Extra sources for individual figures, e.g. {"tdp_w": "https://..."}.
    field_sources: dict[str, str] = Field(default_factory=dict)


# --------------------------------------------------------------------------- chassis


class Root(_Frozen):
    """A PCIe root: a CPU socket's root complex or a PCIe switch hanging off one."""

    id: NonEmpty
    kind: Literal["cpu", "switch"]
    label: str = ""
    socket: int = Field(ge=1, description="CPU socket (1-based) this root belongs to")
    parent: str | None = Field(None, description="for a switch: the root its upstream port uses")
    lanes: int | None = Field(None, ge=1, description="downstream lanes the root can serve")
    upstream_lanes: int | None = Field(None, ge=1, description="switch uplink width")
    gen: int | None = Field(None, ge=3, le=6)


class Slot(_Frozen):
    id: NonEmpty
    label: NonEmpty = Field(description="label as the manual prints it")
    root: NonEmpty
    gen: int = Field(ge=3, le=6)
    lanes: int = Field(ge=1, le=16, description="electrical lanes")
    mechanical: int = Field(16, ge=1, le=16)
    full_height: bool = True
    full_length: bool = True
    double_width: bool = Field(True, description="a double-width card fits here")
    covers: str | None = Field(None, description="neighbour slot a double-width card blocks")
    requires_socket: int | None = Field(None, ge=1, description="slot is dead without this CPU")
    purpose: Literal["gpu", "nic", "any"] = "any"


class DriveBay(_Frozen):
    id: NonEmpty
    count: int = Field(ge=1)
    form_factor: Literal["2.5in", "3.5in", "E1.S", "E3.S", "M.2"]
    interfaces: tuple[Literal["nvme", "sata", "sas"], ...]
    note: str | None = None


class Chassis(Record):
    kind: Literal["chassis"] = "chassis"
    family: Literal["X13", "X14", "H13", "H14"]
    form_factor_u: int | None = Field(None, ge=1, le=10)
    gpu_form: Literal["pcie", "sxm"]
    max_gpus: int | None = Field(None, ge=0)
    cpu_sockets: int = Field(ge=1, le=2)
    cpu_max_tdp_w: int | None = Field(None, ge=1)
    cpu_skus: tuple[str, ...] = ()
    dimm_slots: int | None = Field(None, ge=0)
    dimm_skus: tuple[str, ...] = ()
    gpu_skus: tuple[str, ...] = Field((), description="GPUs the vendor lists as supported")
    baseboard_skus: tuple[str, ...] = ()
    psu_bays: int | None = Field(None, ge=1)
    psu_skus: tuple[str, ...] = ()
    psu_default_count: int | None = Field(None, ge=1)
    fans: int | None = Field(None, ge=0)
    cooling: Literal["air", "liquid", "air_or_liquid"] = "air"
    max_gpu_tdp_air_w: int | None = Field(None, ge=1)
    max_ambient_c: float | None = None
    drive_bays: tuple[DriveBay, ...] = ()
    roots: tuple[Root, ...] = ()
    slots: tuple[Slot, ...] = ()
    nvlink_groups: tuple[tuple[str, ...], ...] = Field(
        (), description="slot groups a bridge may join: pairs (2-way) or quads (4-way)"
    )
    topology_confidence: Confidence | None = None
    topology_note: str | None = None
    system_overhead_w: int | None = Field(
        None, description="fans, board, BMC at full load, when the vendor publishes it"
    )


# --------------------------------------------------------------------------- GPUs


class Gpu(Record):
    kind: Literal["gpu"] = "gpu"
    memory_gb: float = Field(gt=0)
    memory_type: str | None = None
    memory_bw_gbs: float | None = Field(None, gt=0)
    tdp_w: int | None = Field(None, gt=0, description="max configurable TDP")
    form: Literal["pcie", "sxm"]
    width_slots: int | None = Field(None, ge=1, le=4)
    length: Literal["FHFL", "FHHL", "HHHL", "LP", "SXM"] | None = None
    cooling: Literal["passive", "blower", "open_air", "liquid", "sxm"] | None = None
    pcie_gen: int | None = Field(None, ge=3, le=6)
    pcie_lanes: int | None = Field(None, ge=1, le=16)
    nvlink: Literal["none", "bridge", "nvswitch"] | None = None
    nvlink_bw_gbs: float | None = None
    bridges_per_pair: int | None = Field(None, ge=1)
    bf16_tflops_dense: float | None = Field(None, gt=0)
    fp8_tflops_dense: float | None = Field(None, gt=0)
    fp32_tflops: float | None = Field(None, gt=0)
    datacenter: bool = True
    ecc: bool | None = None


class Baseboard(Record):
    """An HGX baseboard: the GPUs, NVSwitches and their power as one field-replaceable unit."""

    kind: Literal["baseboard"] = "baseboard"
    gpu_sku: NonEmpty
    gpu_count: int = Field(ge=1)
    nvswitch_count: int | None = None
    liquid_only: bool = False
    board_power_w: int | None = Field(None, description="beyond the GPUs' TDP (NVSwitch, retimers)")


class Bridge(Record):
    kind: Literal["bridge"] = "bridge"
    gpu_skus: tuple[str, ...]
    ways: Literal[2, 4]
    per_group: int = Field(1, ge=1, description="bridges a GPU pair/quad needs")
    bw_gbs: float | None = None


# --------------------------------------------------------------------------- platform


class Cpu(Record):
    kind: Literal["cpu"] = "cpu"
    family: str
    socket: str
    cores: int | None = Field(None, ge=1)
    tdp_w: int | None = Field(None, ge=1)
    pcie_lanes: int | None = Field(None, ge=1)
    pcie_gen: int | None = None
    memory_channels: int | None = Field(None, ge=1)
    memory_mts_1dpc: int | None = None
    memory_mts_2dpc: int | None = None
    max_sockets: int | None = Field(None, ge=1)


class Dimm(Record):
    kind: Literal["dimm"] = "dimm"
    capacity_gb: int = Field(gt=0)
    type: Literal["DDR5 RDIMM", "DDR5 MRDIMM", "DDR4 RDIMM"]
    speed_mts: int = Field(gt=0)
    power_w: float | None = None


class Nic(Record):
    kind: Literal["nic"] = "nic"
    family: str
    role: Literal["nic", "dpu", "supernic"] = "nic"
    ports: int = Field(ge=1)
    port_gbps: int = Field(gt=0)
    pcie_gen: int | None = None
    pcie_lanes: int | None = Field(None, ge=1, le=16)
    form: Literal["HHHL", "FHHL", "OCP3", "FHFL"] | None = None
    width_slots: int = 1
    power_w: float | None = None


class Drive(Record):
    kind: Literal["drive"] = "drive"
    form_factor: Literal["2.5in", "3.5in", "E1.S", "E3.S", "M.2"]
    interface: Literal["nvme", "sata", "sas"]
    capacity_tb: float = Field(gt=0)
    power_w: float | None = None


class Psu(Record):
    kind: Literal["psu"] = "psu"
    watts_high_line: int = Field(gt=0, description="output at 200-240 V AC")
    watts_low_line: int | None = Field(None, gt=0, description="output at 100-127 V AC")
    efficiency: str | None = None


# --------------------------------------------------------------------------- LLM presets


MixerType = Literal[
    "full_attention", "sliding_attention", "chunked_attention", "mamba", "mamba2", "none"
]
MlpType = Literal["dense", "moe", "none"]


class SsmSpec(_Frozen):
    """A state-space (Mamba) mixer's shape, as ``MambaConfig`` / ``Mamba2Config`` /
    ``JambaConfig`` / ``NemotronHConfig`` define it (``engine.estimate.arch.hybrid``)."""

    version: Literal[1, 2]
    d_inner: int = Field(gt=0, description="expand x hidden_size (Mamba-2: heads x head_dim)")
    state_size: int = Field(gt=0)
    conv_kernel: int = Field(gt=0)
    dt_rank: int = Field(0, ge=0, description="Mamba-1 time_step_rank")
    n_heads: int = Field(0, ge=0, description="Mamba-2 heads")
    n_groups: int = Field(1, ge=1, description="Mamba-2 B/C groups")
    conv_bias: bool = True
    proj_bias: bool = False
    inner_norms: bool = Field(False, description="Jamba's dt/B/C RMSNorms inside the mixer")


class ModelPreset(Record):
    """Architecture fields as in the model's config.json (names follow Hugging Face).

    The fields after ``attention_bias`` describe what differs from a Llama-style decoder (SwiGLU
    MLP, RMSNorm, no biases, untied unless ``tie_word_embeddings``); their defaults are the
    Llama values, so a Llama-style preset needs none of them.  ``engine.estimate.arch`` fills
    them from a config.json per model family; ``engine.estimate.params`` counts from them.
    """

    kind: Literal["model"] = "model"
    model_type: str
    hidden_size: int = Field(gt=0)
    intermediate_size: int = Field(ge=0, description="dense MLP width (0: no dense MLP)")
    num_hidden_layers: int = Field(gt=0)
    num_attention_heads: int = Field(ge=0, description="0 only for attention-free models")
    num_key_value_heads: int = Field(ge=0)
    head_dim: int | None = Field(None, gt=0)
    vocab_size: int = Field(gt=0)
    tie_word_embeddings: bool = False
    max_position_embeddings: int | None = None
    attention_bias: bool = False
    # Mixture of experts
    num_experts: int | None = Field(None, ge=1)
    num_experts_per_tok: int | None = Field(None, ge=1)
    moe_intermediate_size: int | None = None
    n_shared_experts: int | None = None
    first_k_dense_replace: int | None = None
    # Multi-head latent attention (DeepSeek-V2/V3)
    q_lora_rank: int | None = None
    kv_lora_rank: int | None = None
    qk_nope_head_dim: int | None = None
    qk_rope_head_dim: int | None = None
    v_head_dim: int | None = None
    # Layout beyond a Llama-style decoder (defaults = Llama)
    layer_types: tuple[MixerType, ...] | None = Field(
        None, description="per layer mixer; None = full attention everywhere"
    )
    mlp_layer_types: tuple[MlpType, ...] | None = Field(
        None, description="per layer FFN; None = dense, or MoE after first_k_dense_replace"
    )
    sliding_window: int | None = Field(None, gt=0, description="tokens a sliding layer keeps")
    mlp_gated: bool = Field(True, description="gate+up+down (SwiGLU/GeGLU) vs up+down (GELU)")
    mlp_bias: bool = False
    attention_qkv_bias: bool | None = Field(None, description="None: from attention_bias")
    attention_out_bias: bool | None = Field(None, description="None: from attention_bias")
    norm_bias: bool = Field(False, description="LayerNorm with bias (vs RMSNorm)")
    norm_params: bool = Field(True, description="False: non-parametric LayerNorm (OLMo 1)")
    norms_per_layer: int | None = Field(None, ge=0, description="None: 2 (4 for Gemma 2/3)")
    final_norm: bool = True
    qk_norm: Literal["none", "head", "full"] = Field(
        "none", description="head: one head_dim weight for q and k; full: per head"
    )
    position_embeddings: int = Field(0, ge=0, description="learned absolute position rows")
    embedding_proj_dim: int | None = Field(None, gt=0, description="OPT word_embed_proj_dim")
    lm_head_bias: bool = False
    attention_sinks: bool = Field(False, description="gpt-oss: one learned sink per head")
    shared_expert_intermediate_size: int | None = Field(None, ge=0)
    shared_expert_gate: bool = Field(False, description="Qwen2-MoE sigmoid gate on the shared")
    router_bias: bool = Field(False, description="per-expert router bias / score correction")
    expert_bias: bool = Field(False, description="gpt-oss: biases on every expert projection")
    ssm: SsmSpec | None = None
    extra_params: int = Field(
        0, ge=0, description="weights outside the decoder stack (vision tower, projector)"
    )
    # Published figures the computed counts are checked against
    published_params_b: float = Field(gt=0, description="total parameters, billions")
    published_active_params_b: float | None = None
    hf_id: str | None = None

    @model_validator(mode="after")
    def _layout_matches_layers(self) -> ModelPreset:
        for name in ("layer_types", "mlp_layer_types"):
            value = getattr(self, name)
            if value is not None and len(value) != self.num_hidden_layers:
                raise ValueError(
                    f"{name} lists {len(value)} layers but num_hidden_layers is "
                    f"{self.num_hidden_layers}"
                )
        mixers = self.layer_types or ("full_attention",)
        if any(m.endswith("attention") for m in mixers) and not (
            self.num_attention_heads and self.num_key_value_heads
        ):
            raise ValueError("attention layers need num_attention_heads and num_key_value_heads")
        if any(m.startswith("mamba") for m in mixers) and self.ssm is None:
            raise ValueError("mamba layers need the ssm shape")
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
