"""Published serving benchmarks the serving model (engine.estimate.serving) is checked against.

Each case states its source, the settings the source gives (model, GPUs, tensor parallel,
precision, input/output lengths, batch or concurrency, engine) and the published figure.
``FITTING`` / ``HELD_OUT`` split the cases BY SOURCE, by a rule fixed on 2026-12-02 before
the serving constants were refitted for issue 24 (:func:`is_held_out`): the sources are ordered
by the SHA-256 of their key and every second one (2nd, 4th, ...) is held out whole, so no
source sits on both sides: CLOUDAI, NEMO and NIM are held out; TRTLLM10, TRTLLM06, SGLANG and
PYTORCH fit.  (Until then every third case of each source was held out.)
``bench/serving_accuracy.py --fit`` may look at FITTING only.

Sources added after that refit (``LATER_SOURCES``) are held out whole, decided when each was
added and before any prediction was compared with it; the hash rule above runs over the
sources of 2026-12-02 only (``REFIT_SOURCES``), so a new source never moves an old one across
the split.  Their cases are scored through the CLI's own flags (``cli=True``:
``slotwise estimate MODEL --gpu --gpus --tp --precision --seq-len --output-len --users --json``,
tests/evidence/serving_predict.py :func:`cli_argv`), as a user would ask.

Sources
-------
TRTLLM06  TensorRT-LLM docs/source/performance.md (v0.6.1 throughput, v0.5 first-token
          latency), github.com/NVIDIA/TensorRT-LLM commit 138f96d45f90b9667426f7c47297d8c06bafac73.
          Static batches (gptSessionBenchmark): a batch of B prompts is prefilled together
          then decoded for OSL steps.  H100 rows: FP8 weights *and FP8 KV cache*
          (``--enable_fp8 --fp8_kv_cache``), throughput per GPU; A100 rows FP16.
TRTLLM10  TensorRT-LLM docs/source/performance/perf-overview.md, commit
          00f37686aa854010d68bcbd0f4ab000221541ca6: ``trtllm-bench throughput`` (PyTorch
          backend, CUDA graphs, in-flight batching) at maximum load, "Total Output Throughput
          (tokens/sec)", ModelOpt FP8 checkpoints, KV cache 0.90-0.95 of free memory.
NIM       NVIDIA NIM LLM benchmarking, "Performance" page (docs.nvidia.com/nim/benchmarking/llm/
          1.0.0/performance): Llama-3.3-70b-instruct NIM 1.8.0, 2 x H100 80G, fp8, TP2,
          genai-perf/AIPerf closed loop at fixed concurrency.
NEMO      NVIDIA NeMo Framework performance page, Llama-2 inference "Chatbot Conversation"
          (docs.nvidia.com/nemo-framework/user-guide/latest/performance/llama.html): input 128,
          output 20 tokens, TP1, TensorRT-LLM, average end-to-end latency.
SGLANG    SGLang PR #2643 "chore: bump v0.4.1.post2" (github.com/sgl-project/sglang/pull/2643):
          DeepSeek-V3 FP8, ``--tp 8``, CUDA graph + FP8 GEMM tuning, bench_one_batch decode
          tokens/s at batch 1/8/32, input 128, output 256.  The PR text quoted here does not
          print the GPU model; SGLang's DeepSeek-V3 day-one numbers were taken on an 8 x H200
          node, which is how issue #11 quotes them ("30-60 tokens/s measured").
PYTORCH   PyTorch blog "Accelerating Generative AI with PyTorch II: GPT, Fast" (Nov 2023,
          pytorch.org/blog/accelerating-generative-ai-2): Llama-2-7B bf16, batch 1, A100-80GB
          power-limited to 330 W, torch.compile(mode="reduce-overhead") + static KV cache:
          107.0 tokens/s (generate.py default: 200 new tokens after a short prompt).
CLOUDAI   cloudai.pt, "CUDA Graphs + torch.compile: 1.65x LLM Decode Speedup": Llama 3.1 8B on
          an H100 SXM5, one decode step 8.4 ms eager, 5.1 ms with a CUDA graph (batch 1).
MODELOPT  NVIDIA TensorRT Model Optimizer, examples/benchmark.md "1.1 Performance" (github.com/
          NVIDIA/TensorRT-Model-Optimizer, commit 111b2dab "Update LLM Perf benchmarks for 0.21",
          2025-01-08; unchanged in the 0.25.0 release): H200, nvidia-modelopt 0.21.1,
          TensorRT-LLM 0.15, measured with trtllm-bench; input 2,048 and output 128 tokens;
          Llama 3.1 8B BF16 TP1 and FP8 TP1, Llama 3.1 70B BF16 TP2 and FP8 TP1; "Tokens/sec"
          of the replica (the table's speedups divide it by the GPU count) at batch 1, 8, 64.
          Batch 1 is one user alone (light load: the request's 128 output tokens over its whole
          latency, prefill included); batch 8 and 64 are read as that many concurrent users.
          The INT4 AWQ / W4A8 columns are not used (slotwise serves no 4-bit weights).
          Added for issue 24 (light-load decode held out), held out whole.
TRTLLM17  TensorRT-LLM docs/source/performance/perf-overview.md at commit
          258c7540c03517def55d9a5aadfa9288af474e1b ("All data in the table below was generated
          using version 0.17"): ``trtllm-bench throughput`` at maximum load (requests issued at
          an infinite rate), FP8 engines (FP8 KV cache: "If you specify FP8 quantization, the
          KV cache will automatically be set to FP8 as well"), output tokens/s of the replica.
          The L40S column only: PCIe cards with no NVLink, the topology the issue asks evidence
          for (Llama 3.1 8B TP1, Llama 3.1 70B TP4 / TP8, Mixtral 8x7B TP4 / TP8).  Scored
          through the CLI with ``--users 4096`` (trtllm-bench's maximum runtime batch; the KV
          cache caps the running batch below it).  Added for issue 24 in session 9, held out
          whole, before any prediction was compared with it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

from slotwise.parts.schema import Gpu

#: A100 SXM4 80GB is not in the bundled catalog (only the PCIe card is): datasheet figures.
A100_SXM_80GB = Gpu(
    sku="A100-SXM4-80GB",
    name="NVIDIA A100 SXM4 80GB",
    source="https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
    memory_gb=80,
    memory_bw_gbs=2039,
    bf16_tflops_dense=312,
    fp32_tflops=19.5,
    nvlink="nvswitch",
    nvlink_bw_gbs=600,
    form="sxm",
)

H100 = "NVIDIA-H100-SXM5-80GB"
H200 = "NVIDIA-H200-SXM-141GB"

Kind = Literal[
    "ttft_ms",  # time to first token of one prompt on an idle server
    "itl_ms",  # inter-token latency at `batch` concurrent closed-loop users
    "loaded_ttft_ms",  # time to first token at `batch` concurrent closed-loop users
    "decode_tok_s",  # generated tokens/s of a batch of `batch` sequences (decode phase only)
    "step_ms",  # one decode step of `batch` sequences
    "static_tok_s",  # static batch: B x OSL / (prefill of B prompts + OSL decode steps)
    "static_latency_ms",  # the same batch's end-to-end latency
    "loaded_tok_s",  # output tokens/s at `batch` concurrent closed-loop users
    "single_user_tok_s",  # one user alone: output tokens / request latency (prefill included)
    "max_tok_s",  # output tokens/s at maximum load (as many users as the KV cache holds)
]


@dataclass(frozen=True)
class ServingCase:
    id: str
    source: str
    model: str  # preset id in parts/data/models.toml
    gpu: str | Gpu  # catalog SKU, or a Gpu record
    tp: int
    precision: str
    kind: Kind
    prompt: int
    output: int
    published: float
    batch: int = 1
    per_gpu: bool = False  # the published throughput is per GPU of the replica
    engine: str = "optimized"
    fp8_kv: bool = False  # the source ran an FP8 KV cache (slotwise models a bf16 one)
    note: str = ""
    cli: bool = False  # scored through the CLI's flags (serving_predict.cli_argv)


def _trt06(model, gpu, tp, prec, b, isl, osl, tok_s, cid, per_gpu):
    return ServingCase(
        id=cid,
        source="TRTLLM06",
        model=model,
        gpu=gpu,
        tp=tp,
        precision=prec,
        kind="static_tok_s",
        prompt=isl,
        output=osl,
        published=tok_s,
        batch=b,
        per_gpu=per_gpu,
        fp8_kv=prec == "fp8",
    )


def _ttft06(model, gpu, tp, prec, isl, ms, cid):
    return ServingCase(
        id=cid,
        source="TRTLLM06",
        model=model,
        gpu=gpu,
        tp=tp,
        precision=prec,
        kind="ttft_ms",
        prompt=isl,
        output=1,
        published=ms,
        fp8_kv=prec == "fp8",
    )


def _trt10(model, gpu, tp, isl, osl, tok_s, cid, source="TRTLLM10", **extra):
    """A TensorRT-LLM perf-overview row: FP8, output tokens/s at maximum load."""
    return ServingCase(
        id=cid,
        source=source,
        model=model,
        gpu=gpu,
        tp=tp,
        precision="fp8",
        kind="max_tok_s",
        prompt=isl,
        output=osl,
        published=tok_s,
        **extra,
    )


CASES: tuple[ServingCase, ...] = (
    # --- TensorRT-LLM v0.6.1 static-batch throughput (out tok/s per GPU on H100) -------------
    _trt06("llama-2-7b", H100, 1, "fp8", 768, 128, 128, 19694, "trt06-7b-h100-128-128", True),
    _trt06("llama-2-7b", H100, 1, "fp8", 112, 128, 2048, 6818, "trt06-7b-h100-128-2048", True),
    _trt06("llama-2-7b", H100, 1, "fp8", 80, 2048, 128, 2244, "trt06-7b-h100-2048-128", True),
    _trt06("llama-2-7b", H100, 1, "fp8", 48, 2048, 2048, 2740, "trt06-7b-h100-2048-2048", True),
    _trt06("llama-2-70b", H100, 2, "fp8", 1024, 128, 128, 2657, "trt06-70b-h100-128-128", True),
    _trt06("llama-2-70b", H100, 4, "fp8", 480, 128, 2048, 1486, "trt06-70b-h100-128-2048", True),
    _trt06("llama-2-70b", H100, 2, "fp8", 96, 2048, 128, 306, "trt06-70b-h100-2048-128", True),
    _trt06("llama-2-70b", H100, 2, "fp8", 64, 2048, 2048, 547, "trt06-70b-h100-2048-2048", True),
    _trt06(
        "llama-2-7b", A100_SXM_80GB, 1, "fp16", 384, 128, 128, 5586, "trt06-7b-a100-128-128", False
    ),
    _trt06(
        "llama-2-7b", A100_SXM_80GB, 1, "fp16", 60, 128, 2048, 1928, "trt06-7b-a100-128-2048", False
    ),
    _trt06(
        "llama-2-7b", A100_SXM_80GB, 1, "fp16", 52, 2048, 128, 591, "trt06-7b-a100-2048-128", False
    ),
    # --- TensorRT-LLM v0.5 first-token latency, batch 1 ---------------------------------------
    _ttft06("llama-2-7b", H100, 1, "fp8", 128, 7, "ttft-7b-h100-128"),
    _ttft06("llama-2-7b", H100, 1, "fp8", 2048, 36, "ttft-7b-h100-2048"),
    _ttft06("llama-2-70b", H100, 4, "fp8", 128, 26, "ttft-70b-h100-128"),
    _ttft06("llama-2-70b", H100, 4, "fp8", 2048, 109, "ttft-70b-h100-2048"),
    _ttft06("llama-2-7b", A100_SXM_80GB, 1, "fp16", 128, 16, "ttft-7b-a100-128"),
    _ttft06("llama-2-7b", A100_SXM_80GB, 1, "fp16", 2048, 133, "ttft-7b-a100-2048"),
    _ttft06("llama-2-70b", A100_SXM_80GB, 4, "fp16", 128, 47, "ttft-70b-a100-128"),
    _ttft06("llama-2-70b", A100_SXM_80GB, 4, "fp16", 2048, 377, "ttft-70b-a100-2048"),
    # --- TensorRT-LLM 1.x perf overview, maximum load, total output tokens/s ------------------
    _trt10("llama-3.1-8b", H100, 1, 128, 128, 28312, "trt10-8b-h100-128-128"),
    _trt10("llama-3.1-8b", H100, 1, 1000, 1000, 15220, "trt10-8b-h100-1000-1000"),
    _trt10("llama-3.1-8b", H100, 1, 2048, 128, 3450, "trt10-8b-h100-2048-128"),
    _trt10("llama-3.1-8b", H100, 1, 5000, 500, 3459, "trt10-8b-h100-5000-500"),
    _trt10("llama-3.1-8b", H200, 1, 128, 2048, 26221, "trt10-8b-h200-128-2048"),
    _trt10("llama-3.1-8b", H200, 1, 20000, 2000, 1804, "trt10-8b-h200-20000-2000"),
    _trt10("llama-3.1-70b", H200, 1, 128, 2048, 4336, "trt10-70b-h200-128-2048"),
    _trt10("llama-3.1-70b", H200, 1, 1000, 1000, 2909, "trt10-70b-h200-1000-1000"),
    _trt10("llama-3.1-70b", H200, 1, 2048, 128, 442, "trt10-70b-h200-2048-128"),
    _trt10("llama-3.1-70b", H100, 2, 500, 2000, 5222, "trt10-70b-h100-500-2000"),
    _trt10("llama-3.1-70b", H100, 2, 5000, 500, 898, "trt10-70b-h100-5000-500"),
    _trt10("llama-3.1-405b", H100, 8, 128, 128, 3627, "trt10-405b-h100-128-128"),
    _trt10("llama-3.1-405b", H200, 8, 1000, 1000, 3330, "trt10-405b-h200-1000-1000"),
    # Qwen3-235B-A22B (MoE: 128 experts, top-8), nvidia/Qwen3-235B-A22B-FP8, TP8 ("--ep" and
    # attention DP as the page's MoE options set them; slotwise models TP8), the same table:
    # added for issue 24's MoE terms, on the fitting side with the rest of this source.
    _trt10("qwen3-235b-a22b", H200, 8, 128, 128, 30429, "trt10-q235-h200-128-128"),
    _trt10("qwen3-235b-a22b", H200, 8, 128, 2048, 42821, "trt10-q235-h200-128-2048"),
    _trt10("qwen3-235b-a22b", H200, 8, 128, 4096, 26852, "trt10-q235-h200-128-4096"),
    _trt10("qwen3-235b-a22b", H200, 8, 500, 2000, 28026, "trt10-q235-h200-500-2000"),
    _trt10("qwen3-235b-a22b", H200, 8, 1000, 1000, 23789, "trt10-q235-h200-1000-1000"),
    _trt10("qwen3-235b-a22b", H200, 8, 1000, 2000, 22061, "trt10-q235-h200-1000-2000"),
    _trt10("qwen3-235b-a22b", H200, 8, 2048, 128, 3331, "trt10-q235-h200-2048-128"),
    _trt10("qwen3-235b-a22b", H200, 8, 2048, 2048, 16672, "trt10-q235-h200-2048-2048"),
    _trt10("qwen3-235b-a22b", H200, 8, 5000, 500, 3623, "trt10-q235-h200-5000-500"),
    _trt10("qwen3-235b-a22b", H200, 8, 20000, 2000, 1876, "trt10-q235-h200-20000-2000"),
    _trt10("qwen3-235b-a22b", H100, 8, 128, 2048, 19658, "trt10-q235-h100-128-2048"),
    _trt10("qwen3-235b-a22b", H100, 8, 128, 4096, 12447, "trt10-q235-h100-128-4096"),
    _trt10("qwen3-235b-a22b", H100, 8, 500, 2000, 18351, "trt10-q235-h100-500-2000"),
    _trt10("qwen3-235b-a22b", H100, 8, 1000, 1000, 14898, "trt10-q235-h100-1000-1000"),
    _trt10("qwen3-235b-a22b", H100, 8, 1000, 2000, 15136, "trt10-q235-h100-1000-2000"),
    _trt10("qwen3-235b-a22b", H100, 8, 2048, 2048, 9924, "trt10-q235-h100-2048-2048"),
    _trt10("qwen3-235b-a22b", H100, 8, 5000, 500, 3225, "trt10-q235-h100-5000-500"),
    # --- NIM 1.8.0, Llama 3.3 70B (Llama 3.1 70B architecture), 2 x H100, fp8, TP2 ------------
    ServingCase(
        "nim-70b-5000-500-c1-ttft", "NIM", "llama-3.1-70b", H100, 2, "fp8", "ttft_ms",
        5000, 500, 406.77,
    ),
    ServingCase(
        "nim-70b-5000-500-c1-itl", "NIM", "llama-3.1-70b", H100, 2, "fp8", "itl_ms",
        5000, 500, 18.58,
    ),
    ServingCase(
        "nim-70b-5000-500-c5-itl", "NIM", "llama-3.1-70b", H100, 2, "fp8", "itl_ms",
        5000, 500, 21.83, batch=5,
    ),
    ServingCase(
        "nim-70b-5000-500-c25-itl", "NIM", "llama-3.1-70b", H100, 2, "fp8", "itl_ms",
        5000, 500, 38.75, batch=25,
    ),
    ServingCase(
        "nim-70b-5000-500-c50-tok-s", "NIM", "llama-3.1-70b", H100, 2, "fp8", "loaded_tok_s",
        5000, 500, 814.37, batch=50,
    ),
    ServingCase(
        "nim-70b-5000-500-c25-tok-s", "NIM", "llama-3.1-70b", H100, 2, "fp8", "loaded_tok_s",
        5000, 500, 623.4, batch=25,
    ),
    # The same NIM table's rows under load (added for issue 24 before any prediction was
    # compared with them, all rows of the 5000/500 block not yet recorded; a copy of the table:
    # github.com/zivbeker42/llm-guesstimator, tested_benchmarks/
    # nim_llama33_70b_v1.8.0_2xH100_fp8TP2.csv).  Concurrency 100 is past the KV capacity
    # of one TP2 replica: TTFT jumps to 8 s while tokens/s barely grows.
    ServingCase(
        "nim-70b-5000-500-c5-ttft", "NIM", "llama-3.1-70b", H100, 2, "fp8", "loaded_ttft_ms",
        5000, 500, 546.7, batch=5,
    ),
    ServingCase(
        "nim-70b-5000-500-c25-ttft", "NIM", "llama-3.1-70b", H100, 2, "fp8", "loaded_ttft_ms",
        5000, 500, 688.69, batch=25,
    ),
    ServingCase(
        "nim-70b-5000-500-c50-ttft", "NIM", "llama-3.1-70b", H100, 2, "fp8", "loaded_ttft_ms",
        5000, 500, 834.51, batch=50,
    ),
    ServingCase(
        "nim-70b-5000-500-c100-ttft", "NIM", "llama-3.1-70b", H100, 2, "fp8", "loaded_ttft_ms",
        5000, 500, 7996.25, batch=100,
    ),
    ServingCase(
        "nim-70b-5000-500-c50-itl", "NIM", "llama-3.1-70b", H100, 2, "fp8", "itl_ms",
        5000, 500, 59.73, batch=50,
    ),
    ServingCase(
        "nim-70b-5000-500-c100-itl", "NIM", "llama-3.1-70b", H100, 2, "fp8", "itl_ms",
        5000, 500, 92.91, batch=100,
    ),
    ServingCase(
        "nim-70b-5000-500-c100-tok-s", "NIM", "llama-3.1-70b", H100, 2, "fp8", "loaded_tok_s",
        5000, 500, 917.26, batch=100,
    ),
    ServingCase(
        "nim-70b-500-2000-c1-itl", "NIM", "llama-3.1-70b", H100, 2, "fp8", "itl_ms",
        500, 2000, 18.91,
    ),
    ServingCase(
        "nim-70b-500-2000-c1-ttft", "NIM", "llama-3.1-70b", H100, 2, "fp8", "ttft_ms",
        500, 2000, 47.77,
    ),
    # --- NeMo / TensorRT-LLM Llama-2-7B chatbot latency (128 in, 20 out, TP1) ----------------
    ServingCase(
        "nemo-7b-a100-b1", "NEMO", "llama-2-7b", A100_SXM_80GB, 1, "bf16", "static_latency_ms",
        128, 20, 234.0,
    ),
    ServingCase(
        "nemo-7b-h100-b1", "NEMO", "llama-2-7b", H100, 1, "bf16", "static_latency_ms",
        128, 20, 153.8,
    ),
    ServingCase(
        "nemo-7b-a100-b8", "NEMO", "llama-2-7b", A100_SXM_80GB, 1, "bf16", "static_latency_ms",
        128, 20, 329.5, batch=8,
    ),
    ServingCase(
        "nemo-7b-h100-b8", "NEMO", "llama-2-7b", H100, 1, "bf16", "static_latency_ms",
        128, 20, 199.2, batch=8,
    ),
    # --- SGLang v0.4.1.post2, DeepSeek-V3 FP8, TP8 --------------------------------------------
    ServingCase(
        "sglang-dsv3-b1", "SGLANG", "deepseek-v3", H200, 8, "fp8", "decode_tok_s",
        128, 256, 30.29,
    ),
    ServingCase(
        "sglang-dsv3-b8", "SGLANG", "deepseek-v3", H200, 8, "fp8", "decode_tok_s",
        128, 256, 206.32, batch=8,
    ),
    ServingCase(
        "sglang-dsv3-b32", "SGLANG", "deepseek-v3", H200, 8, "fp8", "decode_tok_s",
        128, 256, 760.52, batch=32,
    ),
    # --- single-stream decode: optimised (compiled) vs eager PyTorch --------------------------
    ServingCase(
        "gptfast-7b-a100-compiled", "PYTORCH", "llama-2-7b", A100_SXM_80GB, 1, "bf16",
        "decode_tok_s", 6, 200, 107.0,
    ),
    ServingCase(
        "cloudai-8b-h100-graph", "CLOUDAI", "llama-3.1-8b", H100, 1, "bf16", "step_ms",
        256, 1, 5.1,
    ),
    ServingCase(
        "cloudai-8b-h100-eager", "CLOUDAI", "llama-3.1-8b", H100, 1, "bf16", "step_ms",
        256, 1, 8.4, engine="eager",
    ),
)  # fmt: skip


def _modelopt(model, prec, tp, batch, tok_s):
    size = "8b" if model.endswith("8b") else "70b"
    return ServingCase(
        id=f"modelopt-{size}-{prec}-tp{tp}-b{batch}",
        source="MODELOPT",
        model=model,
        gpu=H200,
        tp=tp,
        precision=prec,
        kind="single_user_tok_s" if batch == 1 else "loaded_tok_s",
        prompt=2048,
        output=128,
        published=tok_s,
        batch=batch,
        cli=True,
    )


#: TensorRT-LLM v0.17's ISL/OSL grid (perf-overview.md), in the table's row order.
_TRT17_LENGTHS = (
    (128, 128), (128, 2048), (128, 4096), (500, 2000), (1000, 1000), (2048, 128), (2048, 2048),
    (5000, 500), (20000, 2000),
)  # fmt: skip


def _trt17_l40s(model: str, tp: int, tok_s: tuple[float, ...]) -> tuple[ServingCase, ...]:
    """One L40S column of TensorRT-LLM v0.17's throughput table (module docstring)."""
    return tuple(
        _trt10(
            model,
            "NVIDIA-L40S-48GB",
            tp,
            isl,
            osl,
            v,
            f"trt17-{model}-l40s-tp{tp}-{isl}-{osl}",
            source="TRTLLM17",
            batch=4096,
            cli=True,
        )  # fmt: skip
        for (isl, osl), v in zip(_TRT17_LENGTHS, tok_s, strict=True)
    )


