"""Activation memory: what autograd keeps between the forward and the backward pass.

Origin.  Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
Models" (arXiv:2205.05198), section 4.1, counts the tensors a GPT layer saves:
``sbh(34 + 5as/h)`` bytes per layer in 16-bit.  Their 34 assumes a 4h GeLU MLP, LayerNorm and
dropout masks, and ``5as/h`` is the attention-score matrix.  Modern Llama-style models differ, so we
redo the same tensor-by-tensor count for the layer the config describes (RMSNorm, SwiGLU MLP of
width ``intermediate_size``, GQA, no dropout) and assume fused scaled-dot-product attention
(FlashAttention, Dao et al. 2022, arXiv:2205.14135), which saves q, k, v, the output and a
log-sum-exp instead of the ``s x s`` scores, so the ``5as/h`` term is gone.

Per token per layer, with ``e`` bytes per activation element (2 for bf16):

* each RMSNorm: the fp32 upcast of its input, 4h bytes (``LlamaRMSNorm`` computes in fp32 and
  ``pow``/``mul`` keep that copy);
* attention: q, k, v and output saved by SDPA: ``e (q_dim + 2 kv_dim + o_dim)``;
* SwiGLU MLP: gate output (for SiLU's backward), SiLU output and up output (for the product):
  ``3 e i``; for MoE layers ``i`` is the routed experts a token visits plus shared experts, and the
  dispatched copies of the token's hidden state (``k e h``) are kept too;
* two-matrix MLPs (``mlp_gated=False``: GPT-2, NeoX, Falcon, phi, StarCoder: fc1, a fused
  GELU, fc2): the GELU keeps its input, the fc1 output (``e i``); the GELU output is fc2's
  input, kept only when fc2 needs it (below); while the MLP's backward runs, the gradients of
  the fc2 input and of the fc1 output are alive (``2 e i``).  LayerNorm models (``norm_bias``:
  ``torch.native_layer_norm`` saves its input and a per-token mean and rstd) keep ``e h`` per
  norm instead of an fp32 copy; a layer has as many norms as ``norms_per_layer`` says (phi,
  Falcon, NeoX with parallel attention and MLP: one).  Same tensor-by-tensor count as above;
* the *input* of a linear layer is kept only when something needs it in backward: its weight is
  trained (full fine-tuning), a dropout-free LoRA adapter's ``lora_A`` matmul takes it as it
  is, or the base weight is a bitsandbytes 4-bit weight of a version before 0.43.2
  (``nf4_keeps_input``; ``MatMul4Bit.forward`` stored ``ctx.tensors = (A, B)`` whenever any
  input needs a gradient, though its backward reads only B; bitsandbytes PR #1270, July 2024,
  "delete useless buffered activation": "the bug that caused a lot of memory issues with
  QLoRA"; torchao's ``linear_nf4``, torchtune's QLoRA, never kept it): q/k/v share one input
  (``e h``), o (``e o_dim``), gate/up share one (``e h``), down (``e i``).  A frozen 16-bit
  base weight does not keep its input: autograd saves a matmul operand only for the gradient
  that needs it (``mm``: ``self`` is saved for ``mat2``'s gradient, which a frozen weight does
  not have), so under LoRA *with* dropout only the adapter's dropped copy is kept;
* LoRA with dropout (litgpt 0.05, Answer.AI fsdp_qlora 0.1; assumed when not given) keeps, per
  adapted module, the dropped input (``e`` x in_features) and its mask (1 byte x in_features).
  With ``lora_dropout`` 0 (torchtune configs, PEFT ``LoraConfig`` and Unsloth defaults) the
  dropout is an ``nn.Identity`` and keeps nothing (torchtune ``LoRALinear``, PEFT
  ``lora.layer.Linear``).  A two-matrix MLP has one adapted input (fc1), not gate and up.
  ``fused_qkv`` (litgpt ``LoRAQKVLinear``, ``lora.py``: ``F.linear(self.lora_dropout(x),
  self.lora_A)`` once for q, k and v) keeps one dropped copy for the three (a frozen 16-bit
  base keeps no input, as below);
* PEFT's fp32 adapters (``--lora-input-cast``): PEFT keeps the adapters in fp32 on a 16-bit base
  (``get_peft_model(..., autocast_adapter_dtype=True)``) and ``lora.layer.Linear.forward`` casts
  the input to the adapter's dtype (``x = self._cast_input_dtype(x, lora_A.weight.dtype)``)
  before ``lora_B(lora_A(dropout(x)))``; ``lora_A`` keeps that cast input for its weight
  gradient and ``lora_B`` the rank-``r`` output of ``lora_A``.  The cast is made per adapted
  module, so q and v (or gate and up) each keep a copy of the same hidden state, and the frozen
  16-bit base layer keeps none (autograd saves a matmul input only for a weight that needs a
  gradient).  Without ``torch.autocast`` (``fp32``: a model loaded in bf16 and trained as
  loaded, PEFT's method comparison ``use_amp: false``) the copies are fp32: ``4 (in + r)``
  bytes per adapted module; under autocast (``autocast``: Trainer ``--bf16``) ``F.linear``
  re-casts the fp32 input to 16 bits for every call (autocast caches casts of leaf tensors
  that require a gradient, i.e. weights, not activations: ATen ``cached_cast``), so the copies
  are 16-bit: ``e (in + r)``.  With dropout on, the copy ``lora_A`` keeps is the dropped one,
  plus its 1-byte mask.  (The rank-``r`` output is left out for shared 16-bit adapters: under
  0.1 % of a layer.)
* attention of a fused qkv (``fused_qkv``; litgpt ``CausalSelfAttention``): q and k are new
  tensors after RoPE (``torch.cat``), but v is a view of the qkv output, so attention's saved
  v keeps the whole qkv output alive: ``e (q_dim + k_dim)`` more, unless ``expand_kv`` copied
  v: litgpt repeats grouped-query k and v to every head before attention in training
  (``k.expand(...)`` + ``reshape``, ``model.py``), so attention keeps k and v as wide as q.
* DoRA (``--dora``; Liu et al. 2024, arXiv:2402.09353; PEFT ``lora/dora.py``
  ``DoraLinearLayer.forward``): the output is ``(m / ||W + BA|| - 1) * base_result + m /
  ||W + BA|| * lora_B(lora_A(x)) * scaling`` with the trained magnitude ``m``, so both products
  keep their other operand for ``m``'s gradient: the base layer's output (``e`` x out_features;
  with dropout on PEFT recomputes it as ``F.linear(dropout(x), W.to(x.dtype))`` in the
  adapter's input dtype) and the adapter's output (out_features in the adapter's input dtype:
  4 bytes for PEFT's fp32 cast, else ``e``).  With dropout on, that ``F.linear`` also keeps the
  cast weight for the input's gradient: a copy of every adapted weight in the adapter's input
  dtype (none for a 16-bit base without a cast; for a 4-bit base the dequantized weight), for
  every layer (one layer under recompute).  The weight norm ``||W + BA||`` is detached and its
  ``W + BA`` buffers live only during one module's forward; not counted.

Layers are not all alike.  Each layer is a token mixer (attention, a Mamba mixer, or none)
followed by an FFN (dense, MoE, or none), as ``layer_types`` / ``mlp_layer_types`` say
(:func:`engine.model.params.mixer_types`); the bytes above are summed per component, so a
Nemotron-H MLP-only block has no q/k/v, a Mamba layer no attention and no MLP, and a Jamba layer
a Mamba mixer plus its (dense or MoE) FFN.  A layer with both sub-blocks has the family's norms
(2, or 4 for Gemma 2/3), a layer with one sub-block one norm.

* MoE layers: a token visits ``num_experts_per_tok`` routed experts of ``moe_intermediate_size``
  plus the shared expert(s), whose width is ``shared_expert_intermediate_size`` (Qwen2-MoE,
  Llama 4) or ``n_shared_experts x moe_intermediate_size`` (DeepSeek)
  (:func:`engine.model.params.shared_expert_intermediate`).
* A Mamba mixer (Gu & Dao 2023, "Mamba", arXiv:2312.00752, section 3.3.2): the selective scan
  is fused and its expanded state (``d_inner x state_size`` per token) is never written to
  memory; it is recomputed in the backward pass, so the layer keeps only its projections.  The
  ``mamba_ssm`` kernels that ``transformers`` calls save, per token: Mamba-1 (``MambaInnerFn``,
  default ``checkpoint_lvl=1``, which recomputes the conv output and delta) the ``in_proj``
  output ``xz`` (2 d_inner), ``x_dbl`` (dt_rank + 2 state), contiguous copies of B and C
  (2 state) and the scan output (d_inner); Mamba-2 (Dao & Gu 2024, arXiv:2405.21060;
  ``MambaSplitConv1dScanCombinedFn``) the ``in_proj`` output ``zxbcdt`` (2 d_inner + 2 groups
  state + heads) and the scan output before the gated norm (d_inner).  Per-chunk scan states
  (one per 256-2048 tokens) are negligible.  The ``in_proj`` input (``e h``) is kept when its
  weight is trained or 4-bit, or carries a LoRA adapter (all-linear targets).  While the mixer's backward runs it holds the gradients of what it
  saved (the same widths).

The previous step's graph (``keeps_previous_graph``, litgpt's finetune loops: ``logits`` and
``loss`` are rebound only when the next step has computed its own): saved tensors are freed by
the backward, but ``ctx.tensors`` is a plain attribute of the graph node, freed only with the
graph.  So under ``nf4_keeps_input`` every 4-bit input of the previous step (per token:
``e (h + o_dim)`` per attention layer, ``e (h + i)`` per FFN, ``e h`` for a Fabric 4-bit LM
head) is alive at the end of the next forward, where it takes the place of the backward working
set when larger (:func:`nf4_inputs_bytes_per_token`).  Without recompute only: reentrant
checkpointing runs the forward under ``no_grad``, so no node keeps anything.

Activation recompute (``--grad-checkpointing``, one checkpoint per decoder layer as in HF
``gradient_checkpointing_enable`` and torchtune) keeps only each layer's input (``e h``) and
re-creates one layer's full set during its backward (Chen et al. 2016, arXiv:1604.06174).

Backward working set.  While autograd runs one layer's backward it holds, besides what that
layer saved, the gradients of the layer's widest intermediates: the SwiGLU backward produces the
gradients of the product, of the SiLU output and of the gate and up outputs, all ``i`` wide, of
which three are alive at once (``3 e i`` per token, ``torch.autograd`` frees a gradient as soon
as its consumer has run).  The count is ours, from the SwiGLU backward's data flow (what the
measured table says of it: docs/evidence.md).

Logits and loss (``--loss full``, the default: Hugging Face ``transformers`` / TRL / PEFT): the
``tokens x vocab`` logits in ``e`` bytes stay referenced by the model output, the cross-entropy
upcasts them to fp32 (``ForCausalLMLoss`` / older ``logits.float()``) and keeps its fp32
log-softmax for the backward, and when that backward runs it holds the fp32 gradient of the
log-probabilities and the fp32 gradient of the logits at the same time: ``e + 4 + 4 + 4`` bytes
per token per vocabulary entry.  They are freed before the last layer's backward starts, but
the caching allocator keeps such large blocks reserved, so we add them to the layer working set
rather than take the larger of the two (Answer.AI's reserved peaks decide it: docs/evidence.md).  With
128k-256k vocabularies this is often the largest single item.  ``--loss chunked`` (torchtune
``CEWithChunkedOutputLoss``, 8 chunks): the bf16 logits are still materialised, but the fp32
buffers exist for one chunk at a time: ``e + 12 / 8`` bytes.

``--loss full-16bit``: model code that computes the cross-entropy on the logits as they are,
without upcasting (Qwen v1's remote-code ``modeling_qwen.py``: ``CrossEntropyLoss()`` on
``lm_logits[..., :-1, :].contiguous()``), run without ``torch.autocast`` (DeepSpeed fp16/bf16
casts the model itself: transformers' ``Trainer`` turns on its AMP only "if (args.fp16 or
args.bf16) and not (self.is_deepspeed_enabled ...)", "deepspeed ... manage their own half
precision"; under autocast ``cross_entropy`` is an fp32 op and the ``full`` accounting
applies).  Then every buffer is 16-bit and at most three
tokens x vocab tensors are alive at once: in the forward the logits, their shifted contiguous
copy and the log-softmax output; in the backward the saved log-softmax output, its gradient and
the gradient of the logits: ``3 e`` per logit.

QLoRA's fp32 stream.  When QLoRA's non-4-bit weights are fp32 (``qlora_fp32_rest``: PEFT
``prepare_model_for_kbit_training`` casts every non-``Params4bit`` parameter to fp32, the
embedding included), the embedding output and so the residual stream are fp32, and a
bitsandbytes ``Linear4bit`` returns its output in its input's dtype
(``bitsandbytes/nn/modules.py`` ``Linear4bit.forward``: ``inp_dtype = x.dtype``, ``x =
x.to(self.compute_dtype)``, ``matmul_4bit(...)``, ``out.to(inp_dtype)``).  So the layer inputs
a recompute keeps, the SwiGLU's gate, SiLU and up outputs (fp32 ``Linear4bit`` outputs and
the SiLU of one) and their gradients in the backward are 4 bytes per element
(``training_activation_bytes(..., stream=4)``, decided in ``engine.estimate.memory``); q, k
and v go through autocast (SDPA, FlashAttention's own cast, or eager's matmuls) and stay ``e``.
Sharded QLoRA (FSDP / ZeRO-3) keeps the rest in the 16-bit storage dtype: no fp32 stream.

Eager attention (``attention = "eager"``: transformers before v4.36 ran Llama-family models
with ``LlamaAttention.forward``'s own matmuls, SDPA became the default in v4.36,
huggingface/transformers#28005): ``softmax(q k^T / sqrt(d) + mask, dtype=float32)
.to(q.dtype)`` and ``matmul(probabilities, v)``.  Per element of a layer's ``heads x s x s``
scores, autograd saves the fp32 softmax output (``_softmax_backward_data`` needs it: 4 bytes)
and its 16-bit cast, the matmul's operand for v's gradient (``e``); the scaled scores and the
masked scores are not saved (division by a scalar and an add keep nothing).  This is the
``5as/h`` term of Korthikanti et al. with fp32 softmax and no dropout.  While one layer's
backward runs, the softmax backward holds the fp32 gradient of the probabilities (4 bytes)
besides what it saved.  So every layer keeps ``4 + e`` bytes per score element (one layer
under recompute), plus 4 for the layer in backward (:func:`eager_attention_bytes`).  Our
count from the code; the (b, 1, s, s) additive mask, built once per forward, is 1/heads of
one layer's scores and left out.

A compiled loss (``torch.compile`` of the cross-entropy: torchtune ``compile_loss``, torchtitan
``compile.components`` with "loss"): Inductor fuses the upcast, log-softmax and NLL into one
reduction that saves only the bf16 logits it already holds and a per-row log-sum-exp, and its
backward writes the gradient of the logits in their own dtype in one fused kernel (AOTAutograd's
min-cut partitioner, Ansel et al. 2024, "PyTorch 2", ASPLOS).  Per logit: ``e`` (logits) ``+ e``
(their gradient), or ``e + e / 8`` chunked (one chunk's gradient at a time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from slotwise.engine.model.params import (
    FOUR_NORM_MODEL_TYPES,
    adapted_weight_elements,
    expert_intermediate,
    head_dim,
    is_attention,
    is_mla,
    layer_split,
    mixer_types,
    mlp_types,
    shared_expert_intermediate,
)
from slotwise.engine.workload import Workload
from slotwise.parts.schema import ModelPreset

#: Bytes of the fp32 copy an RMSNorm keeps per element.
NORM_FP32_BYTES = 4.0
#: Bytes per element of a dropout mask (torch.bool).
DROPOUT_MASK_BYTES = 1.0
#: Gradients of ``i``-wide SwiGLU intermediates alive at once during one layer's backward.
BACKWARD_WIDE_GRADS = 3
#: The same for a two-matrix MLP: the gradients of the fc2 input and of the fc1 output.
TWO_MATRIX_WIDE_GRADS = 2
#: fp32 buffers of the cross-entropy per logit: log-softmax saved + two gradients in backward.
LOSS_FP32_BYTES = 12.0
#: torchtune ``CEWithChunkedOutputLoss.num_output_chunks``.
LOSS_CHUNKS = 8
#: tokens x vocab tensors alive at once when the cross-entropy runs in 16 bits (``full-16bit``).
LOSS_16BIT_COPIES = 3
#: Eager attention: bytes of the fp32 softmax output saved per score element (its 16-bit cast,
#: ``e`` more, is saved too) and of the fp32 gradient the softmax backward holds.
EAGER_SOFTMAX_FP32_BYTES = 4.0


#: A layer's shape: (token mixer, FFN) = ("attention" | "ssm" | "none", "dense" | "moe" | "none").
LayerKind = tuple[str, str]


@dataclass(frozen=True)
class LayerDims:
    """The widths that decide a decoder layer's saved activations.

    ``kinds`` lists each distinct (mixer, FFN) layer shape with how many layers have it; a
    Llama-style model has one kind, ``(("attention", "dense"), n)``.
    """

    hidden: int
    q_dim: int
    k_dim: int
    v_dim: int
    o_dim: int
    dense_inter: int  # SwiGLU width of a dense layer
    moe_inter: int  # summed SwiGLU width a token visits in a MoE layer (routed top-k + shared)
    moe_topk: int
    norms: int  # norms of a layer that has both a mixer and an FFN
    kinds: tuple[tuple[LayerKind, int], ...] = ()
    ssm_saved: int = 0  # elements per token a Mamba mixer saves for its backward
    ssm_proj: int = 0  # width of a Mamba mixer's in_proj output
    mlp_gated: bool = True  # SwiGLU-style (gate, up, down) vs two-matrix (fc1, act, fc2)
    layer_norm: bool = False  # LayerNorm (saves its e-byte input) vs RMSNorm (fp32 copy)

    @property
    def max_inter(self) -> int:
        return max(self.dense_inter, self.moe_inter)

    @property
    def attention_layers(self) -> int:
        return sum(n for (mixer, _), n in self.kinds if mixer == "attention")

    def inter(self, mlp: str) -> int:
        return {"dense": self.dense_inter, "moe": self.moe_inter}.get(mlp, 0)

    def norms_of(self, kind: LayerKind) -> int:
        parts = sum(1 for part in kind if part != "none")
        return self.norms if parts == 2 else parts


def layer_kinds(arch: ModelPreset) -> tuple[tuple[LayerKind, int], ...]:
    """Each distinct (mixer, FFN) layer shape and its layer count, in first-seen order."""
    if arch.layer_types is None and arch.mlp_layer_types is None:  # every estimate keystroke
        dense, moe = layer_split(arch)
        n = arch.num_hidden_layers
        if not dense and not moe:
            return ((("attention", "none"), n),)
        return tuple(
            (k, c) for k, c in ((("attention", "dense"), dense), (("attention", "moe"), moe)) if c
        )
    counts: dict[LayerKind, int] = {}
    for mixer, mlp in zip(mixer_types(arch), mlp_types(arch), strict=True):
        recurrent = mixer.startswith("mamba") or mixer == "linear_attention"
        m = "attention" if is_attention(mixer) else ("ssm" if recurrent else "none")
        counts[(m, mlp)] = counts.get((m, mlp), 0) + 1
    return tuple(counts.items())


def _ssm_widths(arch: ModelPreset) -> tuple[int, int]:
    """(elements a Mamba mixer saves per token, its in_proj output width); see the docstring."""
    la = arch.linear_attention
    if la is not None:
        # Gated DeltaNet (Qwen3-Next / Qwen3.5), by analogy with the Mamba-2 rule (not measured):
        # the projections' outputs (q, k, v, z, b, a), the conv output over q/k/v, and the
        # delta rule's output and its gated norm.
        proj = 2 * la.key_dim + 2 * la.value_dim + 2 * la.value_heads
        return proj + (2 * la.key_dim + la.value_dim) + 2 * la.value_dim, proj
    s = arch.ssm
    if s is None:
        return 0, 0
    d, n = s.d_inner, s.state_size
    if s.version == 1:
        proj = 2 * d
        return proj + (s.dt_rank + 2 * n) + 2 * n + d, proj
    proj = 2 * d + 2 * s.n_groups * n + s.n_heads
    return proj + d, proj


def layer_dims(arch: ModelPreset) -> LayerDims:
    """Widths as the HF modeling code materializes them (MLA: k and v after up-projection)."""
    h = arch.hidden_size
    nh = arch.num_attention_heads
    if is_mla(arch):
        qk = (arch.qk_nope_head_dim or 0) + (arch.qk_rope_head_dim or 0)
        v = arch.v_head_dim or head_dim(arch)
        q_dim, k_dim, v_dim, o_dim = nh * qk, nh * qk, nh * v, nh * v
    else:
        hd = head_dim(arch)
        o_dim = nh * hd
        q_dim = o_dim * (2 if arch.attention_output_gate else 1)  # Qwen3-Next: query and gate
        k_dim = v_dim = arch.num_key_value_heads * hd
    dense, moe = layer_split(arch)
    moe_inter = 0
    topk = 0
    if moe:
        topk = min(arch.num_experts_per_tok or 1, arch.num_experts or 1)
        moe_inter = expert_intermediate(arch) * topk + shared_expert_intermediate(arch)
    norms = 4 if arch.model_type in FOUR_NORM_MODEL_TYPES else (arch.norms_per_layer or 2)
    ssm_saved, ssm_proj = _ssm_widths(arch)
    return LayerDims(
        hidden=h,
        q_dim=q_dim,
        k_dim=k_dim,
        v_dim=v_dim,
        o_dim=o_dim,
        dense_inter=arch.intermediate_size if dense else 0,
        moe_inter=moe_inter,
        moe_topk=topk,
        norms=norms,
        kinds=layer_kinds(arch),
        ssm_saved=ssm_saved,
        ssm_proj=ssm_proj,
        mlp_gated=arch.mlp_gated,
        layer_norm=arch.norm_bias,
    )


def lora_copy_bytes(workload: Workload, e: float) -> float:
    """Bytes per element of the input copy each adapted module keeps for itself (PEFT's cast to
    fp32 adapters, see the module docstring); 0 = the adapters share the base layer's input."""
    cast = workload.lora_input_cast or "none"
    if workload.adapter_dtype == "compute":
        cast = "none"  # adapters in the base's dtype take its input as it is: no cast copy
    if workload.method not in ("lora", "qlora") or cast == "none":
        return 0.0
    if cast == "fp32":
        return 0.0 if workload.precision == "fp32" else 4.0  # an fp32 input is not cast
    return e  # autocast: a 16-bit copy per call


