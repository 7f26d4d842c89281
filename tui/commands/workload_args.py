"""The workload flags of CLI.md, shared by ``estimate`` and ``suggest`` (and nothing Textual).

``add_workload_flags(parser)`` adds them; ``workload_from_args(args)`` turns the parsed flags into
an :class:`engine.workload.Workload`, raising :class:`slotwise.tui.cli.UsageError` (exit 2) with a message
naming the flag when a value is wrong.
"""

from __future__ import annotations

import argparse
import math

from pydantic import ValidationError

from slotwise.engine.estimate.recipes import RECIPE_NAMES, RecipeError, apply_recipe
from slotwise.engine.estimate.serving_constants import LATENCY_PRESETS
from slotwise.engine.workload import (
    CHECKPOINT_MODES,
    KV_CACHE_DTYPES,
    LORA_INPUT_CASTS,
    LOSSES,
    METHODS,
    NF4_BACKENDS,
    OFFLOADS,
    OPTIMIZERS,
    PARALLELS,
    PRECISIONS,
    SERVING_ENGINES,
    Workload,
)
from slotwise.engine.workload.text import WorkloadTextError, parse_field
from slotwise.tui.cli import UsageError

# argparse dest -> Workload field, for error messages that name the flag the user typed.
_FLAG_OF_FIELD = {
    "model": "--model",
    "config": "--config",
    "method": "--method",
    "precision": "--precision",
    "optimizer": "--optimizer",
    "offload": "--offload",
    "seq_len": "--seq-len",
    "micro_batch": "--micro-batch",
    "grad_accum": "--grad-accum",
    "grad_checkpointing": "--grad-checkpointing",
    "lora_rank": "--lora-rank",
    "lora_targets": "--lora-targets",
    "lora_dropout": "--lora-dropout",
    "parallel": "--parallel",
    "tp": "--tp",
    "tokens": "--tokens",
    "target_days": "--target-days",
    "mfu": "--mfu",
    "master_weights": "--master-weights",
    "loss": "--loss",
    "users": "--users",
    "tokens_per_user_s": "--tokens-per-user-s",
    "output_len": "--output-len",
    "legacy_kv_cache": "--legacy-kv-cache",
    "serving_engine": "--serving-engine",
    "kv_cache_dtype": "--kv-cache-dtype",
    "ttft_target_s": "--ttft-target-ms",
    "tpot_target_s": "--tpot-target-ms",
    "global_batch": "--global-batch",
    "checkpoint_mode": "--checkpoint-mode",
    "activation_offload": "--activation-offload",
    "optimizer_in_backward": "--optimizer-in-backward",
    "longest_sample": "--longest-sample",
    "fsdp_no_sync": "--fsdp-no-sync",
    "fsdp_layer_grads": "--fsdp-layer-grads",
    "separate_lm_head": "--separate-lm-head",
    "fabric_bnb": "--fabric-bnb",
    "fused_qkv": "--fused-qkv",
    "nf4_keeps_input": "--nf4-keeps-input",
    "keeps_previous_graph": "--keeps-previous-graph",
    "expand_kv": "--expand-kv",
    "compile": "--compile",
    "compile_loss": "--compile-loss",
    "nf4_backend": "--nf4-backend",
    "lora_input_cast": "--lora-input-cast",
    "dora": "--dora",
    "zero_buckets": "--zero-buckets",
    "recipe": "--recipe",
    "margin": "--margin",
}


def _text(field: str):
    """An argparse type that parses with the engine's one workload-text parser."""

    def parse(text: str):
        try:
            value = parse_field(field, text)
        except WorkloadTextError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        if value is None:
            raise argparse.ArgumentTypeError(f"{text!r}: empty value")
        return value

    parse.__name__ = field  # argparse names the type in its messages
    return parse


#: No count or amount a flag takes comes near this (the largest are token counts, ~1e13, and
#: prices in small currency units); above it the value is a slip, and 1e308 overflows to inf.
FLAG_CEILING = 1e15


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be 1 or more")
    if value > FLAG_CEILING:
        raise argparse.ArgumentTypeError(f"{text!r} is far too large")
    return value


