"""Bad BOM files: never a crash, never lost data, every problem named (rule id, line, field)."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotwise.engine.bom import (
    TOP_KEYS,
    BomExistsError,
    BomMeta,
    export_bom,
    import_bom,
    read_bom,
    write_bom,
)
from slotwise.engine.bom import toml_writer as bom_toml
from slotwise.engine.bom.locate import KeyLocator
from slotwise.engine.build import Build
from slotwise.engine.check.report import Report
from slotwise.engine.inputs import InputRef, refs
from slotwise.tui.commands.flags import cli_words
from tests.engine.bom.bom_fixture import fixture_catalog

pytestmark = pytest.mark.slow  # hypothesis over every malformed document shape

CAT = fixture_catalog()

GOOD = """schema = 1

[meta]
customer = "ACME"

[chassis]
sku = "TEST-PCIE-4U"

[cpu]
sku = "CPU-X"
count = 2

[slots]
"1" = "GPU-A"
"2" = "GPU-A"

[[bridges]]
sku = "BR-2"
slots = ["1", "2"]
count = 1

[[drives]]
bay = "front-nvme"
sku = "SSD-7T"
count = 2
"""


def rules(loaded) -> list[str]:
    return sorted(p.rule for p in loaded.problems)


def only(loaded, rule):
    found = [p for p in loaded.problems if p.rule == rule]
    assert len(found) == 1, loaded.problems
    return found[0]


def test_good_file_has_no_problems():
    loaded = import_bom(GOOD, CAT, filename="good.toml")
    assert loaded.problems == ()
    assert loaded.ok
    assert loaded.build.cpu_count == 2


def test_malformed_toml_gives_line_and_column():
    text = GOOD.replace("count = 2\n\n[slots]", "count = = 2\n\n[slots]")
    loaded = import_bom(text, CAT, filename="bad.toml")
    assert loaded.build is None
    p = only(loaded, "bom.malformed")
    assert p.line == 11 and p.file == "bad.toml"
    assert "bad.toml, line 11, column" in p.message
    assert "not valid TOML" in p.message
    assert "(count = = 2)" in p.message  # the offending line is quoted


def test_unclosed_string_gets_a_specific_fix():
    loaded = import_bom(GOOD.replace('sku = "CPU-X"', 'sku = "CPU-X'), CAT, filename="f.toml")
    p = only(loaded, "bom.malformed")
    assert p.line == 10 and "add the closing quote" in p.fix


def test_unknown_sku_is_kept_and_named_with_line():
    text = GOOD.replace('"2" = "GPU-A"', '"2" = "GPU-AA"')
    loaded = import_bom(text, CAT, filename="f.toml")
    p = only(loaded, "bom.unknown_sku")
    assert p.line == 15 and p.field == "slots.2"
    assert "GPU-AA" in p.message and p.parts == ("GPU-AA",)
    assert "did you mean 'GPU-A'" in p.fix
    assert loaded.build.slots["2"] == "GPU-AA"  # kept: a re-export loses nothing
    assert not loaded.ok
    assert '"2" = "GPU-AA"' in export_bom(loaded.build, CAT, loaded.meta, Report())


def test_unknown_chassis_keeps_build():
    loaded = import_bom(GOOD.replace("TEST-PCIE-4U", "SYS-NOPE"), CAT, filename="f.toml")
    assert rules(loaded) == ["bom.unknown_sku"]
    assert loaded.build.chassis == "SYS-NOPE"
    assert only(loaded, "bom.unknown_sku").field == "chassis.sku"


def test_wrong_kind():
    loaded = import_bom(GOOD.replace('"1" = "GPU-A"', '"1" = "CPU-X"'), CAT, filename="f.toml")
    p = only(loaded, "bom.wrong_kind")
    assert p.field == "slots.1" and "is a cpu, not a GPU or NIC" in p.message


def test_part_in_slot_that_does_not_exist():
    loaded = import_bom(GOOD.replace('"2" = "GPU-A"', '"42" = "GPU-A"'), CAT, filename="f.toml")
    card = only(loaded, "bom.unknown_slot")
    assert card.field == "slots.42" and card.line == 15 and "has no slot '42'" in card.message
    assert loaded.build.slots["42"] == "GPU-A"


def test_drive_bay_that_does_not_exist():
    loaded = import_bom(GOOD.replace('bay = "front-nvme"', 'bay = "rear"'), CAT, filename="f.toml")
    p = only(loaded, "bom.unknown_bay")
    assert p.field == "drives[0].bay" and p.line == 23


def test_newer_schema_loads_what_it_can():
    loaded = import_bom(GOOD.replace("schema = 1", "schema = 2"), CAT, filename="f.toml")
    p = only(loaded, "bom.schema_newer")
    assert p.line == 1 and "schema 2" in p.message
    assert loaded.build.slots == {"1": "GPU-A", "2": "GPU-A"}
    assert loaded.schema_version == 2


def test_missing_schema_and_missing_chassis():
    text = GOOD.replace("schema = 1\n", "").replace('[chassis]\nsku = "TEST-PCIE-4U"\n', "")
    loaded = import_bom(text, CAT, filename="f.toml")
    assert rules(loaded) == ["bom.missing_field", "bom.missing_field"]
    assert {p.field for p in loaded.problems} == {"schema", "chassis"}
    assert loaded.build is None
    assert loaded.meta.customer == "ACME"  # what could be loaded was loaded


def test_missing_chassis_sku():
    loaded = import_bom(GOOD.replace('sku = "TEST-PCIE-4U"', 'name = "x"'), CAT, filename="f.toml")
    assert rules(loaded) == ["bom.missing_field", "bom.unknown_field"]
    assert only(loaded, "bom.missing_field").field == "chassis.sku"


def test_missing_field_in_array_entry():
    loaded = import_bom(GOOD.replace('bay = "front-nvme"\n', ""), CAT, filename="f.toml")
    p = only(loaded, "bom.missing_field")
    assert p.field == "drives[0].bay" and p.line == 22  # the [[drives]] header
    assert loaded.build.drives == ()


def test_all_problems_of_one_entry_are_reported():
    text = GOOD.replace('bay = "front-nvme"\n', "").replace("count = 2\n", "count = -1\n")
    loaded = import_bom(text, CAT, filename="f.toml")
    assert {(p.rule, p.field) for p in loaded.problems} == {
        ("bom.bad_value", "cpu.count"),
        ("bom.missing_field", "drives[0].bay"),
        ("bom.bad_value", "drives[0].count"),
    }


@pytest.mark.parametrize(
    "old, new, field, line",
    [
        ("count = 2\n\n[slots]", 'count = "two"\n\n[slots]', "cpu.count", 11),
        ("count = 2\n\n[slots]", "count = 0\n\n[slots]", "cpu.count", 11),
        ('"1" = "GPU-A"', '"1" = 7', "slots.1", 14),
        ("schema = 1", 'schema = "one"', "schema", 1),
        ('customer = "ACME"', "customer = 5", "meta.customer", 4),
    ],
)
def test_bad_values_name_field_and_line(old, new, field, line):
    loaded = import_bom(GOOD.replace(old, new), CAT, filename="f.toml")
    p = only(loaded, "bom.bad_value")
    assert (p.field, p.line) == (field, line)
    assert f"f.toml, line {line}: field '{field}'" in p.message


def test_integral_float_count_is_accepted_fractional_is_one_problem():
    text = GOOD.replace("count = 2\n\n[slots]", "count = 2.0\n\n[slots]")
    assert import_bom(text, CAT).build.cpu_count == 2
    text = GOOD.replace("count = 2\n\n[slots]", "count = 2.5\n\n[slots]")
    loaded = import_bom(text, CAT, filename="f.toml")
    assert rules(loaded) == ["bom.bad_value"] and "2.5" in loaded.problems[0].message
    assert loaded.build.cpu is None  # not loaded, and said so


def test_bad_environment_value_keeps_the_rest():
    text = GOOD + '\n[environment]\nambient_c = "hot"\nredundancy = "N+N"\n'
    loaded = import_bom(text, CAT, filename="f.toml")
    p = only(loaded, "bom.bad_value")
    assert p.field == "environment.ambient_c" and "'hot'" in p.message
    assert loaded.build.env.redundancy == "N+N"


def test_bad_workload():
    text = GOOD + '\n[workload]\nmodel = "test-7b"\nmethod = "dance"\nseq_len = 4096\n'
    loaded = import_bom(text, CAT, filename="f.toml")
    p = only(loaded, "bom.bad_value")
    assert p.field == "workload.method"
    assert loaded.build.workload.seq_len == 4096


def test_unknown_workload_model():
    text = GOOD + '\n[workload]\nmodel = "test-7c"\n'
    loaded = import_bom(text, CAT, filename="f.toml")
    p = only(loaded, "bom.unknown_sku")
    assert p.field == "workload.model" and "test-7b" in p.fix


def test_unknown_fields_are_reported():
    text = GOOD.replace("[cpu]", "colour = 'red'\n[cpu]").replace(
        "count = 2", "count = 2\ncores = 3", 1
    )
    text = "extra = 1\n" + text
    loaded = import_bom(text, CAT, filename="f.toml")
    assert {p.field for p in loaded.problems} == {"extra", "chassis.colour", "cpu.cores"}
    assert rules(loaded) == ["bom.unknown_field"] * 3


def test_stale_line_items_warn_only():
    meta = BomMeta()
    b = import_bom(GOOD, CAT).build
    text = export_bom(b, CAT, meta, Report()).replace("quantity = 2", "quantity = 3", 1)
    loaded = import_bom(text, CAT, filename="f.toml")
    p = only(loaded, "bom.line_items_stale")
    assert p.severity == "warning" and loaded.ok


def test_bad_price_is_reported():
    text = GOOD + '\n[[line_items]]\nsku = "GPU-A"\nquantity = 2\nunit_price = "cheap"\n'
    loaded = import_bom(text, CAT, filename="f.toml")
    assert "bom.bad_value" in rules(loaded)
    assert loaded.prices == {}


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "schema = 1",
        "[slots]\n1 = 1",
        "chassis = 3",
        "slots = [1]",
        "bridges = 5",
        "[[bridges]]\nslots = 5",
        "[environment]\nx = [[1]]",
        "meta = 1",
        "workload = []",
        "[chassis]\nsku = ''",
        "[[drives]]\ncount = -1",
        "[cpu]\nsku = 1",
    ],
)
def test_junk_never_crashes(junk):
    loaded = import_bom(junk, CAT, filename="junk.toml")
    assert loaded.problems  # every junk file has something to say
    assert all(p.severity in ("error", "warning") and p.message for p in loaded.problems)


def test_read_bom_unreadable(tmp_path):
    loaded = read_bom(tmp_path / "missing.toml", CAT)
    assert rules(loaded) == ["bom.unreadable"] and "no such file" in loaded.problems[0].message
    (tmp_path / "bin.toml").write_bytes(b"schema = 1\n\xff\xfe")
    assert rules(read_bom(tmp_path / "bin.toml", CAT)) == ["bom.unreadable"]
    assert rules(read_bom(tmp_path, CAT)) == ["bom.unreadable"]


def test_write_bom_needs_force_to_overwrite(tmp_path):
    p = tmp_path / "x.toml"
    text = export_bom(Build(chassis="TEST-PCIE-4U"), CAT, BomMeta(), Report())
    write_bom(p, text)
    with pytest.raises(BomExistsError) as exc:
        write_bom(p, "other")
    # the engine points at the input; the CLI words it as its flag
    assert refs(str(exc.value)) == (InputRef(name="force"),)
    assert "use --force to overwrite it" in cli_words(str(exc.value))
    assert p.read_text() == text
    write_bom(p, "other", force=True)
    assert p.read_text() == "other"
    assert sorted(os.listdir(tmp_path)) == ["x.toml"]


def test_locator_paths():
    loc = KeyLocator(GOOD + '\n[[bridges]]\nsku = """a\nb"""\ncount = 2\n')
    assert loc.line("chassis.sku") == 7
    assert loc.line("bridges[0].slots") == 19
    assert loc.line("bridges[1].count") == 30
    assert loc.line("bridges[1].nope") == 27
    assert loc.line("nowhere") is None


# ------------------------------------------------------------------------ fuzzing: never raises

_scalars = st.one_of(
    st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(), st.text(max_size=8)
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["sku", "count", "slots", "bay", "x", "1"]), inner, max_size=3
        )
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from([*TOP_KEYS, "junk"]),
        _values
        | st.lists(
            st.dictionaries(st.sampled_from(["sku", "slots", "count", "bay"]), _values, max_size=4),
            max_size=3,
        ),
        max_size=8,
    )
)
def test_any_document_loads_without_raising(doc):
    loaded = import_bom(bom_toml.dumps(doc), CAT, filename="fuzz.toml")
    assert loaded.build is None or loaded.build.chassis
    for p in loaded.problems:
        assert p.rule.startswith("bom.") and p.message.startswith("fuzz.toml")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_loads_without_raising(text):
    loaded = import_bom(text, CAT, filename="t.toml")
    assert loaded.build is None or isinstance(loaded.build.chassis, str)
