"""The terms of the memory estimate: one small function per thing on the GPU at the step's peak.

Each function returns a :class:`MemoryTerm` (name, the breakdown part it adds to, bytes on one
GPU, and where its formula comes from) and its docstring names the origin: a paper, a library's
documentation or the line of code that allocates it.  :func:`engine.estimate.memory.memory_per_gpu`
chooses which terms a workload has, applies sharding and offload to them, and sums them.

The per-parameter widths the terms share (weights, adapters, optimizer state, the QLoRA base)
are here too, next to the terms that use them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from slotwise.engine.estimate.activations import (
    eager_attention_bytes,
    logits_bytes,
    training_activation_bytes,
)
from slotwise.engine.estimate.constants import (
    BYTES,
    CUDA_CONTEXT_BYTES,
    MASTER_WEIGHT_BYTES,
    NF4_BITS_PER_PARAM,
    OPTIMIZER_STATE_BYTES_FP32,
)
from slotwise.engine.estimate.generation import GenerationPeak
from slotwise.engine.estimate.kvcache import kv_elements, ssm_state_elements
from slotwise.engine.model.params import ParamCounts, linear_params_by_module
from slotwise.engine.workload import Workload
from slotwise.parts.schema import ModelPreset

#: The breakdown parts a term adds to (``MemoryBreakdown``'s fields).  ``overhead`` (the CUDA
#: context) and ``paged`` (paged optimizer state in unified memory) are outside the allocator
#: and not in the total.
MemoryPart = Literal[
    "weights", "gradients", "optimizer", "activations", "kv_cache", "overhead", "paged"
]
#: Parts whose terms add up to ``MemoryBreakdown.total_bytes`` (the allocator's peak).
TOTAL_PARTS: tuple[MemoryPart, ...] = (
    "weights",
    "gradients",
    "optimizer",
    "activations",
    "kv_cache",
)
PARTS: tuple[MemoryPart, ...] = (*TOTAL_PARTS, "overhead", "paged")
_PART_ORDER = {part: i for i, part in enumerate(PARTS)}


def in_part_order(terms: list[MemoryTerm]) -> tuple[MemoryTerm, ...]:
    """``terms`` sorted by part (weights first), each part's terms in their own order."""
    return tuple(sorted(terms, key=lambda t: _PART_ORDER[t.part]))


class MemoryTerm(BaseModel):
    """One thing held on each GPU at the step's peak: ``bytes`` on one GPU, the breakdown
    ``part`` it adds to, and ``source``, where its formula comes from."""

    model_config = ConfigDict(frozen=True)

    name: str
    part: MemoryPart
    bytes: float
    source: str

    def over(self, divisor: float, how: str) -> MemoryTerm:
        """This term split over ``divisor`` GPUs (sharding) or cut to one ``divisor``-th
        (offload), saying how."""
        return MemoryTerm(
            name=self.name,
            part=self.part,
            bytes=self.bytes / divisor,
            source=f"{self.source}; {how}",
        )

    def to_json(self) -> dict[str, str | int]:
        return {
            "name": self.name,
            "part": self.part,
            "bytes": round(self.bytes),
            "source": self.source,
        }


def part_bytes(terms: list[MemoryTerm], part: MemoryPart) -> float:
    """The bytes of ``part``: its terms added in order (0.0 when it has none)."""
    total = 0.0
    for t in terms:
        if t.part == part:
            total += t.bytes
    return total


def bytes_by_part(terms: list[MemoryTerm]) -> dict[MemoryPart, float]:
    """:func:`part_bytes` of every part, in one pass."""
    sums: dict[MemoryPart, float] = dict.fromkeys(PARTS, 0.0)
    for t in terms:
        sums[t.part] += t.bytes
    return sums


# ----------------------------------------------------------------------------- widths


def weight_bytes_per_param(workload: Workload) -> float:
    """Bytes of a stored weight: the precision's width; fp8 training keeps bf16 weights."""
    if workload.training and workload.precision == "fp8":
        return BYTES["bf16"]
    return BYTES[workload.precision]


def activation_element_bytes(workload: Workload) -> float:
    """Activations are kept in the compute dtype; FP8 recipes (Transformer Engine) keep bf16."""
    return 4.0 if workload.precision == "fp32" else 2.0


