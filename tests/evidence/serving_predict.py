"""What slotwise's serving model predicts for a published case (tests/evidence/serving_cases.py)."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace
from functools import cache

from slotwise.engine.estimate import usable_bytes
from slotwise.engine.estimate.compute import peak_flops
from slotwise.engine.estimate.memory import memory_per_gpu
from slotwise.engine.estimate.serving import (
    DEFAULTS,
    Constants,
    Replica,
    make_replica,
    max_users_per_replica,
    ttft_under_load,
)
from slotwise.engine.model.params import count_params
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import Catalog, load_catalog
from slotwise.parts.schema import Gpu
from tests.evidence.serving_cases import ServingCase


@cache
def catalog() -> Catalog:
    return load_catalog()


def gpu_of(case: ServingCase) -> Gpu:
    return case.gpu if isinstance(case.gpu, Gpu) else catalog().gpus[case.gpu]


def replica_for(case: ServingCase, k: Constants = DEFAULTS) -> tuple[Replica, Workload]:
    arch = catalog().models[case.model]
    gpu = gpu_of(case)
    w = Workload(
        method="inference",
        precision=case.precision,
        seq_len=case.prompt + case.output,
        output_len=case.output,
        micro_batch=case.batch,
        tp=case.tp,
        serving_engine=case.engine,
    )
    peak, _ = peak_flops(gpu, case.precision)
    rep = make_replica(arch, count_params(arch), w, gpu, case.tp, peak=peak, constants=k)
    assert rep is not None, f"{case.id}: GPU figures missing"
    if case.fp8_kv:
        rep = replace(rep, kv_scale=0.5)
    return rep, w


def max_users(rep: Replica, w: Workload) -> int:
    """Users whose KV cache of prompt + output tokens fits beside the weights on each GPU."""
    one = w.model_copy(update={"micro_batch": 1})
    mem, _ = memory_per_gpu(rep.arch, one, tp=rep.tp, dp=1, parallel="ddp", counts=rep.counts)
    free = usable_bytes(rep.gpu) - (mem.total_bytes - mem.kv_cache_bytes)
    return max(1, max_users_per_replica(free, rep.kv_bytes(w.seq_len)))


def cli_argv(case: ServingCase) -> list[str]:
    """The ``slotwise estimate`` command a user types for ``case``: model, GPU, GPU count (one
    replica of ``tp`` GPUs), tensor parallel, precision, prompt + output as the sequence length,
    output length and concurrent users; everything else is the tool's default."""
    gpu = case.gpu if isinstance(case.gpu, str) else case.gpu.sku
    return [
        "estimate", case.model, "--gpu", gpu, "--gpus", str(case.tp), "--tp", str(case.tp),
        "--precision", case.precision, "--seq-len", str(case.prompt + case.output),
        "--output-len", str(case.output), "--users", str(case.batch), "--json",
    ]  # fmt: skip


@cache
def _cli_serving(argv: tuple[str, ...]) -> dict:
    from slotwise.tui.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(list(argv))
    return json.loads(out.getvalue())["serving"]


def predict_cli(case: ServingCase) -> float:
    """The case's figure as the CLI's JSON reports it (``serving`` block, see docs/CLI.md)."""
    s = _cli_serving(tuple(cli_argv(case)))
    if case.kind in ("single_user_tok_s", "loaded_tok_s", "max_tok_s"):
        return float(s["output_tokens_per_s"])
    if case.kind == "itl_ms":
        return 1e3 * float(s["inter_token_latency_s"])
    if case.kind == "loaded_ttft_ms":
        return 1e3 * float(s["ttft_s"])
    raise ValueError(f"{case.id}: kind {case.kind} is not scored through the CLI")


def predict(case: ServingCase, k: Constants = DEFAULTS) -> float:
    """The figure slotwise gives for ``case``, in the case's unit."""
    if case.cli and k == DEFAULTS:
        return predict_cli(case)
    rep, w = replica_for(case, k)
    p, o, b = case.prompt, case.output, case.batch
    mean_ctx = p + o / 2
    if case.kind == "ttft_ms":
        return 1e3 * rep.prefill(p).total
    # Under load the running batch is what the KV cache holds; the rest queue (serving.py).
    running = min(b, max_users(rep, w))
    if case.kind == "itl_ms":
        return 1e3 * rep.loaded(running, p, o)[0]
    if case.kind in ("loaded_tok_s", "single_user_tok_s"):
        return rep.loaded(running, p, o)[1]
    if case.kind == "loaded_ttft_ms":
        tps = rep.loaded(running, p, o)[1]
        return 1e3 * ttft_under_load(rep, b, running, p, o, tps)[0]
    if case.kind == "decode_tok_s":
        return b / rep.decode_step(b, mean_ctx).total
    if case.kind == "step_ms":
        return 1e3 * rep.decode_step(b, p).total
    if case.kind in ("static_tok_s", "static_latency_ms"):
        seconds = rep.prefill(p, batch=b).total + o * rep.decode_step(b, mean_ctx).total
        if case.kind == "static_latency_ms":
            return 1e3 * seconds
        return b * o / seconds / (rep.tp if case.per_gpu else 1)
    if case.kind == "max_tok_s":
        return rep.loaded(max_users(rep, w), p, o)[1]
    raise ValueError(f"{case.id}: unknown kind {case.kind}")


def error(case: ServingCase, k: Constants = DEFAULTS) -> float:
    """Signed relative error (predicted / published - 1)."""
    return predict(case, k) / case.published - 1.0
