"""The memory range is taken on the estimate's own layout (engine.estimate.fit.memory_spread
gets the estimate's fast-link group and usable memory), so it always brackets the estimate.

Before: a serving estimate on 8 x H200 NVL with 100 users chose TP 2 x 4 replicas (73.5 GiB per
GPU) while its range was computed on the widest split (TP 8: 22.4-35.7 GiB), a range below the
estimate it was printed under."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from slotwise.engine.estimate import estimate
from slotwise.engine.model.resolve import resolve_arch
from slotwise.engine.workload import Workload

GPUS = ("NVIDIA-H200-NVL-141GB", "NVIDIA-L40S-48GB", "NVIDIA-H100-SXM5-80GB")


def _est(catalog, gpu: str, gpus: int, **wl):
    workload = Workload(**wl)
    return estimate(workload, catalog.gpus[gpu], gpus, arch=resolve_arch(workload, catalog))


def test_the_serving_range_of_a_tp2_layout_holds_its_estimate(catalog):
    est = _est(catalog, "NVIDIA-H200-NVL-141GB", 8, model="llama-3.1-70b", users=100)
    m = est.memory_per_gpu
    assert est.tp == 2  # the layout the estimate chose: replicas of 2 on the bridged pairs
    assert m.low_bytes is not None and m.high_bytes is not None
    assert m.low_bytes <= m.total_bytes <= m.high_bytes
    assert m.low_bytes > 0.5 * m.total_bytes  # not the TP 8 split's weights


@settings(max_examples=25, deadline=None)
@given(
    gpu=st.sampled_from(GPUS),
    gpus=st.sampled_from((1, 2, 4, 8)),
    model=st.sampled_from(("llama-3.1-8b", "llama-3.1-70b")),
    method=st.sampled_from(("inference", "lora", "qlora", "full")),
    users=st.sampled_from((0, 1, 32, 200)),
    seq_len=st.sampled_from((2048, 8192)),
)
def test_the_range_brackets_the_estimate_on_any_layout(
    catalog, gpu, gpus, model, method, users, seq_len
):
    serving = {"users": users} if method == "inference" and users else {}
    m = _est(catalog, gpu, gpus, model=model, method=method, seq_len=seq_len, **serving)
    mem = m.memory_per_gpu
    assert mem.low_bytes is not None and mem.high_bytes is not None
    assert mem.low_bytes <= mem.total_bytes <= mem.high_bytes
