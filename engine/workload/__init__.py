"""The customer's workload: what they want to run on the build (see shared CLI.md, workload flags)."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StringConstraints,
    field_validator,
    model_validator,
)

from slotwise.engine.inputs import ref
from slotwise.engine.workload.kinds import (
    Attention,
    AttentionKernel,
    CheckpointMode,
    HostLaunch,
    KvCacheDtype,
    LoraInputCast,
    Loss,
    Method,
    Nf4Backend,
    Offload,
    Optimizer,
    Parallel,
    PrecisionChoice,
    ServingEngine,
)
from slotwise.parts.bounds import (
    BucketElements,
    ConcurrentUsers,
    ContextTokens,
    DropoutRate,
    Fraction,
    LoraRank,
    MicroBatch,
    PlanningMargin,
    Share,
    TargetDays,
    TargetSeconds,
    TensorParallel,
    TokenRate,
    TrainTokens,
)
from slotwise.parts.plain_text import SingleLine
from slotwise.parts.safe_io import shorten_text

# The values each choice accepts, for the front ends (the CLI's choices, the app's selects).
METHODS: tuple[str, ...] = get_args(Method)
PRECISIONS: tuple[str, ...] = get_args(PrecisionChoice)
OPTIMIZERS: tuple[str, ...] = get_args(Optimizer)
OFFLOADS: tuple[str, ...] = get_args(Offload)
SERVING_ENGINES: tuple[str, ...] = get_args(ServingEngine)
KV_CACHE_DTYPES: tuple[str, ...] = get_args(KvCacheDtype)
LOSSES: tuple[str, ...] = get_args(Loss)
CHECKPOINT_MODES: tuple[str, ...] = get_args(CheckpointMode)
NF4_BACKENDS: tuple[str, ...] = get_args(Nf4Backend)
LORA_INPUT_CASTS: tuple[str, ...] = get_args(LoraInputCast)
#: Other names of a data-parallel mode: PyTorch FSDP's full sharding is ZeRO stage 3 (Zhao et
#: al. 2023, "PyTorch FSDP", VLDB, section 3: FULL_SHARD "corresponds to ZeRO-3").
PARALLEL_ALIASES: dict[str, str] = {"fsdp": "zero3"}
PARALLELS: tuple[str, ...] = (*get_args(Parallel), *PARALLEL_ALIASES)
#: Serving engines by name -> the kind the serving model prices: vLLM, SGLang, TensorRT-LLM,
#: NIM and TGI replay CUDA graphs by default (vLLM ``enforce_eager`` False, SGLang without
#: ``--disable-cuda-graph``, TensorRT-LLM's compiled engines / trtllm-bench's cuda_graph_config,
#: TGI ``--cuda-graphs`` on by default); Hugging Face ``generate`` runs the plain model code.
SERVING_ENGINE_ALIASES: dict[str, str] = {
    "vllm": "optimized",
    "sglang": "optimized",
    "tensorrt-llm": "optimized",
    "trtllm": "optimized",
    "nim": "optimized",
    "tgi": "optimized",
    "hf-generate": "transformers",
}
SERVING_ENGINE_CHOICES: tuple[str, ...] = (*SERVING_ENGINES, *SERVING_ENGINE_ALIASES)

LORA_TARGET_SETS: dict[str, tuple[str, ...]] = {
    "qv": ("q", "v"),
    "attn": ("q", "k", "v", "o"),
    "all-linear": ("q", "k", "v", "o", "gate", "up", "down"),
}
LORA_MODULES = ("q", "k", "v", "o", "gate", "up", "down")


class Workload(BaseModel):
    """Immutable description of a training or inference job.

    Exactly one of ``model`` (a preset id from parts/data/models.toml), ``config`` (a config.json
    path or a Hugging Face id) or ``arch`` (architecture numbers as in a config.json) names the
    model.  ``None`` for an optional knob means "the default for this method" (CLI.md).
    Every number is bounded (finite, no true/false, a stated range: :mod:`parts.bounds`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: Annotated[str, StringConstraints(max_length=200), SingleLine] | None = None
    config: Annotated[str, StringConstraints(max_length=4096), SingleLine] | None = None
    # config.json-style architecture fields; nested tables and lists as config.json has them
    # (text_config, rope_scaling, layer_types).  A BOM stores a config.json workload this way
    # (engine.bom.workload_snapshot), with "name", "hub_id" and "hub_revision" beside the fields.
    arch: dict[str, JsonValue] | None = None
    method: Method = "inference"
    # "auto": not chosen, the stored checkpoint's format decides (FP8 checkpoints serve FP8,
    # engine.estimate.checkpoint.served_workload); a BOM keeps "auto" so a reopened file can
    # tell it from a chosen bf16.  The default stays bf16 for callers of the engine API.
    precision: PrecisionChoice = "bf16"
    optimizer: Optimizer = "adamw"
    offload: Offload = "none"
    seq_len: ContextTokens = 2048
    micro_batch: MicroBatch = 1
    # Micro-batches per optimizer step (gradient accumulation): the step's fixed costs and the
    # data-parallel gradient all-reduce are paid once per grad_accum micro-batches.
    grad_accum: MicroBatch = 1
    # Sequences per optimizer step over all data-parallel replicas (``--global-batch``): when
    # set, micro-batches per step = global_batch / (micro_batch x replicas), so adding GPUs
    # shortens each step's accumulation (strong scaling).  None = ``grad_accum`` per replica.
    global_batch: MicroBatch | None = None
    grad_checkpointing: bool | None = None
    lora_rank: LoraRank = 16
    lora_targets: tuple[str, ...] = LORA_TARGET_SETS["all-linear"]
    # LoRA dropout probability on the adapters' input.  None = assumed on (most published LoRA
    # scripts use 0.05-0.1); 0 = off (torchtune's configs, PEFT's and Unsloth's defaults), in
    # which case no dropped copy of the adapted inputs is kept for the backward.
    lora_dropout: DropoutRate | None = None
    parallel: Parallel | None = None
    # Tensor-parallel size.  None = the engine chooses (engine.estimate.layout): training 1
    # (data parallel over every GPU), serving the largest size that divides the heads inside
    # the fast-link group, the other GPUs as replicas.  An explicit 1 on N GPUs is N replicas.
    tp: TensorParallel | None = None
    tokens: TrainTokens | None = None
    target_days: TargetDays | None = None
    mfu: Fraction | None = None
    # Mixed precision keeps an fp32 master copy of trained weights (16 B/param with AdamW);
    # False = pure bf16/fp16 training (litgpt bf16-true, torchtune dtype=bf16). None = True.
    master_weights: bool | None = None
    # How the loss is computed: "full" = the whole tokens x vocab logits upcast to fp32 (Hugging
    # Face transformers / TRL / PEFT); "chunked" = the output projection and cross-entropy run in
    # chunks (torchtune CEWithChunkedOutputLoss); "full-16bit" = the whole logits with the
    # cross-entropy in the 16-bit compute dtype (model code that does not upcast, run without
    # autocast: Qwen v1's modeling_qwen.py under DeepSpeed fp16). None = "full".
    loss: Loss | None = None
    # Which activations a recomputed layer keeps: "full" = only each layer's input (HF
    # gradient_checkpointing, torchtune, litgpt FSDP); "selective" = torchtitan's op-level SAC
    # (every other matmul output and the attention output kept) / Megatron selective recompute.
    # None = "full".  Only used when checkpointing is on.
    checkpoint_mode: CheckpointMode | None = None
    # Saved activations moved to CPU memory during the forward (torchtune
    # enable_activation_offloading, DeepSpeed activation checkpoint cpu offload). None = off.
    activation_offload: bool | None = None
    # The optimizer step runs per parameter inside the backward and frees each gradient at once
    # (torchtune optimizer_in_bwd): no full gradient buffer. None = off.
    optimizer_in_backward: bool | None = None
    # Unpacked batches are padded to their longest sample: the peak is set by the longest sample
    # in the data set (tokens), not by the truncation length seq_len. None = every sequence is
    # seq_len tokens (packed, or padded to the maximum).
    longest_sample: ContextTokens | None = None
    # Gradient accumulation under FSDP with the gradient sync switched off between micro-batches
    # (PyTorch FSDP ``no_sync()``, which Lightning Fabric's ``no_backward_sync`` calls: litgpt):
    # every GPU keeps the full, unsharded gradients until the last micro-batch of the step.
    # Only matters with grad_accum > 1 on more than one GPU.  None = off (gradients sharded).
    fsdp_no_sync: bool | None = None
    # LoRA under FSDP1 with ``use_orig_params=True`` and one FSDP unit per decoder layer (litgpt
    # finetune/lora.py until Aug 2025): a unit's flat gradient covers its frozen weights too, so
    # every layer gets a gradient as large as its weights.  None = off (adapters only).
    fsdp_layer_grads: bool | None = None
    # The LM head is a weight of its own even where config.json ties it to the embedding
    # (litgpt's GPT never ties them).  None = as config.json says.
    separate_lm_head: bool | None = None
    # QLoRA through Lightning Fabric's BitsandbytesPrecision (litgpt): every nn.Linear, the LM
    # head too, is 4-bit, quantized from an fp16 copy, so with bf16 compute each dequantized
    # weight exists in fp16 and in bf16 for its matmul.  None = off (transformers +
    # bitsandbytes: the LM head stays 16-bit, one dequantized copy in the compute dtype).
    fabric_bnb: bool | None = None
    # q, k and v are one Linear with one LoRA adapter (litgpt ``CausalSelfAttention.attn`` with
    # ``LoRAQKVLinear``): one adapter input and one dropout for the three.  None = off (PEFT's
    # separate q_proj / k_proj / v_proj adapters, each with its own dropout).
    fused_qkv: bool | None = None
    # Grouped-query k and v repeated to every query head before attention (litgpt ``model.py``
    # in training: ``k.expand(...)`` then ``reshape``): attention keeps k and v as wide as q.
    # None = off (k and v kept at their own width, as FlashAttention's GQA kernels take them).
    expand_kv: bool | None = None
    # torch.compile of the model: AOTAutograd's min-cut partitioner recomputes cheap pointwise
    # ops (RMSNorm upcasts, SiLU) in the backward instead of saving them. None = off.
    compile: bool | None = None
    # torch.compile of the loss too (torchtune's ``compile: True`` compiles model + loss;
    # torchtitan compiled the loss with ``training.compile`` until Dec 18 2024 and again from
    # Feb 2025, ``compile.components = ["model", "loss"]`` since Aug 2025).  None = as compile.
    compile_loss: bool | None = None
    # The 4-bit base matmul keeps its input although its backward never reads it: bitsandbytes
    # before 0.43.2 (July 2024; PR #1270), ``MatMul4Bit.forward``: ``ctx.tensors = (A, B)``, a
    # plain ctx attribute that the backward does not free, so it lives as long as the step's
    # autograd graph.  None = off: the bitsandbytes a QLoRA run installs today (0.43.2 and
    # later) no longer does this, and torchao's ``linear_nf4`` (torchtune) never did.  Set it
    # for a run on an older bitsandbytes (e.g. litgpt, which pinned 0.42.0 until Dec 2024).
    nf4_keeps_input: bool | None = None
    # The training loop still holds the previous step's logits and loss while the next forward
    # runs (litgpt's finetune loops rebind ``logits`` and ``loss`` only when the next step has
    # computed them), so that step's autograd graph is alive, with whatever its nodes hold
    # outside save_for_backward (the ``nf4_keeps_input`` inputs).  None = off.
    keeps_previous_graph: bool | None = None
    # Which library stores QLoRA's NF4 weights: "bitsandbytes" (transformers / PEFT / TRL,
    # Unsloth, litgpt, Answer.AI: the quantization constants are module state that FSDP neither
    # shards nor offloads) or "torchao" (torchtune's NF4Tensor: the constants are inner tensors
    # of the parameter and FSDP2 shards them with the 4-bit data).  None = "bitsandbytes".
    nf4_backend: Nf4Backend | None = None
    # DeepSpeed ZeRO-1/2 gradient buckets: elements of the contiguous buffers the optimizer
    # allocates for each backward (``reduce_bucket_size``, twice with ``overlap_comm``).  Only
    # counted with parallel zero1/zero2; None = not counted (not DeepSpeed, or not known).
    zero_buckets: BucketElements | None = None
    # How a LoRA adapter gets its input.  PEFT keeps adapters in fp32 on a 16-bit base
    # (``get_peft_model(..., autocast_adapter_dtype=True)``, the default) and each adapted
    # module casts its input to the adapter's dtype (``lora.layer.Linear.forward``:
    # ``x = self._cast_input_dtype(x, lora_A.weight.dtype)``), so each adapted module keeps a
    # copy of its own: "fp32" = run without torch.autocast (model loaded in bf16, plain loop:
    # PEFT's method comparison), the fp32 copy; "autocast" = under torch.autocast (Trainer
    # --bf16), which re-casts that input per op, a 16-bit copy.  "none" = the adapter takes the
    # base layer's 16-bit input as it is, one copy shared by the modules that read it
    # (torchtune, litgpt, models DeepSpeed casts whole).  None = "none".
    lora_input_cast: LoraInputCast | None = None
    # DoRA (Liu et al. 2024, arXiv:2402.09353; PEFT ``LoraConfig(use_dora=True)``): LoRA plus a
    # trained magnitude vector per adapted module, whose forward keeps the base layer's output
    # and the adapter's output for the backward (engine/estimate/activations.py). None = off.
    dora: bool | None = None
    # Trainer internals that only a profile sets (engine/workload/trainers.py): the LoRA
    # adapters' dtype ("fp32": PEFT autocast_adapter_dtype; "compute": the base's 16-bit
    # dtype), QLoRA's non-4-bit weights cast to fp32 on one GPU (PEFT
    # prepare_model_for_kbit_training), and DeepSpeed ZeRO-1/2's fp32 gradient partition.
    # None = the pre-profile behaviour (both follow master_weights; no fp32 partition).
    adapter_dtype: Literal["fp32", "compute"] | None = None
    qlora_fp32_rest: bool | None = None
    zero_fp32_grad_partition: bool | None = None
    # Set by engine.workload.trainers.resolve_trainer: every internal field above is concrete.
    trainer_resolved: bool = Field(default=False, exclude=True)
    # The trainer (and era) that runs the job: a profile of engine/workload/trainers.toml
    # (``NAME`` or ``NAME@ERA``).  None = ``generic``, the common stack of late 2026.
    trainer: Annotated[str, StringConstraints(max_length=100)] | None = None
    # Profile fields set for this job (``--set field=value``; [workload.trainer_overrides]).
    trainer_overrides: dict[str, bool | int | float | str] = Field(default_factory=dict)
    # Serving (inference only; engine.estimate.serving): concurrent users the build serves,
    # the tokens/s each user must get (sizes "servers needed"), output tokens per request
    # (None = half of seq_len) and the engine kind (None = "optimized": CUDA graphs, as
    # TensorRT-LLM / vLLM / SGLang run by default; "eager" = no CUDA graphs; "transformers" =
    # Hugging Face generate, whose Python launches every kernel: host-bound).
    users: ConcurrentUsers | None = None
    tokens_per_user_s: TokenRate | None = None
    # A latency objective for serving (engine.estimate.serving.users_at_latency): time to first
    # token and time per output token each request must meet, in seconds.  Capacity is then
    # the largest concurrency per replica that meets both; replicas = users / that.
    ttft_target_s: TargetSeconds | None = None
    tpot_target_s: TargetSeconds | None = None
    output_len: ContextTokens | None = None
    # Inference with model code that returns a new tuple of past keys/values at every forward
    # (transformers before v4.36's Cache classes, and trust_remote_code models that keep the
    # tuple: Qwen (v1), ChatGLM2/3, Baichuan): generate() still holds the previous step's cache
    # while the forward builds the next, so two caches exist at the end of every decode step
    # (engine.estimate.generation).  None = off (one cache grown in place: transformers'
    # DynamicCache, vLLM, TensorRT-LLM, SGLang).
    legacy_kv_cache: bool | None = None
    # How attention runs in training (a trainer internal, set by the profile): "fused" =
    # torch SDPA / FlashAttention, which keep q, k, v, the output and a log-sum-exp; "eager" =
    # the model's own matmul + fp32 softmax + matmul (transformers before v4.36 for Llama-family
    # models), which saves the heads x s x s probabilities of every layer for the backward
    # (engine/estimate/activations.py ``eager_attention_bytes``).  Training only: the inference
    # working set models no attention temporaries.  None = "fused".
    attention: Attention | None = None
    # Share of the tensor-parallel collectives' time hidden behind the GEMMs in training (a
    # trainer internal, set by the profile; engine/estimate/throughput.py): 0 = exposed, as
    # PyTorch's vanilla (DTensor) TP runs them between the matmuls; the generic profile keeps
    # the time model's half.  None = the profile's.
    tp_overlap: Share | None = None
    # The fused attention kernel on Hopper / Blackwell (a trainer internal, set by the profile;
    # engine/estimate/throughput.py ``attention_efficiency``): "flash2" or "cudnn" (Transformer
    # Engine's cuDNN attention, FlashAttention-3).  None = the profile's.
    attention_kernel: AttentionKernel | None = None
    # How the trainer launches a layer's kernels (a trainer internal, set by the profile;
    # engine/estimate/throughput.py ``host_layer_s``): "eager" or "fused".  None = the profile's.
    host_launch: HostLaunch | None = None
    serving_engine: ServingEngine | None = None
    # The KV cache's dtype (engine.estimate.serving.kv_cache_dtype).  None / "auto" = FP8
    # where an optimised engine serves FP8 weights (TensorRT-LLM's FP8 recipe), else the
    # activations' dtype.
    kv_cache_dtype: KvCacheDtype | None = None
    # Planning margin (engine.check.margin): the share by which an estimate must beat a target
    # (memory, time, serving) before it counts as met.  None = each estimate's held-out error.
    margin: PlanningMargin | None = None

    @model_validator(mode="before")
    @classmethod
    def _trainer_fields(cls, data: object) -> object:
        """``recipe`` is the old name of ``trainer``; a trainer-internal field given directly
        (old BOMs, old flags) becomes a trainer override, so it is kept and written back in
        one place.  Resolution fills the internal fields (engine.workload.trainers)."""
        if not isinstance(data, dict) or data.get("trainer_resolved"):
            return data
        from slotwise.engine.workload.trainers import (  # noqa: PLC0415
            INTERNAL_FIELDS,
            TRAINER_ALIASES,
        )

        out = dict(data)
        recipe = out.pop("recipe", None)
        if recipe is not None and out.get("trainer") is None:
            out["trainer"] = recipe
        if isinstance(out.get("trainer"), str):
            out["trainer"] = TRAINER_ALIASES.get(out["trainer"], out["trainer"])
        moved = {f: out.pop(f) for f in INTERNAL_FIELDS if f in out}
        moved = {f: v for f, v in moved.items() if v is not None}
        if moved:
            overrides = dict(out.get("trainer_overrides") or {})
            for f, v in moved.items():
                if f == "zero_buckets":
                    # a count of elements, as the field was before it became an override: a
                    # finite number > 0 and <= 1e11 (never a bool or a string, never inf/NaN)
                    if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v <= 1e11:
                        raise ValueError(
                            f"zero_buckets: {shorten_text(repr(v), 40)} is not a number of "
                            "elements > 0 and <= 1e+11"
                        )
                    v = int(v)
                overrides.setdefault(f, v)
            out["trainer_overrides"] = overrides
        return out

    @field_validator("trainer")
    @classmethod
    def _known_trainer(cls, value: str | None) -> str | None:
        if value is None:
            return None
        from slotwise.engine.workload.trainers import canonical_name  # noqa: PLC0415

        return canonical_name(value)

    @field_validator("trainer_overrides")
    @classmethod
    def _known_overrides(cls, value: dict) -> dict:
        from slotwise.engine.workload.trainers import parse_overrides  # noqa: PLC0415

        return parse_overrides(value)

    @field_validator("serving_engine", mode="before")
    @classmethod
    def _serving_engine_alias(cls, value: object) -> object:
        """An engine's own name (``vllm``, ``tensorrt-llm``, ...) reads as the kind it is."""
        if isinstance(value, str):
            return SERVING_ENGINE_ALIASES.get(value.strip().lower(), value)
        return value

    @field_validator("parallel", mode="before")
    @classmethod
    def _parallel_alias(cls, value: object) -> object:
        """``fsdp`` is another name for ``zero3`` (every front end and BOM accepts it)."""
        return PARALLEL_ALIASES.get(value, value) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _check(self) -> Workload:
        named = [x for x in (self.model, self.config, self.arch) if x]
        if len(named) > 1:
            raise ValueError("give only one of model, config or arch")
        if self.output_len is not None and self.output_len >= self.seq_len:
            raise ValueError(
                f"output length {self.output_len} tokens is not shorter than the sequence "
                f"length {self.seq_len}: the sequence is prompt + output, so the output must "
                "leave at least one prompt token; raise the sequence length or lower the output"
            )
        bad = [t for t in self.lora_targets if t not in LORA_MODULES]
        if bad:
            raise ValueError(
                f"unknown LoRA target(s) {shorten_text(', '.join(bad))}; use "
                f"{', '.join(LORA_MODULES)}"
            )
        return self

    @property
    def peak_seq_len(self) -> int:
        """Tokens per sequence at the step with the most memory (``longest_sample`` caps it)."""
        if self.longest_sample is None:
            return self.seq_len
        return min(self.seq_len, self.longest_sample)

    @property
    def selective_checkpointing(self) -> bool:
        return self.checkpointing and self.checkpoint_mode == "selective"

    @property
    def loss_compiled(self) -> bool:
        """The cross-entropy runs under torch.compile: the model is compiled and the trainer
        compiles the loss with it (``compile_loss``; unset: whenever the model is compiled)."""
        if self.compile_loss is None:
            return bool(self.compile)
        return bool(self.compile) and self.compile_loss

    @property
    def nf4_input_kept(self) -> bool:
        """QLoRA's 4-bit matmuls keep their inputs (see ``nf4_keeps_input``)."""
        if self.method != "qlora":
            return False
        return bool(self.nf4_keeps_input)

    @property
    def lora_dropout_on(self) -> bool:
        """A LoRA dropout keeps a dropped copy of each adapted input (unknown = on)."""
        return self.lora_dropout is None or self.lora_dropout > 0

    @property
    def training(self) -> bool:
        return self.method != "inference"

    @property
    def checkpointing(self) -> bool:
        """Activation recompute: on for training unless explicitly disabled."""
        if self.grad_checkpointing is None:
            return self.training
        return self.grad_checkpointing

    @property
    def tp_or_1(self) -> int:
        """The tensor-parallel size asked for, 1 when none was (training's default)."""
        return self.tp or 1

    def parallel_for(self, gpus: int) -> Parallel:
        if self.parallel is not None:
            return self.parallel
        return "zero3" if gpus > 1 else "ddp"


def hashable_key(workload: Workload) -> object:
    """A hashable key equal for equal workloads (the engine's memos key on it): the workload
    itself when it hashes, else its JSON (a dict field, such as trainer overrides, does not
    hash)."""
    try:
        hash(workload)
    except TypeError:
        return workload.model_dump_json()
    return workload


def parse_lora_targets(text: str) -> tuple[str, ...]:
    """``qv`` / ``attn`` / ``all-linear`` or a comma list of q,k,v,o,gate,up,down."""
    text = text.strip()
    if text in LORA_TARGET_SETS:
        return LORA_TARGET_SETS[text]
    items = tuple(t.strip() for t in text.split(",") if t.strip())
    bad = [t for t in items if t not in LORA_MODULES]
    if bad or not items:
        raise ValueError(
            f"{ref('lora_targets')} {text!r}: use qv, attn, all-linear or a comma list of "
            + ",".join(LORA_MODULES)
        )
    return items
