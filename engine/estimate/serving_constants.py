"""Constants of the serving model (engine.estimate.serving), each with where it comes from.

Six of them are *fitted*: ``bench/serving_accuracy.py --fit`` searches a coarse grid and keeps
the values with the smallest median |log error| on the FITTING half of the published serving
cases in ``tests/evidence/serving_cases.py``.  Which case is fitting and which is held out is
decided by a rule in that file (whole sources held out) before any fitting;
the held-out half is never used to pick a value.  The grid bounds are physical ranges
from the literature quoted next to each constant, so a fit cannot wander off into nonsense.
"""

from __future__ import annotations

# ----------------------------------------------------------------------------- bandwidth, compute

#: Share of the peak HBM bandwidth a decode step achieves while streaming weights and KV cache
#: (model bandwidth utilisation, MBU: "LLM Inference Performance Engineering: Best Practices",
#: Databricks/MosaicML, Oct 2023, which measures 55-70 % end to end *including* launch gaps; the
#: serving model counts those gaps separately in the latency floor, so the streaming share is
#: higher).  Grid 0.60-0.90.  Fitted; it ends on the grid's top, which is kept as the
#: ceiling on purpose: a streaming kernel does not reach the HBM's nominal rate (refresh,
#: page switches), so a share above ~0.9 would be a fitting artefact, not bandwidth.
SERVING_MBU = 0.90

#: Share of the dense peak (FP8 peak for FP8 serving) that prefill and large-batch decode
#: GEMMs reach (compute-bound phase).  Literature range: Sarathi-Serve (Agrawal et al. 2024,
#: arXiv:2403.02310) reports prefill iterations near 60 % of peak on A100; TensorRT-LLM's FP8
#: throughput tables imply 40-55 % of the FP8 peak end to end.  Grid 0.30-0.70.  Fitted.
SERVING_MFU = 0.45

# ----------------------------------------------------------------------------- latency floor

#: Fixed GPU time per decoder layer per forward pass on an optimised engine that replays CUDA
#: graphs (TensorRT-LLM, vLLM and SGLang defaults): ~10 kernels per layer (norms, fused QKV,
#: rotary, attention, output projection, MLP GEMMs, activation), each with a few microseconds
#: of minimum duration and tail that bandwidth does not explain.  Grid 5-100 us.  Fitted
#: (60 us, inside the grid).
LAYER_FLOOR_S_OPTIMIZED = 60e-6

#: Extra fixed time per layer without CUDA graphs (PyTorch eager, vLLM ``--enforce-eager``,
#: SGLang ``--disable-cuda-graph``): the CPU launches every kernel.  Not fitted: the median
#: of three published eager-minus-graph differences for Llama 3 8B at batch 1 (32 layers):
#: SGLang PR #1401 (github.com/sgl-project/sglang/pull/1401): triton backend 9.28 - 7.06 ms
#: = 69 us/layer, flashinfer backend 8.23 - 7.35 ms = 28 us/layer; cloudai.pt "CUDA Graphs +
#: torch.compile: 1.65x LLM Decode Speedup" (H100 SXM5): 8.4 - 5.1 ms = 103 us/layer.
LAYER_FLOOR_S_EAGER_EXTRA = 69e-6

#: Host time of one decoder layer's forward in an eager PyTorch model (seconds): Python
#: dispatching the layer's kernels one by one.  Derived, not fitted: gpt-fast's eager baseline
#: decodes Llama-2-7B at 25.5 tokens/s on an A100 where the same code compiled reaches
#: 107 tokens/s (PyTorch blog "Accelerating Generative AI with PyTorch II: GPT, Fast", Nov 2023;
#: the compiled figure is the fitting serving case gptfast-7b-a100-compiled).  The eager loop
#: is host-bound (the GPU's work fits in the compiled run's 9.3 ms of the eager 39.2 ms), so
#: one token's forward is 1/25.5 s of host time over 32 layers: 1.23 ms per layer.  Serving
#: engine "transformers" (Hugging Face ``generate``, plain PyTorch model code) and eager
#: fine-tuning stacks (engine/estimate/throughput.py ``host_layer_s``) pay it.
HOST_LAYER_FORWARD_S_EAGER = 1.0 / 25.5 / 32

#: Extra fixed time per MoE layer per forward pass.  An optimised engine runs a routed MLP as a
#: fixed set of kernels whatever the top-k: router GEMM, softmax/top-k, token alignment /
#: permutation, one grouped GEMM over every active expert for gate+up and one for down, the
#: activation, and the weighted un-permute (vLLM ``fused_moe.fused_experts``: ``moe_align_block_
#: size`` then two ``invoke_fused_moe_kernel`` launches and ``moe_sum``; TensorRT-LLM's fused
#: MoE plugin, one grouped GEMM per projection) -- about five kernels more than a dense MLP's
#: three.  Before issue 24's MoE rows it was charged per expert a token uses (50 us each),
#: which made a 128-expert top-8 model (Qwen3-235B-A22B) decode 1.8x slower than TensorRT-LLM
#: measures.  Grid 0-100 us (up to ~10 extra kernels of ~10 us).  Fitted with
#: ``MOE_GEMM_EFFICIENCY`` (``bench/serving_accuracy.py --fit-moe``: the two MoE constants
#: jointly, on FITTING's 20 MoE cases -- TensorRT-LLM 1.x Qwen3-235B-A22B and SGLang
#: DeepSeek-V3 -- with the dense constants kept): 80 us, inside the grid.  DeepSeek-V3 on
#: SGLang v0.4.1 stays 2-4x slower than this predicts (MLA and block-FP8 kernels of that
#: release); one source cannot split that cost, so it is not charged to every MoE.
MOE_LAYER_FLOOR_S = 80e-6

