"""Issue #29 item 3: escape sequences and forged lines from a received file never reach the
terminal raw, and never forge a line in an export.  Each test is one reproduction of the issue:
slot ids, unknown keys, overlay SKUs and names, customer / project fields, through ``validate``,
``parts``, ``export`` (Markdown and CSV) and JSON."""

from __future__ import annotations

import json
import re

import pytest

from slotwise.engine.bom import import_bom
from slotwise.engine.bom.markdown import cell
from slotwise.tui.cli import main
from tests.bom_texts import l40s_bom

# A byte a terminal acts on: C0 except newline and tab, DEL, C1 (U+009B is a one-byte CSI).
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

EVIL_BOM = r"""schema = 1

[meta]
customer = "ACME\n\n**Total: 1.00 USD (approved)**\n"
project = "p\u001b]0;PWNED\u0007"
engineer = "e\u009b2J"

[chassis]
sku = "SYS-521GE-TNRT"

[cpu]
sku = "XEON-6530"
count = 2

[slots]
"1" = "NVIDIA-L40S-48GB"
"9\u001b[2J" = "NVIDIA-L40S-48GB"
"3" = "X\u001b]52;c;aGVsbG8=\u0007"

[workload]
model = "mistral-7b-v0.3"
method = "inference"
"bad\u001b[31mkey" = 1

[pricing]
currency = "USD"
note = "n\u001b[2J\n**Total: 1.00 USD (approved)**"
"""


@pytest.fixture
def evil(tmp_path):
    p = tmp_path / "evil.toml"
    p.write_text(EVIL_BOM)
    return p


def _run(capsys, *argv) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_control_characters_are_refused_at_load_naming_the_field(catalog):
    loaded = import_bom(EVIL_BOM, catalog, filename="evil.toml")
    fields = {p.field for p in loaded.problems if p.rule == "bom.bad_value"}
    assert {"meta.customer", "meta.project", "meta.engineer", "pricing.note"} <= fields
    assert any(f and f.startswith("slots.9") for f in fields)
    assert "slots.3" in fields
    assert loaded.meta.customer == "" and loaded.meta.project == ""
    assert loaded.build is not None and set(loaded.build.slots) == {"1"}
    assert loaded.price_note is None
    for p in loaded.problems:  # what each finding says is itself safe to print
        assert not CONTROL.search(p.message + (p.fix or "") + (p.field or "")), p


def test_validate_prints_no_control_character(capsys, evil):
    rc, out, err = _run(capsys, "validate", str(evil))
    assert rc == 2  # bad input
    assert not CONTROL.search(out + err)
    assert "\\u001b" in out  # shown, escaped: the user sees what was there


def test_validate_json_stays_json_and_holds_no_raw_control(capsys, evil):
    rc, out, err = _run(capsys, "validate", str(evil), "--json")
    json.loads(out)
    assert not CONTROL.search(out + err)


FORGED = l40s_bom(
    tables='[meta]\ncustomer = "ACME\\n\\n**Total: 1.00 USD (approved)**\\n"\n'
    'project = "Box \\u001b]0;PWNED\\u0007"\n'
)


def test_markdown_export_forges_no_line_and_holds_no_control(capsys, tmp_path):
    bom = tmp_path / "forged.toml"
    bom.write_text(FORGED)
    md = tmp_path / "out.md"
    rc, out, err = _run(capsys, "export", str(bom), "--format", "md", "--out", str(md))
    text = md.read_text() if md.exists() else ""
    assert not CONTROL.search(text + out + err)
    assert not any(line.lstrip().startswith("**Total: 1.00") for line in text.splitlines())
    assert "meta.customer" in err  # refused at load, naming the field


def test_markdown_escapes_user_text_it_is_given(catalog):
    from slotwise.engine.bom.markdown import to_markdown
    from slotwise.engine.bom.meta import BomMeta
    from slotwise.engine.build import Build
    from slotwise.engine.check.evaluate import evaluate

    build = Build(chassis="SYS-521GE-TNRT", slots={"1": "NVIDIA-L40S-48GB"})
    text = to_markdown(
        build,
        catalog,
        BomMeta(customer="ACME [click](http://x) <b>"),
        evaluate(build, catalog),
        prices={"NVIDIA-L40S-48GB": 1.0},
        currency="USD",
        price_note="example\n\n**Total: 1.00 USD (approved)**\x1b[2J",
    )
    assert not CONTROL.search(text)
    assert not any(line.lstrip().startswith("**Total: 1.00 USD (app") for line in text.splitlines())
    assert "ACME \\[click\\](http://x) \\<b\\>" in text


def test_markdown_cell_folds_and_escapes_user_text():
    got = cell("ACME\n\n**Total: 1.00 USD (approved)**\x1b[2J|x")
    assert "\n" not in got and "\x1b" not in got
    assert got.startswith("ACME \\*\\*Total") and "\\|x" in got


def test_csv_export_holds_no_control_character(capsys, evil, tmp_path):
    rc, out, err = _run(capsys, "export", str(evil), "--format", "csv")
    assert not CONTROL.search(out.replace("\r\n", "\n") + err)


def test_overlay_sku_and_name_with_escapes_are_refused_naming_the_field(capsys, tmp_path):
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "gpus.toml").write_text(
        "[[gpu]]\n"
        'sku = "EVIL\\u001b]0;PWNED\\u0007"\n'
        'name = "Evil \\u001b[2J GPU"\n'
        'source = "https://example.com"\n'
        'memory_gb = 80\ntdp_w = 350\nform = "pcie"\nwidth_slots = 2\n'
    )
    rc, out, err = _run(capsys, "--catalog", str(overlay), "parts", "--kind", "gpu")
    assert rc == 2
    assert not CONTROL.search(out + err)
    assert "sku" in err and "control character" in err


def test_a_file_name_with_escapes_is_echoed_escaped(capsys, tmp_path):
    rc, out, err = _run(capsys, "validate", str(tmp_path / "a\x1b]0;PWNED\x07.toml"))
    assert rc == 2 and not CONTROL.search(out + err)
    assert "\\u001b]0;PWNED\\u0007" in out
