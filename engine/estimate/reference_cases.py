"""Published, *measured* peak GPU memory figures and the architectures they were measured on.

Used by tests/test_estimate_measured.py and bench/measure_memory.py (validation data, not used by
the estimator itself).  Every case names its
source and the settings the source states; where a setting is the source's documented default
(rather than printed next to the figure) the note says so.  Architectures are the numbers of each
model's Hugging Face config.json.

Units: litgpt prints ``torch.cuda.max_memory_allocated() / 1e9`` ("GB" = 1e9 bytes); torchtune's
README prints GiB; Answer.AI's benchmark note prints GiB (peak *reserved* memory unless it says
allocated); the PEFT docs print "GB" read off the GPU monitor (taken as 1e9 bytes; were it GiB the
error would be 7 points worse).

Five independent organisations measured these: Lightning AI (litgpt), PyTorch / Meta
(torchtune), Answer.AI (fsdp_qlora), Hugging Face (PEFT documentation) and Unsloth (its
"Hugging Face + FA2" baseline column: the longest context that fit in a card's memory, so the
peak is the card's capacity).
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
ANSWERAI_BENCHMARKS = "https://github.com/AnswerDotAI/fsdp_qlora/blob/main/benchmarks_03_2024.md"
PEFT_FSDP_DOCS = "https://huggingface.co/docs/peft/accelerate/fsdp"
UNSLOTH_BENCHMARKS = "https://docs.unsloth.ai/basics/unsloth-benchmarks"


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
LLAMA2_70B = _arch(
    "llama-2-70b", "meta-llama/Llama-2-70b-hf", 69.0, hidden_size=8192, intermediate_size=28672,
    num_hidden_layers=80, num_attention_heads=64, num_key_value_heads=8, vocab_size=32000,
)  # fmt: skip
YI_34B = _arch(
    "yi-34b", "01-ai/Yi-34B", 34.4, hidden_size=7168, intermediate_size=20480,
    num_hidden_layers=60, num_attention_heads=56, num_key_value_heads=8, vocab_size=64000,
)  # fmt: skip
MISTRAL_7B_V02 = _arch(
    "mistral-7b-v0.2", "mistral-community/Mistral-7B-v0.2", 7.24, model_type="mistral",
    hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
    num_key_value_heads=8, vocab_size=32000,
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
# Answer.AI fsdp_qlora train.py defaults (see the cases below).
_AAI = dict(
    lora_rank=64, lora_targets=("q", "k", "v", "gate", "up", "down"), grad_checkpointing=True,
    master_weights=False, parallel="zero3",
)  # fmt: skip

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
            grad_checkpointing=True, master_weights=False, loss="chunked",
        ),
        8, 27.6 * GIB,
        notes="torchtune computes the loss in chunks (CEWithChunkedOutputLoss): --loss chunked",
    ),
) + (
    # ---- Answer.AI, "Benchmarking QLoRA+FSDP" (Feb-Mar 2024), 2 x 24 GB GPUs (3090 / 4090).
    # train.py defaults (LoRA settings identical in commit 299f51a9, which
    # benchmarking/small_gpu_benchmarking.sh names, and in later versions): FSDP FULL_SHARD over
    # both GPUs (``--use_ddp`` = no sharding), precision bf16 (bf16_buffers_autocast in the
    # earliest version: either way weights, adapters and AdamW states are bf16, no fp32 master),
    # LoRA r=64 on k,q,v,up,down,gate (no o_proj), dropout 0.1, FSDP activation checkpointing per
    # decoder layer, FlashAttention 2, the "dummy" data set truncated at the context length, HF
    # LlamaForCausalLM loss; CPU offload only where the table says so.
    # The table prints peak *reserved* memory; the text gives the allocated figure for two runs.
    MeasuredCase(
        "answerai-llama2-7b-lora-ctx512-alloc", ANSWERAI_BENCHMARKS,
        "LoRA, FSDP over 2 GPUs, batch 1, context 512: peak allocated 8.28 GiB (text under the "
        "first LoRA table)",
        LLAMA2_7B, dict(method="lora", seq_len=512, micro_batch=1, **_AAI), 2, 8.28 * GIB,
        tags=("allocated",),
    ),
    MeasuredCase(
        "answerai-llama2-7b-lora-ctx2048-alloc", ANSWERAI_BENCHMARKS,
        "LoRA, FSDP over 2 GPUs, batch 1, context 2048: peak allocated 9.16 GiB",
        LLAMA2_7B, dict(method="lora", seq_len=2048, micro_batch=1, **_AAI), 2, 9.16 * GIB,
        tags=("allocated",),
    ),
    MeasuredCase(
        "answerai-llama2-7b-qlora-bs1", ANSWERAI_BENCHMARKS,
        "QLoRA, FSDP over 2 x 3090, batch 1, context 2048: 5.21 GiB reserved",
        LLAMA2_7B, dict(method="qlora", seq_len=2048, micro_batch=1, **_AAI), 2, 5.21 * GIB,
        tags=("qlora", "reserved"),
    ),
    MeasuredCase(
        "answerai-llama2-7b-qlora-bs4", ANSWERAI_BENCHMARKS,
        "QLoRA, FSDP over 2 x 3090, batch 4, context 2048: 11.22 GiB reserved",
        LLAMA2_7B, dict(method="qlora", seq_len=2048, micro_batch=4, **_AAI), 2, 11.22 * GIB,
        tags=("qlora", "reserved"),
    ),
    MeasuredCase(
        "answerai-llama2-7b-qlora-bs10", ANSWERAI_BENCHMARKS,
        "QLoRA, FSDP over 2 x 3090, batch 10, context 2048: 20.97 GiB reserved",
        LLAMA2_7B, dict(method="qlora", seq_len=2048, micro_batch=10, **_AAI), 2, 20.97 * GIB,
        tags=("qlora", "reserved"),
    ),
    MeasuredCase(
        "answerai-llama2-7b-lora-bs4", ANSWERAI_BENCHMARKS,
        "LoRA, FSDP over 2 x 3090, batch 4, context 2048: 16.14 GiB reserved",
        LLAMA2_7B, dict(method="lora", seq_len=2048, micro_batch=4, **_AAI), 2, 16.14 * GIB,
        tags=("reserved",),
    ),
    MeasuredCase(
        "answerai-llama2-7b-lora-bs6", ANSWERAI_BENCHMARKS,
        "LoRA, FSDP over 2 x 3090, batch 6, context 2048: 21.35 GiB reserved",
        LLAMA2_7B, dict(method="lora", seq_len=2048, micro_batch=6, **_AAI), 2, 21.35 * GIB,
        tags=("reserved",),
    ),
    MeasuredCase(
        "answerai-llama2-7b-qlora-ddp-bs8", ANSWERAI_BENCHMARKS,
        "QLoRA, FSDP NO_SHARD (DDP) on 2 x 3090, batch 8, context 2048: 20.94 GiB reserved",
        LLAMA2_7B, dict(method="qlora", seq_len=2048, micro_batch=8, **{**_AAI, "parallel": "ddp"}),
        2, 20.94 * GIB, tags=("qlora", "reserved"),
    ),
    MeasuredCase(
        "answerai-llama2-7b-lora-ddp-bs4", ANSWERAI_BENCHMARKS,
        "LoRA, FSDP NO_SHARD (DDP) on 2 x 3090, batch 4, context 2048: 22.04 GiB reserved",
        LLAMA2_7B, dict(method="lora", seq_len=2048, micro_batch=4, **{**_AAI, "parallel": "ddp"}),
        2, 22.04 * GIB, tags=("reserved",),
    ),
    MeasuredCase(
        "answerai-llama2-7b-lora-offload-bs10", ANSWERAI_BENCHMARKS,
        "LoRA, FSDP + CPU offload on 2 x 4090, batch 10, context 2048: 22.69 GiB reserved",
        LLAMA2_7B,
        dict(method="lora", seq_len=2048, micro_batch=10, offload="params", **_AAI),
        2, 22.69 * GIB, tags=("reserved", "offload"),
    ),
    MeasuredCase(
        "answerai-llama2-7b-qlora-offload-bs12", ANSWERAI_BENCHMARKS,
        "QLoRA, FSDP + CPU offload on 2 x 4090, batch 12, context 2048: 22.38 GiB reserved",
        LLAMA2_7B,
        dict(method="qlora", seq_len=2048, micro_batch=12, offload="params", **_AAI),
        2, 22.38 * GIB, tags=("qlora", "reserved", "offload"),
    ),
    MeasuredCase(
        "answerai-yi-34b-qlora-bs2", ANSWERAI_BENCHMARKS,
        "Yi 34B QLoRA, FSDP over 2 x 3090, batch 2, context 2048: 23.05 GiB reserved",
        YI_34B, dict(method="qlora", seq_len=2048, micro_batch=2, **_AAI), 2, 23.05 * GIB,
        tags=("qlora", "reserved"),
    ),
    MeasuredCase(
        "answerai-yi-34b-qlora-offload-bs4", ANSWERAI_BENCHMARKS,
        "Yi 34B QLoRA, FSDP + CPU offload on 2 x 3090, batch 4, context 2048: 22.98 GiB reserved",
        YI_34B,
        dict(method="qlora", seq_len=2048, micro_batch=4, offload="params", **_AAI),
        2, 22.98 * GIB, tags=("qlora", "reserved", "offload"),
    ),
    MeasuredCase(
        "answerai-mistral-7b-qlora-offload-bs12", ANSWERAI_BENCHMARKS,
        "Mistral 7B v0.2 QLoRA, FSDP + CPU offload on 2 x 4090, batch 12, context 2048: "
        "22.54 GiB reserved",
        MISTRAL_7B_V02,
        dict(method="qlora", seq_len=2048, micro_batch=12, offload="params", **_AAI),
        2, 22.54 * GIB, tags=("qlora", "reserved", "offload"),
    ),
    # ---- Hugging Face PEFT docs, "Use PEFT QLoRA and FSDP for finetuning large models on
    # multiple GPUs" (examples/sft/run_peft_qlora_fsdp.sh): Llama-2-70b-hf on 2 GPUs, FSDP
    # FULL_SHARD, base in bf16 (quant storage bf16, so TRL skips prepare_model_for_kbit_training),
    # Trainer --bf16 autocast with fp32 adapters (PEFT > 0.13 autocast_adapter_dtype) and AdamW,
    # NF4 + nested (double) quantization, LoRA r=8 on all linear layers, dropout 0.1, batch 2,
    # packed to 2048, gradient checkpointing, FlashAttention 2, TRL SFTTrainer (HF loss).
    MeasuredCase(
        "peft-llama2-70b-qlora-fsdp-2gpu", PEFT_FSDP_DOCS,
        "QLoRA + FSDP on 2 GPUs without CPU offloading: 35.6 GB per GPU",
        LLAMA2_70B,
        dict(method="qlora", seq_len=2048, micro_batch=2, lora_rank=8, parallel="zero3",
             grad_checkpointing=True),
        2, 35.6 * GB, tags=("qlora", "device"),
    ),
    # Answer.AI again (same train.py defaults): Llama 2 70B through CPU offload (the Hugging Face
    # stack's run of it is in KNOWN_MISSES).
    MeasuredCase(
        "answerai-llama2-70b-qlora-offload-bs2", ANSWERAI_BENCHMARKS,
        "Llama 2 70B QLoRA, FSDP + CPU offload on 2 x 3090 / 4090, batch 2, context 2048: "
        "14.92 GiB reserved",
        LLAMA2_70B,
        dict(method="qlora", seq_len=2048, micro_batch=2, offload="params", **_AAI),
        2, 14.92 * GIB, tags=("qlora", "reserved", "offload"),
    ),
    # Batch 1 at context 512: a reserved figure this small is mostly the caching allocator (this
    # run's LoRA twin: 10.24 GiB reserved for 8.28 GiB allocated), hence the largest gap.
    MeasuredCase(
        "answerai-llama2-7b-qlora-ctx512", ANSWERAI_BENCHMARKS,
        "QLoRA, FSDP over 2 x 3090, batch 1, context 512: 4.98 GiB reserved",
        LLAMA2_7B, dict(method="qlora", seq_len=512, micro_batch=1, **_AAI), 2, 4.98 * GIB,
        tags=("qlora", "reserved"),
    ),
) + tuple(
    # ---- Unsloth docs, "Context length benchmarks", column "Hugging Face + FA2" (the baseline,
    # not Unsloth's own kernels): Llama 3.1 8B Instruct, 4-bit QLoRA on q,k,v,o,gate,up,down,
    # rank 32, batch 1, every sequence padded to the context length; the table gives the
    # longest context that fit in each card, so the measured peak is the card's memory (taken
    # as the nominal size in GiB; some 16/24/48 GB cards expose up to 6 % less).  The baseline is transformers + bitsandbytes NF4 + PEFT + TRL:
    # mixed precision (fp32 adapters, prepare_model_for_kbit_training), gradient checkpointing
    # (without it 28k tokens could not fit in 80 GB), HF loss.  Optimizer not stated: the
    # adamw-8bit of Unsloth's notebooks is assumed (32-bit AdamW would add 0.5 GB).
    MeasuredCase(
        f"unsloth-hf-llama31-8b-qlora-{vram}gb", UNSLOTH_BENCHMARKS,
        f"Llama 3.1 (8B) max context on a {vram} GB GPU, Hugging Face + FA2: {ctx:,} tokens",
        LLAMA3_8B,
        dict(method="qlora", seq_len=ctx, micro_batch=1, lora_rank=32, optimizer="adamw-8bit",
             grad_checkpointing=True),
        1, vram * GIB, tags=("qlora", "capacity"),
    )
    for vram, ctx in ((12, 932), (16, 2551), (24, 5789), (40, 12264), (48, 15502), (80, 28454))
) + (
    MeasuredCase(
        "unsloth-hf-llama33-70b-qlora-80gb", UNSLOTH_BENCHMARKS,
        "Llama 3.3 (70B) max context on an 80 GB A100, Hugging Face + FA2: 6,916 tokens",
        LLAMA31_70B,
        dict(method="qlora", seq_len=6916, micro_batch=1, lora_rank=32, optimizer="adamw-8bit",
             grad_checkpointing=True),
        1, 80 * GIB, tags=("qlora", "capacity"),
        notes="Llama 3.3 70B has Llama 3.1 70B's architecture",
    ),
)  # fmt: skip

#: Measured figures from the same sources that the estimator misses by more than 25 %.  They are
#: kept visible (the report prints them; tests/test_estimate_measured.py bounds them loosely) so
#: the gap is not hidden.  FSDP with CPU *parameter* offload of a 70B model through the Hugging
#: Face stack: slotwise keeps on the GPU two decoder layers' weights (FSDP's unit in use + the
#: prefetched one), the LM head or embedding, the NF4 constants FSDP does not shard, activations
#: and the loss, and still reads a third under the measured peak (nvidia-smi, 19.6 GB).  The same
#: run without offload is within 13 % and Answer.AI's 70B offload run within 20 %; what the HF
#: offload run holds beyond that (allocator blocks of the pinned-host copies, NCCL buffers, the
#: unsharded root unit) is not modelled.
KNOWN_MISSES: tuple[MeasuredCase, ...] = (
    MeasuredCase(
        "peft-llama2-70b-qlora-fsdp-offload-2gpu", PEFT_FSDP_DOCS,
        "QLoRA + FSDP + CPU offloading on 2 GPUs: 19.6 GB per GPU (settings as above)",
        LLAMA2_70B,
        dict(method="qlora", seq_len=2048, micro_batch=2, lora_rank=8, parallel="zero3",
             grad_checkpointing=True, offload="params"),
        2, 19.6 * GB, tags=("qlora", "device", "offload"),
    ),
)  # fmt: skip
