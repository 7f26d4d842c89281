"""AIOM/OCP 3.0 slots, on-board NICs and the SYS-821GE-TNHR north-south position, on the bundled
catalog: the three wrong answers of issue #13 stay gone.

- SYS-421GE-TNRT3 took no NIC at all (its AIOM/OCP 3.0 slot was not modelled);
- SYS-821GE-TNHR could not hold the 9th adapter of NVIDIA's 2-8-9-400 design;
- SYS-822GS-NB3RT / SYS-422GL-NR asked for 6 (or 4) more fast NICs on chassis whose ConnectX-8
  NICs are on board.
"""

from __future__ import annotations

import pytest

from slotwise.engine.build import Build
from slotwise.engine.build.items import line_items
from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import load_catalog

# Training 8B on 1T tokens in a day needs many servers: the network rules engage.
MULTI_NODE = Workload(model="llama-3.1-8b", method="full", tokens=1e12, target_days=1)
# A full fine-tune of 405B does not fit in one 8-GPU server's memory: multi-node as well.
TOO_BIG = Workload(model="llama-3.1-405b", method="full", tokens=1e9)


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def errors(report) -> list[str]:
    return [f"{f.rule}: {f.message}" for f in report.findings if f.severity == "error"]


def x13_pcie(chassis: str, slots: dict[str, str]) -> Build:
    return Build(
        chassis=chassis,
        cpu="XEON-8480+",
        cpu_count=2,
        dimm="DDR5-4800-64GB-RDIMM",
        dimm_count=32,
        slots=slots,
        psu="SMCI-PSU-2700W-TITANIUM",
        psu_count=4,
    )


@pytest.mark.parametrize("chassis", ["SYS-421GE-TNRT3", "SYS-421GE-TNRT", "SYS-521GE-TNRT"])
def test_an_ocp_nic_in_the_aiom_slot_is_fine(cat, chassis):
    b = x13_pcie(chassis, {"1": "NVIDIA-L40S-48GB", "aiom": "NVIDIA-CX7-200G-2P-OCP3"})
    r = evaluate(b, cat)
    assert errors(r) == []
    assert not [f for f in r.findings if f.rule.startswith("slots.") and "aiom" in f.slots]


def test_the_aiom_slot_takes_only_ocp_cards(cat):
    r = evaluate(x13_pcie("SYS-421GE-TNRT3", {"aiom": "NVIDIA-CX7-200G-2P-QSFP112"}), cat)
    f = next(f for f in r.findings if f.rule == "slots.not_ocp")
    assert f.severity == "error" and f.slots == ("aiom",)
    r = evaluate(x13_pcie("SYS-421GE-TNRT3", {"aiom": "NVIDIA-L40S-48GB"}), cat)
    assert [f.rule for f in r.findings if f.severity == "error"] == ["slots.not_ocp"]


def test_an_ocp_card_in_a_gpu_slot_is_moved_to_the_aiom_slot(cat):
    r = evaluate(x13_pcie("SYS-421GE-TNRT3", {"1": "NVIDIA-CX7-200G-2P-OCP3"}), cat)
    f = next(f for f in r.findings if f.rule == "slots.ocp_nic")
    assert [(e.op, e.dst) for e in f.edit] == [("move", "aiom")]


def test_an_onboard_nic_is_not_a_card(cat):
    r = evaluate(x13_pcie("SYS-421GE-TNRT3", {"1": "NVIDIA-CX8-ONBOARD"}), cat)
    assert "slots.onboard_nic" in {f.rule for f in r.findings if f.severity == "error"}


def _hgx_2_8_9_400() -> Build:
    slots = {str(i): "NVIDIA-BF3-B3140H" for i in range(1, 9)}
    slots["ns1"] = "NVIDIA-BF3-B3220"
    return Build(
        chassis="SYS-821GE-TNHR",
        cpu="XEON-8480+",
        cpu_count=2,
        dimm="DDR5-4800-64GB-RDIMM",
        dimm_count=32,
        baseboard="HGX-H100-8GPU",
        slots=slots,
        psu="SMCI-PSU-3000W-12V-54V",
        psu_count=6,
    )


def test_821ge_tnhr_builds_nvidias_2_8_9_400_design(cat):
    """8 east-west 400G SuperNICs (one per GPU) plus the north-south BlueField-3 DPU."""
    b = _hgx_2_8_9_400()
    assert len(b.slots) == 9
    r = evaluate(b, cat, MULTI_NODE)
    assert errors(r) == []
    assert not [f for f in r.findings if f.rule.startswith("network.") and f.severity != "info"]


def hgx_b300() -> Build:
    return Build(
        chassis="SYS-822GS-NB3RT",
        cpu="XEON-6776P",
        cpu_count=2,
        dimm="DDR5-6400-64GB-RDIMM",
        dimm_count=32,
        baseboard="HGX-B300-8GPU",
        psu="SMCI-PSU-6600W-TITANIUM",
        psu_count=6,
    )


def mgx_cx8() -> Build:
    return Build(
        chassis="SYS-422GL-NR",
        cpu="XEON-6776P",
        cpu_count=2,
        dimm="DDR5-6400-64GB-RDIMM",
        dimm_count=32,
        slots={str(i): "NVIDIA-RTX-PRO-6000-BSE-96GB" for i in range(1, 9)},
    )


