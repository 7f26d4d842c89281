"""GPU memory per GPU for a workload: a list of cited terms, and their sum.

The estimate is a list of :class:`~engine.estimate.memory_terms.MemoryTerm` (name, the
breakdown part it adds to, bytes on one GPU, where its formula comes from), each made by a small
function of :mod:`engine.estimate.memory_terms` whose docstring names its origin.
:func:`memory_per_gpu` chooses the terms a workload has, in this order:

1. the persistent state, per tensor-parallel rank (Megatron-LM, arXiv:1909.08053, splits every
   weight matrix over ``tp``):

   * inference: ``weights``, and what one ``generate()`` call holds at its peak: ``kv_cache``,
     ``working_set``, ``logits``;
   * full / pretrain: ``weights``, ``gradients``, ``optimizer_state``, ``master_weights`` (ZeRO
     paper section 3.1); ``paged_optimizer_state`` outside the allocator;
   * LoRA / QLoRA: the frozen base (``weights``, or ``nf4_weights``, ``nf4_constants``,
     ``unquantized_weights``, ``dequantized_weight``) and ``lora_adapters``,
     ``adapter_gradients``, ``adapter_optimizer_state``;

2. training's ``activations`` and ``logits`` (the loss's buffers);
3. sharding and offload (:func:`_shard_and_offload`) divide or drop the persistent terms and add
   the buffers they bring: ``in_flight_weights``, ``fsdp_reduce_scatter``, ``layer_gradients``,
   ``zero_gradient_buckets``, ``zero_fp32_gradient_partition``, ``gradient_bucket``.  ZeRO
   stages (Rajbhandari et al. 2020, arXiv:1910.02054, figure 1): stage 1 shards the optimizer
   state over the data-parallel ranks, stage 2 also the gradients, stage 3 (= PyTorch FSDP
   FULL_SHARD, Zhao et al. 2023, arXiv:2304.11277) also the weights.  CPU offload:
   ZeRO-Offload (Ren et al. 2021, arXiv:2101.06840) keeps bf16 weights on the GPU and moves
   gradients, fp32 master and optimizer state to the CPU; ZeRO-Infinity / FSDP
   ``CPUOffload(offload_params=True)`` (arXiv:2104.07857) also moves the weights.  FSDP + QLoRA
   with bitsandbytes (Answer.AI, ``bnb_4bit_quant_storage``) shards the packed 4-bit data but
   not the quantization constants, which live in each ``Linear4bit``'s ``quant_state``;
   torchtune stores them as inner tensors of torchao's ``NF4Tensor``
   (``torchao/dtypes/nf4tensor.py``, ``_INNER_TENSOR_NAMES_FOR_SHARDING``), so under
   ``--nf4-backend torchao`` they are sharded and offloaded with the rest;
4. ``cuda_context``, outside the allocator.

``MemoryBreakdown``'s fields are the sums of the terms of each part; ``total_bytes`` is the sum
of the allocator's parts.  The notes say in words which choices were made.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from slotwise.engine.estimate.activations import lora_copy_bytes, loss_bytes_per_logit
from slotwise.engine.estimate.constants import MASTER_WEIGHT_BYTES, NF4_BITS_PER_PARAM
from slotwise.engine.estimate.generation import generation_peak, split_lengths
from slotwise.engine.estimate.memory_terms import (
    MemoryTerm,
    activation_element_bytes,
    adapter_bytes_per_param,
    bytes_by_part,
    cuda_context_term,
    fsdp_layer_gradients_term,
    fsdp_reduce_scatter_term,
    fsdp_unit_gradient_bytes,
    fsdp_unsharded_accumulation,
    full_training_terms,
    generation_terms,
    gradient_in_backward_term,
    in_flight_weights_term,
    in_part_order,
    kv_cache_at,
    kv_cache_bytes,
    kv_cache_term,
    lora_adapter_terms,
    nf4_linear_weights,
    nf4_weights_terms,
    offloaded_gradients_term,
    paged_optimizer_term,
    part_bytes,
    qlora_unquantized_bytes_per_param,
    trainable_state_bytes,
    training_activation_terms,
    uses_master_weights,
    weights_term,
    zero_bucket_term,
    zero_fp32_partition_term,
)
from slotwise.engine.inputs import ref
from slotwise.engine.model.params import (
    ParamCounts,
    count_params,
    dora_params,
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

    ``terms`` are the cited terms the fields add up (:meth:`from_terms`); a breakdown made
    field by field (a frozen report, a test fixture) has none.
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
    terms: tuple[MemoryTerm, ...] = ()

    @classmethod
    def from_terms(cls, terms: list[MemoryTerm], *, adapter_bytes: float = 0.0) -> MemoryBreakdown:
        """The breakdown whose fields are the sums of ``terms`` by part (in their order); the
        terms are kept in part order.  ``logits_bytes`` is the ``logits`` term's share of the
        activations; ``adapter_bytes`` is given (the adapters' share of the weights, sharded or
        not)."""
        sums = bytes_by_part(terms)
        return cls(
            weights_bytes=sums["weights"],
            gradients_bytes=sums["gradients"],
            optimizer_bytes=sums["optimizer"],
            activations_bytes=sums["activations"],
            kv_cache_bytes=sums["kv_cache"],
            overhead_bytes=sums["overhead"],
            logits_bytes=sum((t.bytes for t in terms if t.name == "logits"), 0.0),
            adapter_bytes=adapter_bytes,
            paged_optimizer_bytes=sums["paged"],
            terms=in_part_order(terms),
        )

    def with_kv_cache(self, kv_bytes: float, source: str) -> MemoryBreakdown:
        """This breakdown with another KV cache (serving: the running users' caches, or an FP8
        cache), its term replaced to match."""
        terms = tuple(
            kv_cache_term(kv_bytes, source) if t.part == "kv_cache" else t for t in self.terms
        )
        return self.model_copy(update={"kv_cache_bytes": kv_bytes, "terms": terms})

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

    def to_json(self) -> dict[str, int | list[dict[str, str | int]]]:
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
            "terms": [t.to_json() for t in self.terms],
        }


def memory_per_gpu(
    arch: ModelPreset,
    workload: Workload,
    *,
    tp: int,
    dp: int,
    parallel: str,
    counts: ParamCounts | None = None,
) -> tuple[MemoryBreakdown, list[str]]:
    """Bytes per GPU, as cited terms summed by part, and the notes that explain the choices."""
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
    adapter = 0.0
    if workload.method == "inference":
        terms = _inference_terms(arch, counts, workload, e, tp, notes)
    else:
        terms, adapter = _training_terms(
            arch, counts, workload, e, tp=tp, dp=dp, parallel=parallel, notes=notes
        )
    terms.append(cuda_context_term())
    return MemoryBreakdown.from_terms(terms, adapter_bytes=adapter), notes


def _inference_terms(
    arch: ModelPreset, counts: ParamCounts, workload: Workload, e: float, tp: int, notes: list[str]
) -> list[MemoryTerm]:
    """Weights and the peak of one ``generate()`` call (memory_terms.generation_terms)."""
    kv = kv_cache_bytes(arch, workload, tp)
    lengths = {split_lengths(workload)[0], max(1, workload.seq_len - 1)}
    kv_at = {n: kv_cache_at(arch, workload, n, tp) for n in lengths} | {workload.seq_len: kv}
    peak = generation_peak(arch, workload, e, tp, kv_at)
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
    return [weights_term(counts, workload, tp), *generation_terms(arch, workload, e, tp, peak)]


def _training_terms(
    arch: ModelPreset,
    counts: ParamCounts,
    workload: Workload,
    e: float,
    *,
    tp: int,
    dp: int,
    parallel: str,
    notes: list[str],
) -> tuple[list[MemoryTerm], float]:
    """The training terms, and the adapters' bytes on one GPU (for ``adapter_bytes``)."""
    shard_w = parallel == "zero3" and dp > 1
    if workload.method in ("full", "pretrain"):
        state, n_trainable = _full_state(arch, counts, workload, tp, notes)
    else:
        state, n_trainable = _adapter_state(arch, counts, workload, tp, shard_w, notes)
    adapter = part_bytes([t for t in state if t.name == "lora_adapters"], "weights")
    paged = paged_optimizer_term(workload, n_trainable, tp)
    if paged is not None:
        state.append(paged)
    # QLoRA with fp32 non-4-bit weights runs an fp32 residual stream, and bitsandbytes'
    # Linear4bit returns fp32 for an fp32 input (activations.py module docstring).
    fp32_stream = (
        workload.method == "qlora"
        and workload.nf4_backend == "bitsandbytes"
        and qlora_unquantized_bytes_per_param(workload, sharded=shard_w) == MASTER_WEIGHT_BYTES
    )
    stream = MASTER_WEIGHT_BYTES if fp32_stream else None
    activations = training_activation_terms(arch, workload, e, tp, stream=stream)
    notes.extend(_activation_notes(arch, workload, e))
    state = _shard_and_offload(
        state, arch, counts, workload, e, tp=tp, dp=dp, parallel=parallel,
        n_trainable=n_trainable, notes=notes,
    )  # fmt: skip
    return [*state, *activations], adapter / (dp if shard_w else 1)


