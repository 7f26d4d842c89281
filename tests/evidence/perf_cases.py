"""Published training throughput and training-time figures: the evidence the time model is
scored against (``bench/perf_accuracy.py``, ``tests/engine/estimate/test_perf_accuracy.py``).

Test evidence only: nothing in ``engine/`` imports this module.  Every case names its source
(``SOURCES``), the settings that source states (``settings``) and how each setting maps onto a
slotwise workload.  Where a source leaves a setting out, the case says what was assumed.

Fitting / held-out split, BY SOURCE (decided on 2026-12-02 before the constants of issue 24
were refitted, and never changed after): the sources are split in two strata, those that
publish training *time* (wall-clock or GPU-hours) and those that publish only throughput; within
each stratum the sources are sorted by sha256(source key) and every second one (2nd, 4th, ...)
is held out (``HELD_OUT_SOURCES``, computed by :func:`_held_out_sources`).  Every case of a
held-out source is held out, so no source is seen on both sides.  Result: time sources
llama1, llama2, mlperf-4.0 fit and nemo-24.07, llama3.1, mlperf-4.1 are held out; throughput
sources torchtitan, mosaicml, mt-nlg, trainy fit and torchtune, qwen, torchtitan-asynctp,
megatron-bridge-25.11 are held out.  (Until then cases were split by a hash of the case id,
which let a source sit on both sides.)  ``bench/fit_perf.py`` fits the constants of
:mod:`engine.estimate.throughput` on the fitting cases only; the held-out cases are only ever
scored.

Architectures are the numbers of each model's published config (Hugging Face config.json or the
training framework's model yaml, cited per model).  Models with a plain two-matrix GELU MLP (MPT,
GPT-3, MT-NLG) are given the gated-MLP width with the same parameter count and FLOPs
(``intermediate = 2/3 x ffn``), since slotwise describes every MLP as gated.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

from slotwise.parts.schema import Gpu, ModelPreset

# ------------------------------------------------------------------------------------ sources

SOURCES: dict[str, str] = {
    "mosaicml": "https://github.com/mosaicml/llm-foundry/blob/8c8dd48f72168c5d51e2f7b151595892a8fba43d/scripts/train/benchmarking/README.md",
    "torchtitan": "https://github.com/pytorch/torchtitan/blob/main/benchmarks/llama3_h100_202412_torchtitan.md",
    "torchtitan-asynctp": "https://github.com/pytorch/torchtitan/blob/main/benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md",
    "trainy": "https://github.com/pytorch/torchtitan/blob/main/benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md",
    "nemo-24.07": "https://github.com/NVIDIA/NeMo/blob/070a0bb168d405d653b9734c0017cf5078e77c0d/docs/source/performance/performance_summary.md",
    "megatron-bridge-25.11": "https://github.com/NVIDIA-NeMo/Megatron-Bridge/blob/00b7660be0254ac6f95f44164ddd0c3e9cc798ed/docs/performance-summary.md",
    "qwen": "https://github.com/QwenLM/Qwen/blob/2df8e8ac450fa185c421a08b0090ef81826caa6e/README.md#profiling-of-memory-and-speed",
    "torchtune": "https://github.com/pytorch/torchtune/blob/0031bfb080bd35ec533c412df883cf2bf7bf7fe4/README.md#memory-and-training-speed",
    "llama1": "https://arxiv.org/abs/2302.13971",
    "llama2": "https://arxiv.org/abs/2307.09288",
    "llama3.1": "https://github.com/meta-llama/llama-models/blob/main/models/llama3_1/MODEL_CARD.md",
    "mt-nlg": "https://arxiv.org/abs/2201.11990",
    "mlperf-4.0": "https://smc.co/mlperfv40/results/llama2-70b-lora",
    "mlperf-4.1": "https://maxmazo.com/technology/mlperf-4-1-tests-unveil-nvidia-blackwells-llama-training-acceleration-by-2-2x-google-showcases-45-decrease-in-training-costs-with-trillium",
}

#: Organisations behind the sources (independence count): MosaicML/Databricks, PyTorch (Meta),
#: Trainy, NVIDIA, Alibaba (Qwen), Meta GenAI (Llama papers), Microsoft+NVIDIA (MT-NLG),
#: Sustainable Metal Cloud (MLPerf submitter).
ORGANISATIONS: dict[str, str] = {
    "mosaicml": "MosaicML",
    "torchtitan": "PyTorch",
    "torchtitan-asynctp": "PyTorch",
    "trainy": "Trainy",
    "nemo-24.07": "NVIDIA",
    "megatron-bridge-25.11": "NVIDIA",
    "qwen": "Alibaba Qwen",
    "torchtune": "PyTorch",
    "llama1": "Meta",
    "llama2": "Meta",
    "llama3.1": "Meta",
    "mt-nlg": "Microsoft+NVIDIA",
    "mlperf-4.0": "Sustainable Metal Cloud",
    "mlperf-4.1": "NVIDIA (MLPerf submitter)",
}

# ---------------------------------------------------------------------------------------- GPUs

#: GPUs of the published runs that are not in the parts catalog (the catalog lists what
#: Supermicro sells today).  Dense (non-sparse) peaks from NVIDIA's datasheets.
EXTRA_GPUS: dict[str, Gpu] = {
    "a100-80": Gpu(
        sku="A100-SXM4-80GB", name="NVIDIA A100 SXM4 80GB",
        source="https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
        memory_gb=80, memory_bw_gbs=2039, bf16_tflops_dense=312, fp32_tflops=19.5,
        form="sxm", nvlink="nvswitch", nvlink_bw_gbs=600, pcie_gen=4,
    ),
    "a100-40": Gpu(
        sku="A100-SXM4-40GB", name="NVIDIA A100 SXM4 40GB",
        source="https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
        memory_gb=40, memory_bw_gbs=1555, bf16_tflops_dense=312, fp32_tflops=19.5,
        form="sxm", nvlink="nvswitch", nvlink_bw_gbs=600, pcie_gen=4,
    ),
    "h100-gt": Gpu(
        sku="H100-SXM-96GB-HBM2e-500W", name="NVIDIA H100 SXM 96GB HBM2e at 500 W (Grand Teton)",
        source=SOURCES["torchtitan"],
        notes="torchtitan benchmark hardware: 96 GB HBM2e, 2.4 TB/s, 500 W power limit; its "
        "peak is not published ('between SXM and NVL'), so the SXM5 dense peak is used",
        memory_gb=96, memory_bw_gbs=2400, bf16_tflops_dense=989.5, fp8_tflops_dense=1979,
        fp32_tflops=67, form="sxm", nvlink="nvswitch", nvlink_bw_gbs=900, pcie_gen=5,
    ),
    "rtx-a6000": Gpu(
        sku="RTX-A6000-48GB", name="NVIDIA RTX A6000 48GB",
        source="https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/quadro-product-literature/proviz-print-nvidia-rtx-a6000-datasheet-us-nvidia-1454980-r9-web%20(1).pdf",
        notes="datasheet: 309.7 TFLOPS tensor with sparsity -> 154.8 dense; 768 GB/s",
        memory_gb=48, memory_bw_gbs=768, bf16_tflops_dense=154.8, fp32_tflops=38.7,
        form="pcie", nvlink="bridge", nvlink_bw_gbs=112.5, pcie_gen=4,
    ),
}  # fmt: skip

#: Keys of catalog GPUs (parts/data/gpus.toml) used by the cases.
CATALOG_GPUS: dict[str, str] = {
    "h100": "NVIDIA-H100-SXM5-80GB",
    "h200": "NVIDIA-H200-SXM-141GB",
    "b200": "NVIDIA-B200-SXM-180GB",
    "rtx4090": "NVIDIA-RTX-4090-24GB",
}

# ------------------------------------------------------------------------------- architectures


def _arch(sku: str, source: str, params_b: float, **cfg: Any) -> ModelPreset:
    return ModelPreset(
        sku=sku, name=sku, source=source, model_type=cfg.pop("model_type", "llama"),
        published_params_b=params_b, **cfg,
    )  # fmt: skip


_HF = "https://huggingface.co/{}/blob/main/config.json"
_MPT_YAML = (
    "https://github.com/mosaicml/llm-foundry/blob/main/scripts/train/yamls/pretrain/mpt-{}.yaml"
)


def _mpt(size: str, d: int, layers: int, heads: int, params_b: float) -> ModelPreset:
    """MPT: d_model, n_layers, n_heads from llm-foundry's yaml; expansion_ratio 4 GELU MLP
    (given as the equal-parameter gated width 8d/3), vocab 50368, tied embeddings."""
    return _arch(
        f"mpt-{size}", _MPT_YAML.format(size), params_b, model_type="mpt", hidden_size=d,
        intermediate_size=round(8 * d / 3), num_hidden_layers=layers, num_attention_heads=heads,
        num_key_value_heads=heads, vocab_size=50368, tie_word_embeddings=True,
    )  # fmt: skip


def _gpt(name: str, src: str, d: int, layers: int, heads: int, ffn: int, vocab: int, p: float):
    return _arch(
        name, src, p, model_type="gpt", hidden_size=d, intermediate_size=round(2 * ffn / 3),
        num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=heads,
        vocab_size=vocab, tie_word_embeddings=True,
    )  # fmt: skip


def _llama(name: str, hf: str, p: float, d: int, ffn: int, layers: int, heads: int, kv: int,
           vocab: int, model_type: str = "llama", tie: bool = False) -> ModelPreset:  # fmt: skip
    return _arch(
        name, _HF.format(hf), p, model_type=model_type, hidden_size=d, intermediate_size=ffn,
        num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=kv,
        vocab_size=vocab, tie_word_embeddings=tie,
    )  # fmt: skip


_NEMO_GPT3 = "https://github.com/NVIDIA/NeMo-Framework-Launcher/tree/main/launcher_scripts/conf/training/gpt3"

ARCHS: dict[str, ModelPreset] = {
    "mpt-1b": _mpt("1b", 2048, 24, 16, 1.32),
    "mpt-3b": _mpt("3b", 2560, 32, 20, 2.65),
    "mpt-7b": _mpt("7b", 4096, 32, 32, 6.66),
    "mpt-13b": _mpt("13b", 5120, 40, 40, 12.85),
    "mpt-30b": _mpt("30b", 7168, 48, 56, 29.98),
    "mpt-70b": _mpt("70b", 8192, 80, 64, 64.86),
    "llama-7b": _llama("llama-7b", "huggyllama/llama-7b", 6.74, 4096, 11008, 32, 32, 32, 32000),
    "llama-13b": _llama("llama-13b", "huggyllama/llama-13b", 13.0, 5120, 13824, 40, 40, 40, 32000),
    "llama-33b": _llama("llama-33b", "huggyllama/llama-30b", 32.5, 6656, 17920, 60, 52, 52, 32000),
    "llama-65b": _llama("llama-65b", "huggyllama/llama-65b", 65.2, 8192, 22016, 80, 64, 64, 32000),
    "llama2-7b": _llama("llama2-7b", "meta-llama/Llama-2-7b-hf", 6.74, 4096, 11008, 32, 32, 32, 32000),
    "llama2-13b": _llama("llama2-13b", "meta-llama/Llama-2-13b-hf", 13.0, 5120, 13824, 40, 40, 40, 32000),
    "llama2-34b": _llama("llama2-34b", "codellama/CodeLlama-34b-hf", 33.7, 8192, 22016, 48, 64, 8, 32000),
    "llama2-70b": _llama("llama2-70b", "meta-llama/Llama-2-70b-hf", 68.98, 8192, 28672, 80, 64, 8, 32000),
    "llama3-8b": _llama("llama3-8b", "meta-llama/Llama-3.1-8B", 8.03, 4096, 14336, 32, 32, 8, 128256),
    "llama3-70b": _llama("llama3-70b", "meta-llama/Llama-3.1-70B", 70.6, 8192, 28672, 80, 64, 8, 128256),
    "llama3-405b": _llama("llama3-405b", "meta-llama/Llama-3.1-405B", 405.9, 16384, 53248, 126, 128, 8, 128256),
    "qwen-1.8b": _llama("qwen-1.8b", "Qwen/Qwen-1_8B", 1.84, 2048, 5504, 24, 16, 16, 151936, "qwen"),
    "qwen-7b": _llama("qwen-7b", "Qwen/Qwen-7B", 7.72, 4096, 11008, 32, 32, 32, 151936, "qwen"),
    "qwen-14b": _llama("qwen-14b", "Qwen/Qwen-14B", 14.2, 5120, 13696, 40, 40, 40, 152064, "qwen"),
    "qwen-72b": _llama("qwen-72b", "Qwen/Qwen-72B", 72.3, 8192, 24576, 80, 64, 64, 152064, "qwen"),
    "gpt3-5b": _gpt("gpt3-5b", _NEMO_GPT3 + "/5b.yaml", 4096, 24, 32, 16384, 50304, 5.0),
    "gpt3-20b": _gpt("gpt3-20b", _NEMO_GPT3 + "/20b.yaml", 6144, 44, 48, 24576, 50304, 20.0),
    "gpt3-175b": _gpt("gpt3-175b", _NEMO_GPT3 + "/175b.yaml", 12288, 96, 96, 49152, 50304, 175.0),
    "mt-nlg-530b": _gpt(
        "mt-nlg-530b", SOURCES["mt-nlg"], 20480, 105, 128, 81920, 50272, 530.0
    ),
}  # fmt: skip

# ------------------------------------------------------------------------------------- cases

Metric = Literal["tokens_per_s_per_gpu", "hours", "gpu_hours"]


@dataclass(frozen=True)
class PerfCase:
    """One published figure and the settings it was measured with.

    ``workload`` holds :class:`engine.workload.Workload` fields (the model comes from ``arch``);
    ``metric`` says what ``measured`` is: tokens per second per GPU (throughput), wall-clock
    hours, or GPU-hours (both training time).
    """

    id: str
    source: str
    settings: str
    arch: str
    gpu: str
    gpus: int
    metric: Metric
    measured: float
    workload: dict[str, Any] = field(default_factory=dict)
    gpus_per_server: int = 8
    #: Inter-node NIC bandwidth per GPU the source states (None: not stated, the estimator's
    #: default applies).
    nic_gbps_per_gpu: float | None = None
    notes: str = ""

    @property
    def kind(self) -> Literal["throughput", "time"]:
        return "throughput" if self.metric == "tokens_per_s_per_gpu" else "time"

    @property
    def held_out(self) -> bool:
        """The split rule (module docstring): the case's source is held out."""
        return self.source in HELD_OUT_SOURCES