@pytest.mark.parametrize("make", [hgx_b300, mgx_cx8], ids=["822GS-NB3RT", "422GL-NR"])
def test_onboard_connectx8_counts_as_the_east_west_fabric(cat, make):
    from slotwise.engine.check.evaluate import make_context
    from slotwise.engine.check.rules import network, workload_fit

    ctx = make_context(make(), cat, TOO_BIG)
    workload_fit.check(ctx)
    assert network.multi_node_reason(ctx) is not None  # the network rules do engage
    r = evaluate(make(), cat, TOO_BIG)
    net = [f for f in r.findings if f.rule.startswith("network.")]
    assert not [f for f in net if f.severity != "info"], [f.message for f in net]


def test_without_its_onboard_nics_the_b300_would_need_8_more(cat):
    """The same build on a copy of the chassis without on-board NICs gets the old warning: the
    on-board record is what makes the difference."""
    from dataclasses import replace

    ch = cat.chassis["SYS-822GS-NB3RT"].model_copy(update={"onboard_nics": ()})
    bare = replace(cat, records={**cat.records, ch.sku: ch})
    f = next(
        f for f in evaluate(hgx_b300(), bare, TOO_BIG).findings if f.rule == "network.nic_ratio"
    )
    assert f.severity == "warning" and "0 NIC(s)" in f.message


def test_onboard_nics_are_bom_lines_included_with_the_chassis(cat):
    items = line_items(hgx_b300(), cat)
    cx8 = next(i for i in items if i.sku == "NVIDIA-CX8-ONBOARD")
    assert cx8.quantity == 8 and cx8.included and "included" in cx8.description
    assert [i.sku for i in items][:2] == ["SYS-822GS-NB3RT", "NVIDIA-CX8-ONBOARD"]
    priced = line_items(hgx_b300(), cat, {"SYS-822GS-NB3RT": 1.0})
    assert next(i for i in priced if i.sku == "NVIDIA-CX8-ONBOARD").unit_price == 0.0


def test_every_onboard_nic_names_a_nic_record(cat):
    for ch in cat.chassis.values():
        for onb in ch.onboard_nics:
            assert onb.sku in cat.nics and cat.nics[onb.sku].form == "onboard"


def test_the_map_shows_a_drive_row_where_the_bay_layout_is_unknown(cat):
    """SYS-421GE-TNRT's bay layout is not published in any source reached: the map still offers
    a drive row, and drives placed there are reported as not checked (info), not as errors."""
    from slotwise.engine.build import DriveFit
    from slotwise.tui.widgets.map_rows import map_rows

    ch = cat.chassis["SYS-421GE-TNRT"]
    assert not ch.drive_bays
    b = x13_pcie("SYS-421GE-TNRT", {"1": "NVIDIA-L40S-48GB"})
    bays = [r for r in map_rows(ch, b, cat) if r.kind == "bay"]
    assert [r.key for r in bays] == ["bay:drives"] and bays[0].selectable
    drive = next(iter(cat.drives))
    b = b.with_(drives=(DriveFit(bay="drives", sku=drive, count=2),))
    rows = [r for r in map_rows(ch, b, cat) if r.kind == "bay"]
    assert rows[0].filled and rows[0].body == f"2 × {drive}"
    f = next(f for f in evaluate(b, cat).findings if f.rule == "storage.unknown_bays")
    assert f.severity == "info"
    # a chassis with a known layout shows its own bay groups only
    ch3 = cat.chassis["SYS-421GE-TNRT3"]
    keys = [r.key for r in map_rows(ch3, x13_pcie(ch3.sku, {}), cat) if r.kind == "bay"]
    assert keys == [f"bay:{bay.id}" for bay in ch3.drive_bays]


# NVIDIA Enterprise RA patterns on the systems NVIDIA's partner table lists for them (shared
# reference S16): PCIe "2-8-5-200" (2 CPUs, 8 GPUs, 4 east-west 200G NICs + 1 north-south DPU)
# on SYS-522GA-NRT, HGX "2-8-9-400" (one 400G NIC per GPU + 1 north-south DPU) on SYS-A22GA-NBRT.


def test_522ga_nrt_builds_nvidias_2_8_5_200_design(cat):
    slots = {str(i): "NVIDIA-RTX-PRO-6000-BSE-96GB" for i in range(1, 9)}
    slots.update({s: "NVIDIA-CX7-200G-2P-QSFP112" for s in ("9", "10", "11", "12")})
    slots["13"] = "NVIDIA-BF3-B3220"
    b = Build(
        chassis="SYS-522GA-NRT",
        cpu="XEON-6960P",
        cpu_count=2,
        dimm="DDR5-6400-64GB-RDIMM",
        dimm_count=24,
        slots=slots,
        psu="SMCI-PSU-2700W-TITANIUM",
        psu_count=6,
    )
    assert errors(evaluate(b, cat)) == []


def test_a22ga_nbrt_builds_nvidias_2_8_9_400_design(cat):
    slots = {str(i): "NVIDIA-BF3-B3140H" for i in range(1, 9)}
    slots["9"] = "NVIDIA-BF3-B3220"
    b = Build(
        chassis="SYS-A22GA-NBRT",
        cpu="XEON-6960P",
        cpu_count=2,
        dimm="DDR5-6400-96GB-RDIMM",
        dimm_count=24,
        baseboard="HGX-B200-8GPU",
        slots=slots,
        psu="PWS-5K26G-2R1",
        psu_count=6,
    )
    r = evaluate(b, cat, MULTI_NODE)
    assert errors(r) == []
    assert not [f for f in r.findings if f.rule.startswith("network.") and f.severity != "info"]
