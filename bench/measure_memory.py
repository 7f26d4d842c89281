#!/usr/bin/env python3
"""Measure real peak GPU memory for a workload and print it beside slotwise's estimate.

Needs a CUDA GPU with ``torch`` and ``transformers`` (``peft`` for LoRA/QLoRA, ``bitsandbytes``
for QLoRA and 8-bit optimizers).  Nothing is downloaded: the model is built from its architecture
(a slotwise preset, a local config.json, or one of the published reference cases) with random
weights, then a few real training steps (or a prefill + decode for inference) run on one GPU.

    python bench/measure_memory.py --model llama-3.2-1b --method lora --seq-len 2048
    python bench/measure_memory.py --config path/to/config.json --method qlora --layers 8
    python bench/measure_memory.py --case litgpt-hub-llama3-8b-lora
    python bench/measure_memory.py --all-cases --json > results.json
    python bench/measure_memory.py --list-cases

``--layers N`` shrinks the model to N decoder layers for GPUs too small for the full model; the
estimate is made for the same shrunken architecture, so the comparison stays like for like.

Three measurements are printed: ``allocated`` (``torch.cuda.max_memory_allocated``, what litgpt
and most tables report), ``reserved`` (``max_memory_reserved``, what torchtune's early tables
used) and ``device`` (total minus free memory from ``cudaMemGetInfo`` at the end: adds the CUDA
context and anything outside PyTorch's allocator, closest to nvidia-smi).  slotwise's
``total_bytes`` includes a CUDA-context allowance, so it is meant to sit between ``allocated``
and ``device``.

This script is not run in CI (no GPU there); ``--help`` and ``--list-cases`` work without torch.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/ holds other scripts (bench/engine.py) that would shadow the ``engine`` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from slotwise.engine.estimate import estimate  # noqa: E402
from slotwise.engine.model.params import linear_params_by_module  # noqa: E402
from slotwise.engine.workload import Workload  # noqa: E402
from slotwise.parts.schema import Gpu, ModelPreset  # noqa: E402
from tests.evidence.memory_cases import (  # noqa: E402
    A100_80GB,
    CASES,
    KNOWN_MISSES,
)

GB = 1e9

# ModelPreset field -> transformers config key, per model_type where they differ.
_MOE_KEYS = {
    "mixtral": {"num_experts": "num_local_experts", "num_experts_per_tok": "num_experts_per_tok"},
    "qwen2_moe": {"num_experts": "num_experts", "num_experts_per_tok": "num_experts_per_tok"},
    "deepseek_v3": {
        "num_experts": "n_routed_experts",
        "num_experts_per_tok": "num_experts_per_tok",
        "n_shared_experts": "n_shared_experts",
        "moe_intermediate_size": "moe_intermediate_size",
        "first_k_dense_replace": "first_k_dense_replace",
    },
}
_COMMON_KEYS = (
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "vocab_size",
    "tie_word_embeddings",
    "max_position_embeddings",
    "attention_bias",
    "q_lora_rank",
    "kv_lora_rank",
    "qk_nope_head_dim",
    "qk_rope_head_dim",
    "v_head_dim",
)


def hf_config_dict(arch: ModelPreset, layers: int | None = None) -> dict:
    """The config.json dict transformers needs to build ``arch`` (no torch needed)."""
    cfg: dict = {"model_type": arch.model_type}
    for key in _COMMON_KEYS:
        value = getattr(arch, key, None)
        if value is not None:
            cfg[key] = value
    for ours, theirs in _MOE_KEYS.get(arch.model_type, {}).items():
        value = getattr(arch, ours, None)
        if value is not None:
            cfg[theirs] = value
    if layers:
        cfg["num_hidden_layers"] = layers
    cfg.setdefault("max_position_embeddings", 4096)
    return cfg


def shrink(arch: ModelPreset, layers: int | None) -> ModelPreset:
    """``arch`` with ``layers`` decoder layers (the estimate must see the same model)."""
    if not layers:
        return arch
    update = {"num_hidden_layers": layers}
    if arch.first_k_dense_replace is not None:
        update["first_k_dense_replace"] = min(arch.first_k_dense_replace, layers)
    return arch.model_copy(update=update)


def lora_module_names(arch: ModelPreset, targets: tuple[str, ...]) -> list[str]:
    """PEFT ``target_modules`` (HF module names) for slotwise's q/k/v/o/gate/up/down."""
    names: set[str] = set()
    by_mod = linear_params_by_module(arch)
    for t in targets:
        for shape in by_mod.get(t, ()):
            names.add(shape.hf_name.split(".")[-1])
    return sorted(names)


# ------------------------------------------------------------------------------ torch side


def _require_torch():
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as exc:
        sys.exit(f"measure_memory: needs torch and transformers on a CUDA machine ({exc.name})")
    import torch

    if not torch.cuda.is_available():
        sys.exit("measure_memory: no CUDA device visible; run this on a GPU machine")
    return torch


