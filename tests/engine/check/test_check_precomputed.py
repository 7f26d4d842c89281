"""The precomputed lookups evaluate() reads on every edit give what the plain computation gives:
the card-in-slot fit kept per (slot, part) on the chassis index, the lanes per card kept per
call, and the slot order read from the chassis index."""

from __future__ import annotations

from slotwise.engine.build import Build
from slotwise.engine.check.evaluate import make_context
from slotwise.engine.check.rules.lanes import card_lanes
from slotwise.engine.check.rules.slots import card_fit_problems, fit_errors
from tests.fixtures_catalog.helpers import base_build, bundled_catalog, fixture_catalog


def test_fit_memo_matches_the_plain_fit_for_every_slot_and_card():
    for catalog in (bundled_catalog(), fixture_catalog()):
        cards = [*catalog.gpus.values(), *catalog.nics.values()]
        for ch in catalog.chassis.values():
            ctx = make_context(Build(chassis=ch.sku), catalog, None)
            assert ctx is not None
            for _ in range(2):  # computed, then read back from the memo
                for slot in ch.slots:
                    for part in cards:
                        assert list(fit_errors(ctx, slot, part)) == card_fit_problems(slot, part)


def test_fit_memo_is_not_served_for_another_record_with_the_same_sku():
    catalog = bundled_catalog()
    ch = catalog.chassis["SYS-521GE-TNRT"]
    ctx = make_context(Build(chassis=ch.sku), catalog, None)
    assert ctx is not None
    slot = next(s for s in ch.slots if not s.double_width)
    gpu = catalog.gpus["NVIDIA-L4-24GB"]
    assert fit_errors(ctx, slot, gpu) == ()
    wide = gpu.model_copy(update={"width_slots": 2})
    assert [p[0] for p in fit_errors(ctx, slot, wide)] == ["slots.too_wide"]
    assert fit_errors(ctx, slot, gpu) == ()


def test_card_lanes_is_the_narrower_of_card_and_slot():
    catalog = fixture_catalog()
    ctx = make_context(base_build(), catalog, None)
    assert ctx is not None
    use = card_lanes(ctx)
    assert set(use) == set(ctx.gpus) | set(ctx.nics)
    for sid, lanes in use.items():
        part = ctx.part_in(sid)
        slot = ctx.idx.slot[sid]
        assert part is not None
        want = slot.lanes if part.pcie_lanes is None else min(part.pcie_lanes, slot.lanes)
        assert lanes == want


def test_sort_slots_orders_known_ids_by_the_chassis_and_unknown_ones_after_by_name():
    catalog = fixture_catalog()
    ctx = make_context(base_build(), catalog, None)
    assert ctx is not None
    ids = [s.id for s in ctx.chassis.slots]
    assert ctx.sort_slots(reversed(ids)) == tuple(ids)
    mixed = ["zz", ids[-1], "99", ids[0], ids[0]]
    assert ctx.sort_slots(mixed) == (ids[0], ids[0], ids[-1], "99", "zz")
    assert ctx.sort_slots(iter(())) == ()


def test_chassis_index_switch_slots_and_onboard_nics_match_the_records():
    from slotwise.engine.check.rules.context import chassis_index
    from slotwise.parts.catalog import onboard_nics

    for catalog in (bundled_catalog(), fixture_catalog()):
        for ch in catalog.chassis.values():
            idx = chassis_index(catalog, ch)
            roots = {r.id: r for r in ch.roots}
            want = {s.id for s in ch.slots if s.root in roots and roots[s.root].kind == "switch"}
            assert idx.switch_slots == want
            assert idx.root_of_slot == {s.id: s.root for s in ch.slots}
            assert idx.onboard_nics == onboard_nics(catalog, ch)


