"""`slotwise cluster`: the Must-show vectors of issue 27 through the command line.

Tables cited (transcribed with sources in shared/reference/fabric.md):
* H100 SuperPOD RA (RA-11333-001) compute-fabric table, 1-4 SU, and its 4-SU optics BOM;
* B300 SuperPOD XDR RA, Table 3 (Quantum-X800 Q3400: 72 nodes per SU);
* NVIDIA DGX B200 deployment guidance: 2 per rack = 28.6 kW on two 380 V 32 A three-phase
  circuits, 4 per rack = 57.2 kW on two 415 V 60 A three-phase circuits.
"""

import json

import pytest

from slotwise.tui.cli import main
from tests.paths import REPO

EX = REPO / "examples"
H200 = EX / "hgx-h200-finetune-821ge.toml"  # SYS-821GE-TNHR, 8 x H200, 8 x CX7 400G
NO_FIT = EX / "broken-workload-does-not-fit.toml"  # 70B full fine-tune on 4 x L40S

DOC = """\
[cluster]
format = 1
nodes = {nodes}
planes = 1

[node]
chassis = "{chassis}"
gpu = "{gpu}"
gpus_per_node = 8
nic = "{nic}"
nic_gbps = {gbps}
nics_per_node = 8
nic_ports = 1
links_per_module = {lpm}
power_w = {watts}
height_u = {u}

[site]
rack_kw = 40.0
rack_u = 48
phases = 3
volts = 415.0
amps = 60.0
derating = 0.8
provisioning = "N"
"""


