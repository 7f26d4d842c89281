"""The workload flags of CLI.md, shared by ``estimate`` and ``suggest`` (and nothing Textual).

``add_workload_flags(parser)`` adds them; ``workload_from_args(args)`` turns the parsed flags into
an :class:`engine.workload.Workload`, raising :class:`slotwise.tui.cli.UsageError` (exit 2) with a message
naming the flag when a value is wrong.
"""

from __future__ import annotations

import argparse
import math

from pydantic import ValidationError

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
    SERVING_ENGINE_CHOICES,
    Workload,
)
from slotwise.engine.workload.text import WorkloadTextError, parse_field
from slotwise.engine.workload.trainers import TrainerError, apply_trainer, parse_override
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
    "ttft_target_s": "--ttft-target-ms",
    "tpot_target_s": "--tpot-target-ms",
    "margin": "--margin",
    "kv_cache_dtype": "--kv-cache-dtype",
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
    "trainer": "--trainer",
    "trainer_overrides": "--set",
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


#: The old trainer-internal flags: each is a hidden alias of ``--set FIELD=VALUE`` (a trainer
#: profile override, engine/workload/trainers.py), kept so every command line that worked before
#: trainer profiles still works.  (flag, profile field, kind: "bool" / "choice" / "count").
INTERNAL_FLAGS: tuple[tuple[str, str, str], ...] = (
    ("--master-weights", "master_weights", "bool"),
    ("--fsdp-no-sync", "fsdp_no_sync", "bool"),
    ("--fsdp-layer-grads", "fsdp_layer_grads", "bool"),
    ("--separate-lm-head", "separate_lm_head", "bool"),
    ("--fabric-bnb", "fabric_bnb", "bool"),
    ("--nf4-keeps-input", "nf4_keeps_input", "bool"),
    ("--keeps-previous-graph", "keeps_previous_graph", "bool"),
    ("--fused-qkv", "fused_qkv", "bool"),
    ("--expand-kv", "expand_kv", "bool"),
    ("--compile-loss", "compile_loss", "bool"),
    ("--legacy-kv-cache", "legacy_kv_cache", "bool"),
    ("--nf4-backend", "nf4_backend", "choice"),
    ("--lora-input-cast", "lora_input_cast", "choice"),
    ("--zero-buckets", "zero_buckets", "count"),
)


def _override_dest(field: str) -> str:
    return f"trainer_set__{field}"