_MOSAIC_SETTINGS = (
    "MosaicML platform, llm-foundry MPT {m}, {gpus} x {gpu}, seq {seq}, micro-batch {mb}, "
    "grad-accum {ga}, {prec}, FSDP {shard}, activation checkpointing {ac}; Throughput (T/s/GPU)"
)
_MOSAIC_GPU = {"h100": "H100 80GB", "a100-80": "A100 80GB", "a100-40": "A100 40GB"}


def _mosaic(m: str, gpu: str, gpus: int, seq: int, mb: int, ga: int, prec: str, ac: bool,
            shard: str, tps: float) -> PerfCase:  # fmt: skip
    """A row of llm-foundry's benchmark tables.  FULL_SHARD = ZeRO-3, SHARD_GRAD_OP = ZeRO-2.
    A100 rows ran with 1600 Gb/s RoCE between nodes (table titles: 200 Gb/s per GPU)."""
    return PerfCase(
        id=f"mosaicml-{m}-{gpu}-{gpus}g-s{seq}-mb{mb}-ga{ga}-{prec}",
        source="mosaicml",
        settings=_MOSAIC_SETTINGS.format(
            m=m, gpus=gpus, gpu=_MOSAIC_GPU[gpu], seq=seq, mb=mb, ga=ga, prec=prec,
            shard=shard, ac=ac,
        ),
        arch=f"mpt-{m}",
        gpu=gpu,
        gpus=gpus,
        metric="tokens_per_s_per_gpu",
        measured=tps,
        workload=dict(
            method="pretrain", precision=prec, seq_len=seq, micro_batch=mb, grad_accum=ga,
            grad_checkpointing=ac, parallel="zero3" if shard == "FULL_SHARD" else "zero2",
        ),
        nic_gbps_per_gpu=200.0 if gpu.startswith("a100") else None,
    )  # fmt: skip