def finite_float(text: str) -> float:
    """A finite number of realistic size: ``nan``, ``inf`` and ``1e308`` are bad input (exit 2,
    argparse names the flag), never a NaN carried into a TCO or an "internal error"."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite number")
    if abs(value) > FLAG_CEILING:
        raise argparse.ArgumentTypeError(f"{text!r} is far too large")
    return value


_count = _text("tokens")
_targets = _text("lora_targets")


def _positive_float(text: str) -> float:
    value = finite_float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be greater than 0")
    return value


def add_workload_flags(parser: argparse.ArgumentParser, *, positional: bool = True) -> None:
    """Add the CLI.md workload flags (and ``--mfu``, ``--master-weights``) to ``parser``;
    ``positional=False`` leaves out the WORKLOAD argument (for commands whose positionals are files)."""
    g = parser.add_argument_group("workload")
    if positional:
        g.add_argument(
            "workload",
            nargs="?",
            metavar="WORKLOAD",
            help="model preset id or config.json path / Hugging Face id (same as --model/--config)",
        )
    g.add_argument("--model", metavar="ID", help="a preset from parts/data/models.toml")
    g.add_argument(
        "--config", metavar="PATH_OR_HF_ID", help="a config.json file or a Hugging Face model id"
    )
    g.add_argument("--method", choices=METHODS, default=None, help="default: inference")
    g.add_argument("--precision", choices=PRECISIONS, default=None, help="default: bf16")
    g.add_argument("--optimizer", choices=OPTIMIZERS, default=None, help="default: adamw")
    g.add_argument("--offload", choices=OFFLOADS, default=None, help="default: none")
    g.add_argument(
        "--seq-len",
        type=_text("seq_len"),
        metavar="N",
        help="tokens per sequence, e.g. 4096 or 8k (k = 1,024 tokens; default 2048)",
    )
    g.add_argument(
        "--micro-batch", type=_positive_int, metavar="N", help="sequences per GPU per step (1)"
    )
    g.add_argument(
        "--grad-accum",
        type=_positive_int,
        metavar="N",
        help="micro-batches per optimizer step (gradient accumulation, 1)",
    )
    g.add_argument(
        "--grad-checkpointing",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="activation recompute (default: on for training)",
    )
    g.add_argument("--lora-rank", type=_positive_int, metavar="N", help="LoRA rank (16)")
    g.add_argument(
        "--lora-targets",
        type=_targets,
        metavar="SET",
        help="qv, attn, all-linear (default) or a comma list of q,k,v,o,gate,up,down",
    )
    g.add_argument(
        "--lora-dropout",
        type=finite_float,
        metavar="P",
        help="LoRA dropout probability; 0 = off, keeps no dropped copies "
        "(default: assumed on; the recipe's value with --recipe)",
    )
    g.add_argument("--parallel", choices=PARALLELS, default=None, help="default: zero3 when >1 GPU")
    g.add_argument(
        "--tp",
        type=_positive_int,
        metavar="N",
        help="tensor-parallel degree; must divide the attention and key/value heads. "
        "Default: training 1, serving the largest valid size inside a fast-link group. "
        "--tp 1 --gpus 8 serves 8 replicas",
    )
    g.add_argument("--tokens", type=_count, metavar="N", help="tokens to train on, e.g. 300B")
    g.add_argument("--target-days", type=_positive_float, metavar="D", help="wanted days")
    g.add_argument(
        "--mfu",
        type=_positive_float,
        metavar="F",
        help="end-to-end model FLOPs utilisation; replaces the time model (default: per GPU)",
    )
    g.add_argument(
        "--master-weights",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="fp32 master copy of trained weights (default: on; --no-master-weights = pure "
        "bf16 training as litgpt bf16-true / torchtune)",
    )
    g.add_argument(
        "--loss",
        choices=LOSSES,
        default=None,
        help="cross-entropy memory: full (default; Hugging Face upcasts all logits to fp32), "
        "chunked (torchtune-style chunked output + loss) or full-16bit (no upcast, no "
        "autocast: Qwen v1 under DeepSpeed fp16)",
    )
    s = parser.add_argument_group("serving (inference)")
    s.add_argument(
        "--users",
        type=_positive_int,
        metavar="N",
        help="concurrent users the GPUs serve: time to first token, tokens/s per user and "
        "per server, KV cache for N x context, the most users that fit",
    )
    s.add_argument(
        "--tokens-per-user-s",
        type=_positive_float,
        metavar="T",
        help="tokens/s each user must get: sizes the servers needed for --users N",
    )
    s.add_argument(
        "--output-len",
        type=_positive_int,
        metavar="N",
        help=(
            "generated tokens per request, part of --seq-len (default: half of it); memory "
            "peaks at the larger of the prompt's prefill and the end of generation"
        ),
    )
    s.add_argument(
        "--legacy-kv-cache",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="model code that returns a new tuple of past keys/values each step (transformers "
        "< 4.36, remote code such as Qwen v1, ChatGLM2): the old and new caches coexist at the "
        "end of each decode step; default off",
    )
    s.add_argument(
        "--serving-engine",
        choices=SERVING_ENGINES,
        default=None,
        help="optimized (default: CUDA graphs, as TensorRT-LLM / vLLM / SGLang) or eager "
        "(no CUDA graphs: plain PyTorch, vLLM --enforce-eager)",
    )
    g.add_argument(
        "--recipe",
        choices=RECIPE_NAMES,
        default=None,
        help="fill unset knobs with a trainer's documented defaults (shown in the assumptions)",
    )
    g.add_argument(
        "--checkpoint-mode",
        choices=CHECKPOINT_MODES,
        default=None,
        help="what recompute keeps: full (layer inputs only; default) or selective "
        "(torchtitan per-op SAC: matmul and attention outputs)",
    )
    g.add_argument(
        "--activation-offload",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="saved activations wait in CPU memory (torchtune / Unsloth); default off",
    )
    g.add_argument(
        "--optimizer-in-backward",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="optimizer step fused into the backward, one gradient at a time (torchtune "
        "optimizer_in_bwd); default off",
    )
    g.add_argument(
        "--longest-sample",
        type=_text("longest_sample"),
        metavar="N",
        help="batches padded to their longest sample: the data set's longest sample in tokens "
        "sets the peak (default: every sequence is --seq-len)",
    )
    g.add_argument(
        "--fsdp-no-sync",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="gradient accumulation under FSDP no_sync (litgpt / Lightning Fabric): full, "
        "unsharded gradients on every GPU while accumulating; default off",
    )
    g.add_argument(
        "--fsdp-layer-grads",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="LoRA sharing FSDP1 units with whole decoder layers (use_orig_params=True, litgpt "
        "before Aug 2025): every layer gets a gradient as large as its weights; default off",
    )
    g.add_argument(
        "--separate-lm-head",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the LM head is its own weight even where config.json ties it (litgpt); "
        "default: as config.json",
    )
    g.add_argument(
        "--fabric-bnb",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="qlora through Lightning Fabric BitsandbytesPrecision (litgpt): LM head 4-bit "
        "too, dequantized weights in fp16 and bf16 at once; default off",
    )
    g.add_argument(
        "--nf4-keeps-input",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="qlora: each 4-bit matmul keeps its input for the whole step (bitsandbytes before "
        "0.43.2, e.g. litgpt until Dec 2024); default off (bitsandbytes 0.43.2+, torchao)",
    )
    g.add_argument(
        "--keeps-previous-graph",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the training loop holds the previous step's logits/loss during the next forward "
        "(litgpt): with --nf4-keeps-input its 4-bit inputs are alive then; default off",
    )
    g.add_argument(
        "--fused-qkv",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="q, k and v are one Linear with one LoRA adapter and one dropout (litgpt); "
        "default off (separate q/k/v adapters, as PEFT)",
    )
    g.add_argument(
        "--expand-kv",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="grouped-query k and v repeated to every query head before attention (litgpt): "
        "attention keeps them as wide as q; default off",
    )
    g.add_argument(
        "--compile",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="torch.compile: fused norms and SwiGLU keep fewer activations; default off",
    )
    g.add_argument(
        "--compile-loss",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the loss compiled too: no fp32 logit buffers (default: as --compile)",
    )
    g.add_argument(
        "--nf4-backend",
        choices=NF4_BACKENDS,
        default=None,
        help="QLoRA's NF4 library: bitsandbytes (default; FSDP keeps every quantization "
        "constant on every GPU) or torchao (torchtune; FSDP2 shards the constants)",
    )
    g.add_argument(
        "--lora-input-cast",
        choices=LORA_INPUT_CASTS,
        default=None,
        help="PEFT fp32 adapters on a 16-bit base: each adapted module keeps its own copy of "
        "its input, fp32 without autocast (fp32) or 16-bit under autocast (autocast); none "
        "(default) = the adapters share the base layer's input",
    )
    g.add_argument(
        "--kv-cache-dtype",
        choices=KV_CACHE_DTYPES,
        default=None,
        help="inference: the KV cache's dtype; auto (default) = fp8 when an optimised engine "
        "serves --precision fp8 (TensorRT-LLM's FP8 recipe), else the activations' dtype",
    )
    g.add_argument(
        "--ttft-target-ms",
        type=_positive_float,
        metavar="MS",
        help="inference: latency objective, time to first token under load; with --users, "
        "sizes the replicas and servers that meet it (a preset from --latency-preset if unset)",
    )
    g.add_argument(
        "--tpot-target-ms",
        type=_positive_float,
        metavar="MS",
        help="inference: latency objective, time per output token under load",
    )
    g.add_argument(
        "--latency-preset",
        choices=tuple(LATENCY_PRESETS),
        default=None,
        help="inference: named TTFT/TPOT objective (MLPerf Inference Server / Interactive "
        "p99 limits, met by the mean estimate); --ttft-target-ms/--tpot-target-ms override it",
    )
    g.add_argument(
        "--global-batch",
        type=_positive_int,
        metavar="N",
        help="training: sequences per optimizer step over all GPUs; micro-batches per step = "
        "N / (--micro-batch x data-parallel replicas), replacing --grad-accum",
    )
    g.add_argument(
        "--dora",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="LoRA with DoRA's magnitude vectors (PEFT use_dora=True): keeps each adapted "
        "module's base and adapter outputs; default off",
    )
    g.add_argument("--margin", type=_margin_pct, metavar="PCT", help=MARGIN_HELP)
    g.add_argument(
        "--zero-buckets",
        type=_text("zero_buckets"),
        metavar="N",
        help="DeepSpeed ZeRO-1/2 (--parallel zero1/zero2): elements of its gradient bucket "
        "buffers, reduce_bucket_size (twice with overlap_comm), e.g. 400M; default not counted",
    )


def _margin_pct(text: str) -> float:
    """``--margin PCT``: a percentage in [0, 100] (15 = 15 %), kept as a fraction."""
    try:
        value = float(text.rstrip("%").strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number (a percentage, e.g. 15)"
        ) from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r} must be a percentage from 0 to 100")
    return value / 100


MARGIN_HELP = (
    "planning margin in percent: an estimate must beat a target (memory, time, serving) by "
    "this much before it counts as met (default: each estimate's held-out median error, "
    "memory 3.6 %%, time 14.9 %%, serving 8.6 %%; 0 = none)"
)


def add_margin_flag(parser: argparse.ArgumentParser) -> None:
    """``--margin PCT`` for commands that take the workload from a BOM (validate, compare)."""
    parser.add_argument("--margin", type=_margin_pct, metavar="PCT", help=MARGIN_HELP)


def with_margin(build, margin: float | None):
    """``build`` with its workload's margin set to ``margin`` (None: unchanged)."""
    if margin is None or build.workload is None:
        return build
    return build.model_copy(
        update={"workload": build.workload.model_copy(update={"margin": margin})}
    )