def _set_item(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: use FIELD=VALUE, e.g. nf4_keeps_input=true")
    return name.strip(), value.strip()


def add_workload_flags(parser: argparse.ArgumentParser, *, positional: bool = True) -> None:
    """Add the CLI.md workload flags to ``parser``: the user-level ones shown in --help, the
    rest (serving details, options most runs leave alone, and every old trainer-internal flag)
    as hidden aliases that keep working; ``positional=False`` leaves out the WORKLOAD argument
    (for commands whose positionals are files)."""
    hidden = argparse.SUPPRESS
    g = parser.add_argument_group("workload")
    if positional:
        g.add_argument(
            "workload",
            nargs="?",
            metavar="WORKLOAD",
            help="model preset id or config.json path / Hugging Face id (same as --model/--config)",
        )
    g.add_argument("--model", metavar="ID", help="a preset from parts/data/models.toml")
    # a config.json file or a Hugging Face model id (docs/CLI.md; WORKLOAD takes them too)
    g.add_argument("--config", metavar="PATH_OR_HF_ID", help=hidden)
    g.add_argument("--method", choices=METHODS, default=None, help="default: inference")
    g.add_argument(
        "--trainer",
        "--recipe",
        dest="trainer",
        metavar="NAME[@ERA]",
        default=None,
        help="the trainer that runs it (`slotwise trainers` lists them; default: generic, "
        "today's common stack): its profile sets how memory is used",
    )
    g.add_argument(
        "--set",
        dest="trainer_set",
        action="append",
        type=_set_item,
        metavar="FIELD=VALUE",
        default=None,
        help="override one trainer-profile field, e.g. --set nf4_keeps_input=true (repeatable)",
    )
    g.add_argument(
        "--precision",
        choices=PRECISIONS,
        default=None,
        help="default: auto (FP8 to serve an FP8-stored checkpoint, else bf16)",
    )
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
        help="activation recompute (default: the trainer's)",
    )
    g.add_argument("--lora-rank", type=_positive_int, metavar="N", help="LoRA rank (16)")
    g.add_argument(
        "--lora-targets",
        type=_targets,
        metavar="SET",
        help="qv, attn, all-linear (default) or a comma list of q,k,v,o,gate,up,down",
    )
    g.add_argument("--lora-dropout", type=finite_float, metavar="P", help=hidden)
    g.add_argument("--parallel", choices=PARALLELS, default=None, help="default: zero3 when >1 GPU")
    g.add_argument(
        "--tp",
        type=_positive_int,
        metavar="N",
        help="tensor-parallel degree; must divide the attention and key/value heads. "
        "Default: training 1, serving the largest valid size inside a fast-link group. "
        "TP 1 on 8 GPUs serves 8 replicas",
    )
    g.add_argument("--tokens", type=_count, metavar="N", help="tokens to train on, e.g. 300B")
    g.add_argument("--target-days", type=_positive_float, metavar="D", help="wanted days")
    g.add_argument("--mfu", type=_positive_float, metavar="F", help=hidden)
    g.add_argument(
        "--loss",
        choices=LOSSES,
        default=None,
        help="cross-entropy: full (logits upcast to fp32), chunked (torchtune), fused (Liger, "
        "Cut Cross-Entropy, TRL chunked_nll: no logits kept); default: the trainer's",
    )
    g.add_argument(
        "--users",
        type=_positive_int,
        metavar="N",
        help="inference: concurrent users the GPUs serve (KV cache, tokens/s, servers)",
    )
    g.add_argument("--tokens-per-user-s", type=_positive_float, metavar="T", help=hidden)
    g.add_argument("--output-len", type=_positive_int, metavar="N", help=hidden)
    g.add_argument("--serving-engine", choices=SERVING_ENGINE_CHOICES, default=None, help=hidden)
    g.add_argument("--kv-cache-dtype", choices=KV_CACHE_DTYPES, default=None, help=hidden)
    g.add_argument("--global-batch", type=_positive_int, metavar="N", help=hidden)
    # serving latency objectives (documented in docs/CLI.md; hidden to keep --help short)
    g.add_argument("--ttft-target-ms", type=_positive_float, metavar="MS", help=hidden)
    g.add_argument("--tpot-target-ms", type=_positive_float, metavar="MS", help=hidden)
    g.add_argument("--latency-preset", choices=tuple(LATENCY_PRESETS), default=None, help=hidden)
    # the planning margin (docs/CLI.md; visible on validate and compare)
    g.add_argument("--margin", type=_margin_pct, metavar="PCT", help=hidden)
    g.add_argument("--checkpoint-mode", choices=CHECKPOINT_MODES, default=None, help=hidden)
    for flag in ("--activation-offload", "--optimizer-in-backward", "--compile", "--dora"):
        g.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=hidden)
    g.add_argument("--longest-sample", type=_text("longest_sample"), metavar="N", help=hidden)
    for flag, field, kind in INTERNAL_FLAGS:
        dest = _override_dest(field)
        if kind == "bool":
            g.add_argument(
                flag, dest=dest, action=argparse.BooleanOptionalAction, default=None, help=hidden
            )
        elif kind == "choice":
            choices = {"nf4_backend": NF4_BACKENDS, "lora_input_cast": LORA_INPUT_CASTS}[field]
            g.add_argument(flag, dest=dest, choices=choices, default=None, help=hidden)
        else:
            g.add_argument(flag, dest=dest, type=_text("zero_buckets"), default=None, help=hidden)


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
    "memory 4.1 %%, time 17.0 %%, serving 8.6 %%; 0 = none)"
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
    # no --precision: "auto", the checkpoint's stored format decides (engine.estimate.checkpoint)
    fields: dict = {"model": model, "config": config, "precision": "auto"}
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
        "loss",
        "users",
        "tokens_per_user_s",
        "output_len",
        "serving_engine",
        "kv_cache_dtype",
        "global_batch",
        "checkpoint_mode",
        "activation_offload",
        "optimizer_in_backward",
        "longest_sample",
        "compile",
        "dora",
        "margin",
    ):
        value = getattr(args, dest, None)
        if value is not None:
            fields[dest] = value
    parallel = getattr(args, "parallel", None)
    if parallel is not None:
        fields["parallel"] = parallel  # Workload maps the fsdp alias
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
    overrides: dict[str, object] = {}
    for _flag, field, _kind in INTERNAL_FLAGS:
        value = getattr(args, _override_dest(field), None)
        if value is not None:
            overrides[field] = value
    for name, text in getattr(args, "trainer_set", None) or ():
        try:
            value = parse_override(name, text)
        except TrainerError as exc:
            raise UsageError(f"--set {name}={text}: {exc}") from None
        overrides[name.removeprefix("trainer.")] = value
    if overrides:
        fields["trainer_overrides"] = overrides
    try:
        fields = apply_trainer(fields, getattr(args, "trainer", None))
    except TrainerError as exc:
        raise UsageError(f"--trainer: {exc}") from None
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