def _doc(tmp_path, name="c.toml", **kw):
    args = dict(
        nodes=31,
        chassis="DGX-H100-like",
        gpu="NVIDIA-H100-SXM-80GB",
        nic="ConnectX-7 NDR",
        gbps=400,
        lpm=2,  # a DGX's four twin-port OSFP cages
        watts=10200.0,  # DGX H100: 10.2 kW max
        u=8,
    )
    args.update(kw)
    p = tmp_path / name
    p.write_text(DOC.format(**args))
    return p


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def js(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


# H100 SuperPOD RA-11333-001 compute-fabric table: nodes, leaf, spine, node+UFM->leaf, leaf->spine
@pytest.mark.parametrize(
    ("nodes", "leaf", "spine", "node_ufm", "leaf_spine"),
    [
        (31, 8, 4, 252, 256),
        (63, 16, 8, 508, 512),
        (95, 24, 16, 764, 768),
        (127, 32, 16, 1020, 1024),
    ],
)
def test_h100_superpod_table_through_the_cli(capsys, nodes, leaf, spine, node_ufm, leaf_spine):
    j = js(capsys, "cluster", H200, "--nodes", nodes)
    c = j["fabric"]["compute"]
    assert j["nodes"] == nodes and j["gpus"] == nodes * 8
    assert (c["leaf"], c["spine"], c["core"]) == (leaf, spine, 0)
    assert c["switch_model"] == "NVIDIA Quantum-2 QM9700"
    assert c["cables"]["node_leaf"] + c["cables"]["ufm_leaf"] == node_ufm
    assert c["cables"]["leaf_spine"] == leaf_spine


def test_h100_4su_optics_for_dgx_nodes(capsys, tmp_path):
    """4-SU BOM: 1,536 switch-side twin-port finned, 508 node-side twin-port flat-top."""
    j = js(capsys, "cluster", _doc(tmp_path, nodes=127))
    c = j["fabric"]["compute"]
    assert c["transceivers_switch"] == 1536 and c["transceivers_node"] == 508
    pns = {ln["pn"]: ln["qty"] for ln in j["lines"]}
    assert pns["980-9I510-00NS00"] == 1536 and pns["980-9I51A-00NS00"] == 508


def test_three_tiers_past_256_nodes_on_qm9700(capsys):
    two = js(capsys, "cluster", H200, "--nodes", 255)["fabric"]["compute"]
    assert (two["tiers"], two["leaf"], two["spine"], two["core"]) == (2, 64, 32, 0)
    three = js(capsys, "cluster", H200, "--nodes", 257)["fabric"]["compute"]
    assert three["tiers"] == 3 and three["core"] > 0 and three["cables"]["spine_core"] > 0


@pytest.mark.parametrize(("nodes", "leaf", "spine"), [(72, 8, 4), (1296, 144, 72)])
def test_q3400_xdr_table(capsys, tmp_path, nodes, leaf, spine):
    """B300 XDR RA Table 3: 72 nodes per SU, 8 leaf / 4 spine; 18 SU = 1,296 nodes, 144/72."""
    doc = _doc(tmp_path, nodes=nodes, nic="ConnectX-8 XDR", gbps=800, lpm=1, watts=14500.0, u=10)
    j = js(capsys, "cluster", doc, "--switch", "q3400")
    c = j["fabric"]["compute"]
    assert c["nodes_per_unit"] == 72 and c["switch_model"] == "NVIDIA Quantum-X800 Q3400"
    assert (c["leaf"], c["spine"], c["core"]) == (leaf, spine, 0)
    assert j["power"]["fabric_verified"] is False  # Q3400 power is not published


@pytest.mark.parametrize(
    ("kw", "volts", "amps", "per_rack", "rack_kw"),
    [("57.2", "415", "60", 4, 57.2), ("28.6", "380", "32", 2, 28.6)],
)
def test_b200_racks_and_feeds(capsys, tmp_path, kw, volts, amps, per_rack, rack_kw):
    """NVIDIA DGX B200 deployment guidance: 4 per rack = 57.2 kW on two 415 V 3-phase 60 A
    feeds; 2 per rack = 28.6 kW on two 380 V 3-phase 32 A feeds."""
    doc = _doc(tmp_path, nodes=8, chassis="DGX-B200-like", watts=14300.0, u=10)
    j = js(capsys, "cluster", doc, "--kw-per-rack", kw, "--volts", volts, "--amps", amps)
    assert j["nodes_per_rack"] == per_rack
    compute = [r for r in j["rack_layout"] if r["kind"] == "compute"][0]
    assert compute["peak_w"] == pytest.approx(rack_kw * 1000)
    assert j["circuits"]["per_compute_rack"] == 2 and compute["pdus"] == 2
    assert j["circuits"]["feed"] == f"{volts} V 3-phase {amps} A"


def test_json_keys(capsys):
    j = js(capsys, "cluster", H200, "--nodes", 16)
    assert {
        "nodes",
        "gpus",
        "fabric",
        "racks",
        "nodes_per_rack",
        "power",
        "circuits",
        "lines",
    } <= set(j)
    assert {"leaf", "spine", "core", "switch_model", "cables", "transceivers_switch",
            "transceivers_node"} <= set(j["fabric"]["compute"])  # fmt: skip
    assert {"nodes_w", "fabric_w", "total_w"} <= set(j["power"])
    assert j["power"]["total_w"] == j["power"]["nodes_w"] + j["power"]["fabric_w"]


def test_toml_round_trips_byte_for_byte(capsys, tmp_path):
    code, first, err = run(capsys, "cluster", H200, "--nodes", 40, "--format", "toml")
    assert code == 0, err
    saved = tmp_path / "cluster.toml"
    saved.write_text(first)
    code, again, err = run(capsys, "cluster", saved, "--format", "toml")
    assert code == 0, err
    assert again == first
    # and a hand-written document, once canonical, stays so
    code, canon, _ = run(capsys, "cluster", _doc(tmp_path), "--format", "toml")
    (tmp_path / "canon.toml").write_text(canon)
    assert run(capsys, "cluster", tmp_path / "canon.toml", "--format", "toml")[1] == canon


def test_md_and_csv(capsys, tmp_path):
    code, md, _ = run(capsys, "cluster", _doc(tmp_path, nodes=8, u=10, watts=14300.0),
                      "--format", "md")  # fmt: skip
    assert code == 0 and "# Cluster" in md and "## Rack elevations" in md and "U01-U10" in md
    code, csv_text, _ = run(capsys, "cluster", H200, "--nodes", 8, "--format", "csv")
    rows = csv_text.strip().split("\n")
    assert rows[0].startswith("item,pn,qty") and any("920-9B210-00FN-0M0" in r for r in rows)
    out = tmp_path / "c.csv"
    assert run(capsys, "cluster", H200, "--nodes", 8, "--format", "csv", "--out", out)[0] == 0
    code, _, err = run(capsys, "cluster", H200, "--nodes", 8, "--format", "csv", "--out", out)
    assert code == 2 and "--force" in err


def test_workload_sizes_the_node_count(capsys):
    from slotwise.engine.bom import read_bom
    from slotwise.engine.check.evaluate import evaluate
    from slotwise.engine.plan.for_build import cluster_for_build
    from tests.fixtures_catalog.helpers import bundled_catalog

    cat = bundled_catalog()
    build = read_bom(NO_FIT, cat).build
    plan = cluster_for_build(build, cat, evaluate(build, cat)).plan
    j = js(capsys, "cluster", NO_FIT)
    assert j["nodes"] == plan.nodes >= 2
    assert any("fewest copies" in n for n in j["notes"])


def test_bad_input_exits_2_naming_the_field(capsys, tmp_path):
    text = (EX / "minimal-l40s-hand-written.toml").read_text()
    no_wl = tmp_path / "no-workload.toml"
    no_wl.write_text(text[: text.index("[workload]")])
    code, _, err = run(capsys, "cluster", no_wl)
    assert code == 2 and "--nodes" in err
    bad = _doc(tmp_path)
    bad.write_text(bad.read_text().replace("gpus_per_node = 8", "gpus_per_node = 0"))
    code, _, err = run(capsys, "cluster", bad)
    assert code == 2 and "[node] gpus_per_node" in err
    code, _, err = run(capsys, "cluster", _doc(tmp_path, watts=50000.0))
    assert code == 2 and "--kw-per-rack" in err


def test_tco_counts_the_fabric_power(capsys, tmp_path):
    j = js(capsys, "cluster", _doc(tmp_path, nodes=127), "--kwh-price", "0.2")
    t = j["tco"]
    assert t["power_w"] == j["power"]["total_w"] > j["power"]["nodes_w"]
    assert t["purchase_price"] is None
    assert "DGX-H100-like" in j["unpriced"]  # the node has no price: no partial total
    code, md, _ = run(capsys, "cluster", _doc(tmp_path, nodes=127), "--kwh-price", "0.2")
    assert "## Total cost of ownership" in md and "includes the fabric" in md
    code, _, err = run(capsys, "cluster", _doc(tmp_path), "--cloud-gpu-hour", "2")
    assert code == 2 and "--kwh-price" in err


def test_compare_takes_cluster_documents(capsys, tmp_path):
    a, b = tmp_path / "qm.toml", tmp_path / "eth.toml"
    assert run(capsys, "cluster", H200, "--nodes", 127, "--format", "toml", "--out", a)[0] == 0
    argv = ["cluster", H200, "--nodes", 127, "--switch", "sn5600", "--format", "toml", "--out", b]
    assert run(capsys, *argv)[0] == 0
    code, out, err = run(capsys, "compare", a, b, "--json")
    assert code == 0, err
    rows = {r["key"]: r for r in json.loads(out)["rows"]}
    assert rows["nodes"]["values"] == [127, 127]
    assert rows["leaf_spine_core"]["texts"][0] == "32 / 16 / 0"  # H100 RA 4-SU
    assert rows["compute_switch"]["texts"] == [
        "NVIDIA Quantum-2 QM9700",
        "NVIDIA Spectrum-X SN5600",
    ]
    assert rows["power_total_w"]["best"]
    code, md, _ = run(capsys, "compare", a, b, "--format", "md")
    assert code == 0 and "leaf / spine / core" in md
    code, _, err = run(capsys, "compare", a, H200)
    assert code == 2 and "not both" in err


def test_cable_reach_class_is_a_site_setting(capsys, tmp_path):
    """NVIDIA structured-cabling requirements: multimode MPO to 30 m (OM3) / 50 m (OM4) for NDR
    and 400G, single-mode MPO to 500 m, LC to 2 km.  The RA's 30 m NDR cable keeps its PN."""
    j = js(capsys, "cluster", _doc(tmp_path, nodes=127))
    assert j["fabric"]["compute"]["cable_reach"].startswith("multimode MPO, OM3")
    assert any(ln["pn"] == "980-9I570-00N030" for ln in j["lines"])
    j = js(capsys, "cluster", _doc(tmp_path, nodes=127), "--cable-m", "40")
    assert j["fabric"]["compute"]["cable_reach"].startswith("multimode MPO, OM4")
    pns = {ln["pn"] for ln in j["lines"]}
    assert "980-9I570-00N030" not in pns and "980-9I510-00NS00" in pns  # SR8 optics still fit
    j = js(capsys, "cluster", _doc(tmp_path, nodes=127), "--cable-m", "200")
    assert j["fabric"]["compute"]["cable_reach"].startswith("single-mode MPO")
    assert "980-9I510-00NS00" not in {ln["pn"] for ln in j["lines"]}
    xdr = _doc(tmp_path, nodes=72, gbps=800, lpm=1)
    assert js(capsys, "cluster", xdr)["fabric"]["compute"]["cable_reach"].startswith("single")
    code, _, err = run(capsys, "cluster", _doc(tmp_path), "--cable-m", "3000")
    assert code == 2 and "reach" in err


def test_hostile_inputs_exit_2_with_one_message(capsys, tmp_path):
    import os

    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "cluster", fifo, "--nodes", 2)
    assert code == 2 and "FIFO" in err  # never hangs reading a pipe
    code, _, err = run(capsys, "cluster", H200, "--nodes", 10**8)
    assert code == 2 and "100,000" in err
    for old, new, field in (
        ("power_w = 10200.0", "power_w = inf", "[node] power_w"),
        ("rack_kw = 40.0", "rack_kw = nan", "[site] rack_kw"),
        ("gpus_per_node = 8", "gpus_per_node = 100000000", "[node] gpus_per_node"),
        ("nodes = 31", 'nodes = "31"', "[cluster] nodes"),
    ):
        doc = _doc(tmp_path)
        doc.write_text(doc.read_text().replace(old, new))
        code, _, err = run(capsys, "cluster", doc, "--json")
        assert code == 2 and field in err and "Traceback" not in err, err
    # refused while parsing (every numeric flag is finite and bounded, issue 29), naming the flag
    with pytest.raises(SystemExit) as exited:
        run(capsys, "cluster", H200, "--nodes", 2, "--volts", "1e300")
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "--volts" in err and "1e300" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "compare", fifo, _doc(tmp_path))
    assert code == 2
