"""System memory rules."""

import pytest

from slotwise.engine.check.rules.memory import balanced_counts
from tests.fixtures_catalog.helpers import H200, assert_edit_fixes, base_build, of_rule, one, run
from tests.paths import REPO

TEN = {str(i): H200 for i in range(1, 11)}


def test_balanced_counts():
    assert balanced_counts(8, 2, 32) == [16, 32]
    assert balanced_counts(12, 2, 24) == [24]
    assert balanced_counts(8, 1, 16) == [8, 16]


@pytest.mark.parametrize(
    ("changes", "rule", "severity"),
    [
        ({"dimm": None, "dimm_count": 0}, "memory.no_dimms", "error"),
        ({"dimm": "DDR5-NOPE"}, "memory.unknown_dimm", "error"),
        ({"dimm_count": 40}, "memory.too_many_dimms", "error"),
        ({"dimm_count": 12}, "memory.unbalanced", "warning"),
        ({"dimm_count": 18}, "memory.unbalanced", "warning"),
    ],
)
def test_dimm_rules_with_edits(changes, rule, severity):
    b = base_build(**changes)
    f = one(run(b), rule)
    assert f.severity == severity
    assert_edit_fixes(b, f)


def test_two_dimms_per_channel_speed_info():
    b = base_build(dimm="DDR5-4800-64GB-RDIMM", dimm_count=32)
    f = one(run(b), "memory.2dpc_speed")
    assert f.severity == "info" and "4400 MT/s" in f.message
    assert not of_rule(run(base_build()), "memory.2dpc_speed")


def test_dimm_faster_than_cpu_runs_at_cpu_speed():
    f = one(run(base_build()), "memory.speed_capped")
    assert "4800 MT/s" in f.message


def test_ddr4_is_an_error_and_unlisted_dimm_a_warning():
    r = run(base_build(dimm="FIX-DIMM-DDR4"))
    assert one(r, "memory.wrong_type").severity == "error"
    assert one(r, "memory.dimm_not_listed").severity == "warning"


def test_host_memory_vs_gpu_memory():
    # 16 x 64 GB = 1,024 GB for 10 x 141 GB = 1,410 GB: below 1x
    low = base_build(slots=TEN, bridges=(), dimm="DDR5-4800-64GB-RDIMM")
    f = one(run(low), "memory.host_vs_gpu")
    assert f.severity == "warning" and "0.73x" in f.message
    # 32 x 64 GB is still below 2x: the fix moves to the chassis' larger validated DIMM
    (edit,) = f.edit
    assert edit.sku != "DDR5-4800-64GB-RDIMM" and "fit 32 x" in f.fix
    assert_edit_fixes(low, f)
    # 16 x 96 GB = 1,536 GB: between 1x and 2x -> info, edit to 32 DIMMs
    mid = base_build(slots=TEN, bridges=())
    f = one(run(mid), "memory.host_vs_gpu")
    assert f.severity == "info"
    assert_edit_fixes(mid, f)
    assert not of_rule(run(base_build()), "memory.host_vs_gpu")  # 1,536 GB for 564 GB


def _with_dimm(build, sku: str, count: int):
    return build.with_(dimm=sku, dimm_count=count)


def test_mrdimm_is_an_error_on_a_cpu_that_takes_none():
    """MRDIMMs need a Xeon 6 P-core controller; the X13 (4th/5th Gen Xeon) records carry
    mrdimm_mts = 0, so an MRDIMM there is the wrong DIMM type, not a capped speed."""
    from slotwise.engine.build import Build
    from slotwise.engine.check.evaluate import evaluate
    from tests.fixtures_catalog.helpers import bundled_catalog

    cat = bundled_catalog()
    b = Build(chassis="SYS-521GE-TNRT", cpu="XEON-8480+", cpu_count=2)
    r = evaluate(_with_dimm(b, "DDR5-8800-256GB-MRDIMM", 16), cat)
    (f,) = [f for f in r.findings if f.rule == "memory.wrong_type"]
    assert f.severity == "error" and "Xeon 6" in f.message
    ok = evaluate(_with_dimm(b, "DDR5-4800-256GB-RDIMM", 16), cat)
    assert not [f for f in ok.findings if f.rule == "memory.wrong_type"]