def _full_state(
    arch: ModelPreset, counts: ParamCounts, workload: Workload, tp: int, notes: list[str]
) -> tuple[list[MemoryTerm], float]:
    """Full training's weights, gradients and optimizer state (memory_terms.full_training_terms),
    and the number of trainable parameters."""
    w_b, g_b, o_b = trainable_state_bytes(workload)
    terms = list(full_training_terms(counts, workload, tp))
    master = uses_master_weights(workload)
    notes.append(
        f"{workload.method}: {w_b:g} B weights + {g_b:g} B gradients + {o_b:g} B optimizer "
        f"per parameter ({'fp32 master copy, ' if master else 'no master copy, '}"
        f"{workload.optimizer}; ZeRO paper accounting)"
    )
    if workload.optimizer_in_backward:
        one = gradient_in_backward_term(arch, counts, g_b, tp)
        terms = [one if t.name == "gradients" and one.bytes < t.bytes else t for t in terms]
        notes.append(
            "optimizer step fused into the backward: one parameter's gradient at a time "
            "(torchtune optimizer_in_bwd)"
        )
    return terms, counts.total


def _adapter_state(
    arch: ModelPreset,
    counts: ParamCounts,
    workload: Workload,
    tp: int,
    sharded: bool,
    notes: list[str],
) -> tuple[list[MemoryTerm], float]:
    """LoRA / QLoRA: the frozen base and the adapters' weights, gradients and optimizer state
    (memory_terms.nf4_weights_terms, memory_terms.lora_adapter_terms), and the number of
    adapter parameters."""
    n_adapter: float = lora_params(arch, workload.lora_targets, workload.lora_rank)
    if workload.dora:
        n_adapter += dora_params(arch, workload.lora_targets)
    if workload.method == "qlora":
        linear, largest = nf4_linear_weights(arch, counts, workload)
        base = nf4_weights_terms(
            counts, workload, tp, linear=linear, largest=largest, sharded=sharded
        )
        notes.extend(_qlora_notes(counts, workload, linear, sharded))
    else:
        base = [weights_term(counts, workload, tp)]
    adapters = lora_adapter_terms(n_adapter, workload, tp)
    fp32 = adapter_bytes_per_param(workload) == MASTER_WEIGHT_BYTES
    notes.append(
        f"{workload.method}: rank {workload.lora_rank} on "
        f"{lora_target_names(arch, workload.lora_targets)} = {n_adapter / 1e6:.1f}M "
        "trainable parameters "
        f"({'fp32' if fp32 else workload.precision} adapters)"
    )
    return [*base, *adapters], n_adapter


