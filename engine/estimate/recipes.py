"""Trainer recipes: each trainer's documented defaults for the knobs the memory estimate reads.

``--recipe NAME`` fills every workload knob the user did not set with the trainer's default,
and the estimate's assumptions list each default with where it comes from.  A knob the user set
always wins.  Only knobs slotwise models are listed; a default that depends on the model (the
trainer's per-model config) is taken from the trainer's reference config for Llama 3 8B, named
in the source.

Sources (read Dec 2026):

* hf-trainer: transformers ``TrainingArguments`` (``optim="adamw_torch"``,
  ``gradient_checkpointing=False``; ``bf16=True`` is ``torch.autocast`` over the loaded weights,
  PEFT keeps adapters in fp32, ``autocast_adapter_dtype=True``), ``ForCausalLMLoss`` (logits
  upcast to fp32), PEFT ``LoraConfig`` (``r=8``, ``lora_dropout=0.0``; Llama default targets
  ``q_proj, v_proj``); PEFT's ``lora.layer.Linear.forward`` casts each adapted module's input to
  the fp32 adapter, which autocast casts back to 16 bits per call: one 16-bit input copy per
  adapted module (``lora_input_cast="autocast"``, engine/estimate/activations.py).
* torchtune: ``recipes/configs/llama3_1/8B_lora_single_device.yaml`` and
  ``8B_full_single_device.yaml`` (``dtype: bf16``, ``enable_activation_checkpointing: True``,
  ``enable_activation_offloading: False``, chunked output loss, LoRA ``r=8`` on q, v,
  output_proj + MLP, ``lora_dropout: 0.0`` (every config under recipes/configs), ``compile: False``; full: ``PagedAdamW8bit`` with ``optimizer_in_bwd: True``);
  QLoRA's NF4 weights are torchao ``NF4Tensor`` parameters
  (``torchtune/modules/low_precision/nf4_linear.py``: ``FrozenNF4Linear`` calls ``to_nf4``).
* litgpt: ``litgpt/finetune/lora.py`` (``lora_r=8``, ``lora_dropout=0.05``, query + value; single device without
  activation checkpointing), ``config_hub/finetune/*`` (``precision: bf16-true``, AdamW),
  ``litgpt.utils.chunked_cross_entropy``; on more than one GPU every finetune script runs
  the micro-batches before a step's last under ``fabric.no_backward_sync`` (``full.py``:
  ``FSDPStrategy``, i.e. FSDP ``no_sync()``: unsharded gradients while accumulating);
  ``litgpt/model.py`` never ties the LM head to the embedding, computes q, k and v with one
  ``Linear`` (``CausalSelfAttention.attn``; LoRA: one ``LoRAQKVLinear`` with one dropout) and
  repeats grouped-query k and v to every head before ``scaled_dot_product_attention``
  (``k.expand(...)`` in training); ``finetune/lora.py`` rebinds ``logits`` and ``loss`` only
  once the next step has computed them, so the previous step's graph lives through the next
  forward; ``--quantize bnb.nf4`` goes
  through Lightning Fabric's ``BitsandbytesPrecision`` (every ``nn.Linear`` replaced, LM head
  included; weights quantized from fp16).
* torchtitan: ``train_configs/llama3_8b.toml`` at commit 9dec370 (the one its Dec 2024
  benchmarks name: AdamW, ``activation_checkpoint.mode = 'selective'``, per-op), FSDP2 with
  ``param_dtype`` bf16 and ``reduce_dtype`` fp32 over fp32 sharded parameters, full-logit
  ``cross_entropy`` on ``pred.float()``.
* deepspeed: ZeRO keeps fp32 master weights and fp32 Adam moments (DeepSpeed ``bf16`` / ``fp16``
  config, ZeRO paper section 3.1); the model is a Hugging Face one, so its loss.
* axolotl: ``examples/llama-3/lora-8b.yml`` (``lora_r: 32``, ``lora_target_linear: true``,
  ``optimizer: adamw_bnb_8bit``, ``lora_dropout: 0.05``, ``gradient_checkpointing: true``, ``sample_packing: true``);
  the Hugging Face Trainer underneath (fp32 adapters, HF loss).
* unsloth: ``FastLanguageModel.from_pretrained(load_in_4bit=True)``, ``get_peft_model(r=16,
  target_modules=[q,k,v,o,gate,up,down], lora_dropout=0, use_gradient_checkpointing="unsloth")`` (checkpointed
  layer inputs offloaded to CPU memory), notebooks' ``optim="adamw_8bit"``, Unsloth's chunked
  fused cross-entropy kernel (docs.unsloth.ai).
* fsdp-qlora: Answer.AI ``fsdp_qlora/train.py`` defaults (LoRA ``r=64`` on q, k, v, gate, up,
  down, ``lora_dropout=0.1``; FSDP full shard; bf16 weights, adapters and AdamW state; activation checkpointing per
  decoder layer; Hugging Face Llama loss).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from slotwise.engine.workload import LORA_TARGET_SETS, Workload

HF_TRAINER_DOCS = "https://huggingface.co/docs/transformers/main_classes/trainer"
PEFT_LORA_DOCS = "https://huggingface.co/docs/peft/package_reference/lora"
PEFT_LORA_LAYER = "https://github.com/huggingface/peft/blob/main/src/peft/tuners/lora/layer.py"
HF_LOSS = (
    "https://github.com/huggingface/transformers/blob/main/src/transformers/loss/loss_utils.py"
)
TORCHTUNE_LORA = (
    "https://github.com/pytorch/torchtune/blob/main/recipes/configs/llama3_1/"
    "8B_lora_single_device.yaml"
)
TORCHTUNE_FULL = (
    "https://github.com/pytorch/torchtune/blob/main/recipes/configs/llama3_1/"
    "8B_full_single_device.yaml"
)
LITGPT_LORA = "https://github.com/Lightning-AI/litgpt/blob/main/litgpt/finetune/lora.py"
LITGPT_FULL = "https://github.com/Lightning-AI/litgpt/blob/main/litgpt/finetune/full.py"
LITGPT_MODEL = "https://github.com/Lightning-AI/litgpt/blob/main/litgpt/model.py"
FABRIC_BNB = (
    "https://github.com/Lightning-AI/pytorch-lightning/blob/master/src/lightning/fabric/"
    "plugins/precision/bitsandbytes.py"
)
LITGPT_HUB = "https://github.com/Lightning-AI/litgpt/blob/main/config_hub/finetune/README.md"
TORCHTITAN_TOML = (
    "https://github.com/pytorch/torchtitan/blob/9dec370ad26b5f8e9a7333a0e36165018262644b/"
    "train_configs/llama3_8b.toml"
)
TORCHTITAN_FSDP = "https://github.com/pytorch/torchtitan/blob/main/docs/fsdp.md"
DEEPSPEED_BF16 = "https://www.deepspeed.ai/docs/config-json/#bfloat16-training-options"
AXOLOTL_LORA = "https://github.com/axolotl-ai-cloud/axolotl/blob/main/examples/llama-3/lora-8b.yml"
UNSLOTH_DOCS = (
    "https://docs.unsloth.ai/get-started/fine-tuning-llms-guide/lora-hyperparameters-guide"
)
FSDP_QLORA = "https://github.com/AnswerDotAI/fsdp_qlora/blob/main/train.py"
TORCHTUNE_NF4 = (
    "https://github.com/pytorch/torchtune/blob/main/torchtune/modules/low_precision/nf4_linear.py"
)

_ALL = LORA_TARGET_SETS["all-linear"]
_NO_O = ("q", "k", "v", "gate", "up", "down")
_TT_TARGETS = ("q", "v", "o", "gate", "up", "down")


@dataclass(frozen=True)
class Default:
    """One documented default: the workload field, its value and where the trainer says so."""

    field: str
    value: Any
    source: str
    methods: tuple[str, ...] = ()  # empty = every training method

    def applies_to(self, method: str) -> bool:
        return not self.methods or method in self.methods


@dataclass(frozen=True)
class Recipe:
    name: str
    trainer: str
    defaults: tuple[Default, ...]
    method: str | None = None  # the method the trainer exists for, when it has one


def _d(field: str, value: Any, source: str, *methods: str) -> Default:
    return Default(field, value, source, tuple(methods))


RECIPES: dict[str, Recipe] = {
    r.name: r
    for r in (
        Recipe(
            "hf-trainer",
            "Hugging Face Trainer + PEFT",
            (
                _d("master_weights", True, HF_TRAINER_DOCS),
                _d("optimizer", "adamw", HF_TRAINER_DOCS),
                _d("grad_checkpointing", False, HF_TRAINER_DOCS),
                _d("loss", "full", HF_LOSS),
                _d("lora_rank", 8, PEFT_LORA_DOCS, "lora", "qlora"),
                _d("lora_targets", ("q", "v"), PEFT_LORA_DOCS, "lora", "qlora"),
                _d("lora_dropout", 0.0, PEFT_LORA_DOCS, "lora", "qlora"),
                _d("lora_input_cast", "autocast", PEFT_LORA_LAYER, "lora", "qlora"),
                _d("compile", False, HF_TRAINER_DOCS),
            ),
        ),
        Recipe(
            "torchtune",
            "torchtune",
            (
                _d("master_weights", False, TORCHTUNE_LORA),
                _d("grad_checkpointing", True, TORCHTUNE_LORA),
                _d("activation_offload", False, TORCHTUNE_LORA),
                _d("loss", "chunked", TORCHTUNE_LORA),
                _d("compile", False, TORCHTUNE_LORA),
                _d("optimizer", "adamw", TORCHTUNE_LORA, "lora", "qlora"),
                _d("lora_rank", 8, TORCHTUNE_LORA, "lora", "qlora"),
                _d("lora_targets", _TT_TARGETS, TORCHTUNE_LORA, "lora", "qlora"),
                _d("lora_dropout", 0.0, TORCHTUNE_LORA, "lora", "qlora"),
                _d("nf4_backend", "torchao", TORCHTUNE_NF4, "qlora"),
                _d("optimizer", "paged-adamw-8bit", TORCHTUNE_FULL, "full", "pretrain"),
                _d("optimizer_in_backward", True, TORCHTUNE_FULL, "full", "pretrain"),
            ),
        ),
        Recipe(
            "litgpt",
            "LitGPT",
            (
                _d("master_weights", False, LITGPT_HUB),
                _d("optimizer", "adamw", LITGPT_HUB),
                _d("grad_checkpointing", False, LITGPT_LORA),
                _d("loss", "chunked", LITGPT_LORA),
                _d("lora_rank", 8, LITGPT_LORA, "lora", "qlora"),
                _d("lora_targets", ("q", "v"), LITGPT_LORA, "lora", "qlora"),
                _d("lora_dropout", 0.05, LITGPT_LORA, "lora", "qlora"),
                _d("fsdp_no_sync", True, LITGPT_FULL),
                _d("separate_lm_head", True, LITGPT_MODEL),
                _d("fabric_bnb", True, FABRIC_BNB, "qlora"),
                _d("fused_qkv", True, LITGPT_MODEL),
                _d("expand_kv", True, LITGPT_MODEL),
                _d("keeps_previous_graph", True, LITGPT_LORA, "qlora"),
            ),
        ),
        Recipe(
            "torchtitan",
            "torchtitan",
            (
                _d("master_weights", True, TORCHTITAN_FSDP),
                _d("optimizer", "adamw", TORCHTITAN_TOML),
                _d("grad_checkpointing", True, TORCHTITAN_TOML),
                _d("checkpoint_mode", "selective", TORCHTITAN_TOML),
                _d("loss", "full", TORCHTITAN_TOML),
                _d("parallel", "zero3", TORCHTITAN_FSDP),
                _d("compile", False, TORCHTITAN_TOML),
            ),
            method="pretrain",
        ),
        Recipe(
            "deepspeed",
            "DeepSpeed ZeRO (Hugging Face model)",
            (
                _d("master_weights", True, DEEPSPEED_BF16),
                _d("optimizer", "adamw", DEEPSPEED_BF16),
                _d("loss", "full", HF_LOSS),
            ),
        ),
        Recipe(
            "axolotl",
            "Axolotl",
            (
                _d("master_weights", True, AXOLOTL_LORA),
                _d("optimizer", "adamw-8bit", AXOLOTL_LORA),
                _d("grad_checkpointing", True, AXOLOTL_LORA),
                _d("loss", "full", AXOLOTL_LORA),
                _d("lora_rank", 32, AXOLOTL_LORA, "lora", "qlora"),
                _d("lora_targets", _ALL, AXOLOTL_LORA, "lora", "qlora"),
                _d("lora_dropout", 0.05, AXOLOTL_LORA, "lora", "qlora"),
            ),
        ),
        Recipe(
            "unsloth",
            "Unsloth",
            (
                _d("optimizer", "adamw-8bit", UNSLOTH_DOCS),
                _d("grad_checkpointing", True, UNSLOTH_DOCS),
                _d("activation_offload", True, UNSLOTH_DOCS),
                _d("loss", "chunked", UNSLOTH_DOCS),
                _d("lora_rank", 16, UNSLOTH_DOCS, "lora", "qlora"),
                _d("lora_targets", _ALL, UNSLOTH_DOCS, "lora", "qlora"),
                _d("lora_dropout", 0.0, UNSLOTH_DOCS, "lora", "qlora"),
            ),
            method="qlora",
        ),
        Recipe(
            "fsdp-qlora",
            "Answer.AI FSDP + QLoRA",
            (
                _d("master_weights", False, FSDP_QLORA),
                _d("optimizer", "adamw", FSDP_QLORA),
                _d("grad_checkpointing", True, FSDP_QLORA),
                _d("loss", "full", FSDP_QLORA),
                _d("parallel", "zero3", FSDP_QLORA),
                _d("lora_rank", 64, FSDP_QLORA, "lora", "qlora"),
                _d("lora_targets", _NO_O, FSDP_QLORA, "lora", "qlora"),
                _d("lora_dropout", 0.1, FSDP_QLORA, "lora", "qlora"),
            ),
            method="qlora",
        ),
    )
}

RECIPE_NAMES: tuple[str, ...] = tuple(RECIPES)


class RecipeError(ValueError):
    """An unknown recipe name."""


def get_recipe(name: str) -> Recipe:
    try:
        return RECIPES[name]
    except KeyError:
        raise RecipeError(
            f"unknown recipe {name!r}; use one of {', '.join(RECIPE_NAMES)}"
        ) from None


def apply_recipe(fields: Mapping[str, Any], name: str | None) -> dict[str, Any]:
    """``fields`` (what the user set) completed with the recipe's defaults; the user's win.

    The recipe's method applies only when no method was given; the other defaults are those
    for the resulting method (inference takes none).
    """
    out = dict(fields)
    if not name:
        return out
    recipe = get_recipe(name)
    out["recipe"] = recipe.name
    if out.get("method") is None and recipe.method:
        out["method"] = recipe.method
    method = out.get("method") or "inference"
    if method == "inference":
        return out
    for d in recipe.defaults:
        if d.applies_to(method) and out.get(d.field) is None:
            out[d.field] = d.value
    return out


def recipe_assumptions(workload: Workload) -> list[str]:
    """One line per default of the workload's recipe: the value used and its source."""
    if not workload.recipe or workload.method == "inference":
        return []
    recipe = get_recipe(workload.recipe)
    lines = []
    for d in recipe.defaults:
        if not d.applies_to(workload.method):
            continue
        used = getattr(workload, d.field)
        shown = ",".join(d.value) if isinstance(d.value, tuple) else d.value
        if used == d.value:
            lines.append(f"{recipe.trainer} default {d.field}={shown} ({d.source})")
        else:
            lines.append(f"{d.field} set by you; {recipe.trainer} default is {shown}")
    return lines
