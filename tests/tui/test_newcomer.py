"""Issue 28, a newcomer never stuck (round 3): at 80x24, what the screen shows."""

from __future__ import annotations

from pathlib import Path

from scripts import screenshots as shots
from tests.tui.tui_helpers import (
    CHASSIS,
    GPU,
    choose_chassis,
    goto,
    gpu_slots,
    keys_for,
    paste,
    pick,
    screen_text,
    started,
)


# ----------------------------------------------------------------------------- item 1
async def test_status_line_at_80_shows_the_build_identity_and_the_footer_pin(make_app, catalog):
    app = make_app(build=shots.demo_build(catalog))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pick(pilot, "psu", "2700", 3)  # an edit: the unexported flag takes room too
        rows = screen_text(app)
        status = rows[0]
        assert status.lstrip().startswith("✎ UNEXPORTED"), status
        build = app.editing.current
        n = sum(1 for s in build.slots.values() if s in catalog.gpus)
        assert build.chassis in status and f"{n} GPUs" in status, status
        assert "not verified" in status, status
        assert "…" not in status, status  # nothing cut: the unverified list is shortened
        assert "p Pin" in rows[-1], rows[-1]
        await pilot.press("p")  # pinning: the option letter shows
        await pilot.pause()
        status = screen_text(app)[0]
        assert "opt B" in status and build.chassis in status, status


async def test_footer_at_160_lists_compare_suggest_and_tco(make_app, catalog):
    app = make_app(build=shots.demo_build(catalog))
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        bottom = screen_text(app)[-1]
        for hint in ("p Pin", "F6 Compare", "F7 Suggest", "F8 TCO", "a Fill all"):
            assert hint in bottom, (hint, bottom)


# ----------------------------------------------------------------------------- item 3
async def test_fill_puts_the_card_in_every_free_gpu_slot_in_one_keystroke(make_app, catalog):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await choose_chassis(pilot, CHASSIS)
        await pick(pilot, "cpu", "8480", 2)
        first = gpu_slots(catalog, 1)[0]
        await pick(pilot, f"slot:{first}", "h200")
        await goto(pilot, f"slot:{first}")
        await pilot.press("a")
        await pilot.pause()
        build = app.editing.current
        gpus = [s for s, sku in build.slots.items() if sku == GPU]
        assert len(gpus) == 8, gpus  # SYS-521GE-TNRT: 8 double-width positions
        assert all(catalog.chassis[CHASSIS].slots for _ in gpus)
        nic_slots = {s.id for s in catalog.chassis[CHASSIS].slots if s.purpose == "nic"}
        assert not nic_slots & set(gpus)
        status = screen_text(app)[0]
        assert "8 GPUs" in status, status
        await pilot.press("ctrl+z")  # one undo step takes them all back
        await pilot.pause()
        assert [s for s, sku in app.editing.current.slots.items() if sku == GPU] == [first]
        assert "1 GPU " in screen_text(app)[0]


# ----------------------------------------------------------------------------- item 4
async def test_typing_in_the_picker_list_goes_to_the_search(make_app, catalog):
    from textual.widgets import Input, OptionList

    from slotwise.tui.screens.picker import PartPicker

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await choose_chassis(pilot, CHASSIS)
        await goto(pilot, f"slot:{gpu_slots(catalog, 1)[0]}")
        await pilot.press("enter")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PartPicker)
        await pilot.press("down", "down")  # the list has the focus now
        assert isinstance(picker.focused, OptionList)
        await pilot.press("l", "4", "0")
        await pilot.pause()
        search = picker.query_one("#picker-search", Input)
        assert search.value == "l40" and picker.focused is search
        text = "\n".join(screen_text(app))
        assert "l40" in text and "NVIDIA-L40S-48GB" in text
        assert "NVIDIA-H200-NVL-141GB" not in text  # the list is filtered on screen
        await pilot.press("down", "backspace")  # Backspace in the list edits the search too
        await pilot.pause()
        assert search.value == "l4"
        await pilot.press("enter")
        await pilot.pause()
        assert app.editing.current.slots[gpu_slots(catalog, 1)[0]].startswith("NVIDIA-L4")


# ----------------------------------------------------------------------------- item 5
async def test_a_config_path_replaces_the_preset_and_a_preset_replaces_the_config(make_app):
    from textual.widgets import Input, Select

    from slotwise.engine.build import Build
    from slotwise.engine.workload import Workload

    cfg = str(
        Path(__file__).resolve().parents[1] / "fixtures/configs/EleutherAI--gpt-j-6b/config.json"
    )
    start = Workload(model="llama-3.1-8b", method="inference")
    app = make_app(build=Build(chassis=CHASSIS, slots={"1": GPU}, workload=start))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("f4")
        await pilot.pause()
        form = app.screen
        config = form.query_one("#wl-config", Input)
        config.focus()
        await pilot.pause()
        await paste(pilot, cfg)  # a long path: pasted, as a user would
        await pilot.pause()
        wl = app.editing.current.workload
        assert wl.config == cfg and wl.model is None
        assert form.query_one("#wl-model", Select).value == Select.NULL
        shown = "\n".join(screen_text(app))
        assert "not both" not in shown
        assert "llama-3.1-8b" not in shown  # the preset box no longer shows it
        # and back: choosing a preset empties the config field
        sel = form.query_one("#wl-model", Select)
        sel.focus()
        await pilot.pause()
        await pilot.press("enter", *keys_for("llama-3.1-8b"), "enter")
        await pilot.pause()
        wl = app.editing.current.workload
        assert wl.model == "llama-3.1-8b" and wl.config is None
        assert config.value == ""
        assert "llama-3.1-8b" in "\n".join(screen_text(app))