MOSAICML: tuple[PerfCase, ...] = (
    _mosaic("70b", "h100", 512, 2048, 8, 1, "bf16", True, "FULL_SHARD", 1007),
    _mosaic("70b", "h100", 256, 2048, 8, 1, "bf16", True, "FULL_SHARD", 1035),
    _mosaic("70b", "h100", 128, 2048, 8, 1, "bf16", True, "FULL_SHARD", 1058),
    _mosaic("30b", "h100", 512, 2048, 8, 1, "bf16", True, "FULL_SHARD", 2115),
    _mosaic("30b", "h100", 256, 2048, 8, 1, "bf16", True, "FULL_SHARD", 2148),
    _mosaic("30b", "h100", 128, 2048, 8, 1, "bf16", True, "FULL_SHARD", 2199),
    _mosaic("13b", "h100", 512, 2048, 16, 1, "bf16", True, "FULL_SHARD", 4952),
    _mosaic("13b", "h100", 256, 2048, 16, 1, "bf16", True, "FULL_SHARD", 4989),
    _mosaic("13b", "h100", 128, 2048, 16, 1, "bf16", True, "FULL_SHARD", 5080),
    _mosaic("7b", "h100", 512, 2048, 6, 1, "bf16", False, "FULL_SHARD", 9670),
    _mosaic("7b", "h100", 256, 2048, 6, 1, "bf16", False, "FULL_SHARD", 10119),
    _mosaic("7b", "h100", 128, 2048, 6, 1, "bf16", False, "FULL_SHARD", 10475),
    _mosaic("70b", "h100", 64, 2048, 8, 4, "bf16", True, "FULL_SHARD", 1039),
    _mosaic("70b", "h100", 32, 2048, 2, 16, "bf16", True, "FULL_SHARD", 882),
    _mosaic("30b", "h100", 8, 8192, 1, 21, "bf16", True, "FULL_SHARD", 1384),
    _mosaic("30b", "h100", 8, 4096, 1, 21, "bf16", True, "FULL_SHARD", 1802),
    _mosaic("30b", "h100", 32, 2048, 14, 3, "bf16", True, "FULL_SHARD", 2308),
    _mosaic("30b", "h100", 16, 2048, 10, 3, "bf16", True, "FULL_SHARD", 2263),
    _mosaic("30b", "h100", 8, 2048, 3, 21, "bf16", True, "FULL_SHARD", 2002),
    _mosaic("30b", "h100", 8, 1024, 6, 21, "bf16", True, "FULL_SHARD", 2084),
    _mosaic("13b", "h100", 8, 32768, 1, 3, "bf16", True, "FULL_SHARD", 1976),
    _mosaic("13b", "h100", 8, 16384, 3, 3, "bf16", True, "FULL_SHARD", 2985),
    _mosaic("13b", "h100", 8, 4096, 10, 3, "bf16", True, "FULL_SHARD", 4717),
    _mosaic("13b", "h100", 64, 2048, 2, 1, "bf16", False, "FULL_SHARD", 4800),
    _mosaic("13b", "h100", 32, 2048, 2, 1, "bf16", False, "FULL_SHARD", 4811),
    _mosaic("13b", "h100", 16, 2048, 2, 1, "bf16", False, "FULL_SHARD", 4767),
    _mosaic("13b", "h100", 8, 2048, 2, 1, "bf16", False, "FULL_SHARD", 4792),
    _mosaic("13b", "h100", 8, 1024, 40, 3, "bf16", True, "FULL_SHARD", 5502),
    _mosaic("7b", "h100", 8, 65536, 1, 2, "bf16", True, "FULL_SHARD", 1956),
    _mosaic("7b", "h100", 8, 32768, 2, 2, "bf16", True, "FULL_SHARD", 3318),
    _mosaic("7b", "h100", 8, 8192, 8, 2, "bf16", True, "FULL_SHARD", 6935),
    _mosaic("7b", "h100", 8, 4096, 16, 2, "bf16", True, "FULL_SHARD", 8611),
    _mosaic("7b", "h100", 8, 2048, 6, 1, "bf16", False, "FULL_SHARD", 10643),
    _mosaic("7b", "h100", 8, 1024, 64, 2, "bf16", True, "FULL_SHARD", 10203),
    _mosaic("3b", "h100", 8, 32768, 3, 6, "fp8", True, "FULL_SHARD", 5856),
    _mosaic("3b", "h100", 8, 8192, 3, 6, "fp8", False, "FULL_SHARD", 19146),
    _mosaic("3b", "h100", 8, 2048, 10, 6, "fp8", False, "FULL_SHARD", 30586),
    _mosaic("3b", "h100", 8, 512, 40, 6, "fp8", False, "FULL_SHARD", 36527),
    _mosaic("1b", "h100", 8, 32768, 1, 4, "fp8", False, "FULL_SHARD", 12580),
    _mosaic("1b", "h100", 8, 8192, 2, 4, "fp8", False, "FULL_SHARD", 32010),
    _mosaic("1b", "h100", 8, 512, 56, 4, "fp8", False, "FULL_SHARD", 70315),
    _mosaic("70b", "a100-80", 64, 2048, 8, 4, "bf16", True, "FULL_SHARD", 410),
    _mosaic("70b", "a100-80", 32, 2048, 2, 16, "bf16", True, "FULL_SHARD", 373),
    _mosaic("30b", "a100-80", 8, 8192, 1, 21, "bf16", True, "FULL_SHARD", 574),
    _mosaic("30b", "a100-80", 8, 4096, 1, 21, "bf16", True, "FULL_SHARD", 814),
    _mosaic("30b", "a100-80", 8, 2048, 3, 21, "bf16", True, "FULL_SHARD", 916),
    _mosaic("30b", "a100-80", 8, 1024, 6, 21, "bf16", True, "FULL_SHARD", 946),
    _mosaic("30b", "a100-80", 8, 512, 12, 21, "bf16", True, "FULL_SHARD", 967),
    _mosaic("13b", "a100-80", 8, 32768, 1, 3, "bf16", True, "FULL_SHARD", 1016),
    _mosaic("13b", "a100-80", 8, 16384, 3, 3, "bf16", True, "FULL_SHARD", 1431),
    _mosaic("13b", "a100-80", 8, 8192, 5, 3, "bf16", True, "FULL_SHARD", 1795),
    _mosaic("13b", "a100-80", 8, 4096, 10, 3, "bf16", True, "FULL_SHARD", 2060),
    _mosaic("13b", "a100-80", 8, 2048, 2, 3, "bf16", False, "FULL_SHARD", 2262),
    _mosaic("13b", "a100-80", 8, 1024, 40, 3, "bf16", True, "FULL_SHARD", 2330),
    _mosaic("7b", "a100-80", 8, 65536, 1, 2, "bf16", True, "FULL_SHARD", 1013),
    _mosaic("7b", "a100-80", 8, 32768, 2, 2, "bf16", True, "FULL_SHARD", 1672),
    _mosaic("7b", "a100-80", 8, 16384, 4, 2, "bf16", True, "FULL_SHARD", 2453),
    _mosaic("7b", "a100-80", 8, 8192, 8, 2, "bf16", True, "FULL_SHARD", 3206),
    _mosaic("7b", "a100-80", 8, 4096, 16, 2, "bf16", True, "FULL_SHARD", 3684),
    _mosaic("7b", "a100-80", 8, 2048, 6, 2, "bf16", False, "FULL_SHARD", 4641),
    _mosaic("7b", "a100-80", 8, 1024, 64, 2, "bf16", True, "FULL_SHARD", 4357),
    _mosaic("70b", "a100-40", 128, 2048, 4, 1, "bf16", True, "FULL_SHARD", 376),
    _mosaic("70b", "a100-40", 64, 2048, 2, 1, "bf16", True, "FULL_SHARD", 276),
    _mosaic("30b", "a100-40", 128, 2048, 6, 1, "bf16", True, "FULL_SHARD", 865),
    _mosaic("30b", "a100-40", 32, 2048, 4, 1, "bf16", True, "FULL_SHARD", 857),
    _mosaic("13b", "a100-40", 8, 8192, 1, 16, "bf16", True, "FULL_SHARD", 1407),
    _mosaic("13b", "a100-40", 8, 4096, 2, 16, "bf16", True, "FULL_SHARD", 1603),
    _mosaic("13b", "a100-40", 128, 2048, 16, 1, "bf16", True, "FULL_SHARD", 1972),
    _mosaic("13b", "a100-40", 64, 2048, 16, 1, "bf16", True, "FULL_SHARD", 1976),
    _mosaic("13b", "a100-40", 32, 2048, 14, 1, "bf16", True, "FULL_SHARD", 1998),
    _mosaic("13b", "a100-40", 16, 2048, 10, 1, "bf16", True, "FULL_SHARD", 1993),
    _mosaic("13b", "a100-40", 8, 2048, 4, 16, "bf16", True, "FULL_SHARD", 1668),
    _mosaic("13b", "a100-40", 8, 1024, 8, 16, "bf16", True, "FULL_SHARD", 1727),
    _mosaic("13b", "a100-40", 8, 512, 16, 16, "bf16", True, "FULL_SHARD", 1763),
    _mosaic("7b", "a100-40", 8, 16384, 1, 4, "bf16", True, "FULL_SHARD", 2249),
    _mosaic("7b", "a100-40", 8, 8192, 3, 4, "bf16", True, "FULL_SHARD", 2887),
    _mosaic("7b", "a100-40", 8, 4096, 6, 4, "bf16", True, "FULL_SHARD", 3366),
    _mosaic("7b", "a100-40", 128, 2048, 18, 1, "bf16", True, "FULL_SHARD", 3623),
    _mosaic("7b", "a100-40", 64, 2048, 18, 1, "bf16", True, "FULL_SHARD", 3665),
    _mosaic("7b", "a100-40", 32, 2048, 18, 1, "bf16", True, "FULL_SHARD", 3725),
    _mosaic("7b", "a100-40", 16, 2048, 16, 1, "bf16", True, "FULL_SHARD", 3645),
    _mosaic("7b", "a100-40", 8, 2048, 12, 4, "bf16", True, "FULL_SHARD", 3679),
    _mosaic("7b", "a100-40", 8, 1024, 24, 4, "bf16", True, "FULL_SHARD", 3854),
    _mosaic("7b", "a100-40", 8, 512, 48, 4, "bf16", True, "FULL_SHARD", 3895),
)