def test_mrdimm_runs_at_the_cpus_mrdimm_speed():
    from slotwise.engine.build import Build
    from slotwise.engine.check.evaluate import evaluate
    from tests.fixtures_catalog.helpers import bundled_catalog

    cat = bundled_catalog()
    # Xeon 6776P: MRDIMM 8000 (heise) -> an 8800 MRDIMM is capped at 8000, not at DDR5-6400.
    b = Build(chassis="SYS-822GS-NBRT", cpu="XEON-6776P", cpu_count=2)
    r = evaluate(_with_dimm(b, "DDR5-8800-256GB-MRDIMM", 16), cat)
    capped = [f for f in r.findings if f.rule == "memory.speed_capped"]
    assert capped and "8000 MT/s" in capped[0].message
    assert not [f for f in r.findings if f.rule == "memory.wrong_type"]
    # Xeon 6962P: MRDIMM 8800 -> no cap.
    b2 = Build(chassis="SYS-522GA-NRT", cpu="XEON-6962P", cpu_count=2)
    r2 = evaluate(_with_dimm(b2, "DDR5-8800-256GB-MRDIMM", 24), cat)
    assert not [f for f in r2.findings if f.rule in ("memory.speed_capped", "memory.wrong_type")]
    # Xeon 6767P: not known -> said so (not verified), never OK by silence.
    b3 = Build(chassis="SYS-822GS-NBRT", cpu="XEON-6767P", cpu_count=2)
    r3 = evaluate(_with_dimm(b3, "DDR5-8800-256GB-MRDIMM", 16), cat)
    assert any("not verified" in f.message for f in r3.findings if f.rule == "memory.speed_capped")


def test_the_no_dimms_fix_offers_a_dimm_the_cpu_runs_at_full_speed():
    """On the bundled catalog: a Xeon 6 (DDR5-6400 at 1DPC) is offered DDR5-6400, a 4th Gen
    Xeon (4800) DDR5-4800 — the slowest DIMM that loses no speed, not the alphabetically first."""
    from slotwise.engine.build import Build
    from slotwise.engine.check.evaluate import evaluate
    from slotwise.parts.catalog import load_catalog

    cat = load_catalog()
    for chassis, cpu, want in (
        ("SYS-422GA-NRT", "XEON-6980P", "DDR5-6400-"),
        ("SYS-421GE-TNRT", "XEON-8480+", "DDR5-4800-"),
    ):
        assert cat.chassis[chassis].dimm_skus == ()  # no validated list: the rule chooses
        report = evaluate(Build(chassis=chassis, cpu=cpu, cpu_count=2), cat)
        (f,) = [x for x in report.findings if x.rule == "memory.no_dimms"]
        (edit,) = f.edit
        assert edit.sku.startswith(want) and cat.dimms[edit.sku].type == "DDR5 RDIMM"
        assert cat.dimms[edit.sku].speed_mts >= cat.cpus[cpu].memory_mts_1dpc


def test_the_no_dimms_fix_is_sized_to_the_gpus_and_leaves_no_memory_warning():
    """The 8 x H200 NVL example (1,128 GB of GPU memory) with its DIMMs removed: the fix fits at
    least twice the GPU memory (the host_vs_gpu rule of thumb), so applying it leaves neither
    finding behind (it used to fit 512 GB and then warn that 512 GB was too little)."""

    from slotwise.engine.bom import read_bom
    from slotwise.engine.build.edits import apply_all
    from slotwise.engine.check.evaluate import evaluate
    from slotwise.parts.catalog import load_catalog

    cat = load_catalog()
    example = REPO / "examples" / "h200-nvl-lora-421ge.toml"
    built = read_bom(example, cat).build
    assert built is not None
    b = built.model_copy(update={"dimm": None, "dimm_count": 0})
    gpu_gb = sum(cat.gpus[s].memory_gb for s in b.slots.values() if s in cat.gpus)
    assert gpu_gb >= 1000
    (f,) = [x for x in evaluate(b, cat).findings if x.rule == "memory.no_dimms"]
    (edit,) = f.edit
    assert cat.dimms[edit.sku].capacity_gb * edit.count >= 2 * gpu_gb
    after = evaluate(apply_all(b, [edit]), cat)
    assert not [x for x in after.findings if x.rule in ("memory.no_dimms", "memory.host_vs_gpu")]
