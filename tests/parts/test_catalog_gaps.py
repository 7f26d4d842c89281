"""`slotwise parts --gaps`: every unknown figure a rule needs, per record, with the rules it blocks."""

from __future__ import annotations

import json

import pytest

from slotwise.engine.build import Build
from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.check.rules.ids import RULES
from slotwise.parts.catalog import load_catalog
from slotwise.parts.gaps import NEEDS, find_gaps
from slotwise.parts.schema import MODEL_BY_KIND
from slotwise.tui.cli import main


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def test_every_need_names_a_real_field_and_real_rules():
    for kind, needs in NEEDS.items():
        fields = MODEL_BY_KIND[kind].model_fields
        for need in needs:
            assert need.field in fields, (kind, need.field)
            assert need.rules and set(need.rules) <= set(RULES), (kind, need.rules)


def test_every_gap_is_an_unknown_figure(cat):
    gaps = find_gaps(cat)
    assert gaps
    for g in gaps:
        rec = cat.get(g.sku)
        assert rec is not None and rec.kind == g.kind
        if not g.field.startswith("roots["):
            assert getattr(rec, g.field) in (None, ()), (g.sku, g.field)


def test_a_known_figure_is_not_a_gap(cat):
    # SYS-521GE-TNRT's datasheet gives its ambient rating (35 C) and GPU list
    fields = {g.field for g in find_gaps(cat, "SYS-521GE-TNRT") if g.sku == "SYS-521GE-TNRT"}
    assert "max_ambient_c" not in fields and "gpu_skus" not in fields


def test_a_gap_is_what_the_engine_reports_as_could_not_check(cat):
    """The chassis gaps listed for cooling match the 'unknown' findings of a real build."""
    b = Build(
        chassis="SYS-422GL-NR",
        cpu="XEON-6776P",
        cpu_count=2,
        slots={"1": "NVIDIA-RTX-PRO-6000-BSE-96GB"},
    )
    rules = {f.rule for f in evaluate(b, cat).findings}
    fields = {g.field for g in find_gaps(cat, "SYS-422GL-NR") if g.kind == "chassis"}
    assert ("max_ambient_c" in fields) == ("cooling.unknown_ambient" in rules)
    assert ("cpu_max_tdp_w" in fields) == ("cooling.unknown_cpu_limit" in rules)
    assert ("max_gpu_tdp_air_w" in fields) == ("cooling.unknown_gpu_limit" in rules)


def test_chassis_filter_covers_the_chassis_and_its_listed_parts(cat):
    gaps = find_gaps(cat, "SYS-821GE-TNHR")
    skus = {g.sku for g in gaps}
    ch = cat.chassis["SYS-821GE-TNHR"]
    allowed = {ch.sku, *ch.cpu_skus, *ch.gpu_skus, *ch.psu_skus, *ch.baseboard_skus}
    assert skus <= allowed | {o.sku for o in ch.onboard_nics}
    assert "SYS-821GE-TNHR" in skus or not [g for g in gaps if g.kind == "chassis"]


def test_cli_gaps_json_exits_0(cat, capsys):
    assert main(["parts", "--gaps", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["count"] == len(out["gaps"]) == len(find_gaps(cat))
    assert {"kind", "sku", "field", "rules", "why"} <= set(out["gaps"][0])


def test_cli_gaps_text_and_chassis_filter(capsys):
    assert main(["parts", "--gaps", "--chassis", "SYS-421GE-TNRT"]) == 0
    out = capsys.readouterr().out
    assert "SYS-421GE-TNRT (chassis)" in out and "rule-blocking unknown(s)" in out


def test_cli_unknown_chassis_is_a_usage_error(capsys):
    assert main(["parts", "--gaps", "--chassis", "SYS-NOPE"]) == 2
    assert "no chassis 'SYS-NOPE'" in capsys.readouterr().err
    assert main(["parts", "--chassis", "SYS-421GE-TNRT"]) == 2
