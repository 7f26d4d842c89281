"""Two-matrix (GELU) MLPs and LayerNorm in the activation count (engine.estimate.activations)."""

from __future__ import annotations

import pytest

from slotwise.engine.estimate.activations import (
    NORM_FP32_BYTES,
    kind_bytes_per_token,
    layer_dims,
)
from slotwise.engine.workload import Workload
from tests.evidence.memory_cases import PHI15

E = 2.0
LORA_QV = Workload(method="lora", lora_targets=("q", "v"), lora_dropout=0.0)


def test_gelu_mlp_keeps_its_fc1_output_not_three_swiglu_tensors():
    gelu = layer_dims(PHI15)
    swiglu = layer_dims(PHI15.model_copy(update={"mlp_gated": True}))
    kind = ("attention", "dense")
    diff = kind_bytes_per_token(swiglu, LORA_QV, E, kind) - kind_bytes_per_token(
        gelu, LORA_QV, E, kind
    )
    # SwiGLU keeps gate out, SiLU out and up out (3 e i); fc1 -> GELU -> fc2 keeps fc1 out
    assert diff == pytest.approx(2 * E * PHI15.intermediate_size)


def test_layer_norm_keeps_its_input_not_an_fp32_copy():
    ln = layer_dims(PHI15)
    rms = layer_dims(PHI15.model_copy(update={"norm_bias": False}))
    kind = ("attention", "dense")
    diff = kind_bytes_per_token(rms, LORA_QV, E, kind) - kind_bytes_per_token(ln, LORA_QV, E, kind)
    # phi: one norm per layer (parallel attention + MLP)
    assert ln.norms_of(kind) == 1
    assert diff == pytest.approx((NORM_FP32_BYTES - E) * PHI15.hidden_size)


def test_adapting_fc2_keeps_the_gelu_output_too():
    dims = layer_dims(PHI15)
    kind = ("attention", "dense")
    with_down = Workload(method="lora", lora_targets=("q", "v", "down"), lora_dropout=0.0)
    diff = kind_bytes_per_token(dims, with_down, E, kind) - kind_bytes_per_token(
        dims, LORA_QV, E, kind
    )
    assert diff == pytest.approx(E * PHI15.intermediate_size)
