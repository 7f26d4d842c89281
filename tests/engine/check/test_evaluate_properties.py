"""Properties of evaluate(): it never raises on any build reachable by edits (SKUs and slot ids
from the catalog plus garbage), its findings are sorted, and every fix it offers as edits removes
its finding without adding a new error."""

from __future__ import annotations

import contextlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slotwise.engine.build import Build, Environment
from slotwise.engine.build.edits import (
    AddBridge,
    EditError,
    Move,
    Place,
    Remove,
    RemoveBridge,
    SetBaseboard,
    SetChassis,
    SetCount,
    SetDrives,
    SetEnv,
    SetWorkload,
    apply_all,
)
from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.check.report import SEVERITY_ORDER
from slotwise.engine.check.rules.ids import RULES
from slotwise.engine.workload import Workload
from tests.fixtures_catalog.helpers import (
    added_errors,
    base_build,
    bundled_catalog,
    fixture_catalog,
)

GARBAGE = ["", "NOPE", "1 ", "../etc", "ü", "XEON-8480+"]
WORKLOADS = [
    None,
    Workload(model="llama-3.1-8b"),
    Workload(model="llama-3.1-70b", method="full", tokens=1e11, target_days=2, tp=2),
    Workload(model="llama-3.1-8b", method="qlora", tokens=1e9),
    Workload(model="not-a-model"),
]


def edit_strategy(catalog):
    chassis = sorted(catalog.chassis)
    slot_ids = sorted({s.id for c in catalog.chassis.values() for s in c.slots}) + ["99", ""]
    cards = sorted(catalog.gpus) + sorted(catalog.nics)
    bays = sorted({b.id for c in catalog.chassis.values() for b in c.drive_bays}) + ["nope"]
    slot = st.sampled_from(slot_ids)
    sku = st.sampled_from(cards + GARBAGE)
    group = st.lists(slot, min_size=0, max_size=5).map(tuple)
    env = st.builds(
        Environment,
        input_voltage=st.sampled_from(["200-240", "100-127"]),
        ambient_c=st.sampled_from([20.0, 35.0, 45.0]),
        redundancy=st.sampled_from(["N+1", "N+N"]),
        cooling=st.sampled_from(["air", "liquid"]),
    )
    return st.one_of(
        st.builds(Place, slot=slot, sku=sku),
        st.builds(Remove, slot=slot),
        st.builds(Move, src=slot, dst=slot),
        st.builds(
            SetCount,
            what=st.just("cpu"),
            sku=st.sampled_from(sorted(catalog.cpus) + GARBAGE),
            count=st.integers(0, 3),
        ),
        st.builds(
            SetCount,
            what=st.just("dimm"),
            sku=st.sampled_from(sorted(catalog.dimms) + GARBAGE),
            count=st.integers(0, 40),
        ),
        st.builds(
            SetCount,
            what=st.just("psu"),
            sku=st.sampled_from(sorted(catalog.psus) + GARBAGE),
            count=st.integers(0, 9),
        ),
        st.builds(
            AddBridge,
            sku=st.sampled_from(sorted(catalog.bridges) + GARBAGE),
            slots=group,
            count=st.integers(1, 4),
        ),
        st.builds(RemoveBridge, slots=group),
        st.builds(
            SetDrives,
            bay=st.sampled_from(bays),
            sku=st.sampled_from(sorted(catalog.drives) + GARBAGE + [None]),
            count=st.integers(0, 30),
        ),
        st.builds(SetBaseboard, sku=st.sampled_from(sorted(catalog.baseboards) + GARBAGE + [None])),
        st.builds(SetEnv, env=env),
        st.builds(SetWorkload, workload=st.sampled_from(WORKLOADS)),
        st.builds(SetChassis, sku=st.sampled_from(chassis + ["NOPE"])),
    )


def start_builds(catalog):
    return st.sampled_from(
        [Build(chassis=c) for c in sorted(catalog.chassis)]
        + ([base_build()] if "FIX-PCIE-10" in catalog.chassis else [])
    )


def apply_tolerant(build: Build, edits) -> Build:
    for e in edits:
        with contextlib.suppress(EditError):
            build = e.apply(build)
    return build


def check_report(build, catalog):
    r = evaluate(build, catalog)
    assert "engine.internal" not in r.rules(), [f.message for f in r.findings]
    order = [SEVERITY_ORDER[f.severity] for f in r.findings]
    assert order == sorted(order)
    for f in r.findings:
        assert f.message and f.rule in RULES, f.rule
        assert f.fix, f"{f.rule} says what is wrong but not what to do"
    return r