def _qlora_notes(counts: ParamCounts, workload: Workload, linear: int, sharded: bool) -> list[str]:
    notes = []
    rest_b = qlora_unquantized_bytes_per_param(workload, sharded=sharded)
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
    P = counts.total
    notes.append(
        f"qlora: {linear / 1e9:.2f}B linear weights in NF4 "
        f"({NF4_BITS_PER_PARAM:.3f} bit each), {(P - linear) / 1e9:.2f}B (embeddings, "
        f"{'' if workload.fabric_bnb else 'LM head, '}norms) in {rest}"
    )
    return notes


def _activation_notes(arch: ModelPreset, workload: Workload, e: float) -> list[str]:
    """What the training activation and loss terms assume, in words."""
    notes = []
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
    per_logit = loss_bytes_per_logit(workload, e)
    if workload.loss_compiled:
        notes.append(
            f"logits + loss: {per_logit:g} B x tokens x "
            f"{arch.vocab_size:,} vocab (compiled loss: bf16 logits and their gradient, no "
            "fp32 buffers)"
        )
    elif workload.loss == "full-16bit":
        notes.append(
            f"logits + loss: {per_logit:g} B x tokens x "
            f"{arch.vocab_size:,} vocab (cross-entropy in the 16-bit compute dtype, no "
            "fp32 upcast: logits, log-softmax and one gradient at a time)"
        )
    elif workload.loss == "chunked":
        notes.append(
            f"logits + loss: {per_logit:g} B x tokens x "
            f"{arch.vocab_size:,} vocab (bf16 logits; fp32 loss buffers one chunk at a time)"
        )
    else:
        notes.append(
            f"logits + loss: {per_logit:g} B x tokens x "
            f"{arch.vocab_size:,} vocab (bf16 logits, fp32 log-softmax and two fp32 "
            f"gradients, as Hugging Face computes it); {ref('loss', 'chunked')} for torchtune-style loss"
        )
    if workload.method in ("lora", "qlora"):
        if workload.lora_dropout is None:
            notes.append("LoRA dropout assumed on (a dropped copy of each adapted input is kept)")
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
    return notes