def test_lanes_root_plan_matches_the_chassis_record():
    from slotwise.engine.check.rules.lanes import _roots

    for catalog in (bundled_catalog(), fixture_catalog()):
        for ch in catalog.chassis.values():
            ctx = make_context(Build(chassis=ch.sku), catalog, None)
            assert ctx is not None
            slots = {s.id: s for s in ch.slots}
            by_id = {r.id: r for r in ch.roots}
            plan = _roots(ctx)
            assert [r.id for r in plan] == [r.id for r in ch.roots]
            for r in plan:
                rec = by_id[r.id]
                on = [s.id for s in ch.slots if s.root == r.id]
                assert [s for s, _, _ in r.slots] == on
                assert [w for _, w, _ in r.slots] == [f"slot {slots[s].label} x" for s in on]
                assert [n for _, _, n in r.slots] == [slots[s].lanes for s in on]
                kids = [c.id for c in ch.roots if c.parent == r.id]
                assert list(r.children) == kids
                ups = [(by_id[c].upstream_lanes, c) for c in kids]
                assert r.uplinks == tuple(
                    (up, f"switch {c} uplink x{up}") for up, c in ups if up is not None
                )
                assert r.nic_slots == tuple(s for s in on if slots[s].purpose == "nic")
                assert (r.kind, r.socket, r.lanes, r.upstream) == (
                    rec.kind,
                    rec.socket,
                    rec.lanes,
                    rec.upstream_lanes,
                )
                assert r.head == (rec.label or rec.id) + ": "


def test_card_facts_match_the_records_for_every_slot_and_card():
    from slotwise.engine.check.rules.context import is_wide
    from slotwise.engine.check.rules.slots import _card_facts
    from slotwise.parts.schema import Gpu

    for catalog in (bundled_catalog(), fixture_catalog()):
        cards = [*catalog.gpus.values(), *catalog.nics.values()]
        for ch in catalog.chassis.values():
            ctx = make_context(Build(chassis=ch.sku), catalog, None)
            assert ctx is not None
            for slot in ch.slots:
                for part in cards:
                    f = _card_facts(ctx, slot, part)
                    assert f is _card_facts(ctx, slot, part)  # read back from the memo
                    lanes = part.pcie_lanes
                    assert list(f.problems) == card_fit_problems(slot, part)
                    assert f.covers == (slot.covers if is_wide(part) and slot.covers else None)
                    assert f.narrow == (lanes is not None and slot.lanes < lanes <= slot.mechanical)
                    assert f.slow_gen == (part.pcie_gen is not None and slot.gen < part.pcie_gen)
                    assert f.nic_slot == (isinstance(part, Gpu) and slot.purpose == "nic")
                    length = part.length if isinstance(part, Gpu) else part.form
                    want = [
                        f"{part.sku}: PCIe lanes unknown" if lanes is None else None,
                        f"{part.sku}: card width unknown" if part.width_slots is None else None,
                        f"{part.sku}: card length/height unknown" if length is None else None,
                    ]
                    assert f.unknown == tuple(w for w in want if w)
                    assert f.quiet == (
                        not f.problems
                        and f.covers is None
                        and not (f.narrow or f.slow_gen or f.nic_slot or f.unknown)
                    )


def test_memory_dimm_indexes_match_the_catalog():
    from slotwise.engine.check.rules.memory import _dimms_like, _listed_dimms

    for catalog in (bundled_catalog(), fixture_catalog()):
        for ch in catalog.chassis.values():
            ctx = make_context(Build(chassis=ch.sku), catalog, None)
            assert ctx is not None
            want = [catalog.dimms[s] for s in ch.dimm_skus if s in catalog.dimms]
            assert _listed_dimms(ctx) == want
            assert _listed_dimms(ctx) == want  # from the index, not emptied by the caller
            for kind in catalog.dimms.values():
                like = [
                    d
                    for d in catalog.dimms.values()
                    if d.type == kind.type and d.speed_mts == kind.speed_mts
                ]
                assert _dimms_like(ctx, kind) == like


def test_gpu_slots_by_sku_groups_the_cards_in_slot_order():
    catalog = bundled_catalog()
    slots = {"3": "NVIDIA-L4-24GB", "1": "NVIDIA-H200-NVL-141GB", "9": "NVIDIA-L4-24GB"}
    slots |= {"2": "NVIDIA-H200-NVL-141GB", "13": "NVIDIA-CX7-400G-1P-OSFP"}
    ctx = make_context(Build(chassis="SYS-521GE-TNRT", slots=slots), catalog, None)
    assert ctx is not None
    by = ctx.gpu_slots_by_sku()
    assert by == {"NVIDIA-L4-24GB": ["3", "9"], "NVIDIA-H200-NVL-141GB": ["1", "2"]}
    assert list(by) == ["NVIDIA-L4-24GB", "NVIDIA-H200-NVL-141GB"]  # first met first
    assert ctx.gpu_slots_by_sku() is by  # once per call
