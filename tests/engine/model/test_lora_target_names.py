"""The LoRA targets the report names are the layers the model has (issue #12 follow-up).

A pure Mamba model read with "all-linear" used to be described as "LoRA on q,k,v,o,gate,up,down"
while the count (rightly) adapted its mixer projections; GPT-2's two-matrix MLP has no gate.
"""

from __future__ import annotations

from slotwise.engine.estimate import estimate
from slotwise.engine.model.params import LORA_MODULE_NAMES, lora_params, lora_target_names
from slotwise.engine.workload import Workload
from tests.evidence.memory_cases import A100_80GB
from tests.evidence.published_configs import load

ALL = LORA_MODULE_NAMES


def test_mamba_all_linear_names_the_mixer_projections_only():
    _, mamba, _, _ = load("mamba-2.8b-hf")
    assert lora_target_names(mamba, ALL) == "in_proj,x_proj,dt_proj,out_proj"
    assert lora_params(mamba, ALL, 16) > 0


def test_mamba_attention_targets_adapt_nothing_and_say_so():
    _, mamba, _, _ = load("mamba-2.8b-hf")
    assert lora_params(mamba, ("q", "v"), 16) == 0
    assert lora_target_names(mamba, ("q", "v")) == "no layer of this model"


def test_hybrid_names_attention_mlp_and_mixer():
    _, jamba, _, _ = load("jamba-1.5-mini")
    assert lora_target_names(jamba, ALL).split(",") == [
        *ALL, "in_proj", "x_proj", "dt_proj", "out_proj",
    ]  # fmt: skip


def test_two_matrix_mlp_has_no_gate_and_llama_is_unchanged():
    _, gpt2, _, _ = load("gpt2")
    _, llama, _, _ = load("llama-3.1-8b-instruct")
    assert lora_target_names(gpt2, ALL) == "q,k,v,o,up,down"
    assert lora_target_names(llama, ALL) == "q,k,v,o,gate,up,down"
    assert lora_target_names(llama, ("q", "v")) == "q,v"


def test_the_estimate_assumption_uses_the_model_names():
    _, mamba, _, _ = load("mamba-2.8b-hf")
    w = Workload(method="lora", lora_targets=ALL, lora_rank=16)
    notes = estimate(w, A100_80GB, 1, arch=mamba).assumptions.notes
    line = next(n for n in notes if n.startswith("lora: rank 16 on"))
    assert "in_proj,x_proj,dt_proj,out_proj" in line and "q," not in line
