"""One topology from the build (engine.check.topology), read by training and serving alike."""

from __future__ import annotations

import pytest

from slotwise.engine.bom import import_bom
from slotwise.engine.check.topology import build_topology
from slotwise.engine.estimate import estimate
from slotwise.engine.estimate.links import build_links, collective_latency_s, default_links
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import load_catalog
from tests.paths import REPO

CAT = load_catalog()
EX = REPO / "examples"
H200_NVL_BUILD = EX / "h200-nvl-lora-421ge.toml"  # 8x H200 NVL, two 4-way NVLink bridges
LLAMA70 = CAT.models["llama-3.1-70b"]


def _builds():
    build = import_bom(H200_NVL_BUILD.read_text(), CAT).build
    return build, build.model_copy(update={"bridges": ()})


def _topologies():
    bridged, bare = _builds()
    a, b = build_topology(bridged, CAT), build_topology(bare, CAT)
    assert a is not None and b is not None
    return a, b


def test_a_4_way_bridge_does_not_make_8_gpus_one_nvlink_domain():
    (gpu, count, links), (_, _, bare) = _topologies()
    assert (gpu.sku, count) == ("NVIDIA-H200-NVL-141GB", 8)
    assert links.island == 4 and links.island_kind == "nvlink-bridge"
    assert links.slowest_kind(4, 8) == "nvlink" and links.slowest_kind(8, 8) == "pcie"
    assert bare.island == 1 and bare.island_kind == "none"
    # Only one quad bridged: the 8-GPU collective waits for its PCIe hops.
    one_quad = build_links(
        gpu, 8, baseboard=False, bridge_groups=[(4, 900.0)], behind_switch=False,
        nic_gbps_total=800.0,
    )  # fmt: skip
    assert one_quad.island == 1


@pytest.mark.parametrize("tp", [4, 8])
def test_same_h200_nvl_build_serves_slower_without_its_bridges(tp):
    (gpu, count, links), (_, _, bare) = _topologies()
    w = Workload(model="llama-3.1-70b", tp=tp, users=32, seq_len=4096, output_len=1024)
    with_b = estimate(w, gpu, count, arch=LLAMA70, links=links).serving
    without = estimate(w, gpu, count, arch=LLAMA70, links=bare).serving
    assert with_b is not None and without is not None
    print(
        f"tp={tp}: per user {with_b.tokens_per_s_per_user:.1f} vs "
        f"{without.tokens_per_s_per_user:.1f} tok/s, system {with_b.tokens_per_s:.0f} vs "
        f"{without.tokens_per_s:.0f} tok/s"
    )
    assert without.tokens_per_s_per_user < 0.95 * with_b.tokens_per_s_per_user
    assert without.tokens_per_s < 0.95 * with_b.tokens_per_s


def test_same_h200_nvl_build_trains_slower_without_its_bridges():
    (gpu, count, links), (_, _, bare) = _topologies()
    w = Workload(model="llama-3.1-70b", method="lora", seq_len=4096, tokens=2e9)
    with_b = estimate(w, gpu, count, arch=LLAMA70, links=links)
    without = estimate(w, gpu, count, arch=LLAMA70, links=bare)
    assert with_b.train_hours and without.train_hours
    print(f"LoRA 70B 2B tokens: {with_b.train_hours:.1f} h vs {without.train_hours:.1f} h")
    assert without.train_hours > 1.05 * with_b.train_hours


def test_training_and_serving_read_the_same_links():
    (gpu, count, links), _ = _topologies()
    w = Workload(model="llama-3.1-70b", tp=8, users=8)
    est = estimate(w, gpu, count, arch=LLAMA70, links=links)
    assert est.assumptions.interconnect is not None
    assert "NVLink bridges join 4 GPUs" in est.assumptions.interconnect


def test_without_a_build_the_standard_server_is_assumed_and_stated():
    nvl = default_links(CAT.gpus["NVIDIA-H200-NVL-141GB"], 8)
    assert nvl.island == 2 and "assumed" in nvl.source
    sxm = default_links(CAT.gpus["NVIDIA-H100-SXM5-80GB"], 8)
    assert sxm.island == 8 and sxm.island_kind == "nvswitch"
    l40s = default_links(CAT.gpus["NVIDIA-L40S-48GB"], 8)
    assert l40s.island == 1 and "PCIe" in l40s.describe(1)


def test_collective_latency_grows_with_members_and_slower_links():
    assert collective_latency_s("nvlink", 1) == 0
    assert collective_latency_s("nvlink", 8) < collective_latency_s("pcie", 8)
    assert collective_latency_s("pcie", 8) < collective_latency_s("net", 8)
    assert collective_latency_s("nvlink", 8) > collective_latency_s("nvlink", 2)
