"""The rail-optimised fabric planner against NVIDIA's published reference-architecture tables.

Each vector cites its table (transcribed with sources in shared/reference/fabric.md):
* H100 SuperPOD RA (RA-11333-001), compute-fabric table (SU, nodes, leaf, spine, node+UFM->leaf
  cables, leaf->spine cables) and the 4-SU component BOM (optics);
* B300 SuperPOD XDR RA, Table 3 "Larger DGX SuperPOD component counts" (Quantum-X800 Q3400);
* B300 SuperPOD Spectrum-X RA, Table 3 (SN5600-class Ethernet, two planes).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotwise.engine.plan.fabric import FabricError, plan_compute_fabric, plan_management
from slotwise.engine.plan.switches import Q3400, QM9700, SN5600, default_switch

# H100 SuperPOD RA-11333-001, compute-fabric table: SUs, nodes, leaf, spine, node+UFM->leaf,
# leaf->spine
H100_TABLE = [
    (1, 31, 8, 4, 252, 256),
    (2, 63, 16, 8, 508, 512),
    (3, 95, 24, 16, 764, 768),
    (4, 127, 32, 16, 1020, 1024),
]


@pytest.mark.parametrize(("sus", "nodes", "leaf", "spine", "node_ufm", "leaf_spine"), H100_TABLE)
def test_h100_superpod_compute_fabric_table(sus, nodes, leaf, spine, node_ufm, leaf_spine):
    f = plan_compute_fabric(nodes, 8, QM9700, 400, links_per_node_module=2)
    assert (f.units, f.tiers, f.leaf, f.spine, f.core) == (sus, 2, leaf, spine, 0)
    assert f.cables["node_leaf"] + f.cables["ufm_leaf"] == node_ufm
    assert f.cables["leaf_spine"] == leaf_spine
    assert f.cables["ufm_leaf"] == 4 and f.nodes_per_unit == 32


def test_h100_4su_optics():
    """H100 RA 4-SU BOM: 2,040 NDR cables (1,016 node links + 1,024 leaf-spine), 1,536 switch-side
    twin-port finned OSFP (48 switches x 32 cages), 508 node-side twin-port flat-top (127 x 4)."""
    f = plan_compute_fabric(127, 8, QM9700, 400, links_per_node_module=2)
    assert f.cables["node_leaf"] + f.cables["leaf_spine"] == 2040
    assert f.switches == 48 and f.transceivers_switch == 1536
    assert f.transceivers_node == 508
    # a single-port PCIe card needs one module per link
    assert plan_compute_fabric(127, 8, QM9700, 400).transceivers_node == 1016


def test_h100_larger_points_and_three_tiers_past_256_nodes():
    """H100 RA: 8 SU -> 64 leaf / 32 spine (two tiers); 16 SU -> 128/128/64 core (three tiers);
    32 SU -> 256/256/128; 64 SU -> 512/512/256.  Two tiers of QM9700 end at 64 leaves (R^2/2 =
    2,048 endpoints per rail plane): 255 nodes + the UFM position is 8 SU; 256 and up is three
    tiers (the 256th node needs a ninth SU because UFM takes a node position)."""
    two = plan_compute_fabric(255, 8, QM9700, 400)
    assert (two.tiers, two.leaf, two.spine, two.core) == (2, 64, 32, 0)
    for nodes in (256, 257, 300):
        assert plan_compute_fabric(nodes, 8, QM9700, 400).tiers == 3
    for sus, (leaf, spine, core) in {
        16: (128, 128, 64),
        32: (256, 256, 128),
        64: (512, 512, 256),
    }.items():
        f = plan_compute_fabric(sus * 32 - 1, 8, QM9700, 400)
        assert (f.tiers, f.leaf, f.spine, f.core) == (3, leaf, spine, core)
        assert f.cables["spine_core"] == spine * 32


# B300 SuperPOD XDR RA, Table 3: SU, nodes, leaf, spine, node-leaf, leaf-spine cables
XDR_TABLE = [
    (1, 72, 8, 4, 576, 576),
    (2, 144, 16, 8, 1152, 1152),
    (4, 288, 32, 18, 2304, 2304),
    (8, 576, 64, 36, 4608, 4608),
    (18, 1296, 144, 72, 10368, 10368),
]


@pytest.mark.parametrize(("sus", "nodes", "leaf", "spine", "node_leaf", "leaf_spine"), XDR_TABLE)
def test_q3400_xdr_table(sus, nodes, leaf, spine, node_leaf, leaf_spine):
    f = plan_compute_fabric(nodes, 8, Q3400, 800)
    assert f.nodes_per_unit == 72
    assert (f.units, f.tiers, f.leaf, f.spine) == (sus, 2, leaf, spine)
    assert f.cables["node_leaf"] == node_leaf and f.cables["leaf_spine"] == leaf_spine


# B300 SuperPOD Spectrum-X RA, Table 3: SU (64 nodes), leaf, spine, node-leaf, leaf-spine
ETH_TABLE = [
    (64, 16, 8, 512, 512),
    (128, 32, 16, 1024, 1024),
    (256, 64, 32, 2048, 2048),
    (512, 128, 64, 4096, 4096),
    (1024, 256, 128, 8192, 8192),
]


@pytest.mark.parametrize(("nodes", "leaf", "spine", "node_leaf", "leaf_spine"), ETH_TABLE)
def test_spectrum_x_two_plane_table(nodes, leaf, spine, node_leaf, leaf_spine):
    f = plan_compute_fabric(nodes, 8, SN5600, 400, planes=2, links_per_node_module=2)
    assert (f.tiers, f.leaf, f.spine) == (2, leaf, spine)
    assert f.cables["node_leaf"] == node_leaf and f.cables["leaf_spine"] == leaf_spine


def test_every_leaf_has_equal_links_to_every_spine():
    for nodes in range(1, 260, 7):
        f = plan_compute_fabric(nodes, 8, QM9700, 400)
        if f.tiers == 2:
            half = f.radix // 2
            assert half % f.spine == 0  # R/2 uplinks split evenly over the spines
            assert f.spine * f.radix >= f.leaf * half  # every uplink has a spine port


def test_small_cluster_is_one_switch_and_power():
    f = plan_compute_fabric(4, 8, QM9700, 400)
    assert (f.tiers, f.leaf, f.spine, f.switches) == (1, 1, 0, 1)
    # QM9700: 1.72 kW max with active cables, 0.747 kW typical (H100 RA switch table)
    big = plan_compute_fabric(127, 8, QM9700, 400)
    assert big.power_max_w == 48 * 1720 and big.power_typical_w == 48 * 747
    assert plan_compute_fabric(72, 8, Q3400, 800).power_max_w is None  # not published


def test_bad_speed_and_too_large():
    with pytest.raises(FabricError, match="no 100 Gb/s"):
        plan_compute_fabric(8, 8, QM9700, 100)
    with pytest.raises(FabricError, match="three-tier"):
        plan_compute_fabric(64**3 // 4, 8, QM9700, 400)
    assert default_switch(400) is QM9700 and default_switch(800) is Q3400
    assert default_switch(400, "ethernet") is SN5600


def test_management_networks_are_scaled_from_the_4su_bom():
    """H100 4-SU BOM: 16 storage QM9700, 8 SN4600C, 8 SN2201, 4 UFM for 127 nodes."""
    f = plan_compute_fabric(127, 8, QM9700, 400)
    counts = {g.device.key: g.count for g in plan_management(127, f)}
    assert counts == {"qm9700-storage": 16, "sn4600c": 8, "sn2201": 8, "ufm": 4}
    small = {g.device.key: g.count for g in plan_management(4, f)}
    assert small["sn4600c"] == 2 and small["sn2201"] == 1  # BasePOD floors
    assert all("scaled" in g.basis or "not scaled" in g.basis for g in plan_management(31, f))


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 20_000),
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from([(QM9700, 400), (QM9700, 200), (Q3400, 800), (SN5600, 400), (SN5600, 800)]),
)
def test_every_plan_is_non_blocking_and_consistent(nodes, rails, sw_speed):
    """Invariants of the rules (module doc of engine.plan.fabric) on any size: every node link
    has a leaf port, every leaf uplink a spine port, every spine uplink a core port; leaves =
    rails x units; cables match the links; modules never exceed the cages."""
    sw, gbps = sw_speed
    radix = sw.radix(gbps)
    try:
        f = plan_compute_fabric(nodes, rails, sw, gbps)
    except FabricError:
        assert nodes * rails > radix**3 // 4 - radix  # only past the three-tier limit
        return
    half = radix // 2
    links = nodes * rails + sw.ufm_links
    per_cable = max(sw.ports) // gbps
    assert f.cables["node_leaf"] == -(-nodes * rails // per_cable)
    if f.tiers == 1:
        assert links <= radix and f.leaf == 1
        return
    assert f.leaf == rails * f.units and f.units * half >= nodes + (1 if sw.ufm_links else 0)
    assert (f.units - 1) * half < nodes + (1 if sw.ufm_links else 0)  # no spare unit
    assert f.spine * radix >= f.leaf * half  # every leaf uplink has a spine port
    if f.tiers == 2:
        assert half % f.spine == 0 and f.leaf <= radix
    else:
        assert f.leaf > radix and f.core * radix >= f.spine * half
    if f.transceivers_switch is not None:
        assert f.transceivers_switch <= f.switches * sw.cages
