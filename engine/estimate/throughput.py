"""Training step time: compute, memory-bound work, communication and fixed costs.

MFU is defined on *model* FLOPs as in the PaLM paper (Chowdhery et al. 2022, arXiv:2204.02311,
appendix B): ``MFU = model FLOPs per token x tokens/s / (GPUs x dense peak)``, where model FLOPs
are 6N per trained token plus the attention term (:mod:`engine.estimate.compute`).  Activation
recompute is a *hardware* FLOP (it raises HFU, not MFU) and its time is charged:
full recompute re-runs every layer's forward (2N and the forward attention), selective recompute
the attention core only.  Attention time counts the causal half of the scores (FlashAttention
skips masked blocks); MFU still counts them whole (PaLM convention).  FP8 adds the casts of
every GEMM input and output gradient to the memory-bound time as Transformer Engine runs them
(:func:`fp8_cast_bytes`).  ``--global-batch`` sets the
micro-batches per step from the data-parallel size (:func:`grad_accum_steps`).

A micro-batch on one GPU takes::

    t_gemm  = tokens/tp x (F_linear / G_prec + F_attention / A) / (peak_bf16 x E)
    t_mem   = tokens/tp x C_ACT x layers x hidden / HBM bandwidth          (norms, activations,
                                                                            residuals, softmax)
    t_micro = max(t_gemm, weight bytes read / bandwidth) + t_mem
              + exposed tensor-parallel all-reduces + per-layer launch overhead + QLoRA dequant

and an optimizer step over ``grad_accum`` micro-batches::

    t_step = grad_accum x t_micro + exposed data-parallel / FSDP traffic
             + optimizer update (bytes of weights, gradients and optimizer state / bandwidth)
             + fixed per-step cost

divided by the multi-node efficiency ``(1 - SCALE_LOSS) ** log2(servers)``.

The default MFU per GPU class, precision and method is :func:`long_step_mfu` (a 7B Llama at
4,096 tokens, long steps, no communication; the estimate's notes print the figure for the actual
model); the published runs it is checked against are in tests/evidence/perf_cases.py (the
per-GPU table and the refit's bounds: docs/evidence.md).  LoRA's MFU is lower because the
attention share of LoRA's 4N model FLOPs is larger.  The host (CPU) launches every kernel and
runs ahead of the GPU, so a micro-batch takes the longer of the two: an eager fine-tuning stack
pays HOST_LAYER_FORWARD_S_EAGER per layer and forward-pass equivalent (:func:`host_layer_s`),
which only short micro-batches feel.  E (GEMM
efficiency) and C_ACT (memory-bound bytes) together give each GPU its MFU: a GPU with more FLOPs
per byte of bandwidth spends a larger share of the step in memory-bound work.  The fit puts that
share low for large-batch training (a few per cent of the step), so H200 trains only a few per
cent faster than H100 on long compute-bound steps and more where bandwidth binds (small
micro-batches, QLoRA dequantisation, the optimizer update).

FP8 only speeds up the FP8 linears: their FLOPs run ``FP8_GEMM_SPEEDUP`` = 2 times faster, the
physical ceiling (the FP8 tensor-core peak is twice BF16; :func:`fp8_linear_speedup` scales it
by the GPU's own FP8 / BF16 ratio), where the refit ends on its bound (docs/evidence.md).  What
FP8 costs is not a lower GEMM share but its quantisation casts, priced as memory traffic
(:func:`fp8_cast_bytes`); attention and memory-bound work stay BF16 -- about 1.3x end to end,
as MosaicML's H100 FP8 table (1.27x on MPT-3B) and torchtitan's Float8 rows (1.28-1.48x)
measure.

QLoRA dequantises every NF4 weight before each matmul pass (forward, backward, and the recompute
forward): a fixed cost per micro-batch, ``QLORA_DEQUANT_BYTES`` of memory traffic per base weight
per pass, so its share falls as tokens per micro-batch grow (Qwen's table: +150 % at 256 tokens,
+5 % at 8192 for Qwen-7B).

The fitted constants (E, A, G, C_ACT, overheads, SCALE_LOSS, QLORA_DEQUANT_BYTES) were fitted by
``bench/fit_perf.py`` on the *fitting* half of ``tests/evidence/perf_cases.py`` only (the split
rule is in that module); ``bench/perf_accuracy.py`` scores them on both halves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from slotwise.engine.estimate.activations import layer_dims
from slotwise.engine.estimate.communication import (
    allreduce_seconds,
    dp_layout,
    gather_seconds,
    tp_layout,
)
from slotwise.engine.estimate.constants import MASTER_WEIGHT_BYTES, OPTIMIZER_STATE_BYTES_FP32
from slotwise.engine.estimate.links import Links
from slotwise.engine.estimate.serving_constants import HOST_LAYER_FORWARD_S_EAGER
from slotwise.engine.model.params import ParamCounts, lora_params
from slotwise.engine.workload import Workload
from slotwise.parts.schema import Gpu, ModelPreset

# ----------------------------------------------------------------------------- fitted constants
#: GEMM efficiency: share of the dense BF16 peak a large linear layer reaches in training.
GEMM_EFFICIENCY = 0.652
#: Attention kernels (FlashAttention forward + backward) relative to the linears' efficiency,
#: on Ampere/Ada and on Hopper/Blackwell.  FlashAttention-2 reaches 50-73 % of the A100's peak
#: (Dao 2023, arXiv:2307.08691) but only ~35 % of the H100's, since it does not use Hopper's
#: WGMMA/TMA instructions (Shah et al. 2024, FlashAttention-3, arXiv:2407.08608, section 1).
ATTENTION_EFFICIENCY = 0.703
ATTENTION_EFFICIENCY_HOPPER = 0.298
#: A Hopper-native attention kernel (Transformer Engine's cuDNN fused attention,
#: FlashAttention-3) over FlashAttention-2, which the fitting sources ran.  Not fitted: the
#: FlashAttention-3 paper's backward benchmark (Shah et al. 2024, arXiv:2407.08608, figure
#: "Attention backward speed, head dim 128", H100 SXM5): cuDNN 465 / 499 / 518 / 516 TFLOPs/s
#: against FlashAttention-2's 291 / 310 / 318 / 322 at 2k / 4k / 8k / 16k tokens, 1.60-1.63x
#: (FlashAttention-3 1.72-1.76x); the backward is most of training's attention time.  Measured
#: on H100; Blackwell is assumed the same.
CUDNN_ATTENTION_SPEEDUP = 1.6
#: FP8 linear-layer speed-up over BF16 on the same GPU.
FP8_GEMM_SPEEDUP = 2.0
#: Memory-bound traffic per token, in bytes per (layer x hidden unit): norms, residual adds,
#: activation functions, rotary embeddings, dropout, in forward and backward.
C_ACT_BYTES = 516.0
#: Host-side time per layer per micro-batch (seconds) of pre-training stacks and compiled
#: models (Megatron, NeMo, torchtitan, llm-foundry; any ``compile``: fused kernels, CUDA graphs,
#: torch.compile).  The host runs ahead of the GPU, so a micro-batch takes the longer of the
#: two, not their sum.  Fitted (bench/fit_perf.py).
LAYER_OVERHEAD_PRETRAIN_S = 0.000809
#: Host work of a backward pass in forward-pass equivalents: autograd launches about two
#: kernels per forward kernel (the input and the weight gradient of every GEMM, the gradient of
#: each pointwise op), the same 2:1 ratio as the backward's FLOPs (Kaplan et al. 2020,
#: arXiv:2001.08361, section 2.1).  Assumed.
HOST_BACKWARD_PASSES = 2.0
#: Fixed cost per optimizer step (seconds): gradient clipping, LR schedule, logging, data loader.
STEP_FIXED_S = 0.001
#: NF4 dequantisation traffic per base weight per matmul pass (bytes), see module docstring.
#: Not fitted since issue 24 (no QLoRA run among the fitting sources; its history:
#: docs/evidence.md).  The physical floor is ~2.5 B (read the 4-bit weight, write it in 16 bits:
#: bitsandbytes ``dequantize_4bit`` before each 16-bit GEMM, forward and backward); Qwen's rows
#: imply ~12-25 B at the A100's bandwidth.
QLORA_DEQUANT_BYTES = 68.0
#: Efficiency lost per doubling of the server count (straggler, jitter, exposed collectives the
#: byte count does not capture).  Megatron-LM README (strong scaling GPT-3 175B from 96 to 4,608
#: H100: MFU 47 % -> 42 %, 5.6 doublings) and MosaicML's 128 -> 512 H100 rows (-2 to -4 % per
#: doubling).
SCALE_LOSS = 0.0

# ----------------------------------------------------------------------------- assumptions
#: Share of data-parallel / FSDP traffic hidden behind compute (PyTorch DDP gradient buckets,
#: FSDP prefetch, Megatron --overlap-grad-reduce / --overlap-param-gather); the rest is exposed.
DP_OVERLAP = 0.9
#: Share of tensor-parallel all-reduce time hidden behind compute when the trainer profile does
#: not say (Megatron/NeMo overlap TP communication with GEMMs; plain PyTorch TP does not, and
#: the torchtitan profile says 0).  Assumed half.
TP_OVERLAP = 0.5
#: Share of the (PaLM-convention, full-square) attention FLOPs a causal kernel computes.
CAUSAL_ATTENTION_SHARE = 0.5
#: Bytes per element of an FP8 cast-transpose (Transformer Engine ``cast_transpose``): read the
#: bf16 value (2), write FP8 (1) and its transposed copy for the other GEMM that uses it (1).
FP8_CAST_BYTES = 4.0
#: Bytes per element of a plain cast (no transposed copy: a frozen weight has no weight-gradient
#: GEMM to feed): read 2, write 1.
FP8_CAST_ONLY_BYTES = 3.0
#: Bytes per element of an FP8 transpose of a tensor already written in FP8 by a fused kernel:
#: read 1, write 1.
FP8_TRANSPOSE_BYTES = 2.0
#: Host memory traffic of one CPU Adam update per weight (DeepSpeed CPUAdam over fp32 state):
#: read weight, gradient, m and v (16 B), write weight, m and v (12 B) and the 16-bit copy
#: sent back (2 B).
HOST_ADAM_BYTES = 30.0
#: Host memory bandwidth one GPU's CPU Adam gets: a socket of 8 DDR5-4800 channels gives
#: 8 x 4.8 GT/s x 8 B = 307 GB/s (JEDEC DDR5), STREAM-like streaming reaches ~60 % of it, shared
#: by the 4 GPUs under that socket in an 8-GPU, 2-socket server: ~46 GB/s.  Assumed (no build
#: CPU is known to the estimate), not fitted.
HOST_MEMORY_GBS_PER_GPU = 307.0 * 0.6 / 4
#: Gradient bucket of PyTorch DDP (``bucket_cap_mb=25``, torch.nn.parallel.DistributedDataParallel
#: default): one all-reduce call per bucket.
DDP_BUCKET_BYTES = 25 * 2**20
#: Weight passes per micro-batch: forward, activation-gradient and weight-gradient matmuls.
WEIGHT_PASSES_FULL = 3
WEIGHT_PASSES_FROZEN = 2


@dataclass(frozen=True)
class StepTime:
    """One optimizer step on one GPU, and what it is made of (seconds)."""

    tokens_per_gpu: float
    compute_s: float
    memory_s: float
    tp_comm_s: float
    dp_comm_s: float
    dp_exposed_s: float
    overhead_s: float
    dequant_s: float
    optimizer_s: float
    scale_efficiency: float
    total_s: float

    @property
    def tokens_per_s_per_gpu(self) -> float:
        return self.tokens_per_gpu / self.total_s if self.total_s > 0 else 0.0

    def breakdown(self) -> dict[str, float]:
        return {
            "compute_s": self.compute_s,
            "memory_s": self.memory_s,
            "tp_comm_s": self.tp_comm_s,
            "dp_comm_exposed_s": self.dp_exposed_s,
            "overhead_s": self.overhead_s,
            "qlora_dequant_s": self.dequant_s,
            "optimizer_s": self.optimizer_s,
            "step_s": self.total_s,
        }


def bf16_peak(gpu: Gpu, precision: str) -> float | None:
    """FLOP/s the GEMM efficiency applies to: the BF16 dense peak (FP32 peak for fp32 runs).
    FP8 runs use the BF16 peak times FP8_GEMM_SPEEDUP for the linears."""
    if precision == "fp32":
        return gpu.fp32_tflops * 1e12 if gpu.fp32_tflops else None
    return gpu.bf16_tflops_dense * 1e12 if gpu.bf16_tflops_dense else None


_HOPPER_OR_NEWER = (
    "H100",
    "H200",
    "H800",
    "H20",
    "GH200",
    "B100",
    "B200",
    "B300",
    "GB200",
    "GB300",
)


def attention_efficiency(gpu: Gpu, workload: Workload | None = None) -> float:
    """ATTENTION_EFFICIENCY_HOPPER for Hopper / Blackwell GPUs (named in the SKU), times
    CUDNN_ATTENTION_SPEEDUP where the trainer runs a Hopper-native kernel (profile field
    ``attention_kernel`` "cudnn"); else ATTENTION_EFFICIENCY."""
    sku = gpu.sku.upper()
    if any(tag in sku for tag in _HOPPER_OR_NEWER):
        native = workload is not None and workload.attention_kernel == "cudnn"
        return ATTENTION_EFFICIENCY_HOPPER * (CUDNN_ATTENTION_SPEEDUP if native else 1.0)
    return ATTENTION_EFFICIENCY


def fp8_linear_speedup(gpu: Gpu, precision: str) -> float:
    """How much faster the linears run in FP8: FP8_GEMM_SPEEDUP scaled by the GPU's own FP8 /
    BF16 peak ratio over the usual 2 (1 when the GPU has no FP8 tensor cores, e.g. A100)."""
    if precision != "fp8" or not gpu.fp8_tflops_dense or not gpu.bf16_tflops_dense:
        return 1.0
    return FP8_GEMM_SPEEDUP * (gpu.fp8_tflops_dense / gpu.bf16_tflops_dense) / 2.0


def fp8_cast_bytes(arch: ModelPreset, frozen: bool = False) -> float:
    """Extra memory traffic of FP8 training per token per layer (bytes), as Transformer Engine
    runs a decoder layer (``LayerNormLinear`` for q/k/v, ``Linear`` for the attention output,
    ``LayerNormMLP`` for the MLP; TE docs "Using FP8 with Transformer Engine" and
    transformer_engine/pytorch/module/*.py):

    * forward: the inputs of q/k/v and of gate/up come out of the LayerNorm kernel already in
      FP8, and the input of down out of the activation kernel (casts fused, no extra read); only
      the attention output is cast on its own (``cast_transpose``).  Each FP8 input is also
      needed transposed by its weight-gradient GEMM (Hopper FP8 GEMMs take TN layouts only):
      a transpose of the fused ones, the cast-transpose of the attention output;
    * backward: the gradient arriving at each GEMM's output (q/k/v, o, gate/up, down) is
      cast and transposed once (``fp8_cast_transpose_fused``), then used by both the data- and
      the weight-gradient GEMM: two casts per step, not three.

    Frozen weights (LoRA / QLoRA base) have no weight-gradient GEMM: no transposed copies."""
    d = layer_dims(arch)
    h = d.hidden
    inter = (d.dense_inter or d.moe_inter) or 4 * h
    qkv_out = d.q_dim + d.k_dim + d.v_dim
    gate_up = 2 * inter  # gated MLP: gate and up projections side by side
    grads = qkv_out + h + gate_up + h
    if frozen:
        return FP8_CAST_ONLY_BYTES * (d.o_dim + grads)
    fused_inputs = 2 * h + inter  # q/k/v input, gate/up input, down input
    return FP8_CAST_BYTES * (d.o_dim + grads) + FP8_TRANSPOSE_BYTES * fused_inputs


def tp_overlap(workload: Workload) -> float:
    """Share of the tensor-parallel all-reduces hidden behind compute: the trainer profile's
    (engine/workload/trainers.toml ``tp_overlap``; 0 for PyTorch's vanilla TP), else
    ``TP_OVERLAP``."""
    return TP_OVERLAP if workload.tp_overlap is None else workload.tp_overlap


def _trainable(arch: ModelPreset, workload: Workload, counts: ParamCounts) -> float:
    if workload.method in ("lora", "qlora"):
        return float(lora_params(arch, workload.lora_targets, workload.lora_rank))
    return float(counts.total)


def _optimizer_bytes_per_param(workload: Workload) -> float:
    """Bytes the optimizer update reads and writes per trainable weight: gradient read, state
    read + write, master copy read + write, weight write (AdamW: 2 + 16 + 8 + 2 = 28)."""
    state = OPTIMIZER_STATE_BYTES_FP32.get(workload.optimizer, 8.0)
    master = MASTER_WEIGHT_BYTES if workload.master_weights is not False else 0.0
    return 2.0 + 2.0 * state + 2.0 * master + 2.0


def grad_accum_steps(workload: Workload, dp: int) -> int:
    """Micro-batches per optimizer step: ``--global-batch`` sequences over ``dp`` replicas of
    ``--micro-batch`` each (strong scaling at a fixed batch, as MLPerf and most pre-training
    runs fix it), else ``--grad-accum``."""
    gb = workload.global_batch
    if not gb:
        return workload.grad_accum
    return max(1, math.ceil(gb / (max(1, dp) * workload.micro_batch)))


def step_time(
    *,
    arch: ModelPreset,
    workload: Workload,
    counts: ParamCounts,
    gpu: Gpu,
    tp: int,
    dp: int,
    parallel: str,
    gpus_per_server: int,
    links: Links,
    linear_flops: float,
    attention_flops: float,
    recompute_linear_flops: float = 0.0,
) -> StepTime | None:
    """Seconds per optimizer step on one GPU (module docstring); None without peak figures.
    ``recompute_linear_flops``: linear FLOPs per token the activation recompute re-runs."""
    peak = bf16_peak(gpu, workload.precision)
    bw = (gpu.memory_bw_gbs or 0.0) * 1e9
    if not peak or not bw:
        return None
    tp = max(1, tp)
    layers = counts.layers
    hidden = arch.hidden_size
    tokens_micro = workload.micro_batch * workload.seq_len
    lin_speed = fp8_linear_speedup(gpu, workload.precision)
    attn_eff = attention_efficiency(gpu, workload)
    frozen = workload.method in ("lora", "qlora")

    # Compute-bound GEMM time, floored by reading the weights once per matmul pass.  Attention
    # runs causal: FlashAttention skips the masked half of the score blocks (Dao 2023,
    # arXiv:2307.08691, section 3.1.1), so the hardware does CAUSAL_ATTENTION_SHARE of the
    # PaLM-convention attention FLOPs MFU counts.  Activation recompute re-runs the forward
    # (full: every layer's linears and attention; selective: the attention core only,
    # Korthikanti et al. 2022, arXiv:2205.05198, section 5).
    attn_hw = attention_flops * CAUSAL_ATTENTION_SHARE
    rec_lin = rec_attn = 0.0
    if workload.checkpointing:
        rec_attn = attn_hw / 3.0  # the forward third of forward + backward
        if not workload.selective_checkpointing:
            rec_lin = recompute_linear_flops
    t_gemm = (
        tokens_micro
        / tp
        * ((linear_flops + rec_lin) / lin_speed + (attn_hw + rec_attn) / attn_eff)
        / (peak * GEMM_EFFICIENCY)
    )
    passes = WEIGHT_PASSES_FROZEN if frozen else WEIGHT_PASSES_FULL
    weight_bytes = 1.0 if workload.precision == "fp8" else 2.0
    if workload.precision == "fp32":
        weight_bytes = 4.0
    t_weights = passes * counts.active * weight_bytes / tp / bw
    t_compute = max(t_gemm, t_weights)
    t_mem = tokens_micro / tp * C_ACT_BYTES * layers * hidden / bw
    if workload.precision == "fp8":
        t_mem += tokens_micro / tp * layers * fp8_cast_bytes(arch, frozen) / bw

    # Tensor-parallel all-reduces of the activations, per layer.
    t_tp = 0.0
    if tp > 1:
        per_server, per_island = tp_layout(tp, gpus_per_server, links)
        act = tokens_micro * hidden * 2.0
        n_ar = 4 + (2 if workload.checkpointing else 0)
        one = allreduce_seconds(
            act, group=tp, per_server=per_server, per_island=per_island, links=links
        )
        t_tp = n_ar * layers * one * (1.0 - tp_overlap(workload))

    t_over = layers * host_layer_s(workload)

    t_deq = 0.0
    if workload.method == "qlora":
        deq_passes = 2 + (1 if workload.checkpointing else 0)
        base = counts.active - counts.embedding
        t_deq = deq_passes * base / tp * QLORA_DEQUANT_BYTES / bw

    t_gpu = t_compute + t_mem + t_tp + t_deq
    t_micro = max(t_gpu, t_over)
    ga = grad_accum_steps(workload, dp)

    # Data-parallel / FSDP traffic.
    trainable = _trainable(arch, workload, counts)
    t_dp = 0.0
    if dp > 1:
        per_server, per_island = dp_layout(tp, dp, gpus_per_server, links)
        grads = trainable * 2.0 / tp

        def gather(n_bytes: float, calls: float) -> float:
            return gather_seconds(
                n_bytes, group=dp, per_server=per_server, per_island=per_island, links=links,
                calls=calls,
            )  # fmt: skip

        if parallel == "zero3":
            # ZeRO-3 / FSDP gather each layer's parameters (forward and backward) and
            # reduce-scatter each layer's gradients: one call per layer and pass.
            params = counts.total * weight_bytes / tp
            t_dp = ga * (2.0 * gather(params, layers) + gather(grads, layers))
        else:
            # DDP / ZeRO-1/2 reduce gradients in buckets (PyTorch DDP bucket_cap_mb = 25).
            buckets = max(1.0, math.ceil(grads / DDP_BUCKET_BYTES))
            t_dp = allreduce_seconds(
                grads, group=dp, per_server=per_server, per_island=per_island, links=links,
                calls=buckets,
            )  # fmt: skip
    busy = ga * (t_compute + t_mem)
    exposed = max(0.0, t_dp - busy) + (1.0 - DP_OVERLAP) * min(t_dp, busy)

    # Optimizer update: memory-bound over this GPU's shard of the trainable weights.
    shard = tp * (dp if parallel in ("zero1", "zero2", "zero3") else 1)
    t_opt = trainable / shard * _optimizer_bytes_per_param(workload) / bw
    if workload.offload != "none":
        # ZeRO-Offload (Ren et al. 2021, arXiv:2101.06840, section 4): 16-bit gradients go to
        # the CPU, the CPU runs Adam over the fp32 state, the updated 16-bit weights come back,
        # and the GPU waits (the delayed-update option is off by default).  CPU Adam is
        # memory-bound on the host: HOST_ADAM_BYTES per weight at this GPU's share of the
        # server's host memory bandwidth; the transfers run at the GPU's PCIe rate.
        t_opt = trainable / shard * HOST_ADAM_BYTES / (HOST_MEMORY_GBS_PER_GPU * 1e9)
        t_opt += trainable / shard * 4.0 / (links.effective_pcie_gbs() * 1e9)

    raw = ga * t_micro + exposed + t_opt + STEP_FIXED_S  # = the breakdown's parts added up
    servers = max(1, math.ceil(tp * dp / max(1, gpus_per_server)))
    eff = (1.0 - SCALE_LOSS) ** math.log2(servers)
    total = raw / eff
    return StepTime(
        tokens_per_gpu=ga * tokens_micro / tp,
        compute_s=ga * t_compute,
        memory_s=ga * t_mem,
        tp_comm_s=ga * t_tp,
        dp_comm_s=t_dp,
        dp_exposed_s=exposed,
        overhead_s=ga * max(0.0, t_over - t_gpu) + STEP_FIXED_S,
        dequant_s=ga * t_deq,
        optimizer_s=t_opt,
        scale_efficiency=eff,
        total_s=total,
    )


def fused_launch(workload: Workload) -> bool:
    """The layers launch as a pre-training stack's do (few fused kernels): pre-training, a
    compiled model, or a fused-kernel trainer (profile field ``host_launch`` "fused")."""
    return (
        workload.method == "pretrain" or bool(workload.compile) or (workload.host_launch == "fused")
    )


def host_layer_s(workload: Workload) -> float:
    """Host (CPU) seconds per decoder layer per micro-batch.  Pre-training stacks, compiled
    models and fused-kernel trainers (profile field ``host_launch`` "fused": NeMo, Megatron):
    the fitted LAYER_OVERHEAD_PRETRAIN_S.  An eager fine-tuning stack (transformers + PEFT,
    DeepSpeed on a Hugging Face model): HOST_LAYER_FORWARD_S_EAGER per forward-pass equivalent:
    the forward, the backward (HOST_BACKWARD_PASSES) and, with activation recompute, the
    recompute forward."""
    if fused_launch(workload):
        return LAYER_OVERHEAD_PRETRAIN_S
    passes = 1.0 + HOST_BACKWARD_PASSES + (1.0 if workload.checkpointing else 0.0)
    return passes * HOST_LAYER_FORWARD_S_EAGER


def long_step_mfu(
    gpu: Gpu,
    precision: str,
    arch: ModelPreset,
    linear: float,
    attn: float,
    quoted_peak: float,
    workload: Workload | None = None,
) -> float | None:
    """MFU (against ``quoted_peak``) of a long step with no communication or fixed costs: the
    per-GPU, per-precision default the assumptions show (with ``workload``'s attention kernel)."""
    peak = bf16_peak(gpu, precision)
    bw = (gpu.memory_bw_gbs or 0.0) * 1e9
    if not peak or not bw or not quoted_peak:
        return None
    lin_speed = fp8_linear_speedup(gpu, precision)
    t = (linear / lin_speed + attn / attention_efficiency(gpu, workload)) / (peak * GEMM_EFFICIENCY)
    t += C_ACT_BYTES * arch.num_hidden_layers * arch.hidden_size / bw
    return (linear + attn) / t / quoted_peak
