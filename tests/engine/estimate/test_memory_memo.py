"""The memory-per-GPU memo (engine.estimate.fit.MemoryMemo): estimate() gives the same answer
with and without it, across GPUs and counts that share it, for workloads that hash and for ones
that do not (trainer overrides are a dict)."""

from __future__ import annotations

import pytest

from slotwise.engine.estimate import estimate
from slotwise.engine.estimate.fit import MemoryMemo
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import load_catalog

CAT = load_catalog()
ARCH = CAT.models["llama-3.1-8b"]
GPUS = [CAT.gpus["NVIDIA-H100-SXM5-80GB"], *[g for k, g in sorted(CAT.gpus.items())][:3]]

WORKLOADS = [
    Workload(model="llama-3.1-8b", method="full", tokens=1e9),
    Workload(model="llama-3.1-8b", method="lora", trainer_overrides={"fused_qkv": False}),
    Workload(model="llama-3.1-8b", method="inference", users=64),
]


@pytest.mark.parametrize("wl", WORKLOADS, ids=["full", "lora-overrides", "serving"])
def test_estimate_is_the_same_with_the_memo(wl: Workload) -> None:
    memo: MemoryMemo = {}
    for gpu in GPUS:
        for n in (1, 2, 8):
            plain = estimate(wl, gpu, n, arch=ARCH)
            remembered = estimate(wl, gpu, n, arch=ARCH, memo=memo)
            again = estimate(wl, gpu, n, arch=ARCH, memo=memo)  # every lookup a hit
            assert remembered.model_dump_json() == plain.model_dump_json()
            assert again.model_dump_json() == plain.model_dump_json()
    assert memo  # the memo was used


def test_a_hit_returns_its_own_notes_list() -> None:
    """Callers extend the notes they get back; a hit must not hand out the stored list."""
    from slotwise.engine.estimate.fit import layout_memory, memory_memo_prefix
    from slotwise.engine.model.params import count_params

    counts = count_params(ARCH)
    memo: MemoryMemo = {}
    mm = (memo, memory_memo_prefix(ARCH, counts))
    first = layout_memory(WORKLOADS[0], 8, ARCH, counts, memo=mm)
    first[4].append("changed by a caller")
    second = layout_memory(WORKLOADS[0], 8, ARCH, counts, memo=mm)
    assert "changed by a caller" not in second[4]
    assert second[0] is first[0]  # the frozen breakdown itself is shared