def workload_from_args(args: argparse.Namespace) -> Workload:
    """Build the Workload from parsed flags; bad combinations raise UsageError (exit 2)."""
    model = getattr(args, "model", None)
    config = getattr(args, "config", None)
    positional = getattr(args, "workload", None)
    if positional:
        if model or config:
            raise UsageError(
                f"give the model once: either WORKLOAD ({positional!r}) or --model/--config"
            )
        if positional.endswith(".json") or "/" in positional or "\\" in positional:
            config = positional
        else:
            model = positional
    if model and config:
        raise UsageError("give only one of --model and --config")
    if not model and not config:
        raise UsageError(
            "no model given: name a preset with --model (see `slotwise parts --kind model`) "
            "or a config.json path / Hugging Face id with --config"
        )
    fields: dict = {"model": model, "config": config}
    for dest in (
        "method",
        "precision",
        "optimizer",
        "offload",
        "seq_len",
        "micro_batch",
        "grad_accum",
        "grad_checkpointing",
        "lora_rank",
        "lora_targets",
        "lora_dropout",
        "tp",
        "tokens",
        "target_days",
        "mfu",
        "master_weights",
        "loss",
        "users",
        "tokens_per_user_s",
        "output_len",
        "legacy_kv_cache",
        "serving_engine",
        "kv_cache_dtype",
        "global_batch",
        "checkpoint_mode",
        "activation_offload",
        "optimizer_in_backward",
        "longest_sample",
        "fsdp_no_sync",
        "fsdp_layer_grads",
        "separate_lm_head",
        "fabric_bnb",
        "fused_qkv",
        "expand_kv",
        "nf4_keeps_input",
        "keeps_previous_graph",
        "compile",
        "compile_loss",
        "nf4_backend",
        "lora_input_cast",
        "dora",
        "zero_buckets",
        "margin",
    ):
        value = getattr(args, dest, None)
        if value is not None:
            fields[dest] = value
    preset = getattr(args, "latency_preset", None)
    ttft_ms = getattr(args, "ttft_target_ms", None)
    tpot_ms = getattr(args, "tpot_target_ms", None)
    if preset is not None:
        p_ttft, p_tpot = LATENCY_PRESETS[preset]
        fields["ttft_target_s"] = p_ttft
        fields["tpot_target_s"] = p_tpot
    if ttft_ms is not None:
        fields["ttft_target_s"] = ttft_ms / 1e3
    if tpot_ms is not None:
        fields["tpot_target_s"] = tpot_ms / 1e3
    parallel = getattr(args, "parallel", None)
    if parallel is not None:
        fields["parallel"] = parallel  # Workload maps the fsdp alias
    try:
        fields = apply_recipe(fields, getattr(args, "recipe", None))
    except RecipeError as exc:
        raise UsageError(f"--recipe: {exc}") from None
    try:
        return Workload(**fields)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = err.get("loc") or ()
            name = str(loc[0]) if loc else ""
            flag = _FLAG_OF_FIELD.get(name, name or "workload")
            problems.append(f"{flag}: {err.get('msg', 'invalid value')}")
        raise UsageError("bad workload: " + "; ".join(problems)) from None