def _input_saved(workload: Workload) -> set[str]:
    """Linear modules whose input autograd keeps for the base layer or a shared adapter input
    (see module docstring)."""
    every = {"q", "k", "v", "o", "gate", "up", "down"}
    if workload.method in ("full", "pretrain") or workload.nf4_input_kept:
        return every
    if (
        workload.method in ("lora", "qlora")
        and not lora_copy_bytes(workload, 2.0)
        and not workload.lora_dropout_on
    ):
        return set(workload.lora_targets)  # lora_A's matmul keeps the input itself
    return set()  # frozen 16-bit weights: the adapters keep their own copies instead


def _lora_adapter_bytes(workload: Workload, e: float, shapes: dict[str, tuple[int, int]]) -> float:
    """What the adapters keep besides a shared input, for each adapted module present
    (``shapes``: module -> (in_features, out_features)): with a per-module cast (PEFT fp32
    adapters) its own copy of the input (the dropped one when dropout is on, plus the mask) and
    its rank-r output; otherwise the dropout's dropped input and mask (none when the dropout is
    0: an ``nn.Identity``); with DoRA also the base and adapter outputs (module docstring)."""
    if workload.method not in ("lora", "qlora"):
        return 0.0
    targets = set(workload.lora_targets)
    if workload.fused_qkv and targets & {"q", "k", "v"}:
        targets = (targets - {"k", "v"}) | {"q"}  # one adapter, one dropout for q, k and v
    present = [t for t in targets if t in shapes]
    mask = DROPOUT_MASK_BYTES if workload.lora_dropout_on else 0.0
    copy = lora_copy_bytes(workload, e)
    b = 0.0
    if copy:
        b += sum((copy + mask) * shapes[t][0] + copy * workload.lora_rank for t in present)
    elif workload.lora_dropout_on:
        b += sum((e + DROPOUT_MASK_BYTES) * shapes[t][0] for t in present)
    if workload.dora:  # per adapted module (litgpt's fused qkv has no DoRA)
        modules = [t for t in set(workload.lora_targets) if t in shapes]
        adapter_b = copy or e
        base_b = adapter_b if workload.lora_dropout_on else e
        b += sum((base_b + adapter_b) * shapes[t][1] for t in modules)
    return b


