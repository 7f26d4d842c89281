"""engine/__init__.py names the entry points and loads each on first use (no eager imports)."""

from __future__ import annotations

import subprocess
import sys

import slotwise.engine as engine


def test_every_entry_point_resolves_to_its_function():
    from slotwise.engine.bom import export_bom, import_bom
    from slotwise.engine.check.evaluate import evaluate
    from slotwise.engine.plan.suggest import suggest

    assert engine.evaluate is evaluate
    from slotwise.engine.estimate import estimate

    assert engine.suggest is suggest
    assert engine.estimate_workload is estimate
    assert set(engine.__all__) == set(engine._ENTRY_POINTS)
    assert engine.import_bom is import_bom and engine.export_bom is export_bom
    for name in engine.__all__:
        assert callable(getattr(engine, name)), name


def test_an_unknown_name_is_an_attribute_error():
    try:
        engine.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_importing_the_engine_loads_no_entry_point():
    code = (
        "import sys, slotwise.engine\n"
        "print([m for m in ('slotwise.engine.estimate', 'slotwise.engine.plan.suggest',"
        " 'slotwise.engine.check.evaluate') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