# ----------------------------------------------------------------------------- item 10
async def test_export_proposes_customer_and_date_and_enter_keeps_an_existing_file(
    make_app, catalog, tmp_path, monkeypatch
):
    from textual.widgets import Input

    from slotwise.engine.bom.meta import BomMeta
    from slotwise.tui.screens.confirm import ConfirmScreen
    from slotwise.tui.screens.export import ExportScreen

    monkeypatch.chdir(tmp_path)
    app = make_app(build=shots.demo_build(catalog))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        app.state.meta = BomMeta(customer="ACME Labs", project="pilot")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        proposed = app.screen.query_one(Input).value
        name = f"ACME-Labs-{CHASSIS}-2026-01-15.toml"  # the fixed clock's day
        assert proposed == name
        assert name in "\n".join(screen_text(app))
        await pilot.press("enter")
        await pilot.pause()
        first = (tmp_path / name).read_bytes()
        # Start over on the same chassis (Ctrl+N) and Enter, Enter: the file is kept.
        await pilot.press("ctrl+n")
        await pilot.pause()
        await choose_chassis(pilot, CHASSIS)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        shown = "\n".join(screen_text(app))
        assert "n / Esc / Enter: Keep it" in shown and "y: Overwrite" in shown
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        assert (tmp_path / name).read_bytes() == first  # kept
        assert app.dirty  # still unexported: nothing was written


def test_default_bom_name_never_reuses_an_existing_file(tmp_path):
    from datetime import UTC, datetime

    from slotwise.tui.screens.export import default_bom_name

    day = datetime(2026, 1, 15, tzinfo=UTC)
    assert default_bom_name("SYS-X", "", "", day, tmp_path) == "SYS-X-2026-01-15.toml"
    assert (
        default_bom_name("SYS-X", "", "Q1 plan", day, tmp_path) == "Q1-plan-SYS-X-2026-01-15.toml"
    )
    (tmp_path / "ACME-SYS-X-2026-01-15.toml").write_text("x")
    assert default_bom_name("SYS-X", "ACME", "p", day, tmp_path) == "ACME-SYS-X-2026-01-15-2.toml"


# ----------------------------------------------------------------------------- item 11
def _shown_styles(app) -> list[list[tuple[str, object]]]:
    """Each screen row as (text, style) after the app's output filters: what a NO_COLOR
    terminal receives."""
    from textual.color import Color

    rows = []
    for strip in app.screen._compositor.render_strips():
        segs = list(strip)
        for flt in app.get_line_filters():
            segs = flt.apply(segs, Color(0, 0, 0))
        rows.append([(s.text, s.style) for s in segs if s.text.strip()])
    return rows


async def test_no_color_marks_the_selected_finding_and_nvlink_by_reverse_and_plain_glyphs(
    make_app, catalog, monkeypatch
):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(build=shots.demo_build(catalog))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("tab")  # the findings list
        await pilot.pause()
        rows = _shown_styles(app)
        every = [style for row in rows for _, style in row]
        # no colour at all reaches the terminal: nothing grey on grey
        assert all(s is None or (s.color is None or s.color.is_default) for s in every)
        assert all(s is None or (s.bgcolor is None or s.bgcolor.is_default) for s in every)
        # the selected finding's lines are in reverse video, the others are not
        text = ["".join(t for t, _ in row) for row in rows]
        current = app.screen.query_one("#findings").current
        head = next(i for i, t in enumerate(text) if current.rule in t)
        assert all(s.reverse for _, s in rows[head])
        others = [i for i, t in enumerate(text) if "WARN" in t and i > head]
        assert others and not any(s.reverse for _, s in rows[others[0]])
        # the NVLink bracket glyphs are plain text in the terminal's own colour, and bold
        glyphs = [s for row in rows for t, s in row if t.strip() in ("┏", "┣", "┗")]
        assert glyphs and all(s.bold and (s.color is None or s.color.is_default) for s in glyphs)


