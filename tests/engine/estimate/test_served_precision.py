"""Issue 25: serving an FP8 checkpoint in FP8 is decided once, in the engine
(engine.estimate.checkpoint.served_workload, called by estimate() and suggest_changes()), so
validate, the app, compare, the exports and estimate all estimate the same precision; a
precision left "auto" is kept in a BOM so that a reopened file can tell it from a chosen bf16.

The config is Llama 3.1 8B's architecture with the quantization_config of RedHatAI's FP8
checkpoint (https://huggingface.co/RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8, config.json:
compressed-tensors, 8-bit float weights).
"""

from __future__ import annotations

import pytest

from slotwise.engine.bom import export_bom, import_bom
from slotwise.engine.bom.meta import BomMeta
from slotwise.engine.build import Build
from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.estimate import estimate, suggest_changes
from slotwise.engine.model.resolve import resolve_arch
from slotwise.engine.workload import Workload
from tests.paths import REPO

FP8_LLAMA = {
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "name": "Meta-Llama-3.1-8B-Instruct-FP8",
    "quantization_config": {
        "quant_method": "compressed-tensors",
        "format": "float-quantized",
        "config_groups": {
            "group_0": {
                "targets": ["Linear"],
                "weights": {"type": "float", "num_bits": 8, "strategy": "channel"},
            }
        },
    },
}
PLAIN_LLAMA = {k: v for k, v in FP8_LLAMA.items() if k != "quantization_config"}


def _build(catalog, workload: Workload) -> Build:
    loaded = import_bom(
        (REPO / "examples" / "l40s-inference-521ge.toml").read_text(encoding="utf-8"), catalog
    )
    assert loaded.build is not None
    return loaded.build.with_(workload=workload)


def _served(catalog, workload: Workload):
    report = evaluate(_build(catalog, workload), catalog)
    assert report.estimate is not None
    return report.estimate


def test_auto_serves_an_fp8_checkpoint_in_fp8_and_says_why(catalog):
    est = _served(catalog, Workload(arch=FP8_LLAMA, precision="auto"))
    assert est.assumptions.precision == "fp8"
    note = est.assumptions.precision_note
    assert note and "quantization_config" in note and "FP8" in note
    assert est.assumptions.notes[0] == note  # the decision is the first assumption
    chosen = _served(catalog, Workload(arch=FP8_LLAMA, precision="bf16"))
    assert chosen.assumptions.precision == "bf16" and chosen.assumptions.precision_note is None
    # 1 byte per weight against 2: the served weights are half the chosen bf16 ones
    ratio = est.memory_per_gpu.weights_bytes / chosen.memory_per_gpu.weights_bytes
    assert ratio == pytest.approx(0.5, rel=0.01)


def test_auto_is_bf16_without_a_stored_format_and_for_training(catalog):
    plain = _served(catalog, Workload(arch=PLAIN_LLAMA, precision="auto"))
    assert plain.assumptions.precision == "bf16" and plain.assumptions.precision_note is None
    lora = _served(catalog, Workload(arch=FP8_LLAMA, precision="auto", method="lora"))
    assert lora.assumptions.precision == "bf16"  # fine-tuning loads it dequantized


def test_every_engine_entry_point_gives_the_same_precision(catalog):
    """evaluate (validate, the app, compare, the exports) and estimate() directly (the CLI's
    estimate and the suggest search) agree; suggest_changes starts from the served precision
    (no 'serve in FP8' advice for weights already served in FP8)."""
    w = Workload(arch=FP8_LLAMA, precision="auto", users=64, seq_len=8192)
    via_report = _served(catalog, w)
    arch = resolve_arch(w, catalog, offline=True)
    gpu = catalog.gpus[via_report.gpu]
    direct = estimate(w, gpu, via_report.gpus, arch=arch, gpus_per_server=via_report.gpus)
    assert direct.assumptions.precision == via_report.assumptions.precision == "fp8"
    assert direct.memory_per_gpu.weights_bytes == via_report.memory_per_gpu.weights_bytes
    labels = [a.change for a in suggest_changes(w, gpu, 1, arch=arch)]
    assert "serve in FP8" not in labels
    bf16 = w.model_copy(update={"precision": "bf16"})
    assert "serve in FP8" in [a.change for a in suggest_changes(bf16, gpu, 1, arch=arch)]


def test_a_bom_keeps_auto_apart_from_a_chosen_bf16(catalog):
    meta = BomMeta(project="fp8")
    for given, served in (("auto", "fp8"), ("bf16", "bf16")):
        build = _build(catalog, Workload(arch=FP8_LLAMA, precision=given))
        text = export_bom(build, catalog, meta)
        assert f'precision = "{given}"' in text
        again = import_bom(text, catalog)
        assert again.build is not None and again.build.workload is not None
        assert again.build.workload.precision == given
        assert export_bom(again.build, catalog, meta) == text  # byte-identical round trip
        est = evaluate(again.build, catalog).estimate
        assert est is not None and est.assumptions.precision == served


def test_an_older_bom_without_auto_opens_as_it_did(catalog):
    """BOMs written before "auto" existed always carry a precision; they keep meaning it."""
    text = (REPO / "examples" / "h100-nvl-inference-421ge-tnrt3.toml").read_text(encoding="utf-8")
    assert 'precision = "' in text
    loaded = import_bom(text, catalog)
    assert loaded.build is not None and loaded.build.workload is not None
    assert loaded.build.workload.precision != "auto"


def test_suggest_says_the_precision_it_estimated_in(catalog):
    """The search's result carries the served precision, so the app's Suggest header shows
    "fp8" for an FP8 checkpoint left at "auto" (not "auto"), and a chosen one as chosen."""
    from slotwise.engine.plan.suggest import Constraints, suggest

    cons = Constraints(gpus=("NVIDIA-L40S-48GB",))
    auto = suggest(Workload(arch=FP8_LLAMA, precision="auto"), catalog, cons, limit=1)
    assert auto.precision == "fp8"
    chosen = suggest(Workload(arch=FP8_LLAMA, precision="bf16"), catalog, cons, limit=1)
    assert chosen.precision == "bf16"
    trained = suggest(Workload(arch=FP8_LLAMA, method="lora"), catalog, cons, limit=1)
    assert trained.precision == "bf16"  # trained dequantized (served_precision's rule)
