import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cluster import SWITCHES, cluster_markdown, plan_cluster, size_fabric, switch_for


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
    assert p.total_power_w == 160_000
    # power: 160 kW / 40 = 4 racks; space: 42U // 8U = 5 nodes per rack -> 4 racks
    assert p.racks == 4
    md = cluster_markdown(p)
    assert "16 x SYS-X" in md and "128 x G" in md and "QM9700" in md and "160.0 kW" in md
    assert p.to_json()["fabric"]["switch_radix"] == 64


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