def uses_master_weights(workload: Workload) -> bool:
    """fp32 master weights: on for bf16/fp16/fp8 training unless the workload says otherwise."""
    flag = getattr(workload, "master_weights", None)
    if workload.precision == "fp32":
        return False  # the weights already are fp32
    return True if flag is None else bool(flag)


def qlora_unquantized_bytes_per_param(workload: Workload, *, sharded: bool = False) -> float:
    """Bytes of a QLoRA base weight that is not quantized (embeddings, LM head, norms).

    Mixed-precision QLoRA in the Hugging Face stack goes through PEFT's
    ``prepare_model_for_kbit_training`` (called by the QLoRA paper's ``qlora.py`` and by TRL's
    ``SFTTrainer`` for 4-bit models), which casts every fp16/bf16 parameter that is not a
    ``Params4bit`` to fp32 "for stability".  Sharded QLoRA (FSDP / ZeRO-3, ``sharded=True``)
    skips it (TRL: ``is_qlora and not is_sharded_qlora``) because FSDP needs one dtype, the
    ``bnb_4bit_quant_storage`` one, so those stay bf16; so do pure-bf16 recipes (litgpt
    ``bf16-true``, torchtune, Answer.AI: ``--no-master-weights``).
    """
    if workload.qlora_fp32_rest is not None:  # the trainer profile says (trainers.toml)
        fp32 = workload.qlora_fp32_rest and workload.precision != "fp32"
    else:
        fp32 = uses_master_weights(workload)
    if sharded or not fp32:
        return BYTES["bf16"]
    return MASTER_WEIGHT_BYTES


def adapter_bytes_per_param(workload: Workload) -> float:
    """Bytes of a stored LoRA adapter weight: fp32 (PEFT ``autocast_adapter_dtype=True``, the
    default of ``get_peft_model``) or the compute dtype (litgpt, torchtune, Answer.AI, TRL's
    QLoRA which casts trainable parameters to bf16 after ``get_peft_model``).  Unset: fp32
    exactly when master weights are kept (the accounting before trainer profiles)."""
    if workload.adapter_dtype is not None:
        fp32 = workload.adapter_dtype == "fp32" or workload.precision == "fp32"
    else:
        fp32 = uses_master_weights(workload)
    return MASTER_WEIGHT_BYTES if fp32 else weight_bytes_per_param(workload)


def optimizer_state_bytes_on_gpu(workload: Workload) -> float:
    """Optimizer state per trainable parameter that PyTorch's allocator holds (fp32 widths).

    Paged optimizers keep their state in CUDA unified memory, outside the allocator, and let it
    page out to the host under pressure (constants.OPTIMIZER_STATE_BYTES_FP32): none counted.
    """
    if workload.optimizer.startswith("paged-"):
        return 0.0
    return OPTIMIZER_STATE_BYTES_FP32[workload.optimizer]


def optimizer_bytes_per_param(workload: Workload) -> tuple[float, float]:
    """(optimizer state, fp32 master copy) bytes per trainable parameter for full training.

    Without a master copy (pure 16-bit training: litgpt ``bf16-true``, torchtune ``dtype:
    bf16``) AdamW's and SGD's moments are kept in the weights' dtype."""
    w = weight_bytes_per_param(workload)
    master = uses_master_weights(workload)
    state = optimizer_state_bytes_on_gpu(workload)
    if not master and workload.optimizer in ("adamw", "sgd"):
        state = state * w / 4.0  # moments kept in the weights' dtype (pure bf16 training)
    return state, (MASTER_WEIGHT_BYTES if master else 0.0)


def trainable_state_bytes(workload: Workload) -> tuple[float, float, float]:
    """(weight, gradient, optimizer) bytes per trainable parameter for full training (the
    optimizer's figure includes the fp32 master copy)."""
    w = weight_bytes_per_param(workload)
    state, master = optimizer_bytes_per_param(workload)
    return w, w, state + master