def dora_weight_copy_bytes(arch: ModelPreset, workload: Workload, e: float) -> float:
    """DoRA with dropout on: the cast (or dequantized) copy of each adapted weight that
    ``F.linear`` keeps, for every layer, or for the one layer being recomputed."""
    if not workload.dora or workload.method not in ("lora", "qlora"):
        return 0.0
    if not workload.lora_dropout_on:
        return 0.0
    per_element = lora_copy_bytes(workload, e) or (e if workload.method == "qlora" else 0.0)
    total = adapted_weight_elements(arch, workload.lora_targets) * per_element
    if workload.checkpointing:
        total /= max(1, arch.num_hidden_layers)
    return total


def _attention_bytes(dims: LayerDims, workload: Workload, e: float) -> float:
    h = dims.hidden
    saved = _input_saved(workload)
    expanded = workload.expand_kv and dims.k_dim < dims.o_dim
    kv = 2 * dims.o_dim if expanded else dims.k_dim + dims.v_dim
    b = e * (dims.q_dim + kv + dims.o_dim)  # SDPA: q, k, v, out
    if workload.fused_qkv and not expanded:
        b += e * (dims.q_dim + dims.k_dim)  # v is a view of the whole fused qkv output
    if saved & {"q", "k", "v"}:
        b += e * h
    if "o" in saved:
        b += e * dims.o_dim
    shapes = {
        "q": (h, dims.q_dim), "k": (h, dims.k_dim), "v": (h, dims.v_dim), "o": (dims.o_dim, h),
    }  # fmt: skip
    return b + _lora_adapter_bytes(workload, e, shapes)


