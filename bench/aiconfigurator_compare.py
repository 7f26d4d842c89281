"""slotwise's serving evidence predicted by NVIDIA's aiconfigurator (docs/aiconfigurator.md).

Not part of slotwise and not a dependency: run it with an interpreter that has aiconfigurator,
from the repository root, e.g.

    python3 -m venv /work/aic-venv && /work/aic-venv/bin/pip install aiconfigurator==0.12.0
    /work/aic-venv/bin/python bench/aiconfigurator_compare.py --out /tmp/aic.jsonl
    python bench/aiconfigurator_compare.py --table /tmp/aic.jsonl   # slotwise's venv: the table

The first form asks aiconfigurator (``cli_estimate``, SILICON database) for the figure each case
of tests/evidence/serving_cases.py publishes, one JSON line per case; the second adds
slotwise's prediction of the same case (tests/evidence/serving_predict.py) and prints the
per-case table and the medians of docs/aiconfigurator.md.  How each kind of case is asked:

* ``max_tok_s`` (maximum load): the aggregated (in-flight batching) mode over aiconfigurator's
  own search axes, batch x context-token budget (its sweep's ``ctx_tokens`` grid: ISL, 2 x ISL,
  4096, 8192), keeping the points whose KV cache fits; for an MoE model also attention-DP x EP
  as well as TP x EP; the highest output tokens/s.
* a fixed concurrency (``itl_ms``, ``loaded_tok_s``, ``loaded_ttft_ms``, ``single_user_tok_s``,
  NIM's ``ttft_ms``): the aggregated mode at batch = concurrency.
* a static batch (``static_tok_s``, ``static_latency_ms``, TensorRT-LLM 0.5/0.6 ``ttft_ms``):
  the static modes; SGLang's ``decode_tok_s``: ``static_gen``.
* Engines aiconfigurator does not model (gpt-fast, eager / torch.compile PyTorch) are
  reported as not expressible.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.evidence.serving_cases import (  # noqa: E402
    A100_SXM_80GB,
    CASES,
    ServingCase,
    is_held_out,
)

#: aiconfigurator's bundled configs (aiconfigurator_core/model_configs); Llama 2 is not
#: bundled: a config.json with slotwise's catalog figures is written for it (see _llama2_dir).
MODELS = {
    "llama-3.1-8b": "meta-llama/Meta-Llama-3.1-8B",
    "llama-3.1-70b": "meta-llama/Meta-Llama-3.1-70B",
    "llama-3.1-405b": "meta-llama/Meta-Llama-3.1-405B",
    "qwen3-235b-a22b": "Qwen/Qwen3-235B-A22B-FP8",
    "deepseek-v3": "deepseek-ai/DeepSeek-V3",
}
#: Configs aiconfigurator ships but does not list as default models (it would download them):
#: copied from its model_configs folder into a local directory, which it reads offline.
SHIPPED_NOT_DEFAULT = {"mixtral-8x7b": "mistralai/Mixtral-8x7B-v0.1"}
SYSTEMS = {
    "NVIDIA-H100-SXM5-80GB": "h100_sxm",
    "NVIDIA-H200-SXM-141GB": "h200_sxm",
    "NVIDIA-L40S-48GB": "l40s",
}
BATCHES = (8, 16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096)
DP_BATCHES = (4, 8, 16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024)


def _llama2_dir(sku: str, work: Path) -> str:
    """A Hugging Face style config.json for a Llama 2 model from slotwise's catalog record."""
    from slotwise.parts.catalog import load_catalog

    m = load_catalog().models[sku]
    d = work / sku
    d.mkdir(parents=True, exist_ok=True)
    cfg = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_act": "silu",
        "hidden_size": m.hidden_size,
        "intermediate_size": m.intermediate_size,
        "num_hidden_layers": m.num_hidden_layers,
        "num_attention_heads": m.num_attention_heads,
        "num_key_value_heads": m.num_key_value_heads,
        "vocab_size": m.vocab_size,
        "max_position_embeddings": 4096,
        "rms_norm_eps": 1e-5,
        "rope_theta": 10000.0,
        "tie_word_embeddings": False,
        "torch_dtype": "float16",
    }
    (d / "config.json").write_text(json.dumps(cfg, indent=1))
    return str(d)


def _shipped_dir(hf_id: str, work: Path) -> str:
    """A directory with the config.json aiconfigurator ships for ``hf_id``."""
    from importlib.resources import files

    src = files("aiconfigurator_core") / "model_configs" / f"{hf_id.replace('/', '--')}_config.json"
    d = work / hf_id.replace("/", "--")
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.json").write_text(src.read_text())
    return str(d)


