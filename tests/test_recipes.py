"""Trainer recipes (engine.estimate.recipes) and the new workload knobs on the CLI."""

from __future__ import annotations

import argparse
import json

import pytest

from slotwise.engine.estimate import estimate
from slotwise.engine.estimate.recipes import RECIPES, apply_recipe, recipe_assumptions
from slotwise.engine.workload import Workload
from slotwise.engine.workload.text import WorkloadTextError, build_workload, parse_field
from slotwise.parts.catalog import Catalog
from slotwise.tui import cli
from slotwise.tui.cli import UsageError
from slotwise.tui.commands import estimate as estimate_cmd
from slotwise.tui.commands.workload_args import add_workload_flags, workload_from_args
from tests.evidence.memory_cases import A100_80GB, LLAMA2_7B, LLAMA3_8B

ISSUE_RECIPES = {
    "hf-trainer", "torchtune", "litgpt", "torchtitan", "deepspeed", "axolotl", "unsloth",
    "fsdp-qlora",
}  # fmt: skip


def test_every_issue_recipe_exists_and_cites_each_default():
    assert set(RECIPES) == ISSUE_RECIPES
    for recipe in RECIPES.values():
        assert recipe.defaults
        for d in recipe.defaults:
            assert d.source.startswith("https://"), (recipe.name, d.field)
            assert d.field in Workload.model_fields, (recipe.name, d.field)
            # every default is a value the workload accepts
            Workload(**{"method": "lora", d.field: d.value})


@pytest.mark.parametrize("name", sorted(ISSUE_RECIPES))
def test_recipe_defaults_are_used_and_listed_in_the_assumptions(name):
    w = build_workload({"method": "lora"}, name)
    assert w.recipe == name
    lines = recipe_assumptions(w)
    assert lines and all("default" in line for line in lines)
    for d in RECIPES[name].defaults:
        if d.applies_to("lora"):
            assert getattr(w, d.field) == d.value, d.field
    est = estimate(w, A100_80GB, 1, arch=LLAMA3_8B)
    assert list(est.assumptions.notes)[: len(lines)] == lines


def test_what_the_user_sets_beats_the_recipe():
    w = build_workload({"method": "full", "optimizer": "adamw", "loss": "full"}, "torchtune")
    assert w.optimizer == "adamw" and w.loss == "full"
    assert w.optimizer_in_backward is True  # not given: the recipe's full-fine-tune default
    assert "optimizer set by you" in " ".join(recipe_assumptions(w))


def test_recipe_method_applies_only_when_none_is_given():
    assert apply_recipe({}, "fsdp-qlora")["method"] == "qlora"
    assert apply_recipe({"method": "lora"}, "fsdp-qlora")["method"] == "lora"
    assert apply_recipe({}, "torchtitan")["method"] == "pretrain"
    # inference takes no training defaults
    assert apply_recipe({"method": "inference"}, "torchtune") == {
        "method": "inference",
        "recipe": "torchtune",
    }


def test_recipes_move_the_estimate_the_way_the_trainers_differ():
    """torchtune (pure bf16, chunked loss, recompute) needs less than the HF Trainer defaults
    (fp32 adapters, full fp32 loss, no recompute) for the same LoRA job."""

    def total(recipe):
        w = build_workload({"method": "lora", "seq_len": 4096, "micro_batch": 2}, recipe)
        return estimate(w, A100_80GB, 1, arch=LLAMA3_8B).memory_per_gpu.total_bytes

    assert total("torchtune") < total("hf-trainer")
    assert total("unsloth") < total("axolotl")  # 4-bit base + offloaded checkpoints


def test_workload_text_parser_names_the_field():
    assert parse_field("seq_len", " 4096 ") == 4096
    assert parse_field("tokens", "2B") == 2e9
    assert parse_field("lora_targets", "qv") == ("q", "v")
    assert parse_field("longest_sample", "") is None
    with pytest.raises(WorkloadTextError) as exc:
        parse_field("longest_sample", "many")
    assert exc.value.field == "longest_sample" and "whole number" in str(exc.value)
    with pytest.raises(WorkloadTextError) as exc:
        build_workload({"method": "lora"}, "megatrain")
    assert exc.value.field == "recipe" and "torchtune" in str(exc.value)


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_workload_flags(p)
    return p.parse_args(["--model", "llama-2-7b", *argv])


def test_cli_flags_reach_the_workload():
    w = workload_from_args(
        _args(
            "--method", "full", "--recipe", "torchtune", "--checkpoint-mode", "selective",
            "--activation-offload", "--no-optimizer-in-backward", "--longest-sample", "1304",
            "--compile", "--no-compile-loss", "--lora-dropout", "0.1",
        )
    )  # fmt: skip
    assert w.recipe == "torchtune" and w.checkpoint_mode == "selective"
    assert w.activation_offload is True and w.optimizer_in_backward is False
    assert w.longest_sample == 1304 and w.compile is True
    assert w.compile_loss is False and w.lora_dropout == 0.1
    assert w.optimizer == "paged-adamw-8bit"  # the recipe filled what was not given


def test_cli_rejects_bad_knob_values_with_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        _args("--longest-sample", "0")
    assert exc.value.code == 2
    assert "--longest-sample" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _args("--recipe", "megatrain")


def test_estimate_json_lists_the_recipe_defaults(monkeypatch, capsys):
    from slotwise.parts.schema import Gpu

    gpu = Gpu(sku="G80", name="80 GB GPU", source="https://example.com", memory_gb=80, form="sxm")
    cat = Catalog(records={r.sku: r for r in (gpu, LLAMA2_7B)})
    monkeypatch.setattr(estimate_cmd, "get_catalog", lambda args: cat)
    rc = cli.main(
        ["estimate", "--model", "llama-2-7b", "--method", "lora", "--recipe", "litgpt",
         "--gpu", "G80", "--json"]
    )  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert rc == 0
    notes = " ".join(data["assumptions"]["notes"])
    assert "LitGPT default master_weights=False" in notes and "litgpt" in notes


def test_bad_recipe_is_a_usage_error():
    ns = _args()
    ns.recipe = "megatrain"
    with pytest.raises(UsageError, match="--recipe"):
        workload_from_args(ns)


def test_choices_come_from_the_engine_and_fsdp_is_zero3_everywhere():
    """One list per choice (engine.workload): the CLI offers exactly those values, and the fsdp
    alias is resolved by the Workload model itself, so a BOM or the app can use it too."""
    from typing import get_args

    from slotwise.engine.workload import PARALLELS, Parallel

    p = argparse.ArgumentParser()
    add_workload_flags(p)
    choices = {a.dest: tuple(a.choices) for a in p._actions if a.choices is not None}
    assert choices["parallel"] == PARALLELS == (*get_args(Parallel), "fsdp")
    assert Workload(model="llama-2-7b", method="full", parallel="fsdp").parallel == "zero3"
    assert workload_from_args(_args("--method", "full", "--parallel", "fsdp")).parallel == "zero3"