def _shard_and_offload(
    state: list[MemoryTerm],
    arch: ModelPreset,
    counts: ParamCounts,
    workload: Workload,
    e: float,
    *,
    tp: int,
    dp: int,
    parallel: str,
    n_trainable: float,
    notes: list[str],
) -> list[MemoryTerm]:
    """The persistent terms (weights, gradients, optimizer and paged state) after ZeRO / FSDP
    sharding over ``dp`` ranks and CPU offload, with the buffers those bring (module
    docstring, step 3)."""
    shard_opt = parallel in ("zero1", "zero2", "zero3") and dp > 1
    shard_grad = parallel in ("zero2", "zero3") and dp > 1
    shard_w = parallel == "zero3" and dp > 1
    offload = workload.offload
    weights = [t for t in state if t.part == "weights"]
    grads = [t for t in state if t.part == "gradients"]
    opt = [t for t in state if t.part in ("optimizer", "paged")]
    # bitsandbytes keeps the NF4 constants as module state: never sharded nor offloaded.
    bnb_constants = workload.method == "qlora" and workload.nf4_backend != "torchao"
    whole = [t for t in weights if bnb_constants and t.name == "nf4_constants"]
    in_flight = in_flight_weights_term(
        arch, counts, part_bytes(weights, "weights"), workload, tp, sharded=shard_w
    )
    if shard_grad and workload.method == "lora" and workload.fsdp_layer_grads:
        layer = fsdp_layer_gradients_term(counts, workload, tp)
        if layer.bytes > part_bytes(grads, "gradients"):
            grads = [layer]
        notes.append(
            "LoRA under FSDP units of whole decoder layers (use_orig_params=True): each "
            "layer's gradient covers its frozen weights too (PyTorch FSDP docs)"
        )
    unsharded = shard_grad and fsdp_unsharded_accumulation(workload)
    over_dp = f"1/{dp} per GPU ({parallel} over {dp} data-parallel GPUs)"
    if shard_opt:
        opt = [t.over(dp, over_dp) for t in opt]
    if shard_grad and not unsharded:
        grads = [t.over(dp, over_dp) for t in grads]
    if unsharded:
        notes.append(
            f"gradient accumulation ({workload.grad_accum} micro-batches) under FSDP "
            "no_sync: full, unsharded gradients on every GPU until the step's last "
            "micro-batch (PyTorch FSDP no_sync; Lightning Fabric no_backward_sync)"
        )
    if shard_w:
        shards = [t.over(dp, over_dp) for t in weights if not any(t is w for w in whole)]
        sharded = [*shards, *whole, in_flight]
        if part_bytes(sharded, "weights") < part_bytes(weights, "weights"):
            weights = sharded
    # Under no_sync the unsharded gradients are already counted whole.
    unit = (
        fsdp_unit_gradient_bytes(arch, counts, workload, tp) if shard_w and not unsharded else 0.0
    )
    if unit:
        grads.append(fsdp_reduce_scatter_term(unit))
        notes.append(
            f"FSDP reduce-scatter: one decoder layer's unsharded gradient and its "
            f"reduce-scatter copy ({unit / 2**30:.2f} GiB) besides the shards"
        )
    if workload.zero_buckets and workload.parallel in ("zero1", "zero2"):
        buckets = zero_bucket_term(workload.zero_buckets, e)
        grads.append(buckets)
        notes.append(
            f"DeepSpeed ZeRO gradient buckets: {workload.zero_buckets:,.0f} elements "
            f"({buckets.bytes / 2**30:.2f} GiB) allocated for every backward"
        )
    if workload.zero_fp32_grad_partition and parallel in ("zero1", "zero2") and offload == "none":
        partition = zero_fp32_partition_term(n_trainable, tp, dp)
        grads.append(partition)
        notes.append(
            f"DeepSpeed ZeRO fp32 gradient partition at the optimizer step: "
            f"{partition.bytes / 2**30:.2f} GiB (4 B per trainable parameter / {dp} rank(s))"
        )
    if offload in ("optimizer", "params"):
        opt = []
        # What stays on the GPU: the unit being reduce-scattered (ZeRO-3 / FSDP), or a
        # bucket of about one layer's gradients (ZeRO-Offload).
        layers = max(1, arch.num_hidden_layers)
        total = part_bytes(grads, "gradients")
        grads = (
            [fsdp_reduce_scatter_term(unit)] if unit else [offloaded_gradients_term(total, layers)]
        )
        notes.append("optimizer state, fp32 master and gradients on CPU (ZeRO-Offload)")
    if offload == "params":
        kept = [in_flight, *whole]
        if part_bytes(kept, "weights") < part_bytes(weights, "weights"):
            weights = kept
        notes.append("weights on CPU; the layer in use and the prefetched one stay on GPU")
    constants = part_bytes(whole, "weights")
    if constants and (shard_w or offload == "params"):
        notes.append(
            f"NF4 quantization constants ({constants / 2**30:.2f} GiB) stay whole on "
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
    return [*weights, *grads, *opt]