def _kwargs(c: ServingCase, work: Path) -> tuple[str, str, dict[str, Any]]:
    system = "a100_sxm" if c.gpu is A100_SXM_80GB else SYSTEMS[str(c.gpu)]
    if c.model in SHIPPED_NOT_DEFAULT:
        model = _shipped_dir(SHIPPED_NOT_DEFAULT[c.model], work)
    else:
        model = MODELS.get(c.model) or _llama2_dir(c.model, work)
    k: dict[str, Any] = {
        "backend_name": "sglang" if c.source == "SGLANG" else "trtllm",
        "isl": c.prompt,
        "osl": c.output,
        "tp_size": c.tp,
    }
    if c.model == "qwen3-235b-a22b":  # FP8-block checkpoint: GEMM modes from its config
        k.update(moe_tp_size=1, moe_ep_size=c.tp, kvcache_quant_mode="fp8")
    elif c.model == "deepseek-v3":  # SGLang 0.4.1 --tp 8: experts tensor-parallel
        k.update(moe_tp_size=c.tp, moe_ep_size=1)
    elif c.model == "mixtral-8x7b":  # TensorRT-LLM 0.17 default: experts tensor-parallel
        k.update(moe_tp_size=c.tp, moe_ep_size=1, gemm_quant_mode="fp8", kvcache_quant_mode="fp8")
    elif c.precision == "fp8":
        k.update(gemm_quant_mode="fp8", kvcache_quant_mode="fp8")
    else:
        k.update(gemm_quant_mode="bfloat16", kvcache_quant_mode="bfloat16")
    return model, system, k