def dequantized_bytes_per_weight(workload: Workload) -> float:
    """Bytes per weight of the transient copy a 4-bit matmul dequantizes (forward and backward).

    bitsandbytes 0.42 ``MatMul4Bit`` (``autograd/_functions.py``) computes
    ``F.dequantize_4bit(B, quant_state).to(A.dtype)``: ``dequantize_4bit`` returns the dtype
    the weight had when it was quantized (``quant_state.dtype``).  transformers quantizes the
    loaded ``torch_dtype`` weights (bf16), so the ``.to`` is a no-op: one 2-byte copy.
    Lightning Fabric's ``BitsandbytesPrecision`` quantizes ``weight.to(dtype=torch.half)``
    (``_NF4Linear.quantize``, lightning 2.1-2.4 ``plugins/precision/bitsandbytes.py``), so with
    bf16 compute the fp16 copy and its bf16 conversion are both alive: 4 bytes.
    """
    if workload.fabric_bnb and workload.precision != "fp16":
        return 2 * BYTES["bf16"]
    return BYTES["bf16"]


def fsdp_unsharded_accumulation(workload: Workload) -> bool:
    """Gradients stay unsharded between micro-batches: FSDP ``no_sync()`` with accumulation.

    PyTorch ``FullyShardedDataParallel.no_sync`` docstring: "This likely results in higher
    memory usage because FSDP will accumulate the full model gradients (instead of gradient
    shards) until the eventual sync."  Lightning Fabric's ``FSDPStrategy`` implements
    ``fabric.no_backward_sync`` with it (``_FSDPBackwardSyncControl``, lightning 2.1.0
    ``src/lightning/fabric/strategies/fsdp.py``), and litgpt's finetune scripts call it on
    every micro-batch but the step's last (``fabric.no_backward_sync(model,
    enabled=is_accumulating)``, finetune/lora.py and full.py since 2023).  The gradient of the
    last micro-batch is reduce-scattered layer by layer, so the full set is what the step
    holds at its peak.
    """
    return bool(workload.fsdp_no_sync) and workload.grad_accum > 1


def largest_linear_weights(arch: ModelPreset) -> int:
    """Weights of the model's largest linear layer."""
    largest = 0
    for shapes in linear_params_by_module(arch).values():
        for s in shapes:
            largest = max(largest, s.in_features * s.out_features)
    return largest


def linear_weights(arch: ModelPreset) -> int:
    """Weights of every linear layer of the decoder (what QLoRA quantizes)."""
    return sum(s.weights for shapes in linear_params_by_module(arch).values() for s in shapes)


# ----------------------------------------------------------------------------- runtime


def cuda_context_term() -> MemoryTerm:
    """The CUDA context and library handles every process creates on its GPU, outside
    PyTorch's allocator (constants.CUDA_CONTEXT_BYTES: PyTorch PR #86509 measured the bare
    context; cuBLAS/cuDNN handles add to it).  Reported, not in the total: the fit verdict
    takes it off the usable capacity."""
    return MemoryTerm(
        name="cuda_context",
        part="overhead",
        bytes=CUDA_CONTEXT_BYTES,
        source="CUDA context + cuBLAS/cuDNN handles outside the allocator "
        "(PyTorch PR #86509; constants.CUDA_CONTEXT_BYTES)",
    )


# ----------------------------------------------------------------------------- weights


def weights_term(counts: ParamCounts, workload: Workload, tp: int) -> MemoryTerm:
    """Every parameter at its stored width (weight_bytes_per_param), split over the tensor-
    parallel ranks: Megatron-LM (Shoeybi et al. 2019, arXiv:1909.08053) splits every weight
    matrix, the vocab-parallel embedding included."""
    w_b = weight_bytes_per_param(workload)
    return MemoryTerm(
        name="weights",
        part="weights",
        bytes=counts.total * w_b / tp,
        source=f"{w_b:g} B per parameter / tp {tp} (Megatron-LM tensor parallelism, "
        "arXiv:1909.08053)",
    )


def nf4_linear_weights(
    arch: ModelPreset, counts: ParamCounts, workload: Workload
) -> tuple[int, int]:
    """(weights QLoRA quantizes, weights of the largest of those layers): every linear layer of
    the decoder, and the LM head too under Lightning Fabric's ``BitsandbytesPrecision`` (litgpt,
    ``fabric_bnb``), which replaces every ``nn.Linear``."""
    linear = linear_weights(arch)
    largest = largest_linear_weights(arch)
    if workload.fabric_bnb:
        linear += counts.lm_head
        largest = max(largest, counts.lm_head)
    return linear, largest