def _ssm_bytes(dims: LayerDims, workload: Workload, e: float) -> float:
    b = e * dims.ssm_saved
    if _input_saved(workload) >= {"q", "k", "v", "o", "gate", "up", "down"}:
        b += e * dims.hidden  # in_proj input: its weight is trained or 4-bit
    return b


def _ffn_bytes(
    dims: LayerDims, workload: Workload, e: float, mlp: str, wide_e: float | None = None
) -> float:
    if mlp == "none":
        return 0.0
    h = dims.hidden
    inter = dims.inter(mlp)
    saved = _input_saved(workload)
    # SwiGLU keeps gate out, act out and up out; torch.compile (AOTAutograd min-cut
    # rematerialisation, Ansel et al. 2024, "PyTorch 2", ASPLOS) keeps gate and up outputs and
    # recomputes SiLU.  fc1 -> GELU -> fc2: the GELU keeps its input (the fc1 output).
    kept_wide = (2 if workload.compile else 3) if dims.mlp_gated else 1
    b = kept_wide * (wide_e or e) * inter  # fp32 when the 4-bit layers return fp32 (stream)
    if mlp == "moe":
        b += dims.moe_topk * e * h  # token copies dispatched to its experts
    if saved & {"gate", "up"}:
        b += e * h
    if "down" in saved:
        b += e * inter
    adapted = (
        {"gate": (h, inter), "up": (h, inter), "down": (inter, h)}
        if dims.mlp_gated
        else {"up": (h, inter), "down": (inter, h)}
    )
    return b + _lora_adapter_bytes(workload, e, adapted)