def _quantize_linears(model, torch):
    """Replace every nn.Linear except lm_head by a bitsandbytes NF4 + double-quant Linear4bit."""
    import bitsandbytes as bnb

    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            full = f"{name}.{child_name}" if name else child_name
            if not isinstance(child, torch.nn.Linear) or full.endswith("lm_head"):
                continue
            q = bnb.nn.Linear4bit(
                child.in_features,
                child.out_features,
                bias=child.bias is not None,
                compute_dtype=torch.bfloat16,
                compress_statistics=True,
                quant_type="nf4",
            )
            q.weight = bnb.nn.Params4bit(
                child.weight.data, requires_grad=False, compress_statistics=True, quant_type="nf4"
            )
            if child.bias is not None:
                q.bias = torch.nn.Parameter(child.bias.data, requires_grad=False)
            setattr(module, child_name, q)


def _optimizer(params, workload: Workload, torch):
    if workload.optimizer in ("adamw-8bit", "paged-adamw-8bit"):
        import bitsandbytes as bnb

        cls = (
            bnb.optim.PagedAdamW8bit
            if workload.optimizer.startswith("paged")
            else bnb.optim.AdamW8bit
        )
        return cls(params, lr=1e-5)
    if workload.optimizer == "sgd":
        return torch.optim.SGD(params, lr=1e-5, momentum=0.9)
    return torch.optim.AdamW(params, lr=1e-5)


def unsupported(workload: Workload) -> str | None:
    """Why this single-GPU bench cannot run ``workload`` faithfully, or None."""
    if workload.precision == "fp8":
        return "fp8 needs Transformer Engine; measure bf16 instead"
    if workload.offload != "none":
        return "CPU offload needs DeepSpeed/FSDP; this bench runs one plain GPU"
    if workload.tp_or_1 != 1:
        return "tensor parallelism needs several GPUs; this bench runs one"
    if workload.loss == "chunked":
        return "the chunked loss is torchtune's; this bench runs the Hugging Face loss"
    knobs = {
        "selective checkpointing": workload.checkpoint_mode == "selective",
        "activation offloading": bool(workload.activation_offload),
        "optimizer in backward": bool(workload.optimizer_in_backward),
        "torch.compile": bool(workload.compile),
        "padded batches (--longest-sample)": workload.longest_sample is not None,
    }
    wanted = [name for name, on in knobs.items() if on]
    if wanted:
        return f"{', '.join(wanted)} not implemented in this bench; measure without"
    return None


