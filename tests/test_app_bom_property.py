"""What the app writes, the CLI reads: any sequence of the app's edits (engine.build.edits, the
operations the app's keys apply) exports a BOM that `validate` accepts (exit 0 or 1, never the
bad-input exit 2) and that reopens as the same build with the same findings."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slotwise.engine.bom import BomMeta, export_bom, import_bom
from slotwise.engine.build import Build, Environment
from slotwise.engine.build.edits import (
    AddBridge,
    EditError,
    Move,
    Place,
    Remove,
    SetBaseboard,
    SetChassis,
    SetCount,
    SetDrives,
    SetEnv,
    SetWorkload,
)
from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import load_catalog
from slotwise.tui.cli import main
from slotwise.tui.commands.validate import bad_input
from slotwise.tui.widgets.map_rows import UNKNOWN_BAYS

CAT = load_catalog(overlay=None)
META = BomMeta(customer="ACME", project="P")


@st.composite
def edits(draw, chassis: str):
    """One edit the app can make on a build of ``chassis``."""
    ch = CAT.chassis[chassis]
    slots = [s.id for s in ch.slots]
    cards = sorted(CAT.gpus) + sorted(CAT.nics)
    bays = [b.id for b in ch.drive_bays] or [UNKNOWN_BAYS]
    kind = draw(
        st.sampled_from(
            ["place", "remove", "move", "count", "bridge", "drives", "board", "env", "wl"]
        )
    )
    if kind == "place" and slots:
        return Place(slot=draw(st.sampled_from(slots)), sku=draw(st.sampled_from(cards)))
    if kind == "remove" and slots:
        return Remove(slot=draw(st.sampled_from(slots)))
    if kind == "move" and slots:
        return Move(src=draw(st.sampled_from(slots)), dst=draw(st.sampled_from(slots)))
    if kind == "count":
        what = draw(st.sampled_from(["cpu", "dimm", "psu"]))
        pool = {"cpu": CAT.cpus, "dimm": CAT.dimms, "psu": CAT.psus}[what]
        n = draw(st.integers(0, 32))
        return SetCount(what=what, sku=draw(st.sampled_from(sorted(pool))) if n else None, count=n)
    if kind == "bridge" and ch.nvlink_groups:
        group = draw(st.sampled_from(list(ch.nvlink_groups)))
        fits = [b.sku for b in CAT.bridges.values() if b.ways == len(group)] or sorted(CAT.bridges)
        return AddBridge(
            sku=draw(st.sampled_from(fits)), slots=tuple(group), count=draw(st.integers(1, 3))
        )
    if kind == "drives":
        n = draw(st.integers(0, 12))
        sku = draw(st.sampled_from(sorted(CAT.drives))) if n else None
        return SetDrives(bay=draw(st.sampled_from(bays)), sku=sku, count=n)
    if kind == "board":
        return SetBaseboard(sku=draw(st.sampled_from([None, *sorted(CAT.baseboards)])))
    if kind == "env":
        return SetEnv(
            env=Environment(
                input_voltage=draw(st.sampled_from(["200-240", "100-127"])),
                ambient_c=draw(st.sampled_from([20.0, 25.0, 35.0])),
                redundancy=draw(st.sampled_from(["N+1", "N+N", "chassis"])),
            )
        )
    if kind == "wl":
        model = draw(st.sampled_from([None, *sorted(CAT.models)[:4]]))
        if model is None:
            return SetWorkload(workload=None)
        method = draw(st.sampled_from(["inference", "lora", "full"]))
        return SetWorkload(workload=Workload(model=model, method=method, seq_len=4096))
    return SetChassis(sku=chassis)


@st.composite
def app_builds(draw) -> Build:
    chassis = draw(st.sampled_from(sorted(CAT.chassis)))
    build = Build(chassis=chassis)
    for edit in draw(st.lists(edits(chassis), max_size=12)):
        try:
            build = edit.apply(build)
        except EditError:  # the app refuses it with a message: nothing changes
            continue
    return build


def _findings(report) -> list[tuple[str, str, str]]:
    return sorted((f.rule, f.severity, f.message) for f in report.findings)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(build=app_builds())
def test_what_the_app_writes_the_cli_reads(build, tmp_path_factory):
    text = export_bom(build, CAT, META)
    loaded = import_bom(text, CAT, filename="app.toml")
    assert not bad_input(loaded), [p.message for p in loaded.problems]
    assert not [p for p in loaded.problems if p.rule == "bom.line_items_stale"]
    assert loaded.build is not None
    assert _findings(evaluate(loaded.build, CAT)) == _findings(evaluate(build, CAT))
    # and the re-export is the same file
    assert export_bom(loaded.build, CAT, META) == text
    path = Path(tmp_path_factory.mktemp("bom")) / "app.toml"
    path.write_text(text)
    assert main(["validate", str(path), "--json"]) in (0, 1)


def test_drives_added_on_a_chassis_without_a_bay_layout_validate(tmp_path, capsys):
    """SYS-421GE-TNRT's bays are unknown: the app's map offers one group, "drives"; the file it
    writes validates (the storage rule says it could not check them), and compare reads it."""
    assert not CAT.chassis["SYS-421GE-TNRT"].drive_bays
    build = SetDrives(bay=UNKNOWN_BAYS, sku="MICRON-7400-PRO-7.68TB-U3", count=2).apply(
        Build(chassis="SYS-421GE-TNRT")
    )
    path = tmp_path / "d.toml"
    path.write_text(export_bom(build, CAT, META))
    code = main(["validate", str(path)])
    out = capsys.readouterr().out
    assert code in (0, 1) and "storage.unknown_bays" in out
    assert main(["compare", str(path), str(path)]) in (0, 1)  # read, not refused (2)


@pytest.mark.parametrize(
    "example", sorted(p.name for p in (Path(__file__).parents[1] / "examples").glob("*.toml"))
)
def test_no_bundled_example_has_stale_line_items(example, capsys):
    main(["validate", str(Path(__file__).parents[1] / "examples" / example)])
    out, err = capsys.readouterr()
    assert "bom.line_items_stale" not in out + err