def nf4_weights_terms(
    counts: ParamCounts,
    workload: Workload,
    tp: int,
    *,
    linear: int,
    largest: int,
    sharded: bool,
) -> list[MemoryTerm]:
    """The QLoRA base: 4-bit linear weights, their quantization constants, the layers left in
    16/32 bit, and the one weight dequantized for its matmul.

    QLoRA (Dettmers et al. 2023, arXiv:2305.14314, section 3) stores every linear layer in NF4
    with double quantization (constants.NF4_BITS_PER_PARAM: 4 bits of data plus the absmax
    constants); embeddings, norms and the LM head stay 16-bit (bitsandbytes via transformers
    skips ``lm_head``) or fp32 (:func:`qlora_unquantized_bytes_per_param`); one linear weight
    at a time is dequantized for its matmul (:func:`dequantized_bytes_per_weight`).  Through
    Lightning Fabric (litgpt, ``fabric_bnb``) the LM head is 4-bit too
    (:func:`nf4_linear_weights` gives ``linear`` and ``largest``).
    """
    rest_b = qlora_unquantized_bytes_per_param(workload, sharded=sharded)
    deq_b = dequantized_bytes_per_weight(workload)
    return [
        MemoryTerm(
            name="nf4_weights",
            part="weights",
            bytes=linear * 4.0 / 8.0 / tp,
            source="QLoRA NF4 linear weights, 4 bits each (Dettmers et al. 2023, arXiv:2305.14314)",
        ),
        MemoryTerm(
            name="nf4_constants",
            part="weights",
            bytes=linear * (NF4_BITS_PER_PARAM - 4.0) / 8.0 / tp,
            source=f"NF4 double-quantized absmax constants, {NF4_BITS_PER_PARAM - 4.0:.3f} bit "
            "per weight (QLoRA section 3, blocks of 64 and 256)",
        ),
        MemoryTerm(
            name="unquantized_weights",
            part="weights",
            bytes=(counts.total - linear) * rest_b / tp,
            source=f"embeddings, norms{'' if workload.fabric_bnb else ', LM head'} at "
            f"{rest_b:g} B ({'PEFT prepare_model_for_kbit_training casts them to fp32' if rest_b == MASTER_WEIGHT_BYTES else 'bf16'})",
        ),
        MemoryTerm(
            name="dequantized_weight",
            part="weights",
            bytes=largest * deq_b / tp,
            source=f"the largest linear weight dequantized for its matmul, {deq_b:g} B each "
            "(bitsandbytes MatMul4Bit; fp16 and bf16 copies under Lightning Fabric)",
        ),
    ]


def lora_adapter_terms(n_adapter: float, workload: Workload, tp: int) -> list[MemoryTerm]:
    """LoRA adapters (Hu et al. 2021, arXiv:2106.09685) and their gradients and optimizer state.

    The base is frozen (no gradients or optimizer state); the adapters are trained at
    :func:`adapter_bytes_per_param` (fp32 by PEFT's ``autocast_adapter_dtype=True``) with the
    optimizer's state at that width (AdamW's two moments: 8 B in fp32).  DoRA's magnitude
    vectors (Liu et al. 2024, arXiv:2402.09353) are counted with the adapters.
    """
    a_w = adapter_bytes_per_param(workload)
    a_state = optimizer_state_bytes_on_gpu(workload) * (a_w / 4.0)
    return [
        MemoryTerm(
            name="lora_adapters",
            part="weights",
            bytes=n_adapter * a_w / tp,
            source=f"{n_adapter / 1e6:.1f}M adapter parameters at {a_w:g} B "
            "(LoRA, arXiv:2106.09685; PEFT autocast_adapter_dtype)",
        ),
        MemoryTerm(
            name="adapter_gradients",
            part="gradients",
            bytes=n_adapter * a_w / tp,
            source=f"one gradient per adapter parameter, {a_w:g} B (the base is frozen)",
        ),
        MemoryTerm(
            name="adapter_optimizer_state",
            part="optimizer",
            bytes=n_adapter * a_state / tp,
            source=f"{workload.optimizer} state of the adapters, {a_state:g} B per parameter "
            "(constants.OPTIMIZER_STATE_BYTES_FP32)",
        ),
    ]