def kind_bytes_per_token(
    dims: LayerDims, workload: Workload, e: float, kind: LayerKind, stream: float | None = None
) -> float:
    """Bytes one layer of shape ``kind`` keeps per token for its backward, no recompute;
    ``stream``: bytes of the residual stream's elements when they are not ``e`` (QLoRA's fp32
    stream, :func:`training_activation_bytes`)."""
    mixer, mlp = kind
    # torch.compile: a fused RMSNorm keeps its e-byte input, not an fp32 copy; torchtune's
    # optimisation table (tests/evidence) shows the drop: 60.0 -> 51.0 GiB for Llama 3.2 3B at
    # 8k tokens.
    norm_b = e if workload.compile or dims.layer_norm else NORM_FP32_BYTES
    b = dims.norms_of(kind) * norm_b * dims.hidden
    if mixer == "attention":
        b += _attention_bytes(dims, workload, e)
    elif mixer == "ssm":
        b += _ssm_bytes(dims, workload, e)
    return b + _ffn_bytes(dims, workload, e, mlp, stream)


def layer_bytes_per_token(
    dims: LayerDims, workload: Workload, e: float, *, moe_layer: bool = False
) -> float:
    """Bytes one attention + (dense or MoE) FFN layer keeps per token, no recompute."""
    return kind_bytes_per_token(dims, workload, e, ("attention", "moe" if moe_layer else "dense"))


