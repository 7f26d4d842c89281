"""Published, *measured* peak GPU memory figures and the architectures they were measured on.

Used by tests/test_estimate_measured.py and bench/measure_memory.py (validation data, not used by
the estimator itself).  Every case names its
source and the settings the source states; where a setting is the source's documented default
(rather than printed next to the figure) the note says so.  Architectures are the numbers of each
model's Hugging Face config.json.

Units: litgpt prints ``torch.cuda.max_memory_allocated() / 1e9`` ("GB" = 1e9 bytes); torchtune's
README prints GiB.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.workload import Workload
from parts.schema import Gpu, ModelPreset

GB = 1e9
GIB = 1024**3

LITGPT_RESOURCE_TABLES = (
    "https://github.com/Lightning-AI/litgpt/blob/main/tutorials/resource-tables.md"
)
LITGPT_CONFIG_HUB = "https://github.com/Lightning-AI/litgpt/blob/main/config_hub/finetune/README.md"
TORCHTUNE_README = (
    "https://github.com/pytorch/torchtune/blob/main/README.md#memory-and-training-speed"
)


def _arch(sku: str, hf: str, params_b: float, **cfg) -> ModelPreset:
    return ModelPreset(
        sku=sku,
        name=sku,
        source=f"https://huggingface.co/{hf}/blob/main/config.json",
        model_type=cfg.pop("model_type", "llama"),
        published_params_b=params_b,
        hf_id=hf,
        **cfg,
    )


LLAMA2_7B = _arch(
    "llama-2-7b", "meta-llama/Llama-2-7b-hf", 6.74, hidden_size=4096, intermediate_size=11008,
    num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=32, vocab_size=32000,
)  # fmt: skip
LLAMA2_13B = _arch(
    "llama-2-13b", "meta-llama/Llama-2-13b-hf", 13.0, hidden_size=5120, intermediate_size=13824,
    num_hidden_layers=40, num_attention_heads=40, num_key_value_heads=40, vocab_size=32000,
)  # fmt: skip
LLAMA3_8B = _arch(
    "llama-3-8b", "meta-llama/Meta-Llama-3-8B", 8.03, hidden_size=4096, intermediate_size=14336,
    num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8, vocab_size=128256,
)  # fmt: skip
LLAMA31_70B = _arch(
    "llama-3.1-70b", "meta-llama/Llama-3.1-70B", 70.6, hidden_size=8192,
    intermediate_size=28672, num_hidden_layers=80, num_attention_heads=64,
    num_key_value_heads=8, vocab_size=128256,
)  # fmt: skip
TINYLLAMA = _arch(
    "tinyllama-1.1b", "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T", 1.1,
    hidden_size=2048, intermediate_size=5632, num_hidden_layers=22, num_attention_heads=32,
    num_key_value_heads=4, vocab_size=32000,
)  # fmt: skip
GEMMA_2B = _arch(
    "gemma-2b", "google/gemma-2b", 2.51, model_type="gemma", hidden_size=2048,
    intermediate_size=16384, num_hidden_layers=18, num_attention_heads=8, num_key_value_heads=1,
    head_dim=256, vocab_size=256000, tie_word_embeddings=True,
)  # fmt: skip

# The GPU only sets the capacity for the fit verdict; memory totals do not depend on it.
A100_80GB = Gpu(
    sku="A100-SXM4-80GB",
    name="NVIDIA A100 SXM4 80GB",
    source="https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
    memory_gb=80,
    memory_bw_gbs=2039,
    bf16_tflops_dense=312,
    form="sxm",
)


@dataclass(frozen=True)
class MeasuredCase:
    id: str
    source: str
    settings: str  # what the source states about the run
    arch: ModelPreset
    workload: dict
    gpus: int
    measured_bytes: float
    notes: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)

    def make_workload(self) -> Workload:
        return Workload(**self.workload)


# litgpt 2023 table: A100-SXM4-40GB, bf16-true (weights, grads and AdamW states in bf16, no fp32
# master), finetune/lora.py defaults of that commit: r=8 on query and value, dropout 0.05, no
# activation checkpointing; the table states Alpaca's longest Llama 2 sample is 1304 tokens
# (batches are padded to their longest sample, so the peak is at 1304).
_LIT23 = dict(
    master_weights=False, grad_checkpointing=False, lora_rank=8, lora_targets=("q", "v"),
    seq_len=1304,
)  # fmt: skip
# litgpt config hub: A10G, bf16-true, Alpaca2k truncated at max_seq_length 512, no activation
# checkpointing (litgpt finetune does not enable it).
_HUB = dict(master_weights=False, grad_checkpointing=False, seq_len=512)

CASES: tuple[MeasuredCase, ...] = (
    MeasuredCase(
        "litgpt23-llama2-7b-lora-mb1", LITGPT_RESOURCE_TABLES,
        "Finetuning with LoRA on 1 GPU: 7B Llama 2, no quantization, micro-batch 1",
        LLAMA2_7B, dict(method="lora", micro_batch=1, **_LIT23), 1, 21.30 * GB,
    ),
    MeasuredCase(
        "litgpt23-llama2-7b-lora-mb2", LITGPT_RESOURCE_TABLES,
        "Finetuning with LoRA on 1 GPU: 7B Llama 2, no quantization, micro-batch 2",
        LLAMA2_7B, dict(method="lora", micro_batch=2, **_LIT23), 1, 29.07 * GB,
    ),
    MeasuredCase(
        "litgpt23-llama2-7b-qlora", LITGPT_RESOURCE_TABLES,
        "Finetuning with LoRA on 1 GPU: 7B Llama 2, bnb.nf4-dq, micro-batch 1",
        LLAMA2_7B, dict(method="qlora", micro_batch=1, **_LIT23), 1, 13.84 * GB,
        tags=("qlora",),
    ),
    MeasuredCase(
        "litgpt23-llama2-13b-lora", LITGPT_RESOURCE_TABLES,
        "Finetuning with LoRA on 1 GPU: 13B Llama 2, no quantization, micro-batch 1",
        LLAMA2_13B, dict(method="lora", micro_batch=1, **_LIT23), 1, 38.12 * GB,
    ),
    MeasuredCase(
        "litgpt23-llama2-13b-qlora", LITGPT_RESOURCE_TABLES,
        "Finetuning with LoRA on 1 GPU: 13B Llama 2, bnb.nf4-dq, micro-batch 1",
        LLAMA2_13B, dict(method="qlora", micro_batch=1, **_LIT23), 1, 22.55 * GB,
        tags=("qlora",),
    ),
    MeasuredCase(
        "litgpt23-llama2-7b-inference", LITGPT_RESOURCE_TABLES,
        "Single-GPU Inference: 7B Llama 2, no quantization",
        LLAMA2_7B, dict(method="inference", seq_len=64, micro_batch=1), 1, 13.52 * GB,
        notes="context: a short prompt + generate.py's default 50 new tokens (64 assumed)",
    ),
    MeasuredCase(
        "litgpt23-llama2-13b-inference", LITGPT_RESOURCE_TABLES,
        "Single-GPU Inference: 13B Llama 2, no quantization",
        LLAMA2_13B, dict(method="inference", seq_len=64, micro_batch=1), 1, 26.21 * GB,
        notes="context: a short prompt + generate.py's default 50 new tokens (64 assumed)",
    ),
    MeasuredCase(
        "litgpt-hub-llama2-7b-lora", LITGPT_CONFIG_HUB,
        "llama-2-7b/lora.yaml on 1xA10G: r=32 on query+value, dropout 0.05, seq 512, mb 2",
        LLAMA2_7B,
        dict(method="lora", micro_batch=2, lora_rank=32, lora_targets=("q", "v"), **_HUB),
        1, 19.77 * GB,
    ),
    MeasuredCase(
        "litgpt-hub-llama3-8b-lora", LITGPT_CONFIG_HUB,
        "llama-3-8b/lora.yaml on 1xA10G: r=32 on query+value, dropout 0.05, seq 512, mb 1",
        LLAMA3_8B,
        dict(method="lora", micro_batch=1, lora_rank=32, lora_targets=("q", "v"), **_HUB),
        1, 19.73 * GB,
    ),
    MeasuredCase(
        "litgpt-hub-llama3-8b-qlora", LITGPT_CONFIG_HUB,
        "llama-3-8b/qlora.yaml on 1xA10G: bnb.nf4, r=32 on query+value, seq 512, mb 2",
        LLAMA3_8B,
        dict(method="qlora", micro_batch=2, lora_rank=32, lora_targets=("q", "v"), **_HUB),
        1, 17.41 * GB, notes="bnb.nf4 without double quantization (+0.3 GB vs nf4-dq)",
        tags=("qlora",),
    ),
    MeasuredCase(
        "litgpt-hub-tinyllama-full", LITGPT_CONFIG_HUB,
        "tiny-llama/full.yaml on 1xA10G: full fine-tune, bf16-true AdamW, seq 512, mb 4",
        TINYLLAMA, dict(method="full", micro_batch=4, **_HUB), 1, 14.10 * GB,
    ),
    MeasuredCase(
        "litgpt-hub-gemma-2b-lora", LITGPT_CONFIG_HUB,
        "gemma-2b/lora.yaml on 1xA10G: r=8 on q,k,v,o,mlp (+head), dropout 0.1, seq 512, mb 2",
        GEMMA_2B, dict(method="lora", micro_batch=2, lora_rank=8, **_HUB), 1, 12.62 * GB,
        notes="LoRA on the LM head is not modelled (slotwise targets linear layers only)",
    ),
    MeasuredCase(
        "litgpt-hub-gemma-2b-qlora", LITGPT_CONFIG_HUB,
        "gemma-2b/qlora.yaml on 1xA10G: bnb.nf4, r=16 on all linear (+head), seq 512, mb 2",
        GEMMA_2B, dict(method="qlora", micro_batch=2, lora_rank=16, **_HUB), 1, 11.58 * GB,
        tags=("qlora",),
    ),
    MeasuredCase(
        "torchtune-llama31-70b-lora-8xa100", TORCHTUNE_README,
        "Llama 3.1 70B LoRA on 8x A100: batch 2, packed to 2048, compile; config "
        "llama3_1/70B_lora.yaml: FSDP, r=16 on q,v,o + MLP, dropout 0, activation checkpointing",
        LLAMA31_70B,
        dict(
            method="lora", micro_batch=2, seq_len=2048, lora_rank=16,
            lora_targets=("q", "v", "o", "gate", "up", "down"), parallel="zero3",
            grad_checkpointing=True, master_weights=False,
        ),
        8, 27.6 * GIB,
        notes="torchtune computes the loss in chunks (CEWithChunkedOutputLoss), so its logits "
        "buffers are smaller than the full-size fp32 upcast slotwise assumes",
    ),
)  # fmt: skip
