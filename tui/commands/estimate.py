"""`slotwise estimate WORKLOAD [--gpu SKU] [--gpus N] [--json]`: memory per GPU, fit, time, speed.

Exit codes: 0 the workload fits, 1 it does not fit, 2 bad input (unknown model / GPU / flag).
The default GPU is the NVIDIA H100 SXM5 80GB, the GPU of the HGX H100 8-GPU servers that most
training builds start from; pass --gpu for any other catalog GPU (`slotwise parts --kind gpu`).
"""

from __future__ import annotations

import argparse

from slotwise.engine.check.sizing import size_servers
from slotwise.engine.check.verdict import TIGHT_ADVICE, context_overrun, memory_fit
from slotwise.engine.estimate import Estimate, estimate, suggest_changes
from slotwise.engine.estimate.checkpoint import served_precision
from slotwise.engine.estimate.constants import DEFAULT_GPUS_PER_SERVER, GIB
from slotwise.engine.estimate.layout import tp_problem, valid_tp_sizes
from slotwise.engine.model.params import lora_target_names
from slotwise.engine.model.resolve import ModelResolveError, resolve_arch_with_warnings
from slotwise.engine.names import close_names
from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import Gpu, ModelPreset
from slotwise.tui.cli import UsageError
from slotwise.tui.commands.common import add_catalog_flag, get_catalog, print_json
from slotwise.tui.commands.flags import cli_words
from slotwise.tui.commands.workload_args import (
    _positive_int,
    add_workload_flags,
    workload_from_args,
)

DEFAULT_GPU = "NVIDIA-H100-SXM5-80GB"


