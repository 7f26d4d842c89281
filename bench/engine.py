"""Time evaluate() on a fully populated 10-GPU build, the case the UI re-runs on every edit.

The build (bundled catalog, SYS-521GE-TNRT): 8 x H200 NVL joined by two 4-way NVLink bridges and
2 x L4 (10 GPUs), 3 x ConnectX-7 400G, 2 x Xeon 8480+, 32 x 64 GB DDR5, 8 NVMe drives,
4 x 2700 W PSUs, and a LoRA fine-tune of Llama 3.1 70B with a token count and a target time.

Steady state is what the UI sees: what depends on the catalog alone (the chassis index with its
per-chassis plans, each card-in-slot fit) and the estimate for an unchanged (workload, GPU,
count) are cached on the catalog, so the figure timed is the rules themselves.  No result is
cached per build: every call resolves the build, runs every rule family and builds its findings,
budgets and report anew.  The cards are listed out of the chassis' order (slot 11 before 10), so
each call also pays for putting the build in slot order.  The first (cold) call is printed too.

Measured on the shared 2-core machine in runs interleaved with the code before issue 30's
hot-path work (load 0.6-2, other jobs running): median 206-217 us against 296-312 us before;
runs disturbed by those jobs read up to ~320 us (~500 us before).  callgrind: 1.77 M
instructions per call, 2.77 M before.

    .venv/bin/python bench/engine.py [--runs N]

Last line: ``evaluate_median_us=<N> evaluate_p99_us=<N>``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from slotwise.engine.build import BridgeFit, Build, DriveFit, Environment  # noqa: E402
from slotwise.engine.check.evaluate import evaluate  # noqa: E402
from slotwise.engine.workload import Workload  # noqa: E402
from slotwise.parts.catalog import load_catalog  # noqa: E402

H200 = "NVIDIA-H200-NVL-141GB"
NIC = "NVIDIA-CX7-400G-1P-OSFP"


def full_build() -> Build:
    slots = {str(i): H200 for i in range(1, 9)}
    slots |= {"9": "NVIDIA-L4-24GB", "11": "NVIDIA-L4-24GB", "10": NIC, "12": NIC, "13": NIC}
    return Build(
        chassis="SYS-521GE-TNRT",
        cpu="XEON-8480+",
        cpu_count=2,
        dimm="DDR5-4800-64GB-RDIMM",
        dimm_count=32,
        slots=slots,
        bridges=(
            BridgeFit(sku="NVLINK-H200-NVL-4WAY", slots=("1", "2", "3", "4")),
            BridgeFit(sku="NVLINK-H200-NVL-4WAY", slots=("5", "6", "7", "8")),
        ),
        drives=(DriveFit(bay="front-nvme", sku="SOLIDIGM-D5-P5316-15.36TB-U2", count=8),),
        psu="SMCI-PSU-2700W-TITANIUM",
        psu_count=4,
        env=Environment(input_voltage="200-240", redundancy="N+1"),
        workload=Workload(
            model="llama-3.1-70b", method="lora", tokens=2e9, target_days=3, tp=4, seq_len=4096
        ),
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10_000)
    args = ap.parse_args(argv)
    catalog = load_catalog()
    build = full_build()

    t0 = time.perf_counter()
    report = evaluate(build, catalog)
    cold_us = (time.perf_counter() - t0) * 1e6
    print(
        f"build: {len(build.slots)} cards, {len(report.findings)} findings "
        f"({report.errors} errors, {report.warnings} warnings), {len(report.budgets)} budgets"
    )
    for f in report.findings:
        print(f"  {f.severity:7} {f.rule}")
    print(f"cold first call: {cold_us:,.0f} us (builds the chassis index, runs the estimator)")

    for _ in range(200):  # warm-up
        evaluate(build, catalog)
    times = []
    clock = time.perf_counter_ns
    for _ in range(args.runs):
        t = clock()
        evaluate(build, catalog)
        times.append(clock() - t)
    times.sort()
    med = statistics.median(times) / 1000
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))] / 1000
    print(f"runs: {args.runs}, min {times[0] / 1000:.0f} us, max {times[-1] / 1000:.0f} us")
    print(f"evaluate_median_us={med:.0f} evaluate_p99_us={p99:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