FIX = fixture_catalog()
BUNDLED = bundled_catalog()
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(start=start_builds(FIX), edits=st.lists(edit_strategy(FIX), max_size=12))
def test_evaluate_never_raises_fixture_catalog(start, edits):
    check_report(apply_tolerant(start, edits), FIX)


@SETTINGS
@given(start=start_builds(BUNDLED), edits=st.lists(edit_strategy(BUNDLED), max_size=12))
def test_evaluate_never_raises_bundled_catalog(start, edits):
    check_report(apply_tolerant(start, edits), BUNDLED)


# Findings that mean "a required part is missing, so this could not be checked yet": once an edit
# supplies the part, the rules it stood in for run for the first time, and the part's own draw
# counts towards power.  Errors found then were hidden by the incomplete build, not added by the
# edit.
_CPU = ("slots.needs_cpu", "lanes.", "memory.", "cooling.cpu_tdp", "power.redundancy")
_GPUS = (
    "workload_fit.",
    "network.",
    "cooling.",
    "memory.host_vs_gpu",
    "power.redundancy",
    "slots.too_many_gpus",
)
# Swapping the GPU model (another baseboard, a data-centre card for a consumer one) re-sizes the
# workload: whether it still fits is a finding about the new GPUs, reported as such.
GPU_SWAPS = ("workload_fit.", "network.")

UNMASKS = {
    "workload_fit.no_gpu": ("workload_fit.", "network."),
    "platform.no_cpu": _CPU,
    "platform.unknown_cpu": _CPU,
    "memory.no_dimms": ("memory.", "power.redundancy"),
    "memory.unknown_dimm": ("memory.", "power.redundancy"),
    "power.no_psu": ("power.",),
    "power.unknown_psu": ("power.",),
    "slots.no_baseboard": _GPUS,
    "slots.unknown_baseboard": _GPUS,
}


def new_errors(before, after, edits=()) -> set:
    hidden = tuple(p for f in before.findings for p in UNMASKS.get(f.rule, ()))
    if any(e.op in ("set_baseboard", "place") for e in edits):
        hidden += GPU_SWAPS
    return {k for k in added_errors(before, after) if not k[0].startswith(hidden)}


def _edits_fix_their_findings(build, catalog):
    r = check_report(build, catalog)
    for f in r.findings:
        if not f.edit:
            continue
        after = evaluate(apply_all(build, f.edit), catalog)
        key = (f.rule, f.slots, f.parts)
        had = sum(1 for g in r.findings if (g.rule, g.slots, g.parts) == key)
        left = [g for g in after.findings if (g.rule, g.slots, g.parts) == key]
        assert len(left) < had, f"{f.rule}: {f.edit} did not remove it ({left[0].message})"
        new = new_errors(r, after, f.edit)
        assert not new, f"{f.rule}: {f.edit} added errors {new}"


@SETTINGS
@given(start=start_builds(FIX), edits=st.lists(edit_strategy(FIX), max_size=8))
def test_every_offered_edit_fixes_its_finding(start, edits):
    _edits_fix_their_findings(apply_tolerant(start, edits), FIX)


@SETTINGS
@given(start=start_builds(BUNDLED), edits=st.lists(edit_strategy(BUNDLED), max_size=8))
def test_every_offered_edit_fixes_its_finding_bundled(start, edits):
    _edits_fix_their_findings(apply_tolerant(start, edits), BUNDLED)


def test_cpu_swap_keeps_an_mrdimm_running():
    """Found by the property above: a SYS-421GE-TNRT with a Xeon 6 CPU of another socket and an
    MRDIMM was offered the first listed CPU, a 4th Gen Xeon that runs no MRDIMM, trading
    platform.cpu_socket for memory.wrong_type.  No CPU on that chassis runs MRDIMMs, so the swap
    now also puts DDR5 RDIMMs in their place."""
    start = Build(chassis="SYS-421GE-TNRT", env=Environment())
    build = apply_tolerant(
        start,
        [
            SetCount(what="cpu", sku="XEON-6767P", count=1),
            SetCount(what="dimm", sku="DDR5-8800-256GB-MRDIMM", count=1),
        ],
    )
    r = evaluate(build, BUNDLED)
    (f,) = [g for g in r.findings if g.rule == "platform.cpu_socket"]
    cpu_edit, dimm_edit = f.edit
    assert isinstance(cpu_edit, SetCount) and cpu_edit.what == "cpu"
    assert isinstance(dimm_edit, SetCount) and dimm_edit.what == "dimm" and dimm_edit.count == 1
    assert BUNDLED.dimms[dimm_edit.sku or ""].type == "DDR5 RDIMM"
    assert "in place of the MRDIMMs" in (f.fix or "")
    _edits_fix_their_findings(build, BUNDLED)
