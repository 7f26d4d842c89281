"""The TUI's plain-data pieces (no Textual): undo/redo history, map rows and the picker model,
over every chassis in the bundled catalog."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from slotwise.engine.build import Build
from slotwise.engine.check.evaluate import evaluate
from slotwise.tui.history import History
from slotwise.tui.screens.picker_model import EMPTY, choices, edits_for, figures, target_for
from slotwise.tui.widgets.map_rows import map_rows


def _b(n: int) -> Build:
    return Build(chassis="C", cpu_count=n)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 5), st.sampled_from(["undo", "redo"])), max_size=40))
def test_history_matches_a_simple_model(ops):
    """Undo/redo behave like two stacks: checked against a list-and-index model."""
    h = History(_b(0))
    states, pos = [_b(0)], 0
    for op in ops:
        if op == "undo":
            h.undo()
            pos = max(0, pos - 1)
        elif op == "redo":
            h.redo()
            pos = min(len(states) - 1, pos + 1)
        else:
            if h.push(_b(op), "set"):
                states = states[: pos + 1] + [_b(op)]
                pos += 1
        assert h.current == states[pos]
        assert h.can_undo == (pos > 0)
        assert h.can_redo == (pos < len(states) - 1)


def test_history_coalesces_and_restores():
    h = History(_b(0))
    h.push(_b(1), "typing", coalesce="workload")
    h.push(_b(2), "typing", coalesce="workload")
    assert h.undo() == "typing" and h.current == _b(0)  # one step for the whole burst
    h2 = History.restore(_b(3), undo=[_b(1), _b(2)], redo=[_b(4)])
    assert h2.undo_builds == [_b(1), _b(2)] and h2.redo_builds == [_b(4)]
    h2.undo()
    assert h2.current == _b(2)


def test_every_chassis_every_row_has_a_picker(catalog):
    """Every selectable map row of every chassis opens a picker whose choices evaluate."""
    for sku, chassis in catalog.chassis.items():
        build = Build(chassis=sku)
        report = evaluate(build, catalog)
        rows = map_rows(chassis, build, catalog, report)
        assert [r for r in rows if r.kind == "slot"] or not chassis.slots
        assert len({r.key for r in rows}) == len(rows), f"{sku}: duplicate row keys"
        for row in rows:
            if not row.selectable:
                continue
            target = target_for(row.key, chassis, build)
            assert target is not None, (sku, row.key)
            opts = choices(target, build, chassis, catalog, evaluate, report, target.default_count)
            if target.kind in ("slot", "cpu", "psu", "env"):
                assert opts, (sku, row.key)
            for c in opts:
                assert c.key != EMPTY  # nothing is fitted yet, so no "empty" choice
                assert edits_for(target, c.key, target.default_count)


def test_double_width_card_marks_the_covered_slot(catalog):
    """A double-width card in a slot with ``covers`` shows the neighbour as covered.  (No
    bundled chassis lists ``covers`` today, so the test sets it on a copy of one.)"""
    real = catalog.chassis["SYS-521GE-TNRT"]
    first, second = real.slots[0], real.slots[1]
    chassis = real.model_copy(
        update={"slots": (first.model_copy(update={"covers": second.id}),) + real.slots[1:]}
    )
    wide = next(g.sku for g in catalog.gpus.values() if (g.width_slots or 1) >= 2)
    narrow = next(g.sku for g in catalog.gpus.values() if g.width_slots == 1)
    rows = {
        r.key: r
        for r in map_rows(
            chassis, Build(chassis=chassis.sku, slots={first.id: wide}), catalog, None
        )
    }
    assert rows[f"slot:{second.id}"].covered_by == first.label
    assert "covered" in rows[f"slot:{second.id}"].body
    rows = {
        r.key: r
        for r in map_rows(
            chassis, Build(chassis=chassis.sku, slots={first.id: narrow}), catalog, None
        )
    }
    assert rows[f"slot:{second.id}"].covered_by is None


def test_bridge_connectors_join_the_bridged_slots(catalog):
    from slotwise.engine.build.edits import AddBridge, Place

    chassis = next(c for c in catalog.chassis.values() if any(len(g) == 2 for g in c.nvlink_groups))
    pair = next(g for g in chassis.nvlink_groups if len(g) == 2)
    b = Build(chassis=chassis.sku)
    for s in pair:
        b = Place(slot=s, sku="NVIDIA-H200-NVL-141GB").apply(b)
    b = AddBridge(sku="NVLINK-H200-NVL-2WAY", slots=tuple(pair)).apply(b)
    rows = {r.key: r for r in map_rows(chassis, b, catalog, None)}
    top, bottom = (rows[f"slot:{s}"].connector for s in pair)
    assert "┏" in top and "┗" in bottom
    nv = next(r for r in rows.values() if r.kind == "nvlink" and set(r.slots) == set(pair))
    assert nv.filled and "NVLINK-H200-NVL-2WAY" in nv.body


def test_plain_modules_do_not_import_textual():
    code = (
        "import sys, slotwise.tui.history, slotwise.tui.keys, slotwise.tui.widgets.map_rows, "
        "slotwise.tui.screens.picker_model; print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_picker_figures_say_unknown_nvlink_is_unknown(catalog):
    """A GPU whose NVLink support no source gives is 'NVLink unknown', never 'no NVLink'."""
    gpu = next(g for g in catalog.gpus.values() if g.nvlink == "bridge")
    assert "NVLink bridge" in figures(gpu)
    assert "NVLink unknown" in figures(gpu.model_copy(update={"nvlink": None}))
    assert "no NVLink" in figures(gpu.model_copy(update={"nvlink": "none"}))
