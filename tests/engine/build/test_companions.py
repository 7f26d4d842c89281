"""Companion lines (engine.build.companions): power cords per PSU of the PSU's inlet, a transceiver
per populated network cage of the card's form and speed, a DPU's required lines, a rail kit where
the chassis record lists one, and service lines only when the user chooses them."""

from __future__ import annotations

import csv
import io
import tomllib

import pytest

from slotwise.engine.bom import export_bom, import_bom
from slotwise.engine.build.companions import (
    DRAWS_NONE,
    IN_CARD,
    NOT_VERIFIED,
    SERVICES,
    check_services,
)
from slotwise.engine.bom.csv_export import to_csv
from slotwise.engine.build.items import PN_NEEDED, line_items
from slotwise.engine.bom.markdown import engineering_notes, to_markdown
from slotwise.engine.build import Build
from slotwise.engine.check.evaluate import evaluate
from slotwise.parts.catalog import Catalog, load_catalog
from slotwise.parts.schema import Companion
from slotwise.tui.cli import main
from tests.paths import REPO

H200 = REPO / "examples" / "h200-nvl-lora-421ge.toml"


@pytest.fixture(scope="module")
def cat():
    return load_catalog(overlay=None)


def _by_sku(items):
    return {i.sku: i for i in items}


def test_one_cord_per_psu_of_the_inlet_the_psu_record_has(cat):
    """PWS-2K70A-1R has a C20 inlet (netbox device library): four PSUs, four C19 cords; a
    2 kW unit with a C14 inlet takes C13 cords; no cord part number is public: PN needed."""
    items = _by_sku(
        line_items(Build(chassis="SYS-421GE-TNRT", psu="SMCI-PSU-2700W-TITANIUM", psu_count=4), cat)
    )
    assert cat.psus["SMCI-PSU-2700W-TITANIUM"].inlet == "C19/C20"
    cord = items["POWER-CORD-C19"]
    assert (cord.quantity, cord.type_label, cord.pn_cell) == (4, "Power cord", PN_NEEDED)
    assert "C20 inlet" in cord.description
    assert (cord.unit_power_w, cord.power_cell) == (None, DRAWS_NONE)
    assert "PWS-2K70A-1R.yaml" in (cord.basis or "")
    two_kw = Build(chassis="SYS-421GE-TNRT", psu="PWS-2K08A-1R", psu_count=2)
    assert _by_sku(line_items(two_kw, cat))["POWER-CORD-C13"].quantity == 2


def test_a_psu_without_an_inlet_gets_a_cord_that_says_so(cat):
    build = Build(chassis="SYS-821GE-TNHR", psu="SMCI-PSU-3000W-12V-54V", psu_count=6)
    cord = _by_sku(line_items(build, cat))["POWER-CORD-SMCI-PSU-3000W-12V-54V"]
    assert cord.quantity == 6 and "inlet not verified" in cord.description
    assert cord.part_number is None


def test_a_transceiver_per_cage_of_the_cards_form_and_speed(cat):
    """ConnectX-7 OSFP: the flat-top single-port OSFP module (its power is in the card's vendor-BOM
    figure); a B3220's QSFP112 ports at 200G: MMA1Z00-NS400-T at 5 W; a 400G QSFP112 port: 9 W;
    an RJ45 port takes no module."""
    build = Build(
        chassis="SYS-521GE-TNRT",
        slots={
            "1": "NVIDIA-CX7-400G-1P-OSFP",
            "2": "NVIDIA-CX7-400G-1P-OSFP",
            "10": "NVIDIA-BF3-B3220",
            "11": "NVIDIA-BF3-B3140H",
        },
    )
    items = line_items(build, cat)
    osfp = next(i for i in items if i.sku == "MMA4Z00-NS400")
    assert (osfp.quantity, osfp.part_number_vendor, osfp.type_label) == (2, "NVIDIA", "Transceiver")
    assert "flat top" in osfp.description and "DAC/AOC" in osfp.description
    assert (osfp.unit_power_w, osfp.power_cell) == (None, IN_CARD)
    qsfp = {i.unit_power_w: i for i in items if i.sku == "MMA1Z00-NS400-T"}
    assert qsfp[5].quantity == 2 and "200G" in qsfp[5].description  # 2 ports of one B3220
    assert qsfp[9].quantity == 1  # the B3140H's one 400G port
    assert qsfp[9].total_power_w == 9
    # the on-board X710-AT2 (RJ45) brings no module
    assert not any(i.kind == "transceiver" and "X710" in i.description for i in items)


def test_a_cage_without_a_published_opn_is_pn_needed_and_power_not_verified(cat):
    items = line_items(Build(chassis="SYS-521GE-TNRT", slots={"1": "NVIDIA-CX8-C8180"}), cat)
    mod = next(i for i in items if i.kind == "transceiver")
    assert (mod.sku, mod.pn_cell, mod.power_cell) == ("XCVR-OSFP-800G", PN_NEEDED, NOT_VERIFIED)
    # an on-board NIC whose cage the record does not give: said so, per device and port
    b300 = line_items(Build(chassis="SYS-822GS-NB3RT"), cat)
    onboard = next(i for i in b300 if i.kind == "transceiver")
    assert onboard.quantity == 8 and "cage not verified" in onboard.description


