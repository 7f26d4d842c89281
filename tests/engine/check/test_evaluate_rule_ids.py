"""Rule ids and dependencies are declared where each rule family is defined (``FAMILY`` in
every engine/rules module) and checked against the code here; and the rules not covered
elsewhere."""

import ast
import importlib
import re

import pytest

from slotwise.engine.build import BridgeFit
from slotwise.engine.check.evaluate import FAMILIES
from slotwise.engine.check.rules.family import RuleFamily, evaluation_order
from slotwise.engine.check.rules.ids import EVALUATE_RULES, INTERNAL_RULE, RULE_FAMILIES, RULES
from tests.fixtures_catalog.helpers import H200, base_build, one, run
from tests.paths import REPO

ENGINE = REPO / "engine"
PREFIXES = {f.name for f in RULE_FAMILIES} | {"engine"}
ID = re.compile(r"([a-z_]+)\.[a-z0-9_]+")


def _tree(name: str) -> ast.Module:
    return ast.parse((ENGINE / "check" / "rules" / f"{name}.py").read_text(encoding="utf-8"))


def _ids_in(tree: ast.Module, skip: ast.AST | None = None) -> set[str]:
    """String literals shaped like a rule id (``family.what``), outside ``skip``."""
    inside = {id(n) for n in ast.walk(skip)} if skip is not None else set()
    return {
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and id(n) not in inside
        and (m := ID.fullmatch(n.value))
        and m[1] in PREFIXES
    }


def _declaration(tree: ast.Module) -> ast.AST:
    return next(
        n
        for n in tree.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == "FAMILY"
    )


@pytest.mark.parametrize("family", RULE_FAMILIES, ids=lambda f: f.name)
def test_each_family_emits_exactly_the_ids_it_declares(family):
    tree = _tree(family.name)
    emitted = _ids_in(tree, skip=_declaration(tree)) - {INTERNAL_RULE}
    assert emitted == set(family.rules)


def test_evaluate_emits_its_own_ids_and_the_list_is_the_union():
    src = (ENGINE / "check" / "evaluate.py").read_text(encoding="utf-8")
    assert _ids_in(ast.parse(src)) | {INTERNAL_RULE} == set(EVALUATE_RULES)
    every = [rid for f in RULE_FAMILIES for rid in f.rules] + list(EVALUATE_RULES)
    assert len(every) == len(set(every)) == len(RULES)


def _ctx_fields(tree: ast.Module, kind: type) -> set[str]:
    return {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute)
        and isinstance(n.ctx, kind)
        and isinstance(n.value, ast.Name)
        and n.value.id == "ctx"
    }


def test_a_family_reading_what_another_computed_declares_it_runs_after_it():
    writes = {f.name: _ctx_fields(_tree(f.name), ast.Store) for f in RULE_FAMILIES}
    assert writes["power"] and writes["workload_fit"]  # the scan sees the writes it checks
    order = [name for name, _ in FAMILIES]
    for f in RULE_FAMILIES:
        reads = _ctx_fields(_tree(f.name), ast.Load)
        needs = {w for w, fields in writes.items() if w != f.name and fields & reads}
        assert needs <= set(f.after), (f.name, needs)
        assert all(order.index(a) < order.index(f.name) for a in f.after)


def test_evaluation_order_is_the_listed_order_moved_only_for_dependencies():
    a, b, c = RuleFamily("a"), RuleFamily("b", after=("c",)), RuleFamily("c")
    assert [f.name for f in evaluation_order([a, b, c])] == ["a", "c", "b"]
    assert [f.name for f in evaluation_order([c, a, b])] == ["c", "a", "b"]
    with pytest.raises(ValueError, match="unknown"):
        evaluation_order([RuleFamily("a", after=("zzz",))])
    with pytest.raises(ValueError, match="cycle"):
        evaluation_order([RuleFamily("a", after=("b",)), RuleFamily("b", after=("a",))])
    with pytest.raises(ValueError, match="outside the family"):
        RuleFamily("a", rules={"b.x": "wrong prefix"})


def test_evaluate_runs_every_declared_family_once():
    assert sorted(name for name, _ in FAMILIES) == sorted(f.name for f in RULE_FAMILIES)
    for name, check in FAMILIES:
        assert check is importlib.import_module(f"slotwise.engine.check.rules.{name}").check


def test_liquid_cooled_card_at_an_air_site():
    f = one(run(base_build(slots={"1": "FIX-GPU-LIQUID"}, bridges=())), "cooling.liquid_gpu")
    assert f.severity == "error"


def test_unknown_memory_channels():
    r = run(base_build(chassis="FIX-BARE", cpu="FIX-CPU-NOFIGS", cpu_count=1, slots={}, bridges=()))
    assert one(r, "memory.unknown_channels").severity == "info"


def test_ocp_nic_in_a_pcie_slot():
    f = one(run(base_build(slots={"11": "FIX-NIC-OCP"}, bridges=())), "slots.ocp_nic")
    assert [e.op for e in f.edit] == ["remove"]


def test_bridge_in_a_chassis_without_known_groups():
    b = base_build(
        chassis="FIX-BARE",
        cpu_count=1,
        slots={"1": H200, "2": H200},
        bridges=(BridgeFit(sku="NVLINK-H200-NVL-2WAY", slots=("1", "2")),),
    )
    r = run(b)
    assert one(r, "nvlink.unknown_groups").severity == "info"
    assert r.errors == 0


def test_every_finding_of_the_rule_tests_has_a_listed_id():
    for b in (base_build(), base_build(slots={"3": "FIX-GPU-CONSUMER"}, bridges=())):
        assert run(b).rules() <= set(RULES)


def test_cpu_not_on_the_chassis_list_is_a_warning_with_a_swap():
    from tests.fixtures_catalog.helpers import assert_edit_fixes

    b = base_build(chassis="FIX-HGX-AIR", cpu="XEON-6448Y", slots={}, bridges=(), drives=())
    f = one(run(b), "platform.cpu_not_listed")
    assert f.severity == "warning" and f.edit[0].sku == "XEON-8480+"
    assert_edit_fixes(b, f)
    assert not run(base_build()).rules() & {"platform.cpu_not_listed"}


def test_root_without_a_lane_count_is_reported():
    # FIX-BARE's CPU root has no lane figure and FIX-CPU-NOFIGS none either
    b = base_build(
        chassis="FIX-BARE", cpu="FIX-CPU-NOFIGS", cpu_count=1, slots={"1": H200}, bridges=()
    )
    r = run(b)
    f = one(r, "lanes.unknown_root")
    assert f.severity == "info" and "cpu1 (16 lanes in use)" in f.message
    assert r.budget("lanes:cpu1").available is None