def _max_tok_s(est: Any, c: ServingCase, layout: dict[str, Any], batches: tuple[int, ...]):
    """Highest output tokens/s over batch x ctx_tokens whose KV cache fits (its sweep's axes)."""
    fits: list[tuple[float, int, int]] = []
    for bs in batches:
        try:
            r = est(mode="agg", batch_size=bs, **layout)
        except RuntimeError:  # cli_estimate raises when weights + activations + KV do not fit
            break
        if r.summary.check_kv_cache_oom() or r.summary.check_oom():
            break
        fits.append((float(r.raw["tokens/s"]), bs, c.prompt))
    if not fits:
        return None
    best = max(fits)
    for _, bs, _ in sorted(fits, key=lambda f: f[1])[-3:]:
        for ct in sorted({2 * c.prompt, 4096, 8192}):
            if ct <= c.prompt or bs - -(-ct // c.prompt) < 1:
                continue
            try:
                r = est(mode="agg", batch_size=bs, ctx_tokens=ct, **layout)
            except RuntimeError:
                continue
            if r.summary.check_kv_cache_oom() or r.summary.check_oom():
                continue
            best = max(best, (float(r.raw["tokens/s"]), bs, ct))
    return best


def predict(c: ServingCase, work: Path) -> tuple[float | None, str]:
    from aiconfigurator.cli.api import cli_estimate

    model, system, base = _kwargs(c, work)

    def est(**extra: Any) -> Any:
        return cli_estimate(model, system, **{**base, **extra})

    if c.kind == "max_tok_s":
        layouts = [({}, BATCHES, f"TP{c.tp}")]
        if c.model == "qwen3-235b-a22b":
            layouts.append(({"tp_size": 1, "attention_dp_size": c.tp}, DP_BATCHES, f"DP{c.tp}"))
        found = []
        for layout, batches, name in layouts:
            b = _max_tok_s(est, c, layout, batches)
            if b:
                found.append((b[0], f"agg, {name}, bs {b[1]}, ctx_tokens {b[2]}"))
        return max(found) if found else (None, "nothing fits")
    nim_ttft = c.kind == "ttft_ms" and c.source == "NIM"
    if c.kind in ("itl_ms", "loaded_tok_s", "loaded_ttft_ms", "single_user_tok_s") or nim_ttft:
        try:
            raw = est(mode="agg", batch_size=c.batch).raw
        except RuntimeError as e:
            return None, f"refused: {str(e)[:60]}"
        value = {
            "itl_ms": raw["tpot"],
            "loaded_tok_s": raw["tokens/s"],
            "loaded_ttft_ms": raw["ttft"],
            "ttft_ms": raw["ttft"],
            "single_user_tok_s": c.output / raw["request_latency"] * 1000.0,
        }[c.kind]
        return float(value), f"agg, bs {c.batch}"
    if c.kind == "ttft_ms":
        return float(est(mode="static_ctx", batch_size=1).raw["ttft"]), "static_ctx, bs 1"
    if c.kind in ("static_tok_s", "static_latency_ms"):
        raw = est(mode="static", batch_size=c.batch, stride=1 if c.output < 64 else 32).raw
        latency = float(raw["request_latency"])
        if c.kind == "static_latency_ms":
            return latency, f"static, bs {c.batch}"
        tok_s = c.batch * c.output / latency * 1000.0
        return (tok_s / c.tp if c.per_gpu else tok_s), f"static, bs {c.batch}"
    if c.kind == "decode_tok_s" and c.source == "SGLANG":
        raw = est(mode="static_gen", batch_size=c.batch).raw
        return c.batch / float(raw["tpot"]) * 1000.0, f"static_gen, bs {c.batch}"
    return None, "not expressible (engine not modelled)"


def run(out: Path, only: str | None) -> None:
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    work = out.parent / "aic-model-configs"
    with out.open("w") as f:
        for c in CASES:
            if only and only not in c.id:
                continue
            t0 = time.time()
            value, how = predict(c, work)
            row = {"id": c.id, "aic": value, "how": how, "s": round(time.time() - t0, 1)}
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(json.dumps(row), flush=True)


def table(path: Path) -> None:
    from tests.evidence.serving_predict import predict as slotwise

    rows = {r["id"]: r for r in map(json.loads, path.read_text().splitlines())}
    cases = [c for c in CASES if c.id in rows]

    def err(p: float, c: ServingCase) -> float:
        return p / c.published - 1

    print("| case | split | kind | published | slotwise | err | aiconfigurator | err | asked as |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    for c in cases:
        s, a = slotwise(c), rows[c.id]["aic"]
        a_txt = "n/a | " if a is None else f"{a:,.1f} | {100 * err(a, c):+.1f} %"
        print(
            f"| {c.id} | {'held-out' if is_held_out(c) else 'fitting'} | {c.kind} | "
            f"{c.published:,.2f} | {s:,.1f} | {100 * err(s, c):+.1f} % | "
            f"{a_txt} | {rows[c.id]['how']} |"
        )
    groups = {
        "fitting": lambda c: not is_held_out(c),
        "held-out": is_held_out,
        "held-out without TTFT": lambda c: is_held_out(c) and "ttft" not in c.kind,
        "TRTLLM10 max_tok_s": lambda c: c.source == "TRTLLM10",
        "TRTLLM10 dense": lambda c: c.source == "TRTLLM10" and "q235" not in c.id,
        "TRTLLM10 TP8": lambda c: c.source == "TRTLLM10" and c.tp == 8,
        "TRTLLM10 Qwen3 MoE": lambda c: c.source == "TRTLLM10" and "q235" in c.id,
        "NIM ITL + tokens/s": lambda c: c.source == "NIM" and c.kind in ("itl_ms", "loaded_tok_s"),
        "NIM TTFT (idle + loaded)": lambda c: c.source == "NIM" and "ttft" in c.kind,
        "throughput under load": lambda c: c.kind in ("max_tok_s", "loaded_tok_s"),
        "light load (one user)": lambda c: (
            c.kind == "single_user_tok_s" or (c.kind == "itl_ms" and c.batch == 1)
        ),
        "MODELOPT": lambda c: c.source == "MODELOPT",
        "NEMO": lambda c: c.source == "NEMO",
        "TRTLLM06": lambda c: c.source == "TRTLLM06",
        "SGLANG": lambda c: c.source == "SGLANG",
    }
    print()
    print("| set | cases both answer | slotwise median abs err | aiconfigurator median abs err |")
    print("|---|---:|---:|---:|")
    for name, keep in groups.items():
        both = [c for c in cases if keep(c) and rows[c.id]["aic"] is not None]
        if not both:
            continue
        s_med = statistics.median(abs(err(slotwise(c), c)) for c in both)
        a_med = statistics.median(abs(err(rows[c.id]["aic"], c)) for c in both)
        total = sum(1 for c in cases if keep(c))
        print(f"| {name} | {len(both)} of {total} | {100 * s_med:.1f} % | {100 * a_med:.1f} % |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="ask aiconfigurator; one JSON line per case here")
    ap.add_argument("--only", help="only the cases whose id contains this")
    ap.add_argument("--table", type=Path, help="print the comparison table from a --out file")
    args = ap.parse_args(argv)
    if args.out:
        run(args.out, args.only)
    if args.table:
        table(args.table)
    if not (args.out or args.table):
        ap.error("give --out (with aiconfigurator installed) or --table")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
