import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slotwise.engine.plan.cluster import (
    SWITCHES,
    cluster_markdown,
    plan_cluster,
    size_fabric,
    switch_for,
)


def q2():
    return switch_for(400)


def test_switch_radix_per_speed():
    assert switch_for(400).radix == 64 and "QM9700" in switch_for(400).name
    assert switch_for(200).radix == 128  # NDR200 split mode
    assert switch_for(800).radix == 144 and "Q3400" in switch_for(800).name
    assert switch_for(1600) is None
    assert all(s.source.startswith("https://") for s in SWITCHES)


def test_fabric_tiers():
    one = size_fabric(64, q2())
    assert (one.tiers, one.leaves, one.spines) == (1, 1, 0)
    # 128 hosts: 4 leaves of 32 down / 32 up, 128 uplinks on 2 spines of 64 ports
    two = size_fabric(128, q2())
    assert (two.tiers, two.leaves, two.spines, two.switches) == (2, 4, 2, 6)
    # two-tier limit k^2/2 = 2048 hosts: 64 leaves + 32 spines (the DGX SuperPOD scale unit)
    top = size_fabric(2048, q2())
    assert (top.tiers, top.leaves, top.spines) == (2, 64, 32)
    three = size_fabric(2049, q2())
    assert three.tiers == 3 and three.cores > 0
    with pytest.raises(ValueError):
        size_fabric(64**3 // 4 + 1, q2())


@given(st.integers(1, 64**3 // 4), st.sampled_from(SWITCHES))
def test_fabric_is_non_blocking(n, sw):
    if n > sw.radix**3 // 4:
        return
    f = size_fabric(n, sw)
    k, half = sw.radix, sw.radix // 2
    if f.tiers == 1:
        assert n <= k
        return
    # every host has a leaf port, every leaf uplink has a spine port
    assert f.leaves * half >= n
    assert f.spines * k >= f.leaves * half or f.tiers == 3
    if f.tiers == 3:
        assert f.cores * k >= f.spines * half
    assert f.leaves == math.ceil(n / half)


def test_plan_power_racks_and_markdown():
    p = plan_cluster(
        nodes=16,
        gpus_per_node=8,
        gpu="G",
        chassis="SYS-X",
        nic="NIC-400",
        nic_gbps=400,
        nics_per_node=8,
        node_power_w=10_000,
        node_u=8,
        kw_per_rack=40,
    )
    assert p.total_gpus == 128
    assert p.fabric.endpoints == 128 and p.fabric.switches == 6
    # servers 16 x 10,000 W = 160,000 W; fabric 6 QM9700 x optics 32 cages x 17 W = 3,264 W
    # (the switches' own power is not published: counted as 0 and "not verified")
    assert p.servers_power_w == 160_000
    assert p.fabric.power_w == 6 * 32 * 17 == 3264
    assert p.total_power_w == 163_264
    # power: 163.264 kW / 40 = 4.08 -> 5 racks; space: 42U // 8U = 5 nodes per rack -> 4 racks
    assert p.racks == 5
    md = cluster_markdown(p)
    assert "16 x SYS-X" in md and "128 x G" in md and "QM9700" in md and "163.3 kW" in md
    assert "fabric 3.3 kW (not verified)" in md
    assert any("Fabric power not verified" in n for n in p.notes)
    j = p.to_json()
    assert j["fabric"]["switch_radix"] == 64 and j["fabric"]["switch_sku"] == "MQM9700-NS2F"
    assert j["fabric_power_w"] == 3264 and j["fabric_power_verified"] is False


def test_rack_count_follows_the_wall_figure_of_a_real_node():
    """HGX H200 in SYS-821GE-TNHR (examples/hgx-h200-finetune-821ge.toml): the engine's worst
    case at the wall is 10,164 W a node (the old DC sum without fans/board was 6,476 W).  16
    nodes at 40 kW a rack: 16 x 10,164 + 3,264 (fabric optics) = 165,888 W -> 5 racks; with the
    old figure 16 x 6,476 = 103.6 kW would have fit 3 racks by power (4 by space)."""
    from pathlib import Path

    from fixtures_catalog.helpers import bundled_catalog

    from slotwise.engine.bom import read_bom
    from slotwise.engine.check.evaluate import evaluate
    from slotwise.engine.plan.for_build import wall_power

    path = Path(__file__).parents[1] / "examples" / "hgx-h200-finetune-821ge.toml"
    build = read_bom(path, bundled_catalog()).build
    node_w = wall_power(evaluate(build, bundled_catalog()))
    assert round(node_w) == 10_164
    p = plan_cluster(
        nodes=16,
        gpus_per_node=8,
        gpu="NVIDIA-H200-SXM-141GB",
        chassis=build.chassis,
        nic="NVIDIA-CX7-400G-1P-OSFP",
        nic_gbps=400,
        nics_per_node=8,
        node_power_w=node_w,
        node_u=8,
        kw_per_rack=40,
    )
    assert round(p.total_power_w) == round(16 * node_w + 3264)
    assert p.racks == 5


def test_plan_without_power_or_nic_says_so():
    p = plan_cluster(
        nodes=2,
        gpus_per_node=8,
        gpu="G",
        chassis="C",
        nic=None,
        nic_gbps=None,
        nics_per_node=0,
        node_power_w=None,
        node_u=None,
    )
    assert p.racks is None and p.fabric is None
    assert any("no high-speed NIC" in n for n in p.notes)
    assert "| power | unknown |" in cluster_markdown(p)