def selective_kept_bytes_per_token(
    dims: LayerDims, e: float, *, moe_layer: bool = False, kind: LayerKind | None = None
) -> float:
    """What a layer keeps under torchtitan's per-op selective activation checkpointing.

    torchtitan ``distributed/activation_checkpoint.py`` (``_get_custom_policy``): every op of the
    save list is kept (the SDPA output and its log-sum-exp) except every second matmul, and
    everything else is recomputed.  A Llama layer runs seven matmuls in the order wq, wk, wv,
    wo, w1, w3, w2, so the odd ones are kept: q, v, w1 (gate) and w2 (down) outputs, besides
    the layer's input that the checkpoint itself keeps.  Megatron's selective recompute
    (Korthikanti et al. 2022, section 5) keeps the same kind of set: the matmul outputs, not
    the attention internals.  A Mamba mixer's first matmul is ``in_proj``, whose output is kept
    (our extension of the same rule; torchtitan has no Mamba policy).
    """
    mixer, mlp = kind or ("attention", "moe" if moe_layer else "dense")
    b = dims.hidden  # the checkpointed layer input
    if mixer == "attention":
        b += dims.q_dim + dims.v_dim + dims.o_dim
    elif mixer == "ssm":
        b += dims.ssm_proj
    if mlp != "none":
        b += dims.inter(mlp) + dims.hidden
    return e * b


