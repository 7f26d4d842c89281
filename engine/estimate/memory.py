"""GPU memory per GPU for a workload: weights, gradients, optimizer state, activations, KV cache.

Origins of each term:

* Mixed-precision training state per trainable parameter (ZeRO paper, Rajbhandari et al. 2020,
  arXiv:1910.02054, section 3.1): 2 bytes bf16 weights + 2 bytes bf16 gradients + ``K = 12``
  bytes optimizer state (4 fp32 master + 4 + 4 Adam moments) = 16 bytes.  Without a master
  copy (``master_weights=False``: litgpt ``bf16-true``, torchtune ``dtype: bf16``) weights,
  gradients and moments are all bf16: 2 + 2 + 4 = 8 bytes.
* ZeRO stages (same paper, figure 1): stage 1 shards the optimizer state over the data-parallel
  ranks, stage 2 also the gradients, stage 3 (= PyTorch FSDP FULL_SHARD, Zhao et al. 2023,
  arXiv:2304.11277) also the weights; FSDP then all-gathers one layer at a time and prefetches
  the next, so two layers' full weights are resident besides the shard.
* Tensor parallelism (Megatron-LM, Shoeybi et al. 2019, arXiv:1909.08053) splits every weight
  matrix, including the vocab-parallel embedding, over ``tp`` ranks.
* CPU offload: ZeRO-Offload (Ren et al. 2021, arXiv:2101.06840) keeps bf16 weights on the GPU
  and moves gradients, fp32 master and optimizer state to the CPU (a gradient bucket of about
  one layer stays on the GPU); ZeRO-Infinity / FSDP ``CPUOffload(offload_params=True)``
  (Rajbhandari et al. 2021, arXiv:2104.07857) also moves the weights, leaving the two
  in-flight layers.
* DeepSpeed ZeRO-1/2 gradient buckets (``--zero-buckets``): ``DeepSpeedZeroOptimizer.backward``
  (deepspeed/runtime/zero/stage_1_and_2.py) allocates, with ``contiguous_gradients`` (the
  default), an ``ipg_buffer`` of ``reduce_bucket_size`` elements in the parameters' 16-bit
  dtype, and a second one with ``overlap_comm`` ("double buffers to avoid data access
  conflict"), on every backward, whatever the number of trainable parameters.
* FSDP gradient reduce-scatter (:func:`_fsdp_unit_gradient_bytes`): while a layer's gradients
  are reduce-scattered, its unsharded gradient and the reduce-scatter buffer coexist on the GPU.
* FSDP + QLoRA (Answer.AI / bitsandbytes 0.43, ``bnb_4bit_quant_storage``): the packed 4-bit
  weights are FSDP parameters and are sharded / offloaded like any other, but the quantization
  constants (absmax, double-quantization state) live in each ``Linear4bit``'s ``quant_state``,
  which FSDP does not flatten, so every GPU keeps all of them.  torchtune's QLoRA stores the
  weights as torchao ``NF4Tensor`` parameters (``torchtune/modules/low_precision/nf4_linear.py``,
  ``to_nf4``) whose constants (``quantized_scalers``, ``quantization_factor``) are inner tensors
  of the parameter: torchao's FSDP2 extensions split and all-gather them with the 4-bit data
  (``torchao/dtypes/nf4tensor.py``, ``_INNER_TENSOR_NAMES_FOR_SHARDING``, ``nf4_split``,
  ``fsdp_pre_all_gather``), so under ``--nf4-backend torchao`` they are sharded and offloaded
  like the rest.
* LoRA (Hu et al. 2021, arXiv:2106.09685): the base is frozen (no gradients or optimizer state);
  adapters are trained in fp32 by PEFT (``autocast_adapter_dtype=True``): 16 bytes each with
  AdamW.  QLoRA (Dettmers et al. 2023) stores every linear layer of the base in NF4 with double
  quantization (constants.NF4_BITS_PER_PARAM); embeddings, norms and the LM head stay bf16
  (bitsandbytes via transformers skips ``lm_head``); one linear weight at a time is dequantized
  to bf16 for its matmul.  Through Lightning Fabric (litgpt, ``fabric_bnb``) the LM head is
  4-bit too and the dequantized copy exists in fp16 and bf16 at once
  (:func:`dequantized_bytes_per_weight`).
* FSDP gradient accumulation with ``no_sync()`` keeps unsharded gradients
  (:func:`fsdp_unsharded_accumulation`); LoRA in FSDP1 units of whole layers with
  ``use_orig_params=True`` gets a gradient for every layer weight
  (:func:`fsdp_layer_gradient_bytes`).
* KV cache: 2 (K and V) x layers x kv_heads x head_dim x bytes per token (GQA: Ainslie et al.
  2023, arXiv:2305.13245), in the activation dtype: FP8 weights still get a bf16 cache (vLLM's
  ``kv_cache_dtype="auto"`` default); MLA caches the compressed latent ``kv_lora_rank + qk_rope_head_dim``
  per token per layer (DeepSeek-V2, arXiv:2405.04434, section 2.1.2).  Tensor parallelism splits
  KV heads over ranks (never below one head per rank); the MLA latent is replicated.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from slotwise.engine.estimate.activations import (
    logits_bytes,
    lora_copy_bytes,
    loss_bytes_per_logit,
    training_activation_bytes,
)
from slotwise.engine.estimate.constants import (
    BYTES,
    CUDA_CONTEXT_BYTES,
    MASTER_WEIGHT_BYTES,
    NF4_BITS_PER_PARAM,
    OPTIMIZER_STATE_BYTES_FP32,
)
from slotwise.engine.estimate.generation import generation_peak, split_lengths
from slotwise.engine.estimate.kvcache import kv_elements, ssm_state_elements
from slotwise.engine.inputs import ref
from slotwise.engine.model.params import (
    ParamCounts,
    count_params,
    dora_params,
    linear_params_by_module,
    lora_params,
    lora_target_names,
)
from slotwise.engine.workload import Workload
from slotwise.engine.workload.trainers import resolve_trainer, trainer_assumptions
from slotwise.parts.schema import ModelPreset


class MemoryBreakdown(BaseModel):
    """Bytes needed on each GPU at the step's peak.

    ``total_bytes`` is the peak of PyTorch's caching allocator (``torch.cuda.max_memory_allocated``,
    the figure litgpt, torchtune, the Qwen benchmarks and most published tables print): weights,
    gradients, optimizer state, activations and KV cache.  ``overhead_bytes`` is the CUDA context
    (+ library handles) that lives outside the allocator: it is reported but not in the total,
    and the fit verdict takes it off the usable capacity instead (``estimate.usable_bytes``):
    almost every published peak is an allocator figure (docs/evidence.md).
    """

    model_config = ConfigDict(frozen=True)

    weights_bytes: float
    gradients_bytes: float
    optimizer_bytes: float
    activations_bytes: float
    kv_cache_bytes: float
    overhead_bytes: float
    # Parts of the above that are worth showing on their own (already included in the sums).
    logits_bytes: float = 0.0
    adapter_bytes: float = 0.0
    # Paged optimizer state (CUDA unified memory, outside the allocator): not in the total; the
    # range's high end counts it (engine/estimate/memory_range.py).
    paged_optimizer_bytes: float = 0.0
    # The range around the total (engine/estimate/memory_range.py; filled by estimate()).
    low_bytes: float | None = None
    high_bytes: float | None = None

    @property
    def total_bytes(self) -> float:
        return (
            self.weights_bytes
            + self.gradients_bytes
            + self.optimizer_bytes
            + self.activations_bytes
            + self.kv_cache_bytes
        )

    def parts(self) -> tuple[tuple[str, float], ...]:
        """(name, bytes) pairs for a stacked bar, in display order."""
        return (
            ("weights", self.weights_bytes),
            ("gradients", self.gradients_bytes),
            ("optimizer", self.optimizer_bytes),
            ("activations", self.activations_bytes),
            ("kv_cache", self.kv_cache_bytes),
        )

    def to_json(self) -> dict[str, int]:
        return {
            "total_bytes": round(self.total_bytes),
            "weights_bytes": round(self.weights_bytes),
            "gradients_bytes": round(self.gradients_bytes),
            "optimizer_bytes": round(self.optimizer_bytes),
            "activations_bytes": round(self.activations_bytes),
            "kv_cache_bytes": round(self.kv_cache_bytes),
            "overhead_bytes": round(self.overhead_bytes),
            "logits_bytes": round(self.logits_bytes),
            "adapter_bytes": round(self.adapter_bytes),
            "paged_optimizer_bytes": round(self.paged_optimizer_bytes),
            "low_bytes": round(self.total_bytes if self.low_bytes is None else self.low_bytes),
            "high_bytes": round(self.total_bytes if self.high_bytes is None else self.high_bytes),
        }


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


def trainable_state_bytes(workload: Workload) -> tuple[float, float, float]:
    """(weight, gradient, optimizer) bytes per trainable parameter for full training."""
    w = weight_bytes_per_param(workload)
    master = uses_master_weights(workload)
    state = optimizer_state_bytes_on_gpu(workload)
    if not master and workload.optimizer in ("adamw", "sgd"):
        state = state * w / 4.0  # moments kept in the weights' dtype (pure bf16 training)
    grad = w
    opt = state + (MASTER_WEIGHT_BYTES if master else 0.0)
    return w, grad, opt


def _largest_linear_weights(arch: ModelPreset) -> int:
    largest = 0
    for shapes in linear_params_by_module(arch).values():
        for s in shapes:
            largest = max(largest, s.in_features * s.out_features)
    return largest


def _linear_weights(arch: ModelPreset) -> int:
    return sum(s.weights for shapes in linear_params_by_module(arch).values() for s in shapes)


def _in_flight_bytes(
    arch: ModelPreset,
    counts: ParamCounts,
    weights: float,
    workload: Workload,
    tp: int,
    *,
    sharded: bool = False,
) -> float:
    """Unsharded weights resident while ZeRO-3/FSDP or offload streams layers through the GPU.

    FSDP all-gathers the unit it computes and prefetches the next (``backward_prefetch`` /
    ``forward_prefetch``); the units are the decoder layers plus the embedding and the LM head.
    ``weights`` is this GPU's unsharded weight bytes (already divided by tp).
    """
    layers = max(1, arch.num_hidden_layers)
    if workload.method == "qlora":
        emb_b = qlora_unquantized_bytes_per_param(workload, sharded=sharded)
    else:
        emb_b = weight_bytes_per_param(workload)
    emb_total = (counts.embedding + counts.lm_head) * emb_b / tp
    emb_unit = max(counts.embedding, counts.lm_head) * emb_b / tp
    per_layer = max(0.0, weights - emb_total) / layers
    return min(weights, per_layer + max(per_layer, emb_unit))


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


def _fsdp_unit_gradient_bytes(
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


def kv_cache_bytes(arch: ModelPreset, workload: Workload, tp: int) -> float:
    """KV cache (and Mamba state) of ``micro_batch`` sequences of ``seq_len`` tokens on one GPU:
    per layer kind, sliding windows applied (:mod:`engine.estimate.kvcache`)."""
    e = activation_element_bytes(workload)  # FP8 serving keeps a bf16 cache unless told otherwise
    per_seq = kv_elements(arch, workload.seq_len, tp=tp) + ssm_state_elements(arch, tp=tp)
    return workload.micro_batch * per_seq * e


def _kv_at(arch: ModelPreset, workload: Workload, seq_len: int, tp: int) -> float:
    """KV cache bytes of the workload's sequences at another context length."""
    return kv_cache_bytes(arch, workload.model_copy(update={"seq_len": seq_len}), tp)


