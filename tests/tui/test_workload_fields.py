"""The workload form's LoRA targets, MFU override and loss fields, driven by keyboard at 80x24:
each reaches the build's Workload, the verdict follows, and bad values leave the last good
workload in place with a message naming the field."""

from __future__ import annotations

from textual.widgets import Input, Select, Static

from slotwise.engine.workload import Workload
from tests.tui.tui_helpers import (
    choose,
    gpu_build,
    keys_for,
    open_workload_form,
    set_input,
    verdict_text,
)


async def test_lora_targets_mfu_and_loss_reach_the_workload(make_app):
    start = Workload(model="llama-3.1-8b", method="full", tokens=1e9)
    build = gpu_build(start)
    app = make_app(build=build)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload_form(pilot)
        form = app.screen
        assert form.query_one("#wl-targets", Input).value == "all-linear"
        assert form.query_one("#wl-mfu", Input).value == ""
        assert form.query_one("#wl-loss", Select).value == "default"

        # Loss: chunked lowers the memory the engine reports, and the verdict shows it.
        before = verdict_text(app)
        await choose(pilot, "#wl-loss", "chunked")
        assert app.history.current.workload.loss == "chunked"
        assert verdict_text(app) != before

        # LoRA targets: a named set and a comma list.
        await choose(pilot, "#wl-method", "lora")
        assert app.history.current.workload.method == "lora"
        targets = form.query_one("#wl-targets", Input)
        await set_input(pilot, targets, "qv")
        await pilot.pause()
        assert app.history.current.workload.lora_targets == ("q", "v")
        await set_input(pilot, targets, "q,k,v,o")
        await pilot.pause()
        assert app.history.current.workload.lora_targets == ("q", "k", "v", "o")
        # An unknown module is reported by name and the build keeps the last good targets.
        await pilot.press(*keys_for(",x"))
        await pilot.pause()
        assert "LoRA targets" in verdict_text(app)
        assert app.history.current.workload.lora_targets == ("q", "k", "v", "o")
        await pilot.press("backspace", "backspace")
        await pilot.pause()
        assert "INPUT" not in verdict_text(app)

        # MFU override: a valid fraction reaches the workload and changes the time to train.
        before = verdict_text(app)
        mfu = form.query_one("#wl-mfu", Input)
        await set_input(pilot, mfu, "0.5")
        await pilot.pause()
        assert app.history.current.workload.mfu == 0.5
        assert "Time to train" in verdict_text(app) and verdict_text(app) != before
        good = app.history.current.workload
        # Out of range (one keystroke makes it 90.5): a message naming the field, no change.
        await pilot.press("home", "9")
        await pilot.pause()
        assert mfu.value == "90.5"
        assert "MFU override" in verdict_text(app) and "INPUT" in verdict_text(app)
        assert app.history.current.workload == good
        # Clearing it goes back to the estimator's default.
        await set_input(pilot, mfu, "")
        await pilot.pause()
        assert app.history.current.workload.mfu is None
        assert app.history.current.workload.lora_targets == ("q", "k", "v", "o")
        assert app.history.current.workload.loss == "chunked"


async def test_loaded_workload_shows_its_targets_mfu_and_loss(make_app):
    w = Workload(
        model="llama-3.1-8b", method="lora", lora_targets=("q", "k", "o"), mfu=0.35, loss="full"
    )
    build = gpu_build(w)
    app = make_app(build=build)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload_form(pilot)
        assert app.screen.query_one("#wl-targets", Input).value == "q,k,o"
        assert app.screen.query_one("#wl-mfu", Input).value == "0.35"
        assert app.screen.query_one("#wl-loss", Select).value == "full"


async def test_trainer_and_memory_knobs_reach_the_workload(make_app):
    start = Workload(model="llama-3.1-8b", method="lora")
    build = gpu_build(start)
    app = make_app(build=build)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload_form(pilot)
        form = app.screen
        assert form.query_one("#wl-trainer", Select).value == "none"
        details = form.query_one("#wl-trainer-details", Static)
        assert "generic" in str(details.render())

        # A trainer resets the knobs its profile governs to "default" so the profile applies,
        # and the read-only details panel lists what the profile sets unlike generic.
        await choose(pilot, "#wl-loss", "full")
        await choose(pilot, "#wl-trainer", "torchtune")
        w = app.history.current.workload
        assert w.trainer == "torchtune"
        assert w.loss is None and form.query_one("#wl-loss", Select).value == "default"
        assert w.lora_rank == 16  # the LoRA spec is the user's, not the trainer's
        shown = str(details.render())
        assert "torchtune" in shown and "nf4_backend = torchao" in shown

        # The new knobs, by keyboard.
        before = verdict_text(app)
        await choose(pilot, "#wl-actoff", "on")
        assert app.history.current.workload.activation_offload is True
        assert verdict_text(app) != before
        await choose(pilot, "#wl-ckpt", "on, selective")
        assert app.history.current.workload.checkpoint_mode == "selective"
        longest = form.query_one("#wl-longest", Input)
        await set_input(pilot, longest, "1304")
        await pilot.pause()
        assert app.history.current.workload.longest_sample == 1304
        await set_input(pilot, longest, "0")
        await pilot.pause()
        assert "Longest sample" in verdict_text(app) and "INPUT" in verdict_text(app)
        assert app.history.current.workload.longest_sample != 0  # the bad value never lands


async def test_the_form_keeps_every_field_it_does_not_show(make_app, catalog):
    """A BOM with gradient accumulation, DoRA, a trainer and a trainer override: editing the
    sequence length in the form keeps all of them in the exported BOM."""
    from slotwise.engine.bom import export_bom, import_bom
    from slotwise.engine.bom.meta import BomMeta

    start = Workload(
        model="llama-3.1-8b",
        method="lora",
        grad_accum=8,
        dora=True,
        lora_dropout=0.1,
        trainer="axolotl",
        trainer_overrides={"nf4_keeps_input": True},
    )
    build = gpu_build(start)
    text = export_bom(build, catalog, BomMeta())
    assert "grad_accum = 8" in text and 'trainer = "axolotl"' in text
    assert "[workload.trainer_overrides]" in text
    loaded = import_bom(text, catalog).build
    app = make_app(build=loaded)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload_form(pilot)
        seq = app.screen.query_one("#wl-seq", Input)
        await set_input(pilot, seq, "4096")
        await pilot.pause()
        w = app.history.current.workload
        assert w.seq_len == 4096
        assert (w.grad_accum, w.dora, w.lora_dropout, w.trainer) == (8, True, 0.1, "axolotl")
        assert w.trainer_overrides == {"nf4_keeps_input": True}
        out = export_bom(app.history.current, catalog, BomMeta())
    assert "seq_len = 4096" in out and "grad_accum = 8" in out and "dora = true" in out
    assert 'trainer = "axolotl"' in out and "nf4_keeps_input = true" in out
