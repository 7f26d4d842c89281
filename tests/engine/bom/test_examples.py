"""Every example BOM produces exactly the error rule ids its name promises, and validate's exit code.

Valid examples: no errors (warnings and notes allowed), exit 0.  Broken ones are named for what
is wrong.  Files with a problem in the file itself (bom.*) are bad input: exit 2.
If a catalog or rule change moves an example, fix the example (or this table) deliberately.
"""

from __future__ import annotations

import pytest

from slotwise.engine.bom import export_bom, import_bom, read_bom
from slotwise.engine.check.evaluate import evaluate
from slotwise.tui.cli import main
from tests.paths import REPO

EXAMPLES = REPO / "examples"

# file -> (the exact set of error rule ids, validate exit code)
EXPECTED: dict[str, tuple[set[str], int]] = {
    "h200-nvl-lora-421ge.toml": (set(), 0),
    "l40s-inference-521ge.toml": (set(), 0),
    "hgx-b200-pretrain-a22ga.toml": (set(), 0),
    "hgx-h200-finetune-821ge.toml": (set(), 0),
    "x14-rtx-pro-6000-522ga.toml": (set(), 0),
    "h100-nvl-inference-421ge-tnrt3.toml": (set(), 0),
    "minimal-l40s-hand-written.toml": (set(), 0),
    "broken-100v-power.toml": ({"power.redundancy"}, 1),
    "broken-missing-nvlink-bridges.toml": ({"nvlink.bridge_count"}, 1),
    "broken-l40s-with-bridges.toml": ({"nvlink.no_nvlink"}, 1),
    "broken-workload-does-not-fit.toml": ({"workload_fit.gpu_memory"}, 1),
    "broken-gpu-too-wide-for-slot.toml": ({"slots.too_wide"}, 1),
    "broken-unknown-sku.toml": ({"bom.unknown_sku", "slots.unknown_part"}, 2),
    "broken-slot-does-not-exist.toml": ({"bom.unknown_slot", "slots.unknown_slot"}, 2),
    "broken-malformed-toml.toml": ({"bom.malformed"}, 2),
    "broken-newer-schema.toml": ({"bom.schema_newer", "bom.unknown_field"}, 2),
}


def test_every_example_is_listed():
    # price lists for engine.cost.pricing (prices-*.toml) live beside the BOMs; they are not BOMs
    on_disk = {p.name for p in EXAMPLES.glob("*.toml") if not p.name.startswith("prices-")}
    assert on_disk == set(EXPECTED)
    assert sum(1 for v in EXPECTED.values() if v[1] == 0) >= 5
    assert sum(1 for name in EXPECTED if name.startswith("broken-")) >= 8


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_error_rules(name, catalog):
    rules, _ = EXPECTED[name]
    loaded = read_bom(EXAMPLES / name, catalog)
    found = {p.rule for p in loaded.errors}
    if loaded.build is not None:
        found |= {f.rule for f in evaluate(loaded.build, catalog).findings if f.severity == "error"}
    assert found == rules
    # broken examples are named for what is wrong; valid ones are not called broken
    assert name.startswith("broken-") == bool(rules)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_validate_exit_code(name, capsys):
    _, code = EXPECTED[name]
    assert main(["validate", str(EXAMPLES / name)]) == code
    out, err = capsys.readouterr()
    if code == 2:
        assert name in err and "line" in err
    else:
        assert err == ""
        assert ("OK:" if code == 0 else "NOT OK:") in out


@pytest.mark.parametrize("name", sorted(n for n, (_, c) in EXPECTED.items() if c != 2))
def test_example_round_trips(name, catalog):
    loaded = read_bom(EXAMPLES / name, catalog)
    once = export_bom(loaded.build, catalog, loaded.meta, prices=loaded.prices or None)
    again = import_bom(once, catalog, filename=name)
    assert again.problems == ()
    assert export_bom(again.build, catalog, again.meta, prices=again.prices or None) == once
