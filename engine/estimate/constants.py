"""Constants of the workload model, each with where it comes from.

Nothing here is fitted to the test cases: each figure is a property of a number format, a
library's documented behaviour, or a published utilisation figure, and the docstring or comment
next to it says which.
"""

from __future__ import annotations

GIB = 1024**3

# ----------------------------------------------------------------------------- number formats

#: Bytes per element of weights / activations for each ``--precision`` (IEEE / bfloat16 / OCP
#: FP8 formats: 4, 2, 2 and 1 byte).
BYTES: dict[str, float] = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0}

#: QLoRA NF4 storage: 4 bits per weight, plus block-wise absmax constants.  Dettmers et al. 2023,
#: "QLoRA: Efficient Finetuning of Quantized LLMs" (arXiv:2305.14314) section 3, Double
#: Quantization: blocksize 64 with fp32 constants costs 32/64 = 0.5 bit/param; quantizing the
#: constants to 8 bit in blocks of 256 costs 8/64 + 32/(64*256) = 0.127 bit/param.
NF4_BITS_PER_PARAM = 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)

# ----------------------------------------------------------------------------- optimizer state

#: Optimizer state bytes per *trainable* parameter, excluding the fp32 master copy.
#: AdamW keeps two moments (Loshchilov & Hutter 2019); in fp32 that is 4 + 4 bytes (ZeRO paper,
#: Rajbhandari et al. 2020, arXiv:1910.02054, section 3.1: "K = 12" = 4 master + 4 + 4).
#: bitsandbytes 8-bit AdamW stores each moment in 1 byte plus one fp32 absmax per 2048-value
#: block (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization", arXiv:2110.02861):
#: 2 + 8/2048 bytes.  The paged variant has the same size but lives in CUDA unified memory
#: (``cudaMallocManaged``, bitsandbytes docs "Paged optimizers"): outside PyTorch's allocator,
#: evicted to CPU memory under pressure, so it never decides whether a job fits and does not
#: count in the GPU peak (memory.trainable_state_bytes).  SGD with momentum keeps one buffer.
OPTIMIZER_STATE_BYTES_FP32: dict[str, float] = {
    "adamw": 8.0,
    "adamw-8bit": 2.0 + 8.0 / 2048.0,
    "paged-adamw-8bit": 2.0 + 8.0 / 2048.0,
    "sgd": 4.0,
}

#: fp32 master copy of the weights kept by mixed-precision training (Micikevicius et al. 2018,
#: "Mixed Precision Training", arXiv:1710.03740; ZeRO paper section 3.1).
MASTER_WEIGHT_BYTES = 4.0

# ----------------------------------------------------------------------------- runtime overhead

#: CUDA context + cuBLAS/cuDNN handles that every process creates on its GPU and that PyTorch's
#: allocator does not report (torch.cuda.memory_allocated docs: "some context needs to be
#: created on GPU").  PyTorch PR #86509 (https://github.com/pytorch/pytorch/pull/86509) measured
#: the bare context at 287,047,680 bytes with CUDA lazy module loading (666,632,192 without);
#: cuBLAS/cuDNN handles and workspaces created at the first matmul add to it.  We take 0.5 GiB.
#: Not part of ``MemoryBreakdown.total_bytes`` (an allocator peak, like the published figures):
#: the fit verdict subtracts it from the usable capacity.
CUDA_CONTEXT_BYTES = 0.5 * GIB

#: Share of the GPU's physical memory left free to absorb allocator fragmentation: the caching
#: allocator rounds blocks and keeps freed blocks cached, so ``max_memory_reserved`` runs a few
#: percent above ``max_memory_allocated``.  Used only for the fit verdict ("fits" needs total
#: <= (1 - margin) x capacity), never added to the reported total.
FRAGMENTATION_MARGIN = 0.05

# ----------------------------------------------------------------------------- utilisation

#: Model FLOPs utilisation used for *inference* prefill (compute-bound) and as the decode
#: compute floor.  Training time does not use it: it comes from the step model of
#: engine/estimate/throughput.py, whose per-GPU MFU is fitted to published runs.
#: Hopper: Llama 3 paper (Dubey et al. 2024, arXiv:2407.21783, Table 4): 38-43 % BF16 MFU.
#: Ampere: Megatron-LM (Narayanan et al. 2021, arXiv:2104.04473): ~39 % MFU without recompute.
DEFAULT_MFU = 0.40


#: Model bandwidth utilisation for decode: achieved / peak memory bandwidth while streaming the
#: weights and KV cache once per generated token (the metric of "LLM Inference Performance
#: Engineering: Best Practices", Databricks / MosaicML, Oct 2023,
#: https://www.databricks.com/blog/llm-inference-performance-engineering-best-practices).
#: 0.6 is an assumption; tests/engine/estimate/test_estimate_time.py checks it against NVIDIA's published
#: Llama 2 7B latencies (NeMo performance page, batch 1 and 8): within 1-12 % on A100 and H100.
DEFAULT_MBU = 0.6

# ----------------------------------------------------------------------------- search limits

#: ``min_gpus`` scans GPU counts up to this many.
MAX_GPUS = 1024
#: GPUs per server unless the caller says otherwise (HGX / 8-GPU PCIe systems).
DEFAULT_GPUS_PER_SERVER = 8
