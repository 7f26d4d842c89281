"""Trainer profiles: how a trainer (and era) runs a job, as data (``trainers.toml``).

A :class:`~slotwise.engine.workload.Workload` says what the customer wants to run; a
:class:`TrainerProfile` says how a trainer runs it: recompute, loss implementation, compile,
master weights, adapter dtype, 4-bit library behaviour, sharding behaviour, model-code details.
Every field is concrete (no "unknown"): ``generic`` is the common stack of late 2026 (transformers +
PEFT under TRL's ``SFTTrainer`` defaults, read at the commits its sources name, with the model's
own full-logits loss that most trainers still run; ``trl`` adds TRL >= 1.4's chunked loss), and every other
profile lists only what differs from the profile it extends, each value with its ``source``.

Resolution (:func:`resolve_trainer`): the named profile for the workload's method, then the
workload's ``trainer_overrides`` (``--set field=value``), then the user-level options the
workload states (gradient checkpointing, loss kernel, compile, activation offload, optimizer
in backward, LoRA dropout) win.  The result is a Workload whose trainer-internal fields are all
concrete; the memory and time estimates read those.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from slotwise.engine.workload.kinds import (
    Attention,
    AttentionKernel,
    CheckpointMode,
    HostLaunch,
    LoraInputCast,
    Loss,
    Nf4Backend,
    parse_count,
)
from slotwise.parts.bounds import Share

if TYPE_CHECKING:
    from slotwise.engine.workload import Workload

#: Version of the profile schema (``schema`` in trainers.toml).
SCHEMA_VERSION = 1
PROFILES_FILE = Path(__file__).with_name("trainers.toml")
GENERIC = "generic"

Recompute = Literal["always", "never", "multi-gpu"]
OptimizerInBackward = Literal["never", "single-device", "always"]
AdapterDtype = Literal["fp32", "compute"]


class TrainerProfile(BaseModel):
    """How one trainer runs a job, for one method.  Every field concrete."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Activation recompute when the user does not say: "multi-gpu" = only when the job runs on
    #: more than one GPU (litgpt's FSDPStrategy sets activation_checkpointing_policy).
    gradient_checkpointing: Recompute
    #: What a recomputed layer keeps: "full" = its input; "selective" = per-op SAC.
    checkpoint_mode: CheckpointMode
    #: Cross-entropy implementation when the user does not name a loss kernel.
    loss: Loss
    #: torch.compile of the model when the user does not say.
    compile: bool
    #: With the model compiled, the loss is compiled too (it runs inside the compiled region).
    compile_loss: bool
    activation_offload: bool
    optimizer_in_backward: OptimizerInBackward
    #: Full / pre-training keeps an fp32 master copy of the trained weights.
    master_weights: bool
    #: LoRA adapters (and their gradients and optimizer state) in fp32 or the compute dtype.
    adapter_dtype: AdapterDtype
    #: QLoRA on one GPU: the non-4-bit weights (embeddings, LM head, norms) are fp32.
    qlora_fp32_rest: bool
    lora_dropout: float = Field(ge=0.0, lt=1.0)
    lora_input_cast: LoraInputCast
    nf4_backend: Nf4Backend
    nf4_keeps_input: bool
    keeps_previous_graph: bool
    fabric_bnb: bool
    separate_lm_head: bool
    fused_qkv: bool
    expand_kv: bool
    fsdp_no_sync: bool
    fsdp_layer_grads: bool
    #: DeepSpeed ZeRO-1/2 gradient bucket elements allocated for each backward (0 = none).
    zero_buckets: int = Field(ge=0, le=10**11)
    #: DeepSpeed ZeRO-1/2 converts this rank's gradient partition to fp32 for the step.
    zero_fp32_grad_partition: bool
    legacy_kv_cache: bool
    #: Training attention: "fused" (SDPA / FlashAttention) or "eager" (the s x s scores and
    #: fp32 softmax materialised and saved: transformers < 4.36's default for Llama-family
    #: models; engine/estimate/activations.py ``eager_attention_bytes``).
    attention: Attention
    #: Share of the tensor-parallel collectives hidden behind compute in training
    #: (engine/estimate/throughput.py): 0 for PyTorch's vanilla TP, whose all-gather /
    #: reduce-scatter run between the matmuls.
    tp_overlap: Share
    #: The fused attention kernel on Hopper / Blackwell: "flash2" (FlashAttention-2, PyTorch
    #: SDPA) or "cudnn" (Transformer Engine's cuDNN fused attention, FlashAttention-3).
    attention_kernel: AttentionKernel
    #: How a layer's kernels are launched: "eager" (Python per op: transformers, PEFT) or
    #: "fused" (Megatron-Core + Transformer Engine fused modules).
    host_launch: HostLaunch