def in_flight_weights_term(
    arch: ModelPreset,
    counts: ParamCounts,
    weights: float,
    workload: Workload,
    tp: int,
    *,
    sharded: bool = False,
) -> MemoryTerm:
    """Unsharded weights resident while ZeRO-3/FSDP or offload streams layers through the GPU.

    FSDP (Zhao et al. 2023, arXiv:2304.11277) all-gathers the unit it computes and prefetches
    the next (``backward_prefetch`` / ``forward_prefetch``); the units are the decoder layers
    plus the embedding and the LM head.  ZeRO-Infinity / FSDP ``CPUOffload(offload_params=True)``
    (Rajbhandari et al. 2021, arXiv:2104.07857) leaves the same two layers on the GPU.
    ``weights`` is this GPU's unsharded weight bytes (already divided by tp).
    """
    return MemoryTerm(
        name="in_flight_weights",
        part="weights",
        bytes=_in_flight_bytes(arch, counts, weights, workload, tp, sharded=sharded),
        source="the layer being computed and the prefetched one, all-gathered (FSDP, "
        "arXiv:2304.11277; ZeRO-Infinity, arXiv:2104.07857)",
    )


def _in_flight_bytes(
    arch: ModelPreset,
    counts: ParamCounts,
    weights: float,
    workload: Workload,
    tp: int,
    *,
    sharded: bool = False,
) -> float:
    """The bytes of :func:`in_flight_weights_term`: two units, the larger of a decoder layer
    and the embedding / LM head unit among them, at most all the weights."""
    layers = max(1, arch.num_hidden_layers)
    if workload.method == "qlora":
        emb_b = qlora_unquantized_bytes_per_param(workload, sharded=sharded)
    else:
        emb_b = weight_bytes_per_param(workload)
    emb_total = (counts.embedding + counts.lm_head) * emb_b / tp
    emb_unit = max(counts.embedding, counts.lm_head) * emb_b / tp
    per_layer = max(0.0, weights - emb_total) / layers
    return min(weights, per_layer + max(per_layer, emb_unit))


# ----------------------------------------------------------------------------- full training


def full_training_terms(counts: ParamCounts, workload: Workload, tp: int) -> tuple[MemoryTerm, ...]:
    """Weights, gradients, optimizer state and fp32 master weights of every parameter.

    Mixed-precision training state per trainable parameter (ZeRO paper, Rajbhandari et al.
    2020, arXiv:1910.02054, section 3.1): 2 bytes bf16 weights + 2 bytes bf16 gradients +
    ``K = 12`` bytes optimizer state (4 fp32 master + 4 + 4 Adam moments) = 16 bytes.  Without
    a master copy (``master_weights=False``: litgpt ``bf16-true``, torchtune ``dtype: bf16``)
    weights, gradients and moments are all bf16: 2 + 2 + 4 = 8 bytes.  Paged optimizers hold
    no state in the allocator (:func:`paged_optimizer_term`).
    """
    P = counts.total
    g_b = weight_bytes_per_param(workload)  # gradients in the weights' dtype
    state, master = optimizer_bytes_per_param(workload)
    terms = [
        weights_term(counts, workload, tp),
        MemoryTerm(
            name="gradients",
            part="gradients",
            bytes=P * g_b / tp,
            source=f"{g_b:g} B per parameter (ZeRO paper section 3.1, arXiv:1910.02054)",
        ),
    ]
    if not workload.optimizer.startswith("paged-"):
        terms.append(
            MemoryTerm(
                name="optimizer_state",
                part="optimizer",
                bytes=P * state / tp,
                source=f"{workload.optimizer}: {state:g} B per parameter (ZeRO paper section "
                "3.1; constants.OPTIMIZER_STATE_BYTES_FP32)",
            )
        )
    if master:
        terms.append(
            MemoryTerm(
                name="master_weights",
                part="optimizer",
                bytes=P * master / tp,
                source="fp32 master copy, 4 B per parameter (Micikevicius et al. 2018, "
                "arXiv:1710.03740; ZeRO paper section 3.1)",
            )
        )
    return tuple(terms)


def gradient_in_backward_term(
    arch: ModelPreset, counts: ParamCounts, g_b: float, tp: int
) -> MemoryTerm:
    """The one gradient alive when the optimizer step runs inside the backward: torchtune's
    ``optimizer_in_bwd`` (``torchtune.training.register_optim_in_bwd_hooks``) steps each
    parameter in a post-accumulate-grad hook that then frees its gradient, so at most the
    largest single tensor's gradient exists."""
    largest = max(counts.embedding, counts.lm_head, largest_linear_weights(arch))
    return MemoryTerm(
        name="gradients",
        part="gradients",
        bytes=largest * g_b / tp,
        source="one parameter's gradient at a time, the largest tensor (torchtune "
        "optimizer_in_bwd)",
    )