def test_a_rail_kit_where_the_chassis_record_lists_one(cat):
    """No bundled chassis lists a sourced rail kit, so none is quoted; a record that lists one
    (an overlay) brings it, one per server."""
    assert not any(i.kind == "accessory" for i in line_items(Build(chassis="SYS-421GE-TNRT"), cat))
    rail = Companion(
        pn="MCP-290-TEST-RAIL",
        kind="accessory",
        description="rail kit",
        source="test overlay",
        confidence="A",
    )
    ch = cat.chassis["SYS-421GE-TNRT"].model_copy(update={"companions": (rail,)})
    overlay = Catalog(records={**cat.records, ch.sku: ch}, version="test")
    items = _by_sku(line_items(Build(chassis="SYS-421GE-TNRT"), overlay))
    assert items["MCP-290-TEST-RAIL"].quantity == 1
    assert items["MCP-290-TEST-RAIL"].type_label == "Accessory"


def test_services_only_when_chosen_and_priced_only_by_the_price_list(cat):
    build = Build(chassis="SYS-421GE-TNRT", psu_count=4)
    plain = line_items(build, cat, {"SYS-421GE-TNRT": 1000.0})
    assert not any(i.sku in SERVICES for i in plain)
    chosen = _by_sku(line_items(build, cat, {"EWCSC": 250.0}, services=("ewcsc", "MC0037")))
    assert (chosen["EWCSC"].type_label, chosen["EWCSC"].unit_price) == ("Warranty", 250.0)
    assert (chosen["MC0037"].type_label, chosen["MC0037"].unit_price) == ("Assembly", None)
    assert chosen["EWCSC"].part_number_confidence == "A"
    assert "afewell-hh/aid" in (chosen["EWCSC"].part_number_source or "")
    with pytest.raises(ValueError, match="not a known service code"):
        check_services(["GOLD-5Y"])


def test_services_persist_in_meta_and_flow_into_every_export(cat):
    loaded = import_bom(H200.read_text(), cat, filename=str(H200))
    meta = loaded.meta.model_copy(update={"services": ("OSNBD3",)})
    text = export_bom(loaded.build, cat, meta)
    doc = tomllib.loads(text)
    assert doc["meta"]["services"] == ["OSNBD3"]
    assert any(li["sku"] == "OSNBD3" for li in doc["line_items"])
    again = import_bom(text, cat, filename="x.toml")
    assert again.meta.services == ("OSNBD3",)
    # the app's autosave keeps the meta as JSON
    assert type(meta).model_validate_json(meta.model_dump_json()).services == ("OSNBD3",)
    assert not [p for p in again.problems if p.rule == "bom.line_items_stale"]
    report = evaluate(loaded.build, cat)
    md = to_markdown(loaded.build, cat, meta, report)
    assert "| On-site service | OSNBD3 |" in md
    rows = list(csv.DictReader(io.StringIO(to_csv(loaded.build, cat, services=meta.services))))
    assert rows[-1]["part_number"] == "OSNBD3" and rows[-1]["power_note"] == "none"
    notes = engineering_notes(loaded.build, cat, meta, report)
    assert "PWS-2K70A-1R.yaml" in notes  # the cord rule's source, in the engineer's notes
    # a bad code in a hand-edited BOM is one finding; the rest of [meta] is kept
    bad = text.replace('services = ["OSNBD3"]', 'services = ["GOLD"]')
    got = import_bom(bad, cat, filename="bad.toml")
    assert got.meta.customer == loaded.meta.customer and got.meta.services == ()
    assert any(p.rule == "bom.bad_value" and "services" in (p.field or "") for p in got.problems)


def test_markdown_words_power_and_lists_pn_gaps_of_companions(cat):
    loaded = import_bom(H200.read_text(), cat, filename=str(H200))
    md = to_markdown(loaded.build, cat, loaded.meta, evaluate(loaded.build, cat))
    row = next(line for line in md.splitlines() if line.startswith("| Power cord |"))
    assert row.endswith("| 4 | none | none |")
    assert "in the card's figure" in md
    needed = next(line for line in md.splitlines() if line.startswith("Part numbers still"))
    assert "Power cord, C19" in needed


def test_export_service_flag(capsys):
    code = main(["export", str(H200), "--format", "csv", "--service", "EWCSC"])
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert code == 0 and rows[-1]["sku"] == "EWCSC" and rows[-1]["type"] == "Warranty"
    assert main(["export", str(H200), "--format", "csv", "--service", "none"]) == 0
    assert "EWCSC" not in capsys.readouterr().out
    assert main(["export", str(H200), "--format", "csv", "--service", "PLATINUM"]) == 2
    assert "--service" in capsys.readouterr().err


def test_parts_gaps_lists_companion_lines_without_a_part_number(capsys):
    import json

    assert main(["parts", "--gaps", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    skus = {c["sku"] for c in out["companion_pn_needed"]}
    assert {"POWER-CORD-C19", "XCVR-OSFP-800G"} <= skus
    assert "MMA4Z00-NS400" not in skus  # sourced: not a gap
    assert out["companion_pn_needed_count"] == len(skus)
    assert main(["parts", "--gaps", "--chassis", "SYS-421GE-TNRT"]) == 0
    text = capsys.readouterr().out
    assert "COMPANION LINES WITHOUT A PART NUMBER" in text and "POWER-CORD-C19" in text