def kept_across_layers_bytes_per_token(
    dims: LayerDims,
    workload: Workload,
    e: float,
    *,
    per_kind: dict[LayerKind, float],
    stream: float | None = None,
) -> float:
    """Bytes per token every layer keeps until its backward (checkpoint inputs or everything).

    ``per_kind`` = what one layer of each shape keeps without recompute.
    """
    layers = sum(n for _, n in dims.kinds)
    if workload.checkpointing and workload.selective_checkpointing:
        return sum(n * selective_kept_bytes_per_token(dims, e, kind=k) for k, n in dims.kinds)
    if workload.checkpointing:
        return layers * (stream or e) * dims.hidden
    return sum(n * per_kind[k] for k, n in dims.kinds)


def training_activation_bytes(
    arch: ModelPreset, workload: Workload, e: float, tp: int, *, stream: float | None = None
) -> float:
    """Saved activations of one micro-batch on one GPU (tensor/sequence parallel divides by tp).

    Tensor parallelism with sequence parallelism (Korthikanti et al. 2022, section 4.2.2) splits
    every saved activation across the ``tp`` ranks.  Padded batches peak at the longest sample
    (``Workload.peak_seq_len``).

    Activation offloading (torchtune ``OffloadActivations``, used with activation
    checkpointing): every tensor saved for the backward is copied to pinned CPU memory as it is
    saved and brought back just before its layer's backward, one layer ahead; so only the layer
    being recomputed and the one being fetched are on the GPU.
    """
    dims = layer_dims(arch)
    layers = max(1, sum(n for _, n in dims.kinds))
    tokens = workload.peak_seq_len * workload.micro_batch
    per_kind = {k: kind_bytes_per_token(dims, workload, e, k, stream) for k, _ in dims.kinds}
    kept = kept_across_layers_bytes_per_token(dims, workload, e, per_kind=per_kind, stream=stream)
    if workload.activation_offload:
        kept = min(kept, 2 * kept / layers)
    per_token = kept
    if workload.checkpointing:
        per_token += max(per_kind.values(), default=0.0)  # the layer being recomputed
    working = backward_working_bytes_per_token(dims, stream or e)
    if workload.keeps_previous_graph and workload.nf4_input_kept and not workload.checkpointing:
        # The previous step's 4-bit inputs are alive until this step's forward and loss are
        # done, i.e. at the end of the forward, in place of the backward's working set.
        working = max(working, nf4_inputs_bytes_per_token(dims, workload, e))
    per_token += working
    return (tokens * per_token + dora_weight_copy_bytes(arch, workload, e)) / tp


def eager_attention_bytes(arch: ModelPreset, workload: Workload, e: float, tp: int) -> float:
    """The ``heads x s x s`` probabilities eager attention saves (module docstring), on one GPU:
    ``4 + e`` bytes per element for every attention layer (for the one being recomputed under
    activation checkpointing) and 4 more for the layer whose backward runs.  0 for fused
    attention (SDPA / FlashAttention) and for inference.  Tensor parallelism splits the heads."""
    if workload.attention != "eager" or not workload.training:
        return 0.0
    dims = layer_dims(arch)
    layers = sum(n for (mixer, _), n in dims.kinds if mixer == "attention")
    if not layers:
        return 0.0
    s = workload.peak_seq_len
    elements = workload.micro_batch * arch.num_attention_heads * s * s
    kept = 1 if workload.checkpointing else layers
    saved = EAGER_SOFTMAX_FP32_BYTES + e
    return elements * (kept * saved + EAGER_SOFTMAX_FP32_BYTES) / tp