def paged_optimizer_term(workload: Workload, n_trainable: float, tp: int) -> MemoryTerm | None:
    """Paged optimizer state: CUDA unified memory (``cudaMallocManaged``, bitsandbytes docs
    "Paged optimizers"), outside PyTorch's allocator and evicted to the host under pressure.
    Not in the total; the range's high end counts it (engine/estimate/memory_range.py)."""
    if not workload.optimizer.startswith("paged-"):
        return None
    return MemoryTerm(
        name="paged_optimizer_state",
        part="paged",
        bytes=n_trainable * OPTIMIZER_STATE_BYTES_FP32[workload.optimizer] / tp,
        source=f"{workload.optimizer} state in CUDA unified memory, outside the allocator "
        "(bitsandbytes paged optimizers)",
    )


# ----------------------------------------------------------------------------- gradient buffers


def fsdp_layer_gradient_bytes(counts: ParamCounts, workload: Workload, tp: int) -> float:
    """Unsharded gradient bytes of every decoder layer when LoRA shares FSDP1 units with the base.

    PyTorch FSDP documentation (``torch.distributed.fsdp.FullyShardedDataParallel``, frozen
    parameters): "For ``use_orig_params=True``, FSDP supports mixing frozen and non-frozen, but
    we recommend not doing so since then the gradient memory usage will be higher than
    expected (namely, equivalent to not freezing those parameters)"; the flat gradient is one
    tensor with zeros for the frozen parts (``FlatParameter._is_grad_none_mask``,
    torch/distributed/fsdp/_flat_param.py).  Lightning Fabric's ``FSDPStrategy`` sets
    ``use_orig_params=True`` by default (lightning 2.1.0) and litgpt wrapped each ``Block``
    (``auto_wrap_policy={Block}``) in finetune/lora.py from 2023 until commit 5ac69b06
    (Aug 2025, FSDP2 ``fully_shard`` per trainable Linear since).  The embedding and LM head
    sit in the root unit, which holds no adapter, so they get none.  Returned unsharded (the
    caller divides by the data-parallel degree when gradients are sharded).
    """
    layer_params = counts.total - counts.embedding - counts.lm_head - counts.other
    return max(0, layer_params) * weight_bytes_per_param(workload) / tp


def fsdp_layer_gradients_term(counts: ParamCounts, workload: Workload, tp: int) -> MemoryTerm:
    """:func:`fsdp_layer_gradient_bytes` as a term (it replaces the adapters' gradients)."""
    return MemoryTerm(
        name="layer_gradients",
        part="gradients",
        bytes=fsdp_layer_gradient_bytes(counts, workload, tp),
        source="FSDP1 units of whole decoder layers with use_orig_params=True: each layer's "
        "flat gradient covers its frozen weights (PyTorch FSDP docs)",
    )


def fsdp_unit_gradient_bytes(
    arch: ModelPreset, counts: ParamCounts, workload: Workload, tp: int
) -> float:
    """Gradient memory of the FSDP unit being reduce-scattered, on top of the sharded gradients.

    When a decoder layer's backward ends, FSDP reduce-scatters its gradients: PyTorch FSDP2
    ``foreach_reduce`` (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py) allocates a
    ``reduce_scatter_input`` buffer in the reduce dtype and copies the unsharded gradients into
    it (``foreach_reduce_scatter_copy_in``) before they are freed; FSDP1 (``_reduce_grad``)
    likewise casts the unsharded flat gradient to the reduce dtype, or pads it, into a second
    buffer when either is needed (``_get_reduce_scatter_tensors``).  So one layer's
    unsharded gradient (in the compute dtype) and its reduce-scatter copy (fp32 where the
    parameters are fp32 masters, as torchtitan's ``reduce_dtype=float32``; else the compute
    dtype) are alive at once.  Only trained weights have gradients: full and pretrain runs.
    """
    if workload.method not in ("full", "pretrain"):
        return 0.0
    layers = max(1, arch.num_hidden_layers)
    per_layer = max(0.0, counts.total - counts.embedding - counts.lm_head) / layers
    g_b = trainable_state_bytes(workload)[1]
    reduce_b = MASTER_WEIGHT_BYTES if uses_master_weights(workload) else g_b
    return per_layer * (g_b + reduce_b) / tp