def memory_per_gpu(
    arch: ModelPreset,
    workload: Workload,
    *,
    tp: int,
    dp: int,
    parallel: str,
    counts: ParamCounts | None = None,
) -> tuple[MemoryBreakdown, list[str]]:
    """Bytes per GPU and the notes that explain the choices made."""
    workload = resolve_trainer(workload, gpus=tp * dp)
    notes: list[str] = trainer_assumptions(workload)
    if workload.separate_lm_head and arch.tie_word_embeddings:
        # litgpt ``model.py``: ``self.lm_head = nn.Linear(...)`` with no tying, and
        # ``convert_hf_checkpoint`` copies the embedding into ``lm_head.weight`` when the
        # checkpoint has none: a tied model carries two copies.
        arch = arch.model_copy(update={"tie_word_embeddings": False})
        counts = None
        notes.append("LM head kept as its own weight (not tied to the embedding: litgpt)")
    counts = counts or count_params(arch)
    e = activation_element_bytes(workload)
    P = counts.total
    layers = max(1, arch.num_hidden_layers)
    shard_opt = parallel in ("zero1", "zero2", "zero3") and dp > 1
    shard_grad = parallel in ("zero2", "zero3") and dp > 1
    shard_w = parallel == "zero3" and dp > 1
    offload = workload.offload

    weights = grads = opt = acts = kv = logits = adapter = 0.0
    n_trainable = 0.0  # parameters the optimizer updates
    paged = 0.0  # paged optimizer state (unified memory), for the range's high end
    quant_constants = 0.0  # NF4 absmax constants: module state, not parameters

    if workload.method == "inference":
        weights = P * weight_bytes_per_param(workload) / tp
        kv = kv_cache_bytes(arch, workload, tp)
        lengths = {split_lengths(workload)[0], max(1, workload.seq_len - 1)}
        kv_at = {n: _kv_at(arch, workload, n, tp) for n in lengths} | {workload.seq_len: kv}
        peak = generation_peak(arch, workload, e, tp, kv_at)
        kv = peak.kv_bytes
        acts = peak.working_bytes
        logits = logits_bytes(arch, workload, e, tp)
        acts += logits
        notes.append(
            f"inference: weights in {workload.precision}, KV cache for {workload.micro_batch} "
            f"sequence(s) x {workload.seq_len} tokens ({peak.prompt_tokens} prompt + "
            f"{peak.output_tokens} generated); peak at the "
            + (
                "prefill (prompt's cache + its layer working set)"
                if peak.phase == "prefill"
                else "end of generation (whole cache + one decode step)"
            )
        )
        if workload.legacy_kv_cache:
            notes.append(
                "legacy tuple KV cache (transformers < 4.36 / remote code): the previous step's "
                "cache is still alive when a decode step ends, so the cache is counted twice"
            )
    elif workload.method in ("full", "pretrain"):
        w_b, g_b, o_b = trainable_state_bytes(workload)
        n_trainable = P
        if workload.optimizer.startswith("paged-"):
            paged = P * OPTIMIZER_STATE_BYTES_FP32[workload.optimizer] / tp
        weights = P * w_b / tp
        grads = P * g_b / tp
        opt = P * o_b / tp
        master = uses_master_weights(workload)
        notes.append(
            f"{workload.method}: {w_b:g} B weights + {g_b:g} B gradients + {o_b:g} B optimizer "
            f"per parameter ({'fp32 master copy, ' if master else 'no master copy, '}"
            f"{workload.optimizer}; ZeRO paper accounting)"
        )
        if workload.optimizer_in_backward:
            # torchtune optimizer_in_bwd (torchtune.training.register_optim_in_bwd_hooks): each
            # parameter's step runs in a post-accumulate-grad hook that then frees its gradient,
            # so only the gradient being produced exists, at most the largest single tensor.
            largest = max(counts.embedding, counts.lm_head, _largest_linear_weights(arch))
            grads = min(grads, largest * g_b / tp)
            notes.append(
                "optimizer step fused into the backward: one parameter's gradient at a time "
                "(torchtune optimizer_in_bwd)"
            )
    else:  # lora / qlora
        n_adapter = lora_params(arch, workload.lora_targets, workload.lora_rank)
        if workload.dora:
            n_adapter += dora_params(arch, workload.lora_targets)
        n_trainable = n_adapter
        if workload.method == "qlora":
            linear = _linear_weights(arch)
            largest = _largest_linear_weights(arch)
            if workload.fabric_bnb:
                linear += counts.lm_head
                largest = max(largest, counts.lm_head)
            rest_b = qlora_unquantized_bytes_per_param(workload, sharded=shard_w)
            base = linear * NF4_BITS_PER_PARAM / 8.0 + (P - linear) * rest_b
            base += largest * dequantized_bytes_per_weight(workload)  # dequantized on the fly
            if workload.nf4_backend != "torchao":  # torchao shards them (module docstring)
                quant_constants = linear * (NF4_BITS_PER_PARAM - 4.0) / 8.0 / tp
            rest = "fp32 (PEFT prepare_model_for_kbit_training)" if rest_b == 4 else "bf16"
            if workload.fabric_bnb:
                notes.append(
                    "qlora through Lightning Fabric BitsandbytesPrecision: the LM head is 4-bit "
                    "too; weights quantized from fp16, so a dequantized weight exists in fp16 "
                    "and in the compute dtype at once"
                )
            if workload.nf4_input_kept:
                carried = (
                    "; the loop keeps the previous step's graph, so its inputs are alive "
                    "through the next forward"
                )
                notes.append(
                    "qlora: every 4-bit matmul keeps its input for the step (bitsandbytes "
                    "before 0.43.2; newer versions keep none)"
                    + (carried if workload.keeps_previous_graph else "")
                )
            notes.append(
                f"qlora: {linear / 1e9:.2f}B linear weights in NF4 "
                f"({NF4_BITS_PER_PARAM:.3f} bit each), {(P - linear) / 1e9:.2f}B (embeddings, "
                f"{'' if workload.fabric_bnb else 'LM head, '}norms) in {rest}"
            )
        else:
            base = P * weight_bytes_per_param(workload)
        a_w = adapter_bytes_per_param(workload)
        master = a_w == MASTER_WEIGHT_BYTES
        a_state = optimizer_state_bytes_on_gpu(workload) * (a_w / 4.0)
        if workload.optimizer.startswith("paged-"):
            paged = n_adapter * OPTIMIZER_STATE_BYTES_FP32[workload.optimizer] / tp
        adapter = n_adapter * a_w
        weights = (base + adapter) / tp
        grads = n_adapter * a_w / tp
        opt = n_adapter * a_state / tp
        notes.append(
            f"{workload.method}: rank {workload.lora_rank} on "
            f"{lora_target_names(arch, workload.lora_targets)} = {n_adapter / 1e6:.1f}M "
            "trainable parameters "
            f"({'fp32' if master else workload.precision} adapters)"
        )

    if workload.training:
        acts = training_activation_bytes(arch, workload, e, tp)
        logits = logits_bytes(arch, workload, e, tp)
        acts += logits
        if not workload.checkpointing:
            ckpt = "without recompute"
        elif workload.selective_checkpointing:
            ckpt = "with selective recompute (matmul and attention outputs kept, torchtitan op SAC)"
        else:
            ckpt = "with full recompute (one checkpoint per layer)"
        notes.append(
            f"activations {ckpt} for {workload.micro_batch} x {workload.peak_seq_len} "
            f"tokens per GPU (FlashAttention assumed: no s^2 scores kept)"
        )
        if workload.peak_seq_len < workload.seq_len:
            notes.append(
                f"batches padded to the longest sample: peak at {workload.peak_seq_len} tokens, "
                f"not the {workload.seq_len}-token limit"
            )
        if workload.activation_offload:
            notes.append(
                "activation offloading: saved activations wait in CPU memory; the layer in "
                "backward and the one being fetched stay on the GPU"
            )
        if workload.loss_compiled:
            notes.append(
                f"logits + loss: {loss_bytes_per_logit(workload, e):g} B x tokens x "
                f"{arch.vocab_size:,} vocab (compiled loss: bf16 logits and their gradient, no "
                "fp32 buffers)"
            )
        elif workload.loss == "full-16bit":
            notes.append(
                f"logits + loss: {loss_bytes_per_logit(workload, e):g} B x tokens x "
                f"{arch.vocab_size:,} vocab (cross-entropy in the 16-bit compute dtype, no "
                "fp32 upcast: logits, log-softmax and one gradient at a time)"
            )
        elif workload.loss == "chunked":
            notes.append(
                f"logits + loss: {loss_bytes_per_logit(workload, e):g} B x tokens x "
                f"{arch.vocab_size:,} vocab (bf16 logits; fp32 loss buffers one chunk at a time)"
            )
        else:
            notes.append(
                f"logits + loss: {loss_bytes_per_logit(workload, e):g} B x tokens x "
                f"{arch.vocab_size:,} vocab (bf16 logits, fp32 log-softmax and two fp32 "
                f"gradients, as Hugging Face computes it); {ref('loss', 'chunked')} for torchtune-style loss"
            )
        if workload.method in ("lora", "qlora"):
            if workload.lora_dropout is None:
                notes.append(
                    "LoRA dropout assumed on (a dropped copy of each adapted input is kept)"
                )
            elif workload.lora_dropout > 0:
                notes.append(
                    f"LoRA dropout {workload.lora_dropout:g}: a dropped copy of each adapted "
                    "input is kept"
                )
            else:
                notes.append("LoRA dropout off: no dropped copies of the adapted inputs")
            if workload.dora:
                notes.append(
                    "DoRA: magnitude vectors trained with the adapters; the base and adapter "
                    "outputs of each adapted module kept for their gradient (PEFT lora/dora.py)"
                )
            copy = lora_copy_bytes(workload, e)
            if copy:
                how = "fp32, no autocast" if workload.lora_input_cast == "fp32" else "autocast"
                notes.append(
                    f"PEFT fp32 adapters ({how}): each adapted module keeps its own "
                    f"{copy:g}-byte copy of its input (PEFT casts the input to the adapter's dtype)"
                )

    # Sharding and offload apply to the persistent state.
    if workload.training:
        in_flight = _in_flight_bytes(arch, counts, weights, workload, tp, sharded=shard_w)
        if shard_grad and workload.method == "lora" and workload.fsdp_layer_grads:
            grads = max(grads, fsdp_layer_gradient_bytes(counts, workload, tp))
            notes.append(
                "LoRA under FSDP units of whole decoder layers (use_orig_params=True): each "
                "layer's gradient covers its frozen weights too (PyTorch FSDP docs)"
            )
        unsharded = shard_grad and fsdp_unsharded_accumulation(workload)
        if shard_opt:
            opt /= dp
            paged /= dp
        if shard_grad and not unsharded:
            grads /= dp
        if unsharded:
            notes.append(
                f"gradient accumulation ({workload.grad_accum} micro-batches) under FSDP "
                "no_sync: full, unsharded gradients on every GPU until the step's last "
                "micro-batch (PyTorch FSDP no_sync; Lightning Fabric no_backward_sync)"
            )
        if shard_w:
            weights = min(weights, (weights - quant_constants) / dp + quant_constants + in_flight)
        # Under no_sync the unsharded gradients are already counted whole.
        unit_grads = (
            _fsdp_unit_gradient_bytes(arch, counts, workload, tp)
            if shard_w and not unsharded
            else 0.0
        )
        grads += unit_grads
        if unit_grads:
            notes.append(
                f"FSDP reduce-scatter: one decoder layer's unsharded gradient and its "
                f"reduce-scatter copy ({unit_grads / 2**30:.2f} GiB) besides the shards"
            )
        if workload.zero_buckets and workload.parallel in ("zero1", "zero2"):
            buckets = workload.zero_buckets * e
            grads += buckets
            notes.append(
                f"DeepSpeed ZeRO gradient buckets: {workload.zero_buckets:,.0f} elements "
                f"({buckets / 2**30:.2f} GiB) allocated for every backward"
            )
        if (
            workload.zero_fp32_grad_partition
            and parallel in ("zero1", "zero2")
            and offload == "none"
        ):
            # DeepSpeed ZeRO-1/2 (deepspeed/runtime/zero/stage_1_and_2.py, ``step``): the
            # rank's flattened gradient partition is converted to the fp32 master dtype
            # (``single_grad_partition = self.flatten(...).to(self.single_partition_of_fp32_
            # groups[i].dtype)``) and set as the fp32 partition's ``.grad`` for the optimizer
            # step: 4 B per trainable parameter over the data-parallel ranks, beside the
            # 16-bit gradients.
            trainable = n_trainable / tp
            partition = trainable * MASTER_WEIGHT_BYTES / max(1, dp)
            grads += partition
            notes.append(
                f"DeepSpeed ZeRO fp32 gradient partition at the optimizer step: "
                f"{partition / 2**30:.2f} GiB (4 B per trainable parameter / {dp} rank(s))"
            )
        if offload in ("optimizer", "params"):
            opt = paged = 0.0
            # What stays on the GPU: the unit being reduce-scattered (ZeRO-3 / FSDP), or a
            # bucket of about one layer's gradients (ZeRO-Offload).
            grads = unit_grads or grads / layers
            notes.append("optimizer state, fp32 master and gradients on CPU (ZeRO-Offload)")
        if offload == "params":
            weights = min(weights, in_flight + quant_constants)
            notes.append("weights on CPU; the layer in use and the prefetched one stay on GPU")
        if quant_constants and (shard_w or offload == "params"):
            notes.append(
                f"NF4 quantization constants ({quant_constants / 2**30:.2f} GiB) stay whole on "
                "every GPU: bitsandbytes keeps them as module state, which FSDP neither shards "
                "nor offloads"
            )
        elif workload.method == "qlora" and (shard_w or offload == "params"):
            notes.append(
                "NF4 quantization constants sharded with the 4-bit weights (torchao "
                "NF4Tensor under FSDP2, as torchtune stores them)"
            )
        if parallel != "ddp" and dp > 1:
            notes.append(f"{parallel} over {dp} data-parallel GPUs")

    overhead = CUDA_CONTEXT_BYTES
    mem = MemoryBreakdown(
        weights_bytes=weights,
        gradients_bytes=grads,
        optimizer_bytes=opt,
        activations_bytes=acts,
        kv_cache_bytes=kv,
        overhead_bytes=overhead,
        logits_bytes=logits,
        adapter_bytes=adapter / tp / (dp if shard_w and workload.training else 1),
        paged_optimizer_bytes=paged if workload.training else 0.0,
    )
    return mem, notes