#: Sources added after the 2026-12-02 refit: held out whole (module docstring).
LATER_CASES: tuple[ServingCase, ...] = (
    # --- TensorRT Model Optimizer 0.21 / TensorRT-LLM 0.15, H200, 2048 in / 128 out ----------
    _modelopt("llama-3.1-8b", "bf16", 1, 1, 173.80),
    _modelopt("llama-3.1-8b", "bf16", 1, 8, 803.11),
    _modelopt("llama-3.1-8b", "bf16", 1, 64, 1679.74),
    _modelopt("llama-3.1-8b", "fp8", 1, 1, 245.03),
    _modelopt("llama-3.1-8b", "fp8", 1, 8, 1051.17),
    _modelopt("llama-3.1-8b", "fp8", 1, 64, 2190.93),
    _modelopt("llama-3.1-70b", "bf16", 2, 1, 45.81),
    _modelopt("llama-3.1-70b", "bf16", 2, 8, 182.61),
    _modelopt("llama-3.1-70b", "bf16", 2, 64, 401.50),
    _modelopt("llama-3.1-70b", "fp8", 1, 1, 43.46),
    _modelopt("llama-3.1-70b", "fp8", 1, 8, 182.07),
    _modelopt("llama-3.1-70b", "fp8", 1, 64, 420.64),
    # --- TensorRT-LLM v0.17, L40S (PCIe, no NVLink), FP8, maximum load ----------------------
    *_trt17_l40s("llama-3.1-8b", 1, (9104.61, 5365.81, 3025.92, 4273.75, 4054.71, 1066.52,
                                     2225.27, 981.2, 327.97)),
    *_trt17_l40s("llama-3.1-70b", 4, (1523.52, 1942.66, 1440.23, 1634.72, 1209.25, 177.72,
                                      969.68, 249.52, 162.25)),
    *_trt17_l40s("llama-3.1-70b", 8, (1464.03, 2303.31, 2018.22, 1971.96, 1333.62, 176.16,
                                      1200.16, 259.71, 209.87)),
    *_trt17_l40s("mixtral-8x7b", 4, (6921.87, 7996.93, 5736.09, 6914.68, 5251.49, 827.62,
                                     3935.32, 1092.88, 682.48)),
    *_trt17_l40s("mixtral-8x7b", 8, (6740.84, 10393.3, 8472.35, 8660.71, 5947.72, 811.96,
                                     5136.98, 1153.76, 918.95)),
)  # fmt: skip

#: The sources the 2026-12-02 split rule was computed over.
REFIT_SOURCES: frozenset[str] = frozenset(c.source for c in CASES)
LATER_SOURCES: frozenset[str] = frozenset(c.source for c in LATER_CASES) - REFIT_SOURCES


def _rank(case_id: str) -> str:
    return hashlib.sha256(case_id.encode()).hexdigest()


def _held_out_sources() -> frozenset[str]:
    ordered = sorted(REFIT_SOURCES, key=_rank)
    return frozenset(ordered[1::2]) | LATER_SOURCES


HELD_OUT_SOURCES = _held_out_sources()
CASES = CASES + LATER_CASES


def is_held_out(case: ServingCase) -> bool:
    """The case's source is held out (module docstring; fixed before fitting)."""
    return case.source in HELD_OUT_SOURCES


FITTING: tuple[ServingCase, ...] = tuple(c for c in CASES if not is_held_out(c))
HELD_OUT: tuple[ServingCase, ...] = tuple(c for c in CASES if is_held_out(c))