def nf4_inputs_bytes_per_token(dims: LayerDims, workload: Workload, e: float) -> float:
    """Every 4-bit matmul input of one forward (``nf4_keeps_input``), per token: q/k/v's shared
    input and o's per attention layer, gate/up's and down's per FFN, a Mamba ``in_proj``'s, and
    the LM head's under Lightning Fabric (``fabric_bnb``: the head is 4-bit too)."""
    total = 0.0
    for (mixer, mlp), n in dims.kinds:
        width = {"attention": dims.hidden + dims.o_dim, "ssm": dims.hidden}.get(mixer, 0)
        if mlp != "none":
            width += dims.hidden + dims.inter(mlp)
        total += n * e * width
    return total + (e * dims.hidden if workload.fabric_bnb else 0.0)


def backward_working_bytes_per_token(dims: LayerDims, e: float) -> float:
    """Gradients alive while one layer's backward runs (see the module docstring): three
    FFN-wide ones for a SwiGLU, or a Mamba mixer's saved widths."""
    ssm = e * dims.ssm_saved if any(m == "ssm" for (m, _), _ in dims.kinds) else 0.0
    wide = BACKWARD_WIDE_GRADS if dims.mlp_gated else TWO_MATRIX_WIDE_GRADS
    return max(wide * e * dims.max_inter, ssm)


def loss_bytes_per_logit(workload: Workload, e: float) -> float:
    """Bytes per token per vocabulary entry of logits + loss buffers at the training peak.

    ``fused``: a fused linear cross-entropy (Liger's ``LigerFusedLinearCrossEntropyLoss``,
    Hsu et al. 2024, arXiv:2410.10989, section 3.3; Apple's Cut Cross-Entropy, Wijmans et al.
    2024, arXiv:2411.09009) computes the output projection, the loss and its gradient chunk by
    chunk and never materializes the tokens x vocab logits: one chunk's fp32 logits and their
    gradient at a time (counted as the chunked loss's fp32 share, no 16-bit logits kept).
    """
    if workload.loss == "fused":
        return e + LOSS_FP32_BYTES  # per logit of the one chunk alive (fused_loss_tokens)
    if workload.loss_compiled:
        grad = e / LOSS_CHUNKS if workload.loss == "chunked" else e
        return e + grad
    if workload.loss == "chunked":
        return e + LOSS_FP32_BYTES / LOSS_CHUNKS
    if workload.loss == "full-16bit":
        return LOSS_16BIT_COPIES * e
    return e + LOSS_FP32_BYTES


def logits_bytes(arch: ModelPreset, workload: Workload, e: float, tp: int) -> float:
    """Logits + fp32 loss buffers for training; the last position's fp32 logits for inference."""
    if not workload.training:
        return workload.micro_batch * arch.vocab_size * 4.0 / tp
    tokens: float = workload.peak_seq_len * workload.micro_batch
    if workload.loss == "fused":
        tokens = fused_loss_tokens(arch, int(tokens))
    return tokens * arch.vocab_size * loss_bytes_per_logit(workload, e) / tp


#: Tokens per chunk of TRL's ``chunked_nll`` loss (trl/trainer/sft_trainer.py
#: ``_CHUNKED_LM_HEAD_CHUNK_SIZE = 256``, 2026: each chunk's logits live only during its own
#: checkpointed forward/backward).
FUSED_LOSS_CHUNK_TOKENS = 256


def fused_loss_tokens(arch: ModelPreset, tokens: int) -> float:
    """Tokens whose logits a fused linear cross-entropy holds at once: TRL's 256-token chunk,
    or Liger's ``chunk_size = BT / ceil(V / H)`` (liger_kernel/ops/fused_linear_cross_entropy.py:
    a chunk's logits are about as large as the hidden states), whichever is larger."""
    liger = tokens / max(1.0, math.ceil(arch.vocab_size / max(1, arch.hidden_size)))
    return min(float(tokens), max(float(FUSED_LOSS_CHUNK_TOKENS), liger))


def inference_activation_bytes(arch: ModelPreset, e: float, tp: int, *, tokens: int) -> float:
    """Transient working set of one layer during a forward pass over ``tokens`` tokens (the
    prompt batch in the prefill, one token per sequence in a decode step; which moment is the
    peak: :mod:`engine.estimate.generation`).

    Inference keeps nothing for a backward pass; the peak is the largest layer's temporaries
    while the tokens are processed: residual + normed hidden state (2 e h), then the mixer's
    projections (attention: q/k/v, e (q+k+v); Mamba: the ``in_proj`` output and the scan output)
    and the FFN's gate, up and product (3 e i).
    """
    dims = layer_dims(arch)
    widest = 0.0
    for (mixer, mlp), _ in dims.kinds:
        width = 2 * dims.hidden + 3 * dims.inter(mlp)
        if mixer == "attention":
            width += dims.q_dim + dims.k_dim + dims.v_dim
        elif mixer == "ssm":
            width += dims.ssm_saved  # in_proj output and scan output (and x_dbl)
        widest = max(widest, width)
    return tokens * e * widest / tp
