"""Workload fit (through the real estimator) and the multi-node network rules."""

from slotwise.engine.build import Build
from slotwise.engine.workload import Workload
from tests.fixtures_catalog.helpers import H200, base_build, of_rule, one, run

INFER_8B = Workload(model="llama-3.1-8b", method="inference")
FULL_70B = Workload(model="llama-3.1-70b", method="full")


def test_fitting_inference_gives_memory_budget_with_breakdown():
    r = run(base_build(), INFER_8B)
    assert r.estimate is not None
    mem = r.budget("gpu_memory")
    assert mem.unit == "B" and not mem.over
    names = [n for n, _ in mem.parts]
    assert names == ["weights", "gradients", "optimizer", "activations", "kv_cache"]
    assert abs(sum(v for _, v in mem.parts) - mem.used) < 1.0
    assert not [f for f in r.findings if f.rule.startswith("workload_fit.")]


def test_workload_defaults_to_the_builds_workload():
    r = run(base_build(workload=INFER_8B))
    assert r.budget("gpu_memory") is not None


def test_full_fine_tune_of_70b_on_4_gpus_does_not_fit():
    r = run(base_build(), FULL_70B)
    f = one(r, "workload_fit.gpu_memory")
    assert f.severity == "error"
    assert "NVIDIA-H200-NVL-141GB" in f.fix and "QLoRA" in f.fix
    assert r.budget("gpu_memory").over


def test_training_time_against_target():
    wl = Workload(model="llama-3.1-8b", method="full", tokens=1e12, target_days=1)
    r = run(base_build(), wl)
    t = r.budget("train_time")
    assert t.unit == "h" and t.available == 24 and t.used > 24
    f = one(r, "workload_fit.train_time")
    assert f.severity == "warning" and "servers like this one" in f.fix
    quick = Workload(model="llama-3.1-8b", method="lora", tokens=1e6, target_days=30)
    assert not of_rule(run(base_build(), quick), "workload_fit.train_time")


def test_unresolvable_model_is_a_warning_with_the_resolver_message():
    r = run(base_build(), Workload(model="no-such-model"))
    f = one(r, "workload_fit.unresolved")
    assert f.severity == "warning" and "no-such-model" in f.message


def test_no_gpu_with_workload():
    r = run(base_build(slots={}, bridges=()), INFER_8B)
    assert one(r, "workload_fit.no_gpu").severity == "warning"


def test_estimate_is_memoized_per_workload_gpu_count():
    b = base_build()
    first = run(b, INFER_8B).estimate
    again = run(b.with_(psu_count=3), INFER_8B).estimate
    assert again is first


def test_multi_node_training_wants_fast_nics():
    wl = Workload(model="llama-3.1-8b", method="full", tokens=1e12, target_days=1)
    r = run(base_build(), wl)
    f = one(r, "network.nic_ratio")
    assert f.severity == "warning" and "2-8-5-200" in f.message
    # 2 x 400G NICs for 4 GPUs meets the PCIe RA (one per two GPUs) -> info only
    nics = {**base_build().slots, "11": "FIX-NIC-400G", "3": "FIX-NIC-400G"}
    r2 = run(base_build(slots=nics), wl)
    assert [x.severity for x in of_rule(r2, "network.nic_ratio")] == ["info"]
    # GPUs on sw2 (slots 4, 5) share no switch with a NIC (slot 3 is on sw1, 11 on the CPU)
    place = one(r2, "network.gpu_nic_placement")
    assert place.slots == ("4", "5")


def test_single_node_inference_has_no_network_findings():
    r = run(base_build(), INFER_8B)
    assert not [f for f in r.findings if f.rule.startswith("network.")]


def test_hgx_uses_the_baseboard_gpus():
    b = Build(
        chassis="FIX-HGX-AIR",
        cpu="XEON-8480+",
        cpu_count=2,
        dimm="DDR5-4800-64GB-RDIMM",
        dimm_count=32,
        baseboard="HGX-H100-8GPU",
        psu="FIX-PSU-3000",
        psu_count=6,
    )
    r = run(b, INFER_8B)
    assert "8 x NVIDIA-H100-SXM5-80GB" in r.budget("gpu_memory").detail
    assert H200 not in r.budget("gpu_memory").detail


def test_not_fitting_offers_the_missing_gpus_as_placements():
    from tests.fixtures_catalog.helpers import assert_edit_fixes

    wl = Workload(model="llama-3.1-70b", method="full", optimizer="adamw-8bit")
    b = base_build(workload=wl)
    f = one(run(b), "workload_fit.gpu_memory")
    assert f.edit and all(e.op == "place" and e.sku == H200 for e in f.edit)
    fixed = assert_edit_fixes(b, f)
    assert len(fixed.slots) == len(b.slots) + len(f.edit)
    assert run(fixed).budget("gpu_memory").over is False


def slot_root(slot_id: str) -> str:
    from tests.fixtures_catalog.helpers import fixture_catalog

    ch = fixture_catalog().chassis["FIX-PCIE-10"]
    return next(s.root for s in ch.slots if s.id == slot_id)


MULTI_NODE = Workload(model="llama-3.1-8b", method="full", tokens=1e12, target_days=1)


def test_missing_fast_nics_are_offered_under_the_gpu_switches_first():
    from tests.fixtures_catalog.helpers import assert_edit_fixes

    b = base_build(workload=MULTI_NODE)
    f = one(run(b), "network.nic_ratio")
    assert [e.sku for e in f.edit] == ["FIX-NIC-400G", "FIX-NIC-400G"]
    # sw1 (GPUs 1, 2) has a free slot, 3; sw2's slots 4, 5 are both GPUs
    assert f.edit[0].slot == "3" and slot_root(f.edit[0].slot) == "sw1"
    fixed = assert_edit_fixes(b, f)
    r = run(fixed)
    assert not [x for x in r.findings if x.rule == "network.nic_ratio" and x.severity != "info"]
    # the GPUs on sw2 still have no NIC beside them, and no free slot there: info, no edit
    place = one(r, "network.gpu_nic_placement")
    assert place.slots == ("4", "5") and not place.edit


def test_gpu_nic_placement_offers_a_nic_under_the_lonely_switch():
    from tests.fixtures_catalog.helpers import assert_edit_fixes

    gpus = {s: H200 for s in ("1", "2", "6", "7")}
    b = base_build(
        workload=MULTI_NODE,
        slots={**gpus, "3": "FIX-NIC-400G", "11": "FIX-NIC-400G"},
        bridges=(),
    )
    f = one(run(b), "network.gpu_nic_placement")
    assert f.slots == ("6", "7")
    assert [(e.slot, e.sku) for e in f.edit] == [("8", "FIX-NIC-400G")]
    assert_edit_fixes(b, f)
