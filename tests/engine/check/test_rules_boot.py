"""The boot rule (issue 25): a build with no drive gets a warning whose one-key fix fits the
boot pair from the chassis' own bays; ``suggest`` completes its builds with the same function,
so the rule and the suggestions agree.

Bundled examples without a drive: ``minimal-l40s-hand-written.toml`` keeps the warning on
purpose (the smallest file that validates; the warning and its fix are part of what it shows);
``h200-nvl-lora-421ge.toml`` and ``hgx-b200-pretrain-a22ga.toml`` sit on chassis whose drive
bays are not in the catalog, so they get the "not verified" note instead of a guessed fix.
"""

from __future__ import annotations

import pytest

from slotwise.engine.bom import read_bom
from slotwise.engine.build import Build
from slotwise.engine.build.edits import apply_all
from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.check.rules.boot import boot_drives
from slotwise.engine.plan.suggest.fill_in import drives_for
from tests.paths import REPO

EX = REPO / "examples"


def _boot(report):
    return [f for f in report.findings if f.rule.startswith("boot.")]


def test_no_drive_is_a_warning_with_a_one_key_fix(catalog):
    build = read_bom(EX / "minimal-l40s-hand-written.toml", catalog).build
    assert build is not None and not build.drives
    report = evaluate(build, catalog)
    (f,) = _boot(report)
    assert f.rule == "boot.no_drive" and f.severity == "warning"
    assert f.edit and f.fix and "mirrored" in f.fix and "bays per https://" in f.fix
    fixed = apply_all(build, f.edit)
    after = evaluate(fixed, catalog)
    assert not _boot(after)
    assert not [x for x in after.findings if x.rule.startswith("storage.")]
    assert after.errors == report.errors == 0
    # the fix is the pair suggest fits in this chassis
    ch = catalog.chassis[build.chassis]
    assert fixed.drives == drives_for(ch, catalog, "gpus", None) == boot_drives(ch, catalog)


def test_the_rule_and_suggest_agree_on_every_chassis(catalog):
    """Every chassis: the suggest fill-in is the rule's function, and the pair it fits passes
    the storage rules (the bays exist, take the drive, and have room)."""
    seen = 0
    for ch in catalog.chassis.values():
        pair = boot_drives(ch, catalog)
        assert drives_for(ch, catalog, "gpus", None) == pair
        report = evaluate(Build(chassis=ch.sku), catalog)
        rules = {f.rule for f in _boot(report)}
        if not pair:
            assert rules == {"boot.not_verified"}
            continue
        seen += 1
        assert rules == {"boot.no_drive"}
        done = evaluate(Build(chassis=ch.sku, drives=pair), catalog)
        assert not _boot(done)
        assert not [f for f in done.findings if f.rule.startswith("storage.")], ch.sku
    assert seen >= 5


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("minimal-l40s-hand-written.toml", "boot.no_drive"),
        ("h200-nvl-lora-421ge.toml", "boot.not_verified"),
        ("hgx-b200-pretrain-a22ga.toml", "boot.not_verified"),
        ("l40s-inference-521ge.toml", None),
        ("h100-nvl-inference-421ge-tnrt3.toml", None),
        ("hgx-h200-finetune-821ge.toml", None),
        ("x14-rtx-pro-6000-522ga.toml", None),
    ],
)
def test_bundled_examples(name, rule, catalog):
    build = read_bom(EX / name, catalog).build
    assert build is not None
    assert [f.rule for f in _boot(evaluate(build, catalog))] == ([rule] if rule else [])