# ---- torchtitan (PyTorch team, Dec 2024 / Jun 2025) on Grand Teton: 8 H100 per host on NVLink
# (NVSwitch), 400 Gb/s RDMA per GPU, H100 SXM with 96 GB HBM2e at a 500 W power limit (so below
# the SXM5 peak the catalog record gives; the cases use the catalog H100 SXM5 all the same, as a
# pre-sales engineer would).  Sequence length 8192 = torchtitan's llama3_8b/70b train configs.
# TPS/GPU "read at the 90th iteration".  Float8 rows: torch.compile + float8 linears.
_TT = "torchtitan Llama 3.1 {m}, {g} x H100, {par}, local batch {mb}, seq {seq}, {tech}"


#: The trainer (and era) each torchtitan source ran: the Dec 2024 benchmark at commit 9dec370,
#: the June 2025 ones (async TP, Trainy) on current torchtitan.
_TT_TRAINER = {
    "torchtitan": "torchtitan@2024-12",
    "torchtitan-asynctp": "torchtitan",
    "trainy": "torchtitan",
}


def _tt_checkpoint_mode(tech: str) -> dict[str, str]:
    """The recompute the row states ("full AC", "selective AC", "per-op SAC"); none stated:
    the profile's."""
    if "full AC" in tech:
        return {"checkpoint_mode": "full"}
    if "selective AC" in tech or "SAC" in tech:
        return {"checkpoint_mode": "selective"}
    return {}