def measure(arch: ModelPreset, workload: Workload, steps: int = 3) -> dict:
    """Build ``arch`` with random weights on GPU 0, run ``workload`` and return peak bytes."""
    why = unsupported(workload)
    if why:
        raise SystemExit(f"measure_memory: {why}")
    torch = _require_torch()
    from transformers import AutoConfig, AutoModelForCausalLM

    cfg_dict = hf_config_dict(arch)
    model_type = cfg_dict.pop("model_type")
    config = AutoConfig.for_model(model_type, **cfg_dict)
    config.use_cache = not workload.training
    dev = torch.device("cuda")
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    master = workload.master_weights is not False and workload.precision != "fp32"
    dtype = torch.float32 if workload.precision == "fp32" else torch.bfloat16
    if workload.method in ("full", "pretrain") and master:
        dtype = torch.float32  # fp32 weights + bf16 autocast: 16 B/param with AdamW
    kw = {"torch_dtype": dtype, "attn_implementation": "sdpa"}

    if workload.method == "qlora":
        model = AutoModelForCausalLM.from_config(config, **kw)  # on CPU, then quantize
        _quantize_linears(model, torch)
        if master:  # what PEFT's prepare_model_for_kbit_training does to the rest
            for p in model.parameters():
                if p.dtype in (torch.float16, torch.bfloat16):
                    p.data = p.data.to(torch.float32)
        model = model.to(dev)
    else:
        with dev:
            model = AutoModelForCausalLM.from_config(config, **kw)

    if workload.training and workload.checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if workload.method in ("lora", "qlora"):
        from peft import LoraConfig, get_peft_model

        if workload.checkpointing:
            model.enable_input_require_grads()
        lcfg = LoraConfig(
            r=workload.lora_rank,
            lora_alpha=2 * workload.lora_rank,
            lora_dropout=0.05,
            target_modules=lora_module_names(arch, workload.lora_targets),
            task_type="CAUSAL_LM",
        )
        model = get_peft_model(model, lcfg)

    b, s = workload.micro_batch, workload.seq_len
    vocab = arch.vocab_size
    started = time.perf_counter()
    if workload.training:
        model.train()
        params = [p for p in model.parameters() if p.requires_grad]
        opt = _optimizer(params, workload, torch)
        autocast = master and workload.method in ("full", "pretrain", "qlora")
        for _ in range(steps):
            ids = torch.randint(0, vocab, (b, s), device=dev)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
                loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
    else:
        model.eval()
        new = min(16, max(1, s // 2))
        ids = torch.randint(0, vocab, (b, s - new), device=dev)
        with torch.no_grad():
            model.generate(ids, max_new_tokens=new, min_new_tokens=new, do_sample=False)
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info()
    return {
        "allocated_bytes": torch.cuda.max_memory_allocated(),
        "reserved_bytes": torch.cuda.max_memory_reserved(),
        "device_bytes": total - free,
        "gpu_total_bytes": total,
        "gpu_name": torch.cuda.get_device_name(0),
        "seconds": time.perf_counter() - started,
    }


# ------------------------------------------------------------------------------ CLI


def _estimate_for(arch: ModelPreset, workload: Workload) -> dict:
    gpu = Gpu(sku="bench-gpu", name="bench GPU", source="local", memory_gb=1024, form="sxm")
    est = estimate(workload, gpu, 1, arch=arch)
    return est.memory_per_gpu.to_json()


def _row(label: str, est: dict, got: dict, published: float | None) -> str:
    t = est["total_bytes"]
    err = (t / got["allocated_bytes"] - 1) * 100 if got.get("allocated_bytes") else float("nan")
    pub = f"  published {published / GB:7.2f}" if published else ""
    return (
        f"{label:40s} slotwise {t / GB:7.2f} GB | allocated {got['allocated_bytes'] / GB:7.2f}"
        f"  reserved {got['reserved_bytes'] / GB:7.2f}  device {got['device_bytes'] / GB:7.2f}"
        f"{pub}  ({err:+.1f}% vs allocated)"
    )


def accuracy_table() -> str:
    """Every published case: estimate, measured, signed error; then the gated summary."""
    import statistics

    lines = [f"{'case':42s} {'estimate':>9s} {'measured':>9s}  error   source"]
    errors = []
    for c in CASES + KNOWN_MISSES:
        est = estimate(c.make_workload(), A100_80GB, c.gpus, arch=c.arch)
        err = est.memory_per_gpu.total_bytes / c.measured_bytes - 1.0
        if c in CASES:
            errors.append(abs(err))
        parts = c.source.split("/")
        host = parts[3] if parts[2] == "github.com" else parts[2]
        lines.append(
            f"{c.id:42s} {est.memory_per_gpu.total_bytes / GB:6.2f} GB {c.measured_bytes / GB:6.2f}"
            f" GB {err:+6.1%}  {host}" + ("  (known miss, not gated)" if c in KNOWN_MISSES else "")
        )
    errors.sort()
    lines.append(
        f"{len(CASES)} gated cases from {len({c.source for c in CASES})} sources: median |error| "
        f"{statistics.median(errors):.1%}, worst {errors[-1]:.1%}, "
        f"{sum(e <= 0.10 for e in errors)} within 10 %"
    )
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    from slotwise.tui.commands.workload_args import add_workload_flags

    p = argparse.ArgumentParser(
        prog="measure_memory.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_workload_flags(p)
    p.add_argument("--case", metavar="ID", help="run one published reference case")
    p.add_argument("--all-cases", action="store_true", help="run every single-GPU reference case")
    p.add_argument("--list-cases", action="store_true", help="list the reference cases and exit")
    p.add_argument(
        "--table",
        action="store_true",
        help="print slotwise's estimate against every published figure and exit (no GPU needed)",
    )
    p.add_argument("--layers", type=int, metavar="N", help="shrink the model to N layers")
    p.add_argument("--steps", type=int, default=3, metavar="N", help="training steps (3)")
    p.add_argument("--json", action="store_true", help="print results as JSON")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.table:
        print(accuracy_table())
        return 0
    if args.list_cases:
        for c in CASES:
            print(f"{c.id:40s} {c.gpus} GPU(s)  {c.measured_bytes / GB:7.2f} GB  {c.settings}")
        return 0

    jobs: list[tuple[str, ModelPreset, Workload, float | None]] = []
    if args.case or args.all_cases:
        chosen = [c for c in CASES if c.gpus == 1 and (args.all_cases or c.id == args.case)]
        if not chosen:
            print(f"measure_memory: no single-GPU case {args.case!r}; see --list-cases")
            return 2
        for c in chosen:
            published = None if args.layers else c.measured_bytes
            jobs.append((c.id, shrink(c.arch, args.layers), c.make_workload(), published))
    else:
        from slotwise.engine.model.resolve import ModelResolveError, resolve_arch
        from slotwise.parts.catalog import CatalogError, load_catalog
        from slotwise.tui.cli import UsageError
        from slotwise.tui.commands.workload_args import workload_from_args

        try:
            workload = workload_from_args(args)
            arch = resolve_arch(workload, load_catalog(None))
        except (UsageError, ModelResolveError, CatalogError) as exc:
            print(f"measure_memory: {exc}")
            return 2
        jobs.append((arch.sku, shrink(arch, args.layers), workload, None))

    results = []
    for label, arch, workload, published in jobs:
        est = _estimate_for(arch, workload)
        got = measure(arch, workload, steps=args.steps)
        results.append(
            {"id": label, "workload": workload.model_dump(mode="json"), "layers":
             arch.num_hidden_layers, "estimate": est, "measured": got, "published_bytes": published}
        )  # fmt: skip
        if not args.json:
            print(_row(label, est, got, published), flush=True)
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