def fsdp_reduce_scatter_term(unit_bytes: float) -> MemoryTerm:
    """:func:`fsdp_unit_gradient_bytes` as a term."""
    return MemoryTerm(
        name="fsdp_reduce_scatter",
        part="gradients",
        bytes=unit_bytes,
        source="one decoder layer's unsharded gradient and its reduce-scatter copy (PyTorch "
        "FSDP2 foreach_reduce / FSDP1 _reduce_grad)",
    )


def zero_bucket_term(elements: float, e: float) -> MemoryTerm:
    """DeepSpeed ZeRO-1/2 gradient buckets (``--zero-buckets``): ``DeepSpeedZeroOptimizer.
    backward`` (deepspeed/runtime/zero/stage_1_and_2.py) allocates, with
    ``contiguous_gradients`` (the default), an ``ipg_buffer`` of ``reduce_bucket_size`` elements
    in the parameters' 16-bit dtype, and a second one with ``overlap_comm`` ("double buffers to
    avoid data access conflict"), on every backward, whatever the number of trainable
    parameters."""
    return MemoryTerm(
        name="zero_gradient_buckets",
        part="gradients",
        bytes=elements * e,
        source=f"{elements:,.0f} elements of ipg_buffer (DeepSpeed ZeRO-1/2 "
        "stage_1_and_2.py backward)",
    )


def zero_fp32_partition_term(n_trainable: float, tp: int, dp: int) -> MemoryTerm:
    """DeepSpeed ZeRO-1/2's fp32 gradient partition at the optimizer step.

    ``step`` in deepspeed/runtime/zero/stage_1_and_2.py converts the rank's flattened gradient
    partition to the fp32 master dtype (``single_grad_partition = self.flatten(...).to(
    self.single_partition_of_fp32_groups[i].dtype)``) and sets it as the fp32 partition's
    ``.grad``: 4 B per trainable parameter over the data-parallel ranks, beside the 16-bit
    gradients.
    """
    trainable = n_trainable / tp
    return MemoryTerm(
        name="zero_fp32_gradient_partition",
        part="gradients",
        bytes=trainable * MASTER_WEIGHT_BYTES / max(1, dp),
        source=f"4 B per trainable parameter / {dp} rank(s) (DeepSpeed ZeRO-1/2 "
        "stage_1_and_2.py step)",
    )


def offloaded_gradients_term(gradients: float, layers: int) -> MemoryTerm:
    """What ZeRO-Offload (Ren et al. 2021, arXiv:2101.06840) leaves of the gradients on the GPU:
    they stream to the CPU as the backward produces them, through a bucket of about one layer's
    gradients."""
    return MemoryTerm(
        name="gradient_bucket",
        part="gradients",
        bytes=gradients / layers,
        source=f"about one layer's gradients (1/{layers}) on the GPU, the rest on the CPU "
        "(ZeRO-Offload, arXiv:2101.06840)",
    )


# ----------------------------------------------------------------------------- activations