def _tt(src: str, m: str, g: int, mb: int, seq: int, prec: str, tps: float, tp: int = 1,
        tech: str = "", par: str = "FSDP", gpu: str = "h100-gt") -> PerfCase:  # fmt: skip
    return PerfCase(
        # The id names the GPU as first recorded ("h100"): ids fix the split, so they never change.
        id=f"{src}-{m}-{gpu.removesuffix('-gt')}-{g}g-tp{tp}-s{seq}-mb{mb}-{prec}",
        source=src,
        settings=_TT.format(m=m, g=g, par=par, mb=mb, seq=seq, tech=tech),
        arch=f"llama3-{m.lower()}",
        gpu=gpu,
        gpus=g,
        metric="tokens_per_s_per_gpu",
        measured=tps,
        workload=dict(
            method="pretrain",
            precision=prec,
            seq_len=seq,
            micro_batch=mb,
            tp=tp,
            parallel="zero3",
            grad_checkpointing=True,
            trainer=_TT_TRAINER[src],
            **_tt_checkpoint_mode(tech),
        ),
        nic_gbps_per_gpu=400.0,
    )


TORCHTITAN: tuple[PerfCase, ...] = (
    _tt("torchtitan", "8B", 8, 2, 8192, "bf16", 5762, tech="eager, selective AC (Table 1)"),
    _tt("torchtitan", "8B", 8, 2, 8192, "fp8", 8532, tech="compile + Float8 (Table 1)"),
    _tt("torchtitan", "8B", 8, 1, 32768, "fp8", 3890, tech="compile + Float8, full AC (Table 2)"),
    _tt("torchtitan", "8B", 128, 2, 8192, "bf16", 5605, tech="eager, selective AC (Table 3)"),
    _tt("torchtitan", "8B", 128, 2, 8192, "fp8", 8380, tech="compile + Float8 (Table 3)"),
    _tt("torchtitan", "70B", 256, 16, 8192, "fp8", 829, tp=8, par="FSDP 32 x TP 8",
        tech="compile + Float8, full AC (Table 4, 2D)"),
    _tt("torchtitan-asynctp", "70B", 256, 16, 8192, "bf16", 597.3, tp=8, par="FSDP 32 x TP 8",
        tech="compile, full AC, vanilla TP"),
    _tt("torchtitan-asynctp", "70B", 256, 16, 8192, "fp8", 809.8, tp=8, par="FSDP 32 x TP 8",
        tech="compile, full AC, vanilla TP, float8 tensorwise"),
    _tt("torchtitan-asynctp", "8B", 64, 12, 8192, "bf16", 4378, tp=8, par="FSDP 8 x TP 8",
        tech="compile, per-op SAC, vanilla TP"),
    _tt("torchtitan-asynctp", "8B", 64, 12, 8192, "fp8", 5078.1, tp=8, par="FSDP 8 x TP 8",
        tech="compile, per-op SAC, vanilla TP, float8 tensorwise"),
    # Trainy on WhiteFiber, June 2025: 8 H200 per host on NVLink, 400 Gb/s CX-7 per GPU;
    # llama3_8b.toml (seq 8192), local batch 2, compile, float8 with FSDP float8 all-gather.
    _tt("trainy", "8B", 32, 2, 8192, "fp8", 10938, gpu="h200", tech="compile + float8"),
    _tt("trainy", "8B", 64, 2, 8192, "fp8", 10753, gpu="h200", tech="compile + float8"),
)  # fmt: skip

# ---- NVIDIA NeMo 24.07 performance summary, DGX-H100 (8 x H100 SXM on NVSwitch, 8 x 400 Gb/s
# InfiniBand per node), FP8 (Transformer Engine).  GA = GBS / (MBS x DP), DP = GPUs / (TP x PP
# x CP).  Pipeline and context parallelism have no slotwise knob: PP x CP is folded into the
# data-parallel count (each GPU still does 1/(TP x PP x CP) of the model FLOPs per token, which
# is what the time model needs), so the per-GPU token rate compares like for like.
_NEMO = (
    "NeMo 24.07, DGX-H100, FP8, {g} GPUs, GBS {gbs}, MBS {mb}, seq {seq}, TP {tp} PP {pp} CP {cp}"
)