PROFILE_FIELDS: tuple[str, ...] = tuple(TrainerProfile.model_fields)

#: Profile fields a user states in a training config and that therefore also exist as
#: user-level Workload fields (the user's value wins over the profile's).
USER_LEVEL_FIELDS: tuple[str, ...] = (
    "gradient_checkpointing",
    "checkpoint_mode",
    "loss",
    "compile",
    "activation_offload",
    "optimizer_in_backward",
    "lora_dropout",
)

#: Workload fields that are trainer internals: set only through a profile or an override.
#: (Workload field -> profile field; the names are the same.)
INTERNAL_FIELDS: tuple[str, ...] = tuple(f for f in PROFILE_FIELDS if f not in USER_LEVEL_FIELDS)

#: Old names of trainers (``--recipe`` before profiles).
TRAINER_ALIASES: dict[str, str] = {
    "hf-trainer": "transformers-trainer",
    "transformers": "transformers-trainer",
    "sft-trainer": "trl",
    "megatron-bridge": "nemo",
    "nemo2": "nemo",
    "megatron-lm": "megatron",
    "megatron-core": "megatron",
}


class _Layer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    values: dict[str, Any] = Field(default_factory=dict)
    sources: dict[str, str] = Field(default_factory=dict)


class ProfileEntry(BaseModel):
    """One profile as written in trainers.toml."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str
    era: str
    extends: str | None = None
    #: The method the trainer exists for (a QLoRA-only trainer), used when none is given.
    method: str | None = None
    values: dict[str, Any] = Field(default_factory=dict)
    sources: dict[str, str] = Field(default_factory=dict)
    by_method: dict[str, _Layer] = Field(default_factory=dict)


class ProfilesFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_: int = Field(alias="schema")
    profile: dict[str, ProfileEntry]
    #: method -> the profiles a user naming no trainer could be running (estimate ranges).
    plausible: dict[str, tuple[str, ...]] = Field(default_factory=dict)


class TrainerError(ValueError):
    """An unknown trainer, a bad override or a broken profiles file."""


@cache
def load_profiles(path: Path = PROFILES_FILE) -> ProfilesFile:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        data = ProfilesFile.model_validate(raw)
    except (OSError, tomllib.TOMLDecodeError, ValidationError) as exc:
        raise TrainerError(f"{path}: {exc}") from None
    if data.schema_ != SCHEMA_VERSION:
        raise TrainerError(f"{path}: schema {data.schema_}, this slotwise reads {SCHEMA_VERSION}")
    for name, entry in data.profile.items():
        for layer_name, values, sources in (
            ("values", entry.values, entry.sources),
            *((f"by_method.{m}", lay.values, lay.sources) for m, lay in entry.by_method.items()),
        ):
            unknown = sorted(set(values) - set(PROFILE_FIELDS))
            if unknown:
                raise TrainerError(f"{path}: [profile.{name}.{layer_name}] unknown {unknown}")
            unsourced = sorted(set(values) - set(sources))
            if unsourced:
                raise TrainerError(f"{path}: [profile.{name}.{layer_name}] no source: {unsourced}")
        if entry.extends is not None and entry.extends not in data.profile:
            raise TrainerError(f"{path}: profile {name} extends unknown {entry.extends}")
    for method, names in data.plausible.items():
        missing = [n for n in names if n not in data.profile]
        if missing:
            raise TrainerError(f"{path}: [plausible] {method}: unknown {missing}")
    return data


def plausible_trainers(method: str) -> tuple[str, ...]:
    """The profiles a user who names no trainer could be running for ``method``."""
    return load_profiles().plausible.get(method, (GENERIC,))


def trainer_names() -> tuple[str, ...]:
    return tuple(load_profiles().profile)


def canonical_name(name: str) -> str:
    """``NAME`` or ``NAME@ERA`` as the profiles file spells it; unknown names raise."""
    text = name.strip()
    text = TRAINER_ALIASES.get(text, text)
    names = trainer_names()
    if text in names:
        return text
    raise TrainerError(f"unknown trainer {name!r}; use one of {', '.join(names)}")


def _parent(name: str) -> str | None:
    entry = load_profiles().profile[name]
    if entry.extends is not None:
        return entry.extends
    return None if name == GENERIC else GENERIC


def _layers(name: str, method: str) -> list[tuple[str, dict[str, Any], dict[str, str]]]:
    """(profile, values, sources) layers from ``generic`` up to ``name``, for ``method``."""
    chain: list[str] = []
    at: str | None = name
    while at is not None:
        if at in chain:
            raise TrainerError(f"profile {name}: circular extends")
        chain.append(at)
        at = _parent(at)
    layers = []
    for n in reversed(chain):
        entry = load_profiles().profile[n]
        layers.append((n, entry.values, entry.sources))
        layer = entry.by_method.get(method)
        if layer is not None:
            layers.append((n, layer.values, layer.sources))
    return layers


@cache
def _profile_cached(name: str, method: str) -> tuple[TrainerProfile, tuple[tuple[str, str], ...]]:
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for owner, vals, srcs in _layers(name, method):
        for k, v in vals.items():
            values[k] = v
            sources[k] = f"{owner}: {srcs[k]}"
    try:
        profile = TrainerProfile.model_validate(values)
    except ValidationError as exc:
        raise TrainerError(f"profile {name} ({method}): {exc}") from None
    return profile, tuple(sorted(sources.items()))


def get_profile(name: str | None, method: str = "lora") -> TrainerProfile:
    """The concrete profile of trainer ``name`` (None = generic) for ``method``."""
    return _profile_cached(canonical_name(name or GENERIC), method)[0]


def profile_sources(name: str | None, method: str = "lora") -> dict[str, str]:
    """Field -> "profile: source" for every field of the resolved profile."""
    return dict(_profile_cached(canonical_name(name or GENERIC), method)[1])


def profile_entry(name: str) -> ProfileEntry:
    return load_profiles().profile[canonical_name(name)]


def differences_from_generic(name: str, method: str) -> dict[str, tuple[Any, Any, str]]:
    """Field -> (generic value, this profile's value, source) where they differ."""
    base = get_profile(GENERIC, method)
    mine = get_profile(name, method)
    sources = profile_sources(name, method)
    return {
        f: (getattr(base, f), getattr(mine, f), sources.get(f, ""))
        for f in PROFILE_FIELDS
        if getattr(base, f) != getattr(mine, f)
    }


# ------------------------------------------------------------------------------------------
# Overrides (--set field=value, [workload.trainer_overrides])

OverrideValue = bool | int | float | str


def parse_override(field: str, value: Any) -> OverrideValue:
    """``value`` (text from --set, or a TOML value) checked against the profile field's type."""
    name = field.strip()
    if name.startswith("trainer."):
        name = name[len("trainer.") :]
    if name not in PROFILE_FIELDS:
        raise TrainerError(
            f"unknown trainer setting {field!r}; use one of {', '.join(PROFILE_FIELDS)}"
        )
    annotation = TrainerProfile.model_fields[name].annotation
    if isinstance(value, str):
        text = value.strip()
        if annotation is bool:
            low = text.lower()
            if low in ("true", "on", "yes", "1"):
                return True
            if low in ("false", "off", "no", "0"):
                return False
            raise TrainerError(f"{name}: {value!r} is not true or false")
        if annotation is int:
            try:
                number = parse_count(text) if text not in ("0", "none") else 0.0
            except ValueError as exc:
                raise TrainerError(f"{name}: {exc}") from None
            value = int(number)
        elif annotation is float:
            try:
                value = float(text)
            except ValueError:
                raise TrainerError(f"{name}: {value!r} is not a number") from None
        else:
            value = text
    choices = get_args(annotation)
    if choices and value not in choices:
        raise TrainerError(f"{name}: {value!r}; use one of {', '.join(map(str, choices))}")
    base = get_profile(GENERIC).model_dump()
    try:
        TrainerProfile.model_validate({**base, name: value})
    except ValidationError as exc:
        msg = exc.errors()[0].get("msg", "invalid value")
        raise TrainerError(f"{name}: {value!r}: {msg}") from None
    return value


def parse_overrides(items: Mapping[str, Any]) -> dict[str, OverrideValue]:
    return {k.removeprefix("trainer."): parse_override(k, v) for k, v in items.items()}


def apply_trainer(fields: Mapping[str, Any], name: str | None) -> dict[str, Any]:
    """``fields`` naming trainer ``name``; its default method applies when none is given."""
    out = dict(fields)
    if not name:
        return out
    canonical = canonical_name(name)
    out["trainer"] = canonical
    entry = load_profiles().profile[canonical]
    if out.get("method") is None and entry.method:
        out["method"] = entry.method
    return out


# ------------------------------------------------------------------------------------------
# Resolution


def effective_profile(workload: Workload, gpus: int = 1) -> TrainerProfile:
    """The workload's trainer profile for its method with its overrides applied."""
    profile = get_profile(workload.trainer, workload.method)
    overrides = dict(workload.trainer_overrides)
    if "master_weights" in overrides:
        # The old --[no-]master-weights flag meant the whole precision recipe: pure 16-bit
        # training keeps 16-bit adapters and 16-bit QLoRA non-4-bit weights too.
        master = bool(overrides["master_weights"])
        overrides.setdefault("adapter_dtype", "fp32" if master else "compute")
        overrides.setdefault("qlora_fp32_rest", master)
    if overrides:
        profile = profile.model_copy(update=overrides)
    return profile


def resolve_trainer(workload: Workload, gpus: int = 1) -> Workload:
    """``workload`` with every trainer-internal field concrete (profile < overrides < user).

    ``gpus`` is the GPU count of the job (profiles whose recompute or optimizer-in-backward
    depends on it).  Idempotent: a resolved workload comes back unchanged.
    """
    if workload.trainer_resolved:
        return workload
    p = effective_profile(workload, gpus)
    multi = gpus > 1
    # An internal field already set on the workload (model_copy by engine code) is kept.
    update: dict[str, Any] = {
        f: getattr(p, f) for f in INTERNAL_FIELDS if getattr(workload, f) is None
    }
    if "zero_buckets" in update:
        update["zero_buckets"] = p.zero_buckets or None
    if workload.grad_checkpointing is None:
        on = p.gradient_checkpointing == "always" or (
            p.gradient_checkpointing == "multi-gpu" and multi
        )
        update["grad_checkpointing"] = on if workload.training else False
    if workload.checkpoint_mode is None:
        update["checkpoint_mode"] = p.checkpoint_mode
    if workload.loss is None:
        update["loss"] = p.loss
    if workload.compile is None:
        update["compile"] = p.compile
    if workload.activation_offload is None:
        update["activation_offload"] = p.activation_offload
    if workload.optimizer_in_backward is None:
        full = workload.method in ("full", "pretrain")
        mode = p.optimizer_in_backward
        update["optimizer_in_backward"] = full and (
            mode == "always" or (mode == "single-device" and not multi)
        )
    if workload.lora_dropout is None:
        update["lora_dropout"] = p.lora_dropout
    update["trainer_resolved"] = True
    return workload.model_copy(update=update)


def trainer_assumptions(workload: Workload) -> list[str]:
    """One line naming the trainer profile and the overrides the workload applies."""
    if not workload.training:
        return []
    name = canonical_name(workload.trainer or GENERIC)
    entry = load_profiles().profile[name]
    line = f"trainer profile {name}: {entry.title}"
    if workload.trainer_overrides:
        line += "; overrides " + ", ".join(
            f"{k}={v}" for k, v in sorted(workload.trainer_overrides.items())
        )
    return [line]
