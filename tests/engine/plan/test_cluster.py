"""The one cluster plan (engine.plan.cluster): fabric + management + racks + power + BOM lines."""

from slotwise.engine.plan.cluster import cluster_markdown, plan_cluster
from slotwise.engine.plan.racks import Feed, Site
from tests.paths import REPO


def _dgx(nodes, **kw):
    args = dict(
        nodes=nodes,
        gpus_per_node=8,
        gpu="NVIDIA-H100-SXM-80GB",
        chassis="DGX-H100-like",
        nic="NVIDIA-CX7-400G-1P-OSFP",
        nic_gbps=400,
        nics_per_node=8,
        node_power_w=10_200,  # DGX H100: 10.2 kW max (H100 SuperPOD RA)
        node_u=8,
        links_per_module=2,  # four twin-port OSFP cages
    )
    args.update(kw)
    return plan_cluster(**args)


def test_json_keys_of_the_cluster_document():
    j = _dgx(127).to_json()
    assert j["nodes"] == 127 and j["gpus"] == 1016
    c = j["fabric"]["compute"]
    for key in (
        "leaf",
        "spine",
        "core",
        "switch_model",
        "cables",
        "transceivers_switch",
        "transceivers_node",
    ):
        assert key in c
    assert (c["leaf"], c["spine"], c["core"]) == (32, 16, 0)
    assert c["transceivers_switch"] == 1536 and c["transceivers_node"] == 508
    assert {"nodes_w", "fabric_w", "total_w"} <= set(j["power"])
    assert j["racks"] >= 1 and j["nodes_per_rack"] >= 1 and j["circuits"]["total"] >= 2
    assert j["lines"] and all({"item", "pn", "qty"} <= set(ln) for ln in j["lines"])


def test_power_adds_the_fabric_and_management():
    p = _dgx(127)
    # 48 QM9700 at 1.72 kW max + 16 storage QM9700 + 8 SN4600C + 8 SN2201 + 4 UFM (H100 RA)
    fabric = 48 * 1720 + 16 * 1720 + 8 * 466 + 8 * 98 + 4 * 689
    assert p.servers_power_w == 127 * 10_200
    assert p.fabric_power_w == fabric and p.fabric_power_verified
    assert p.total_power_w == 127 * 10_200 + fabric
    # 40 kW racks hold 3 DGX H100 (30.6 kW): 43 compute racks + network racks
    assert p.nodes_per_rack == 3
    compute = [r for r in p.rack_plan.racks if r.kind == "compute"]
    assert sum(r.count for r in compute) == 43


def test_lines_carry_published_part_numbers_or_say_pn_needed():
    p = _dgx(127, prices={"920-9B210-00FN-0M0": 30_000.0})
    lines = {ln["item"]: ln for ln in p.to_json()["lines"]}
    sw = next(v for k, v in lines.items() if k.startswith("compute switch"))
    assert sw["pn"] == "920-9B210-00FN-0M0" and sw["qty"] == 48
    assert sw["extended_price"] == 48 * 30_000
    pns = {v["pn"] for v in lines.values()}
    assert {"980-9I510-00NS00", "980-9I51A-00NS00", "980-9I570-00N030"} <= pns
    assert "PN needed" in pns  # PDUs, racks, Ethernet management switches


def test_nic_mismatch_says_so_with_the_fix():
    p = _dgx(16, nics_per_node=4)
    assert any("add 4 x NVIDIA-CX7-400G-1P-OSFP" in n for n in p.notes)
    assert p.fabric.rails == 8


def test_unpublished_switch_power_is_not_verified():
    p = _dgx(72, nic_gbps=800, nic="NVIDIA-CX8-C8180")
    assert p.fabric.switch.key == "q3400" and not p.fabric_power_verified
    assert any("not verified" in n for n in p.notes)
    assert "(not verified)" in cluster_markdown(p)


def test_b200_like_site_settings_reach_the_circuits():
    site = Site(rack_kw=57.2, feed=Feed(volts=415, amps=60))
    j = _dgx(8, node_power_w=14_300, node_u=10, site=site).to_json()
    assert j["nodes_per_rack"] == 4 and j["circuits"]["per_compute_rack"] == 2
    assert j["circuits"]["feed"] == "415 V 3-phase 60 A"


def test_rack_count_follows_the_wall_figure_of_a_real_node():
    """HGX H200 in SYS-821GE-TNHR (examples/hgx-h200-finetune-821ge.toml): the engine's worst
    case at the wall sets how many nodes a 40 kW rack holds (about 10 kW a node: 3 a rack, 6
    compute racks for 16), the switches in a network rack of their own."""
    from slotwise.engine.bom import read_bom
    from slotwise.engine.check.evaluate import evaluate
    from slotwise.engine.plan.for_build import wall_power
    from tests.fixtures_catalog.helpers import bundled_catalog

    path = REPO / "examples" / "hgx-h200-finetune-821ge.toml"
    build = read_bom(path, bundled_catalog()).build
    node_w = wall_power(evaluate(build, bundled_catalog()))
    # a relation, not a pinned engine figure: as many nodes a rack as 40 kW holds
    p = _dgx(16, node_power_w=node_w, links_per_module=1)
    assert p.nodes_per_rack == int(40_000 // node_w)
    assert p.nodes_per_rack * node_w <= 40_000 < (p.nodes_per_rack + 1) * node_w
    kinds = {r.kind: r.count for r in p.rack_plan.racks if r.kind == "network"}
    assert p.racks == -(-16 // p.nodes_per_rack) + kinds["network"]
    assert round(p.total_power_w) == round(16 * node_w + p.fabric_power_w)


def test_plan_without_power_or_nic_says_so():
    p = _dgx(2, nic=None, nic_gbps=None, nics_per_node=0, node_power_w=None, node_u=None)
    assert p.racks is None and p.fabric is None
    assert any("no high-speed NIC" in n for n in p.notes)
    assert "| power | unknown |" in cluster_markdown(p)