def _nemo(arch: str, g: int, gbs: int, mb: int, seq: int, tp: int, pp: int, cp: int,
          tps: float, days: float | None = None, method: str = "pretrain",
          src: str = "nemo-24.07", gpu: str = "h100", mins: float | None = None,
          prec: str = "fp8") -> tuple[PerfCase, ...]:  # fmt: skip
    dp = g // (tp * pp * cp)
    ga = max(1, gbs // (mb * dp))
    settings = _NEMO.format(g=g, gbs=gbs, mb=mb, seq=seq, tp=tp, pp=pp, cp=cp)
    if src != "nemo-24.07":
        settings = settings.replace(
            "NeMo 24.07, DGX-H100", f"Megatron-Bridge 25.11, DGX-{gpu.upper()}"
        )
    wl: dict[str, Any] = dict(
        method=method,
        precision=prec,
        seq_len=seq,
        micro_batch=mb,
        grad_accum=ga,
        tp=tp,
        parallel="zero1",
        grad_checkpointing=False,
        trainer="nemo",  # NeMo / Megatron-Bridge: Transformer Engine's cuDNN attention
    )
    if method == "lora":
        wl.update(lora_rank=32, lora_targets=("q", "k", "v"))
    out = [
        PerfCase(
            id=f"{src}-{arch}-{gpu}-{g}g-{method}-{prec}",
            source=src,
            settings=settings,
            arch=arch,
            gpu=gpu,
            gpus=g,
            metric="tokens_per_s_per_gpu",
            measured=tps,
            workload=wl,
            nic_gbps_per_gpu=400.0,
            notes="distributed optimizer (ZeRO-1); PP x CP folded into DP; NeMo LoRA targets "
            "the fused QKV projection, rank 32 (framework defaults)"
            if method == "lora"
            else "distributed optimizer (ZeRO-1); PP x CP folded into DP",
        )
    ]
    if days is not None:  # "Est. time to train in days (10T tokens, 1K GPUs)"
        out.append(
            PerfCase(
                id=f"{src}-{arch}-{gpu}-1024g-10T-days",
                source=src,
                settings=settings + "; est. time to train 10T tokens on 1K GPUs",
                arch=arch,
                gpu=gpu,
                gpus=1024,
                metric="hours",
                measured=days * 24,
                workload={**wl, "tokens": 10e12},
                nic_gbps_per_gpu=400.0,
                notes="NVIDIA's extrapolation of the measured rate to 1,024 GPUs at the same "
                "per-GPU batch",
            )
        )
    if mins is not None:  # "Est. time to finetune in mins (10M tokens)"
        out.append(
            PerfCase(
                id=f"{src}-{arch}-{gpu}-{g}g-{method}-10M-mins",
                source=src,
                settings=settings + f"; {method}, est. time to fine-tune 10M tokens",
                arch=arch,
                gpu=gpu,
                gpus=g,
                metric="hours",
                measured=mins / 60,
                workload={**wl, "tokens": 10e6},
                nic_gbps_per_gpu=400.0,
            )
        )
    return tuple(out)


NEMO: tuple[PerfCase, ...] = (
    *_nemo("gpt3-5b", 64, 2048, 4, 2048, 1, 1, 1, 22521, days=5),
    *_nemo("gpt3-20b", 64, 256, 2, 2048, 2, 1, 1, 5851, days=19),
    *_nemo("gpt3-175b", 512, 2048, 2, 2048, 4, 8, 1, 782, days=145),
    *_nemo("llama2-7b", 8, 128, 1, 4096, 1, 1, 1, 16847, days=7),
    *_nemo("llama2-13b", 16, 128, 1, 4096, 1, 4, 1, 8646, days=13),
    *_nemo("llama2-70b", 64, 128, 1, 4096, 4, 4, 1, 1707, days=66),
    *_nemo("llama3-8b", 8, 128, 1, 8192, 1, 1, 2, 12036, days=9),
    *_nemo("llama3-70b", 64, 128, 1, 8192, 4, 4, 2, 1533, days=74),
    # Fine-tuning, SQuAD packed to 4096, FP8.
    *_nemo("llama2-7b", 8, 32, 1, 4096, 1, 1, 1, 17120, method="full", mins=1.2),
    *_nemo("llama2-13b", 8, 32, 1, 4096, 1, 4, 1, 9741, method="full", mins=2.1),
    *_nemo("llama2-70b", 16, 32, 1, 4096, 4, 4, 1, 1833, method="full", mins=5.7),
    *_nemo("llama2-7b", 8, 32, 1, 4096, 1, 1, 1, 25206, method="lora", mins=0.8),
    *_nemo("llama2-13b", 8, 32, 1, 4096, 1, 1, 1, 14161, method="lora", mins=1.5),
    *_nemo("llama2-70b", 8, 32, 1, 4096, 2, 4, 1, 2557, method="lora", mins=8.1),
    # Megatron-Bridge 25.11 (NeMo container 25.11): DGX-H100 and DGX-B200, FP8 current scaling.
    *_nemo("llama3-8b", 8, 128, 1, 8192, 1, 1, 1, 14451, src="megatron-bridge-25.11"),
    *_nemo("llama3-70b", 64, 128, 1, 8192, 4, 8, 1, 1602, src="megatron-bridge-25.11"),
    *_nemo("llama3-405b", 1024, 512, 1, 8192, 8, 8, 2, 292, src="megatron-bridge-25.11"),
    *_nemo("llama3-8b", 8, 128, 2, 8192, 1, 1, 1, 30624, src="megatron-bridge-25.11",
           gpu="b200"),
    *_nemo("llama3-405b", 128, 64, 1, 8192, 4, 8, 2, 661, src="megatron-bridge-25.11",
           gpu="b200"),
)  # fmt: skip

# ---- Qwen (Alibaba), README "Profiling of Memory and Speed": one A100-SXM4-80G (or as the row
# says), CUDA 11.8, PyTorch 2.0, FlashAttention 2, batch 1 x gradient accumulation 8, bf16,
# Hugging Face Trainer with gradient checkpointing (finetune/finetune_lora_single_gpu.sh).  LoRA
# r=64 on every linear (finetune.py: c_attn, c_proj, w1, w2); Q-LoRA = NF4 base; full-parameter
# and the multi-GPU LoRA runs use DeepSpeed (ZeRO-3 for full and 72B, ZeRO-2 for LoRA
# multinode, as the scripts ship).  Speed is printed as s/it; one iteration = 8 sequences per
# GPU, so tokens/s/GPU = 8 x seq / (s/it).  Lengths 256, 1024, 4096 and 8192 of the six columns.
_QWEN_SEQ = (256, 1024, 4096, 8192)


def _qwen(m: str, method: str, gpus: int, s_per_it: tuple[float, ...], label: str,
          parallel: str | None = None, per_server: int = 8) -> tuple[PerfCase, ...]:  # fmt: skip
    out = []
    for seq, s in zip(_QWEN_SEQ, s_per_it, strict=False):
        wl: dict[str, Any] = dict(
            method=method,
            seq_len=seq,
            micro_batch=1,
            grad_accum=8,
            grad_checkpointing=True,
            trainer="qwen-v1",
        )
        if method in ("lora", "qlora"):
            wl.update(lora_rank=64, lora_targets=("q", "k", "v", "o", "gate", "up", "down"))
        if parallel:
            wl["parallel"] = parallel
        out.append(
            PerfCase(
                id=f"qwen-{m}-{label}-{gpus}g-s{seq}",
                source="qwen",
                settings=f"Qwen-{m.upper()} {label}, {gpus} x A100-SXM4-80G, seq {seq}, batch 1 "
                f"x GA 8: {s} s/it",
                arch=f"qwen-{m}",
                gpu="a100-80",
                gpus=gpus,
                metric="tokens_per_s_per_gpu",
                measured=8 * seq / s,
                workload=wl,
                gpus_per_server=per_server,
            )
        )
    return tuple(out)


QWEN: tuple[PerfCase, ...] = (
    *_qwen("1.8b", "lora", 1, (1.0, 1.1, 3.3, 6.8), "lora"),
    *_qwen("1.8b", "qlora", 1, (1.4, 1.4, 3.4, 6.5), "qlora"),
    *_qwen("1.8b", "full", 1, (2.1, 2.2, 2.8, 5.6), "full"),
    *_qwen("7b", "lora", 1, (1.2, 2.8, 10.1, 21.3), "lora"),
    *_qwen("7b", "qlora", 1, (3.0, 3.5, 11.6, 22.3), "qlora"),
    *_qwen("7b", "full", 2, (4.0, 4.5), "full", parallel="zero3"),
    *_qwen("7b", "lora", 4, (2.09, 5.17, 18.1, 37.4), "lora-multinode", parallel="zero2",
           per_server=2),
    *_qwen("14b", "lora", 1, (1.6, 4.4, 17.0, 36.0), "lora"),
    *_qwen("14b", "qlora", 1, (5.3, 8.2, 20.1, 38.3), "qlora"),
    *_qwen("72b", "lora", 4, (17.6, 29.4, 83.4, 161.5), "lora-zero3", parallel="zero3"),
    *_qwen("72b", "qlora", 1, (27.4, 41.4, 97.7, 179.8), "qlora"),
)  # fmt: skip

# ---- torchtune README "Memory and training speed": batch 2, no gradient accumulation, packed to
# 2048, torch.compile; "Tokens/sec" measured over one epoch.  The 8-GPU figures are totals (per
# GPU they would exceed the A100's peak), so they are divided by 8.  Configs: llama3_1/8B_*
# single-device recipes (LoRA r=8 on q, v, output proj and the MLP; full fine-tune with
# bitsandbytes PagedAdamW8bit, bf16 weights, no fp32 master), 70B_lora (r=16), 70B_full (CPU
# offload of the optimizer), 405B_qlora (r=16); activation checkpointing on in all of them.
_TUNE_TARGETS = ("q", "v", "o", "gate", "up", "down")


def _tune(m: str, method: str, gpu: str, gpus: int, total_tps: float, **extra: Any) -> PerfCase:
    wl: dict[str, Any] = dict(
        method=method,
        seq_len=2048,
        micro_batch=2,
        grad_checkpointing=True,
        compile=True,  # the README's note: "torch compile enabled" for every row
        trainer="torchtune",  # its profile: bf16 weights and optimizer state, no fp32 master
    )
    if method in ("lora", "qlora"):
        wl.update(lora_rank=8 if m == "8b" else 16, lora_targets=_TUNE_TARGETS)
    wl.update(extra)
    return PerfCase(
        id=f"torchtune-{m}-{method}-{gpu}-{gpus}g",
        source="torchtune",
        settings=f"torchtune Llama 3.1 {m.upper()} {method} on {gpus} x {gpu}, batch 2, packed "
        f"2048, compile: {total_tps:g} tokens/s",
        arch=f"llama3-{m}",
        gpu=gpu,
        gpus=gpus,
        metric="tokens_per_s_per_gpu",
        measured=total_tps / gpus,
        workload=wl,
    )


TORCHTUNE: tuple[PerfCase, ...] = (
    _tune("8b", "full", "rtx4090", 1, 1650, optimizer="paged-adamw-8bit"),
    _tune("8b", "full", "rtx-a6000", 1, 2579, optimizer="paged-adamw-8bit"),
    _tune("8b", "lora", "rtx4090", 1, 3083),
    _tune("8b", "lora", "rtx-a6000", 1, 4699),
    _tune("8b", "qlora", "rtx4090", 1, 2413),
    _tune("70b", "full", "a100-80", 8, 1568, offload="optimizer", parallel="zero3"),
    _tune("70b", "lora", "a100-80", 8, 3497, parallel="zero3"),
    _tune("405b", "qlora", "a100-80", 8, 653, parallel="zero3"),
)

# ---- Published pre-training GPU-hours and times.
# Llama 1 (Touvron et al. 2023, arXiv:2302.13971): section 2.4 "our code processes around 380
# tokens/sec/GPU on 2048 A100 GPU with 80GB of RAM ... 1.4T tokens takes approximately 21 days"
# (65B); Table 15 GPU-hours: 7B 82,432; 13B 135,168; 33B 530,432; 65B 1,022,362; 1.0T tokens for
# 7B/13B and 1.4T for 33B/65B (section 2.1); context 2048.
# Llama 2 (Touvron et al. 2023, arXiv:2307.09288) Table 2: 7B 184,320; 13B 368,640; 34B
# 1,038,336; 70B 1,720,320 A100-80GB GPU-hours; 2T tokens, context 4096.
# Llama 3.1 model card: 8B 1.46M, 70B 7.0M, 405B 30.84M H100-80GB GPU-hours; ~15T tokens (405B:
# 15.6T, Llama 3 paper section 3.3, on up to 16,384 H100s), context 8192.
# GPU counts other than the Llama 1 65B run and Llama 3 405B are not published: 2,048 is assumed
# (it only matters through the multi-node efficiency).  GPU-hours cover the whole run, restarts
# and evaluations included, which the time model does not see.


def _hours(cid: str, src: str, arch: str, gpu: str, tokens: float, seq: int, value: float,
           metric: Metric = "gpu_hours", gpus: int = 2048, settings: str = "",
           **extra: Any) -> PerfCase:  # fmt: skip
    wl: dict[str, Any] = dict(method="pretrain", tokens=tokens, seq_len=seq, micro_batch=1)
    wl.update(extra)
    return PerfCase(
        id=cid,
        source=src,
        settings=settings
        or f"{arch} pre-training, {tokens:.3g} tokens, "
        f"context {seq}, {gpu}: {value:,.0f} {metric.replace('_', '-')}",
        arch=arch,
        gpu=gpu,
        gpus=gpus,
        metric=metric,
        measured=value,
        workload=wl,
        nic_gbps_per_gpu=None,
    )


PRETRAIN_HOURS: tuple[PerfCase, ...] = (
    _hours("llama1-7b-gpuh", "llama1", "llama-7b", "a100-80", 1.0e12, 2048, 82_432),
    _hours("llama1-13b-gpuh", "llama1", "llama-13b", "a100-80", 1.0e12, 2048, 135_168),
    _hours("llama1-33b-gpuh", "llama1", "llama-33b", "a100-80", 1.4e12, 2048, 530_432),
    _hours("llama1-65b-gpuh", "llama1", "llama-65b", "a100-80", 1.4e12, 2048, 1_022_362),
    _hours("llama1-65b-21days", "llama1", "llama-65b", "a100-80", 1.4e12, 2048, 21 * 24,
           metric="hours", settings="65B on 2048 A100-80GB, 1.4T tokens: about 21 days"),
    _hours("llama2-7b-gpuh", "llama2", "llama2-7b", "a100-80", 2e12, 4096, 184_320),
    _hours("llama2-13b-gpuh", "llama2", "llama2-13b", "a100-80", 2e12, 4096, 368_640),
    _hours("llama2-34b-gpuh", "llama2", "llama2-34b", "a100-80", 2e12, 4096, 1_038_336),
    _hours("llama2-70b-gpuh", "llama2", "llama2-70b", "a100-80", 2e12, 4096, 1_720_320),
    _hours("llama31-8b-gpuh", "llama3.1", "llama3-8b", "h100", 15e12, 8192, 1.46e6),
    _hours("llama31-70b-gpuh", "llama3.1", "llama3-70b", "h100", 15e12, 8192, 7.0e6),
    _hours("llama31-405b-gpuh", "llama3.1", "llama3-405b", "h100", 15.6e12, 8192, 30.84e6,
           gpus=16384, tp=8),
)  # fmt: skip

OTHER_THROUGHPUT: tuple[PerfCase, ...] = (
    PerfCase(
        id="llama1-65b-380tps",
        source="llama1",
        settings="65B on 2048 A100-80GB: around 380 tokens/sec/GPU (section 2.4)",
        arch="llama-65b",
        gpu="a100-80",
        gpus=2048,
        metric="tokens_per_s_per_gpu",
        measured=380,
        workload=dict(method="pretrain", seq_len=2048, micro_batch=1),
    ),
    # MT-NLG 530B (Smith et al. 2022, arXiv:2201.11990, section 2.4): global batch 1920 x 2048
    # tokens on 280 / 350 / 420 DGX A100 servers, 60.1 / 50.2 / 44.4 s per iteration; 8-way
    # tensor x 35-way pipeline parallelism, 8 x 200 Gb/s HDR InfiniBand per server (Selene).
    *(
        PerfCase(
            id=f"mt-nlg-530b-{g}g",
            source="mt-nlg",
            settings=f"MT-NLG 530B, {g} A100, GBS 1920 x 2048, TP 8 x PP 35: {s} s/iteration",
            arch="mt-nlg-530b",
            gpu="a100-80",
            gpus=g,
            metric="tokens_per_s_per_gpu",
            measured=1920 * 2048 / s / g,
            workload=dict(
                method="pretrain",
                seq_len=2048,
                micro_batch=1,
                tp=8,
                parallel="zero1",
                grad_accum=1920 // (g // 8),
            ),
            nic_gbps_per_gpu=200.0,
            notes="PP 35 folded into DP; GA = 1920 / (GPUs / 8) sequences per model replica",
        )
        for g, s in ((2240, 60.1), (2800, 50.2), (3360, 44.4))
    ),
)

MLPERF: tuple[PerfCase, ...] = (
    # MLPerf Training v4.0 llama2_70b_lora, one 8 x H100 node (Sustainable Metal Cloud): 29:06
    # min.  GovReport packed to 8192, global batch 8, LoRA r=16 on attention; MLCommons RCP mean
    # 3,178.67 samples to target.  NVIDIA's NeMo implementation trains in FP8.
    PerfCase(
        id="mlperf40-llama2-70b-lora-8xh100",
        source="mlperf-4.0",
        settings="MLPerf Training v4.0 llama2_70b_lora, 8 x H100 SXM, FP8, seq 8192, GBS 8",
        arch="llama2-70b",
        gpu="h100",
        gpus=8,
        metric="hours",
        measured=29.10 / 60,
        workload=dict(
            method="lora",
            precision="fp8",
            tokens=3178.67 * 8192,
            seq_len=8192,
            lora_rank=16,
            lora_targets=("q", "k", "v", "o"),
            grad_checkpointing=False,
            tp=4,
            trainer="nemo",
        ),
    ),
)


def _mlperf41(gpu: str, minutes: float, note: str) -> PerfCase:
    """MLPerf Training v4.1 llama2_70b_lora on one 8-GPU NVIDIA system (MLCommons results as
    reported in the v4.1 round write-up): same benchmark settings as the v4.0 case above."""
    return PerfCase(
        id=f"mlperf41-llama2-70b-lora-8x{gpu}",
        source="mlperf-4.1",
        settings=f"MLPerf Training v4.1 llama2_70b_lora, 8 x {gpu.upper()}, FP8: {minutes} min"
        + note,
        arch="llama2-70b",
        gpu=gpu,
        gpus=8,
        metric="hours",
        measured=minutes / 60,
        workload=dict(
            method="lora",
            precision="fp8",
            tokens=3178.67 * 8192,
            seq_len=8192,
            lora_rank=16,
            lora_targets=("q", "k", "v", "o"),
            grad_checkpointing=False,
            tp=4,
            trainer="nemo",
        ),
    )


MLPERF = MLPERF + (
    _mlperf41("b200", 12.958, " (DGX B200, Xeon Platinum 8570)"),
    _mlperf41("h200", 24.0, " (the write-up says 'approximately 24 minutes')"),
)

CASES: tuple[PerfCase, ...] = (
    MOSAICML + TORCHTITAN + NEMO + QWEN + TORCHTUNE + PRETRAIN_HOURS + OTHER_THROUGHPUT + MLPERF
)


def _held_out_sources(cases: tuple[PerfCase, ...]) -> frozenset[str]:
    """Every second source, by sha256 of its key, within the time and the throughput-only
    strata (module docstring)."""
    timed = {c.source for c in cases if c.kind == "time"}
    others = {c.source for c in cases} - timed
    out: set[str] = set()
    for stratum in (timed, others):
        ordered = sorted(stratum, key=lambda s: hashlib.sha256(s.encode()).hexdigest())
        out.update(ordered[1::2])
    return frozenset(out)


HELD_OUT_SOURCES = _held_out_sources(CASES)


def fitting() -> tuple[PerfCase, ...]:
    return tuple(c for c in CASES if not c.held_out)


def held_out() -> tuple[PerfCase, ...]:
    return tuple(c for c in CASES if c.held_out)


def case_gpu(case: PerfCase) -> Gpu:
    """The case's GPU record: catalog GPUs from the bundled catalog, the rest from EXTRA_GPUS."""
    if case.gpu in EXTRA_GPUS:
        return EXTRA_GPUS[case.gpu]
    from slotwise.parts.catalog import load_catalog

    return load_catalog().gpus[CATALOG_GPUS[case.gpu]]


def predict(case: PerfCase) -> float | None:
    """slotwise's figure for the case's metric, with the tool's defaults for everything the
    case does not state."""
    from slotwise.engine.estimate import estimate
    from slotwise.engine.estimate.links import default_links
    from slotwise.engine.workload import Workload

    gpu = case_gpu(case)
    wl = Workload(**case.workload)
    links = default_links(gpu, case.gpus_per_server, nic_gbps_per_gpu=case.nic_gbps_per_gpu)
    est = estimate(
        wl, gpu, case.gpus, arch=ARCHS[case.arch], gpus_per_server=case.gpus_per_server,
        links=links,
    )  # fmt: skip
    if case.metric == "tokens_per_s_per_gpu":
        return est.train_tokens_per_s_per_gpu
    if est.train_hours is None:
        return None
    if case.metric == "gpu_hours":
        return est.train_hours * est.tp * est.dp
    return est.train_hours
