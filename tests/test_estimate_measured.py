"""The estimator against published *measured* peak memory (engine/estimate/reference_cases.py).

Targets from the issue: median absolute error <= 10 % over the whole table, no case worse than
25 %.  The comparison is the same one the maintainers use: ``total_bytes`` vs the measured peak.

Hardest cases (run ``pytest tests/test_estimate_measured.py -s -k report`` for the table):

* litgpt config-hub QLoRA (-12 to -15 %): the measured peaks sit at or above the size of the bf16
  checkpoint (Llama 2 7B: 13.68 GB measured vs 13.48 GB of bf16 weights), which points at a peak
  while the checkpoint is loaded and quantized rather than during training steps; slotwise
  models the training step.  litgpt's 2023 QLoRA runs (no such effect) are within -4 %.
* torchtune Llama 3.1 70B LoRA (+18 %): torchtune computes the loss in chunks, so it never holds
  the full fp32 logits slotwise assumes (10 B x tokens x 128k vocab = 5.3 GB per GPU here).
* inference (+2 to +4 %): litgpt reports ``max_memory_allocated``, which leaves out the CUDA
  context that slotwise adds (0.5 GiB).
"""

from __future__ import annotations

import statistics

import pytest

from engine.estimate import estimate
from engine.estimate.params import count_params
from engine.estimate.reference_cases import A100_80GB, CASES, MeasuredCase


def _error(case: MeasuredCase) -> float:
    est = estimate(case.make_workload(), A100_80GB, case.gpus, arch=case.arch)
    return est.memory_per_gpu.total_bytes / case.measured_bytes - 1.0


def test_table_is_large_and_diverse_enough():
    assert len(CASES) >= 12
    assert len({c.source for c in CASES}) >= 3
    assert len({c.id for c in CASES}) == len(CASES)
    methods = {c.workload["method"] for c in CASES}
    assert {"lora", "qlora", "full", "inference"} <= methods


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_each_case_within_25_percent(case: MeasuredCase):
    err = _error(case)
    assert abs(err) <= 0.25, f"{case.id}: {err:+.1%} vs measured ({case.source}; {case.settings})"


def test_median_absolute_error_at_most_10_percent():
    errors = [abs(_error(c)) for c in CASES]
    median = statistics.median(errors)
    assert median <= 0.10, f"median |error| {median:.1%}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_architectures_match_published_parameter_counts(case: MeasuredCase):
    """The test architectures are right: counted parameters within 1.5 % of the published."""
    total = count_params(case.arch).total / 1e9
    assert total == pytest.approx(case.arch.published_params_b, rel=0.015)


def test_error_table_report(capsys):
    """Print the whole table (run with -s to see it); fails only if a case cannot be estimated."""
    lines = []
    for c in CASES:
        est = estimate(c.make_workload(), A100_80GB, c.gpus, arch=c.arch)
        lines.append(
            f"{c.id:38s} est {est.memory_per_gpu.total_bytes / 1e9:6.2f} GB  "
            f"measured {c.measured_bytes / 1e9:6.2f} GB  {_error(c):+6.1%}"
        )
    print("\n".join(lines))
    assert len(lines) == len(CASES)