def register(sub) -> None:
    p = sub.add_parser(
        "estimate",
        help="GPU memory, fit, training time and tokens/s for a workload",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_workload_flags(p)
    p.add_argument("--gpu", metavar="SKU", default=DEFAULT_GPU, help=f"default {DEFAULT_GPU}")
    p.add_argument("--gpus", type=_positive_int, default=1, metavar="N", help="GPU count (1)")
    p.add_argument(
        "--gpus-per-server",
        type=_positive_int,
        default=DEFAULT_GPUS_PER_SERVER,
        metavar="N",
        help=argparse.SUPPRESS,  # GPUs per server, for the server count (docs/CLI.md)
    )
    p.add_argument(
        "--bom",
        metavar="BOM.toml",
        help="estimate on a saved build: its GPUs, links and NICs (the workload flags, else the "
        "BOM's own workload); the server count is the one validate and compare give",
    )
    # never fetch a config.json; use the cache only (docs/CLI.md)
    p.add_argument("--offline", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_catalog_flag(p)
    p.set_defaults(run=run)


def find_gpu(catalog: Catalog, sku: str) -> Gpu:
    """The catalog GPU ``sku`` (case-insensitive), or UsageError listing close matches."""
    gpus = catalog.gpus
    if sku in gpus:
        return gpus[sku]
    lowered = {k.lower(): k for k in gpus}
    if sku.lower() in lowered:
        return gpus[lowered[sku.lower()]]
    close = close_names(sku, gpus, n=4, cutoff=0.4)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise UsageError(
        f"--gpu {sku!r} is not a GPU in the catalog.{hint} List them with "
        "`slotwise parts --kind gpu`."
    )


def _resolve(args, workload, catalog) -> tuple[ModelPreset, list[str]]:
    try:
        return resolve_arch_with_warnings(workload, catalog, offline=args.offline)
    except ModelResolveError as exc:
        raise UsageError(str(exc)) from None


def _say_precision(workload, arch, warnings: list[str]) -> None:
    """What "auto" precision resolved to, as a warning line (engine.estimate.checkpoint decides;
    the estimate's assumptions carry the same line)."""
    _, note = served_precision(workload, arch)
    if note:
        warnings.append(note)


def _on_bom(args, catalog: Catalog):
    """(workload, GPU, estimate, sizing) of ``--bom``: the build's own report (what validate
    and compare read), under the workload flags when a model is named."""
    from slotwise.engine.bom import read_bom
    from slotwise.engine.check.evaluate import evaluate

    loaded = read_bom(args.bom, catalog)
    errors = [p for p in loaded.problems if p.severity == "error"]
    if loaded.build is None or errors:
        why = "; ".join(p.message for p in errors) or "no usable chassis"
        raise UsageError(f"--bom {args.bom}: cannot use this BOM: {why}")
    named = args.model or args.config or getattr(args, "workload", None)
    if named:
        workload = workload_from_args(args)
    elif loaded.build.workload is not None:
        workload = loaded.build.workload
        if args.margin is not None:
            workload = workload.model_copy(update={"margin": args.margin})
    else:
        raise UsageError(f"--bom {args.bom}: the BOM has no workload; name a model with --model")
    report = evaluate(loaded.build.model_copy(update={"workload": workload}), catalog)
    est = report.estimate
    if est is None:
        why = "; ".join(f.message for f in report.findings if f.rule.startswith("workload_fit"))
        raise UsageError(f"--bom {args.bom}: no estimate for this build ({why or 'no GPU'})")
    sizing = report.verdict.sizing if report.verdict is not None else None
    return workload, catalog.gpus[est.gpu], est, sizing


def run(args: argparse.Namespace) -> int:
    catalog = get_catalog(args)
    if args.bom:
        workload, gpu, est, sizing = _on_bom(args, catalog)
        arch, warnings = _resolve(args, workload, catalog)
        _say_precision(workload, arch, warnings)
        advice = [] if est.fits else suggest_changes(workload, gpu, est.gpus, arch=arch)
        return _output(args, est, sizing, workload, arch, gpu, warnings, advice)
    workload = workload_from_args(args)
    gpu = find_gpu(catalog, args.gpu)
    arch, warnings = _resolve(args, workload, catalog)
    _say_precision(workload, arch, warnings)
    overrun = context_overrun(workload, arch.max_position_embeddings, arch.sku)
    if overrun:
        warnings.append(overrun)
    check_tp(workload, arch, args.gpus)
    try:
        est = estimate(workload, gpu, args.gpus, arch=arch, gpus_per_server=args.gpus_per_server)
        sizing = size_servers(workload, gpu, args.gpus_per_server, arch=arch)
        advice = [] if est.fits else suggest_changes(workload, gpu, args.gpus, arch=arch)
    except (ArithmeticError, ValueError) as exc:  # a degenerate architecture (zero widths...)
        raise UsageError(
            f"could not estimate {arch.sku}: {exc}; check the architecture numbers ({arch.source})"
        ) from None
    return _output(args, est, sizing, workload, arch, gpu, warnings, advice)


def _output(args, est, sizing, workload, arch, gpu, warnings, advice) -> int:
    if args.json:
        data = est.to_json()
        data["sizing"] = sizing.to_json() if sizing is not None else None
        data["model"] = arch.sku
        data["method"] = workload.method
        data["precision"] = est.assumptions.precision  # "auto" resolved by the engine
        data["warnings"] = warnings
        data["advice"] = [
            {"change": a.change, "total_bytes": round(a.gib_per_gpu * GIB), "fits": a.fits}
            for a in advice
        ]
        print_json(data)
    else:
        text = render(est, workload, arch, gpu, warnings, advice)
        if sizing is not None:
            text += "\n\nServers: " + "\n".join(sizing.lines())
        print(cli_words(text))
    return 0 if est.fits else 1


def check_tp(workload, arch: ModelPreset, gpus: int) -> None:
    """An explicit ``--tp`` that no engine accepts for this model is an input error (exit 2)."""
    if workload.tp is None:
        return
    problem = tp_problem(arch, workload.tp)
    if problem:
        sizes = ", ".join(str(t) for t in valid_tp_sizes(arch, max(gpus, workload.tp)))
        raise UsageError(f"--tp {workload.tp}: {problem} ({arch.sku}); valid sizes: {sizes}")


def _gib(value: float) -> str:
    return f"{value / GIB:8.2f} GiB"


def serving_lines(sv) -> list[str]:
    """The serving block of the report (engine.estimate.serving.Serving)."""
    out = [
        "",
        f"Serving {sv.users} concurrent user(s) ({sv.prompt_tokens} prompt + "
        f"{sv.output_tokens} output tokens each, {sv.engine} engine, "
        f"{sv.users_per_replica} per replica x {sv.replicas})",
        f"  time to first token        {sv.ttft_s * 1e3:10,.0f} ms with {sv.users} user(s) "
        f"(idle server {sv.ttft_idle_s * 1e3:,.0f} ms)",
        f"  inter-token latency        {sv.inter_token_s * 1e3:10,.1f} ms",
        f"  output tokens/s per user   {sv.tokens_per_s_per_user:10,.1f} "
        f"(with all {sv.users:,} users on these GPUs; single user "
        f"{sv.single_user_tokens_per_s:,.1f})",
        f"  output tokens/s, all GPUs  {sv.tokens_per_s:10,.0f}",
        f"  output tokens/s per server {sv.tokens_per_s_per_server:10,.0f}",
        f"  decoding at once           {sv.running_users_per_replica:10,} per replica"
        + (f", {sv.queued_users:,} queued" if sv.queued_users else ""),
        f"  KV cache for users         {sv.kv_cache_bytes_for_users / GIB:10,.2f} GiB "
        f"({sv.kv_cache_bytes_per_gpu / GIB:,.2f} GiB per GPU)",
        f"  most users that fit        {sv.max_users:10,}"
        + ("" if sv.fits_users else "  (fewer than asked)"),
    ]
    if sv.ttft_target_s or sv.tpot_target_s:
        goal = " and ".join(
            f"{name} <= {v * 1e3:,.0f} ms"
            for name, v in (("TTFT", sv.ttft_target_s), ("TPOT", sv.tpot_target_s))
            if v
        )
        if sv.max_users_per_replica_at_latency:
            out.append(
                f"  users per replica at {goal}: {sv.max_users_per_replica_at_latency}; "
                f"{sv.users} users need {sv.replicas_for_users_at_latency} replica(s) = "
                f"{sv.servers_for_users_at_latency} server(s) (mean latency; tails not modelled)"
            )
        else:
            out.append(f"  {goal} is out of reach on this layout even for one user")
    if sv.tokens_per_user_s_target:
        at = sv.max_users_per_replica_at_target
        out.append(
            f"  users per replica at {sv.tokens_per_user_s_target:g} tokens/s: {at:,}"
            if at
            else f"  {sv.tokens_per_user_s_target:g} tokens/s per user is out of reach on "
            "this layout (see the single-user figure)"
        )
    return out


def render(est: Estimate, workload, arch: ModelPreset, gpu: Gpu, warnings, advice) -> str:
    """The human-readable report: breakdown table, verdict, what to change, time, assumptions."""
    m = est.memory_per_gpu
    lines = [
        f"{arch.sku}: {workload.method}, {est.assumptions.precision}, seq {workload.seq_len} x "
        f"micro-batch {workload.micro_batch}"
        + (f", LoRA r={workload.lora_rank} on {lora_target_names(arch, workload.lora_targets)}"
           if workload.method in ("lora", "qlora") else ""),
        f"{est.params / 1e9:.2f}B parameters"
        + (f" ({est.active_params / 1e9:.2f}B active per token)"
           if est.active_params != est.params else ""),
        f"on {est.gpus} x {gpu.sku} ({gpu.memory_gb:g} GB each), "
        f"{est.servers} server(s) of {est.gpus_per_server}; layout tp={est.tp}"
        + (f" pp={est.pp}" if est.pp > 1 else "")
        + f" dp={est.dp}"
        + (f" {est.parallel}" if workload.training else ""),
        "",
        "Memory per GPU",
    ]  # fmt: skip
    total = m.total_bytes or 1.0
    for name, value in m.parts():
        lines.append(f"  {name:<12}{_gib(value)}  {100 * value / total:5.1f}%")
    lines.append(f"  {'':<12}{'-' * 12}")
    lines.append(f"  {'total':<12}{_gib(m.total_bytes)}")
    low = m.total_bytes if m.low_bytes is None else m.low_bytes
    high = m.total_bytes if m.high_bytes is None else m.high_bytes
    lines.append(
        f"  {'range':<12}{_gib(low)} - {_gib(high).strip()}  ("
        + (
            f"trainer {workload.trainer}: its measured error"
            if workload.trainer
            else "the estimator's measured error on published peaks"
            if not workload.training
            else "no trainer named: the trainers a user could be running + measured error"
        )
        + ")"
    )
    lines.append(
        f"  {'usable':<12}{_gib(est.usable_bytes)}  of {_gib(est.gpu_memory_bytes).strip()}"
    )
    lines.append(
        f"  {'overhead':<12}{_gib(m.overhead_bytes)}  CUDA context, outside the total "
        "(taken off usable)"
    )
    if m.logits_bytes >= 0.005 * GIB:
        lines.append(f"  (activations include {m.logits_bytes / GIB:.2f} GiB of logits/loss)")
    lines.append("")
    fit = memory_fit(low, m.total_bytes, high, est.usable_bytes)
    if fit == "fits":
        lines.append(
            f"FITS: {m.total_bytes / GIB:.1f} GiB of {est.usable_bytes / GIB:.1f} GiB usable per GPU"
            f" (the whole range, up to {high / GIB:.1f} GiB)"
        )
    elif fit == "tight":
        lines.append(
            f"TIGHT: {m.total_bytes / GIB:.1f} GiB estimated ({low / GIB:.1f}-{high / GIB:.1f}) "
            f"of {est.usable_bytes / GIB:.1f} GiB usable per GPU"
        )
        lines.append(f"  - {TIGHT_ADVICE}")
    else:
        lines.append(
            f"DOES NOT FIT: needs {m.total_bytes / GIB:.1f} GiB per GPU, "
            f"{est.usable_bytes / GIB:.1f} GiB usable"
        )
    if not est.fits:
        if est.min_gpus:
            lines.append(f"  - use at least {est.min_gpus} x {gpu.sku} (same settings)")
        else:
            lines.append(f"  - no count of {gpu.sku} up to 1024 fits these settings")
        for a in advice:
            lines.append(
                f"  - {a.change}: {a.gib_per_gpu:.1f} GiB per GPU "
                f"({'fits' if a.fits else 'still too big'})"
            )
    if est.fits and est.min_gpus and est.min_gpus < est.gpus:
        lines.append(f"  ({est.min_gpus} GPU(s) would be enough for the memory)")
    lines.append("")
    lines.append(
        f"Compute: {est.flops_per_token:.3g} model FLOPs per token"
        + (
            f" (+{est.recompute_flops_per_token:.3g} recompute = hardware FLOPs)"
            if est.recompute_flops_per_token
            else ""
        )
    )
    if est.train_tokens_per_s is not None and est.train_tokens_per_s_per_gpu is not None:
        lines.append(
            f"Training throughput: {est.train_tokens_per_s:,.0f} tokens/s "
            f"({est.train_tokens_per_s_per_gpu:,.0f} per GPU)"
            + (f", MFU {est.mfu_effective:.0%}" if est.mfu_effective is not None else "")
            + (f", step {est.step_seconds:.3g} s" if est.step_seconds is not None else "")
        )
    if est.train_hours is not None:
        days = est.train_hours / 24
        lines.append(
            f"Training time: {est.train_hours:,.1f} h ({days:,.1f} days) on {est.tp * est.dp} GPUs, "
            f"{est.train_hours * est.tp * est.dp:,.0f} GPU-hours"
        )
    if est.gpus_for_target_days is not None:
        lines.append(f"GPUs for {workload.target_days:g} days: {est.gpus_for_target_days}")
    if est.decode_tokens_per_s is not None:
        batch = est.serving.users if est.serving is not None else workload.micro_batch
        lines.append(
            f"Decode: {est.decode_tokens_per_s:,.0f} tokens/s for the whole batch "
            f"({batch:,} sequence(s) at once on {est.gpus} GPUs)"
        )
    if est.prefill_tokens_per_s is not None:
        lines.append(f"Prefill: {est.prefill_tokens_per_s:,.0f} tokens/s")
    if est.serving is not None:
        lines += serving_lines(est.serving)
    lines.append("")
    lines.append(f"Assumptions (MFU {est.assumptions.mfu:.0%}, MBU {est.assumptions.mbu:.0%}):")
    for note in list(warnings) + list(est.assumptions.notes):
        lines.append(f"  - {note}")
    return "\n".join(lines)
