"""Benchmark: `suggest` over the whole bundled catalog, cold caches, several workloads.

Each round loads a fresh Catalog (so the engine's per-catalog caches start empty, as in one CLI
call), then times suggest() alone for each workload and objective.  Prints one line per case and,
last, ``suggest_median_ms=<N>`` (median over all timed calls).  Target: < 2000 ms on 2 cores.

    .venv/bin/python bench/suggest.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

# `python bench/suggest.py` puts bench/ first on sys.path, where bench/engine.py would shadow the
# `engine` package: import from the repository root instead.
_ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _ROOT / "bench"]
sys.path.insert(0, str(_ROOT))

from slotwise.engine.model.resolve import resolve_arch  # noqa: E402
from slotwise.engine.plan.suggest import suggest  # noqa: E402
from slotwise.engine.workload import Workload  # noqa: E402
from slotwise.parts.catalog import load_catalog  # noqa: E402

CASES = [
    ("8b inference", Workload(model="llama-3.1-8b", method="inference")),
    ("70b inference 8k x4", Workload(model="llama-3.1-70b", seq_len=8192, micro_batch=4)),
    ("7b lora", Workload(model="mistral-7b-v0.3", method="lora", tokens=1e8)),
    ("70b full 7 days", Workload(model="llama-3.1-70b", method="full", tokens=1e11, target_days=7)),
    ("405b full (cluster)", Workload(model="llama-3.1-405b", method="full", tokens=1e10)),
]
OBJECTIVES = ("gpus", "power", "time")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    times: list[float] = []
    per_case: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for name, wl in CASES:
            for obj in OBJECTIVES:
                cat = load_catalog(overlay=None)
                arch = resolve_arch(wl, cat, offline=True)
                t0 = time.perf_counter()
                res = suggest(wl, cat, objective=obj, limit=5, arch=arch)
                ms = (time.perf_counter() - t0) * 1000
                assert res.suggestions, (name, obj, res.rejected[:3])
                times.append(ms)
                per_case.setdefault(f"{name} / {obj}", []).append(ms)
    cat = load_catalog(overlay=None)
    print(f"catalog: {len(cat.chassis)} chassis, {len(cat.gpus)} GPUs; rounds={args.rounds}")
    for case, ts in per_case.items():
        print(f"{case:<32} median {statistics.median(ts):7.1f} ms  max {max(ts):7.1f} ms")
    print(f"suggest_max_ms={max(times):.0f}")
    print(f"suggest_median_ms={statistics.median(times):.0f}")


if __name__ == "__main__":
    main()