# ----------------------------------------------------------------------------- item 2
async def test_resume_rows_tell_builds_apart(make_app, state_dir):
    from slotwise.engine.build import Build
    from slotwise.engine.workload import Workload
    from slotwise.tui.autosave import AutosaveStore
    from slotwise.tui.screens.recover import RecoverScreen

    store = AutosaveStore(state_dir)
    base = Build(chassis=CHASSIS)
    l40s = "NVIDIA-L40S-48GB"
    a = base.with_(
        slots={"1": GPU, "2": GPU}, workload=Workload(model="llama-3.1-8b", method="inference")
    )
    b = base.with_(
        slots={"1": l40s, "2": l40s}, workload=Workload(model="llama-2-7b", method="lora")
    )
    store.new().save(a, undo=[base], label="Option A")
    store.new().save(b, undo=[base], label="Option B, copy")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        assert isinstance(app.screen, RecoverScreen)
        shown = "\n".join(screen_text(app))
        for text in (
            f"2 × {GPU}",
            "inference llama-3.1-8b",
            "Option A",
            f"2 × {l40s}",
            "lora llama-2-7b",
            "Option B, copy",
        ):
            assert text in shown, (text, shown)
        assert all(len(row) <= 80 for row in screen_text(app))


async def test_clean_quit_of_an_exported_build_says_where_its_undo_history_went(
    make_app, catalog, tmp_path, monkeypatch, state_dir, capsys
):
    from textual.widgets import Input

    monkeypatch.chdir(tmp_path)
    app = make_app(build=shots.demo_build(catalog))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pick(pilot, "psu", "2700", 3)  # a change: there is undo history to keep
        await pilot.press("ctrl+s")
        await pilot.pause()
        app.screen.query_one(Input).value = "exported.toml"
        await pilot.press("enter")
        await pilot.pause()
        assert not app.dirty
        await pilot.press("ctrl+q")
        await pilot.pause()
    # printed on the terminal once the app has gone (wrapped: compare without whitespace)
    said = "".join(capsys.readouterr().err.split())
    assert "exported.toml" in said and "undohistory(1change)" in said
    assert "inthetrashfor7days" in said
    (trashed,) = (state_dir / "trash").iterdir()
    assert trashed.name in said


# ----------------------------------------------------------------------------- item 6
async def test_nics_in_the_switch_nic_slots_show_no_oversubscription_warning(make_app):
    from slotwise.engine.build import Build

    gpu, nic = "NVIDIA-RTX-PRO-6000-BSE-96GB", "NVIDIA-CX7-400G-1P-OSFP"
    slots = {str(i): gpu for i in range(1, 9)} | {s: nic for s in ("9", "10", "11", "12")}
    build = Build(chassis="SYS-422GA-NRT", cpu="XEON-6960P", cpu_count=2, slots=slots)
    app = make_app(build=build)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        findings = app.screen.query_one("#findings")
        lanes = [f for f in app.report.findings if f.rule == "lanes.switch_oversubscribed"]
        assert [f.severity for f in lanes] == ["info"]
        findings.focus()
        findings.highlighted = app.report.findings.index(lanes[0])
        await pilot.pause()
        shown = "\n".join(screen_text(app))
        assert "INFO  lanes.switch_oversubscribed" in shown, shown
        assert "GPUDirect" in shown
        assert "WARN  lanes.switch_oversubscribed" not in shown


# ----------------------------------------------------------------------------- item 12
async def test_chooser_rows_never_wrap_at_80(make_app, catalog):
    from slotwise.tui.screens.chooser import ChassisChooser

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        assert isinstance(app.screen, ChassisChooser)
        rows = screen_text(app)
        inferred = [r for r in rows if "topology" in r]
        assert inferred, rows
        assert all("⚠ topology inferred" in r for r in inferred), inferred  # never split
        assert not any(r.strip() == "inferred" for r in rows)
        skus = [r for r in rows if r.strip().startswith("SYS-")]
        assert skus and all("PSU" in r for r in skus)  # figures stay on the SKU's line


async def test_slot_names_whole_on_a_wide_map(make_app, catalog):
    app = make_app(build=shots.demo_build(catalog))
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        await pilot.pause()
        shown = "\n".join(screen_text(app))
        longest = max((s.label for s in catalog.chassis[CHASSIS].slots), key=len)
        assert len(longest) > 24 and longest in shown, longest


async def test_suggest_uses_a_wide_terminal_and_the_common_key_line(make_app):
    from textual.widgets import OptionList

    from slotwise.engine.build import Build
    from slotwise.engine.workload import Workload
    from slotwise.tui.screens.suggest import SuggestScreen

    build = Build(chassis=CHASSIS, workload=Workload(model="llama-3.1-8b", method="inference"))
    app = make_app(build=build)
    async with app.run_test(size=(160, 48)) as pilot:
        await started(pilot)
        await pilot.press("f7")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SuggestScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        ranked = screen.query_one("#sg-list", OptionList).region
        detail = screen.query_one("#sg-detail").region
        assert detail.x >= ranked.right and detail.y <= ranked.y + 1  # side by side
        assert detail.height > 7  # the whole height, not the 7 rows of a narrow terminal
        rows = screen_text(app)
        bottom = rows[-1]
        for hint in ("Enter Open build", "F9 Run", "Esc Back", "F1 Help"):
            assert hint in bottom, bottom
        first = screen.result.suggestions[0]
        assert any(f"#1 {first.build.chassis}" in r for r in rows)  # the detail, beside