def training_activation_terms(
    arch: ModelPreset, workload: Workload, e: float, tp: int, *, stream: float | None = None
) -> tuple[MemoryTerm, ...]:
    """What autograd keeps between the forward and the backward, and the logits and loss.

    The saved tensors of each layer are counted tensor by tensor as Korthikanti et al. 2022
    (arXiv:2205.05198, section 4.1) do, for the layer the config describes, with fused
    attention (FlashAttention, arXiv:2205.14135): :func:`engine.estimate.activations.
    training_activation_bytes`.  A trainer that runs eager attention (``attention = "eager"``)
    also keeps the ``heads x s x s`` softmax probabilities: a term of their own
    (:func:`engine.estimate.activations.eager_attention_bytes`).  The logits and the
    cross-entropy's buffers are a term of their own (:func:`engine.estimate.activations.
    logits_bytes`: bf16 logits, Hugging Face's fp32 log-softmax and gradients, or the chunked /
    fused / 16-bit loss the trainer runs).
    """
    terms = [
        MemoryTerm(
            name="activations",
            part="activations",
            bytes=training_activation_bytes(arch, workload, e, tp, stream=stream),
            source="saved activations counted tensor by tensor (Korthikanti et al. 2022, "
            "arXiv:2205.05198, section 4.1; FlashAttention: no s^2 scores)"
            + (
                "; fp32 residual stream and MLP outputs: QLoRA's fp32 non-4-bit weights and "
                "bitsandbytes Linear4bit.forward's out.to(inp_dtype)"
                if stream
                else ""
            ),
        ),
    ]
    scores = eager_attention_bytes(arch, workload, e, tp)
    if scores:
        terms.append(
            MemoryTerm(
                name="attention_scores",
                part="activations",
                bytes=scores,
                source="eager attention (transformers < 4.36 LlamaAttention.forward): the fp32 "
                "softmax output and its 16-bit cast saved per heads x s x s element, 4 + e "
                "bytes per layer kept, + 4 for the layer in backward "
                "(activations.eager_attention_bytes)",
            )
        )
    terms.append(
        MemoryTerm(
            name="logits",
            part="activations",
            bytes=logits_bytes(arch, workload, e, tp),
            source=f"logits and {workload.loss} cross-entropy buffers over the "
            f"{arch.vocab_size:,}-token vocabulary (activations.logits_bytes)",
        )
    )
    return tuple(terms)


def kv_cache_bytes(arch: ModelPreset, workload: Workload, tp: int) -> float:
    """KV cache (and Mamba state) of ``micro_batch`` sequences of ``seq_len`` tokens on one GPU:
    per layer kind, sliding windows applied (:mod:`engine.estimate.kvcache`)."""
    e = activation_element_bytes(workload)  # FP8 serving keeps a bf16 cache unless told otherwise
    per_seq = kv_elements(arch, workload.seq_len, tp=tp) + ssm_state_elements(arch, tp=tp)
    return workload.micro_batch * per_seq * e


def kv_cache_at(arch: ModelPreset, workload: Workload, seq_len: int, tp: int) -> float:
    """KV cache bytes of the workload's sequences at another context length."""
    return kv_cache_bytes(arch, workload.model_copy(update={"seq_len": seq_len}), tp)


def kv_cache_term(kv_bytes: float, source: str) -> MemoryTerm:
    """The KV cache: 2 (K and V) x layers x kv_heads x head_dim x bytes per token (GQA: Ainslie
    et al. 2023, arXiv:2305.13245; MLA's latent: DeepSeek-V2, arXiv:2405.04434, section
    2.1.2), in the activation dtype unless an FP8 cache is chosen (vLLM's
    ``kv_cache_dtype="auto"``); tensor parallelism splits KV heads, the MLA latent is
    replicated (:mod:`engine.estimate.kvcache`)."""
    return MemoryTerm(name="kv_cache", part="kv_cache", bytes=kv_bytes, source=source)


def generation_terms(
    arch: ModelPreset, workload: Workload, e: float, tp: int, peak: GenerationPeak
) -> tuple[MemoryTerm, MemoryTerm, MemoryTerm]:
    """KV cache, working set and last-position logits at the peak of one ``generate()`` call.

    The peak is the larger of the prefill and the end of generation
    (:mod:`engine.estimate.generation`: Pope et al. 2022, arXiv:2211.05102; transformers
    ``GenerationMixin._sample``); ``generate`` keeps the logits of the last position only, in
    fp32 (``logits_to_keep=1``).
    """
    at = "the prefill" if peak.phase == "prefill" else "the end of generation"
    return (
        kv_cache_term(
            peak.kv_bytes,
            f"{workload.micro_batch} sequence(s) x {workload.seq_len} tokens (GQA, "
            "arXiv:2305.13245; MLA latent, arXiv:2405.04434)"
            + ("; previous step's tuple still alive" if workload.legacy_kv_cache else ""),
        ),
        MemoryTerm(
            name="working_set",
            part="activations",
            bytes=peak.working_bytes,
            source=f"the largest layer's temporaries at {at} (generation.generation_peak; "
            "Pope et al. 2022, arXiv:2211.05102)",
        ),
        MemoryTerm(
            name="logits",
            part="activations",
            bytes=logits_bytes(arch, workload, e, tp),
            source="fp32 logits of the last position (transformers generate, logits_to_keep=1)",
        ),
    )