#: Share of ``SERVING_MFU`` that the routed experts' grouped GEMMs reach in the compute-bound
#: phases (prefill, large decode batches): each expert multiplies only the tokens routed to it
#: (tokens x top-k / experts rows: 128 for a 2,048-token chunk of a 128-expert top-8 model),
#: far below the tile sizes a dense GEMM fills, and the grouped kernel pays for the gather and
#: padding (MegaBlocks, Gale et al. 2022, arXiv:2211.15841, section 5: block-sparse / grouped
#: expert GEMMs below cuBLAS's dense throughput at small per-expert batches).  Grid 0.2-1.0.
#: Fitted with ``MOE_LAYER_FLOOR_S``: 0.3, inside the grid.
MOE_GEMM_EFFICIENCY = 0.3

# ----------------------------------------------------------------------------- tensor parallel

#: Latency of one small-message all-reduce across a tensor-parallel group (NCCL / the custom
#: one-shot all-reduce of TensorRT-LLM and vLLM over NVLink: a few to ~20 us).  A decoder layer
#: does two (after attention and after the MLP; Megatron-LM, Shoeybi et al. 2019,
#: arXiv:1909.08053, section 3).  Grid 2-30 us.  Fitted.
ALLREDUCE_LATENCY_S = 15e-6

#: PCIe link used for the all-reduce payload when the GPUs have no NVLink: usable share of a
#: x16 link's raw rate per direction (PCIe 4.0: 32 GB/s, 5.0: 64 GB/s raw; ~80 % after
#: protocol overhead, PCI-SIG base spec encoding + TLP headers).
PCIE_GBS_PER_DIRECTION = {3: 16.0 * 0.8, 4: 32.0 * 0.8, 5: 64.0 * 0.8, 6: 128.0 * 0.8}

# ----------------------------------------------------------------------------- under load

#: Bytes per KV cache element by ``--kv-cache-dtype`` (fp8: e4m3, as vLLM ``fp8`` and
#: TensorRT-LLM ``--kv_cache_dtype fp8`` store it).
KV_DTYPE_BYTES: dict[str, float] = {"fp8": 1.0, "bf16": 2.0, "fp16": 2.0, "fp32": 4.0}

#: Share of the memory left after the weights that the engine gives its KV cache pool:
#: TensorRT-LLM ``KvCacheConfig.free_gpu_memory_fraction`` defaults to 0.9 (NIM's TensorRT-LLM
#: profiles keep it); vLLM's ``gpu_memory_utilization`` = 0.9 of the whole GPU leaves a
#: similar share.  The running batch is capped by it.  Engine default, not fitted.
KV_POOL_FRACTION = 0.9

#: Prompt tokens a chunked prefill runs per engine iteration: vLLM's default
#: ``max_num_batched_tokens`` with chunked prefill (2,048; vLLM docs, "Optimization and
#: Tuning", chunked prefill).  Each chunk shares its iteration with one decode step of the
#: running batch (Sarathi-Serve, arXiv:2403.02310).  Assumed, not fitted.
PREFILL_CHUNK_TOKENS = 2048

#: Fixed time per request outside the GPU work: HTTP handling, tokenisation, scheduling and
#: detokenisation of an OpenAI-compatible server.  Assumed 5 ms (vLLM's and SGLang's
#: benchmark_serving report a few ms of TTFT overhead for 1-token prompts on an idle server);
#: not fitted.
REQUEST_OVERHEAD_S = 0.005

#: Latency objectives as named presets: (time to first token s, time per output token s).
#: MLPerf Inference datacenter LLM benchmarks, p99 limits of the Server and Interactive
#: scenarios (MLCommons inference_rules.adoc, LLM latency constraints; quoted in the shared
#: reference serving-capacity.md).  slotwise estimates means, so a preset is met by the mean:
#: the tail is not modelled (stated wherever a preset is used).
LATENCY_PRESETS: dict[str, tuple[float, float]] = {
    "mlperf-llama2-70b-server": (2.0, 0.200),
    "mlperf-llama2-70b-interactive": (0.450, 0.040),
    "mlperf-llama3.1-405b-server": (6.0, 0.175),
    "mlperf-llama3.1-405b-interactive": (4.5, 0.080),
    "mlperf-llama3.1-8b-server": (2.0, 0.100),
    "mlperf-llama3.1-8b-interactive": (0.500, 0.030),
    "mlperf-mixtral-8x7b-server": (2.0, 0.200),
}

# ----------------------------------------------------------------------------- workload defaults

#: Output tokens per request when ``--output-len`` is not given: half of ``--seq-len`` (prompt
#: and answer of equal length, the symmetric ISL = OSL rows of NVIDIA's TensorRT-LLM and NIM
#: benchmark tables).
DEFAULT_OUTPUT_SHARE = 0.5
