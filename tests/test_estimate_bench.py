"""bench/measure_memory.py stays importable and documented without torch (no GPU in CI)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench import measure_memory
from slotwise.engine.estimate import estimate
from slotwise.engine.workload import Workload
from tests.evidence.memory_cases import A100_80GB, GEMMA_2B, LLAMA3_8B

BENCH = Path(__file__).parents[1] / "bench" / "measure_memory.py"


def test_help_and_list_cases_work_without_torch():
    for flag in ("--help", "--list-cases"):
        done = subprocess.run(
            [sys.executable, str(BENCH), flag], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
    assert "litgpt-hub-llama3-8b-lora" in done.stdout


def test_import_does_not_pull_in_torch():
    """Importing the bench must not even *try* to import torch (a failed try would pass a plain
    ``"torch" not in sys.modules`` check on a machine without torch), so a finder records tries."""
    code = (
        "import importlib.abc, importlib.util, sys\n"
        "tried = []\n"
        "class Spy(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'torch':\n"
        "            tried.append(name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Spy())\n"
        "import bench.measure_memory\n"
        "print('TRIED', tried)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parents[1],
    )
    assert done.returncode == 0, done.stderr
    assert "TRIED []" in done.stdout, done.stdout


def test_hf_config_dict_maps_the_preset():
    cfg = measure_memory.hf_config_dict(GEMMA_2B, layers=4)
    assert cfg["model_type"] == "gemma" and cfg["num_hidden_layers"] == 4
    assert cfg["head_dim"] == 256 and cfg["tie_word_embeddings"] is True
    assert cfg["num_key_value_heads"] == 1 and cfg["vocab_size"] == 256000


def test_lora_module_names_are_hf_names():
    assert measure_memory.lora_module_names(LLAMA3_8B, ("q", "v")) == ["q_proj", "v_proj"]
    assert "down_proj" in measure_memory.lora_module_names(LLAMA3_8B, ("gate", "up", "down"))


def test_shrunken_model_estimate_is_consistent():
    small = measure_memory.shrink(LLAMA3_8B, 4)
    assert small.num_hidden_layers == 4
    w = Workload(method="lora", seq_len=1024)
    big = estimate(w, A100_80GB, 1, arch=LLAMA3_8B).memory_per_gpu.total_bytes
    little = estimate(w, A100_80GB, 1, arch=small).memory_per_gpu.total_bytes
    # The per-layer part shrinks 8x; embeddings, LM head and logits (128k vocab) do not.
    per_layer = (big - little) / (32 - 4)
    fixed = little - 4 * per_layer
    assert per_layer > 0 and fixed > 0
    assert little < big / 2


def test_unsupported_workloads_are_refused_with_a_reason():
    assert measure_memory.unsupported(Workload(method="full", offload="optimizer"))
    assert measure_memory.unsupported(Workload(method="full", tp=2))
    assert measure_memory.unsupported(Workload(method="lora")) is None
    assert "activation offloading" in measure_memory.unsupported(
        Workload(method="lora", activation_offload=True)
    )


def test_accuracy_table_lists_every_case_and_the_gated_summary():
    from tests.evidence.memory_cases import CASES, KNOWN_MISSES

    text = measure_memory.accuracy_table()
    rows = text.splitlines()
    assert len(rows) == 1 + len(CASES) + len(KNOWN_MISSES) + 1
    assert all(c.id in text for c in CASES + KNOWN_MISSES)
    assert rows[-1].startswith(f"{len(CASES)} gated cases") and "median |error|" in rows[-1]
    assert "Lightning-AI" in text and "docs.unsloth.ai" in text
