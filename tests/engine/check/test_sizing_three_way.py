"""Issue 25 / issue 23 item 4: the sizing answer, suggest's ranking and compare use the
three-way memory verdict (fits / tight / does not fit, engine.estimate.memory_range): a build
whose estimate fits but whose range's high end does not is "tight", ranks below a build that
fits, and the headline says "tight" with what to change, never "fits" above a tight line.

The case: LoRA on Llama 3.1 8B at 14,336 tokens, two sequences per micro-batch, no trainer
named.  The estimate (~79 GiB on one GPU) fits both cards; the range's high end (~117 GiB: the trainers a
user could be running and the estimator's held-out error) does not fit an H100 NVL's 88.8 GiB
usable (tight) and fits an H200 NVL's 133.4 GiB.
"""

from __future__ import annotations

import pytest

from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.check.sizing import size_servers
from slotwise.engine.model.resolve import resolve_arch
from slotwise.engine.plan.compare import Option, compare_builds
from slotwise.engine.plan.suggest import Constraints, suggest
from slotwise.engine.workload import Workload

LORA = Workload(model="llama-3.1-8b", method="lora", seq_len=14336, micro_batch=2)
H100 = "NVIDIA-H100-NVL-94GB"
H200 = "NVIDIA-H200-NVL-141GB"
CHASSIS = ("SYS-421GE-TNRT3",)


@pytest.fixture(scope="module")
def both(catalog):
    return suggest(LORA, catalog, Constraints(gpus=(H100, H200), chassis=CHASSIS), limit=3)


@pytest.fixture(scope="module")
def h100_only(catalog):
    return suggest(LORA, catalog, Constraints(gpus=(H100,), chassis=CHASSIS), limit=1)


def test_sizing_carries_the_three_way_verdict(catalog):
    arch = resolve_arch(LORA, catalog)
    tight = size_servers(LORA, catalog.gpus[H100], 4, arch=arch)
    fits = size_servers(LORA, catalog.gpus[H200], 4, arch=arch)
    assert tight.servers == fits.servers == 1  # the count is the margin's; the verdict differs
    assert tight.memory_fit == "tight" and tight.memory_tight and tight.tight
    assert fits.memory_fit == "fits" and not fits.memory_tight
    assert "tight in memory" in tight.summary()
    words = tight.tight_words()
    assert words and "does not fit" in words and "name the trainer" in words
    assert tight.to_json()["memory_fit"] == "tight"
    assert fits.tight_words() is None


def test_a_tight_build_ranks_below_a_build_that_fits(both, h100_only):
    sugs = both.suggestions
    assert sugs and all(s.sizing is not None for s in sugs)
    verdicts = [s.sizing.memory_fit for s in sugs]  # type: ignore[union-attr]
    assert verdicts[0] == "fits" and sugs[0].gpu == H200
    assert verdicts == sorted(verdicts, key=lambda v: v != "fits")
    tight = h100_only.suggestions[0]
    assert tight.gpu == H100 and tight.sizing is not None and tight.sizing.memory_fit == "tight"
    # on the objective alone (GPUs, servers, then power) the H100 NVL build would come first:
    # only the verdict puts it below
    assert tight.key[2:4] == sugs[0].key[2:4] and tight.key[4] < sugs[0].key[4]
    assert tight.key > sugs[0].key


def test_the_headline_says_tight_and_what_to_change(h100_only, both, catalog):
    report = evaluate(h100_only.suggestions[0].build, catalog)
    v = report.verdict
    assert v is not None and v.memory == "tight"
    assert v.status == "tight"
    assert v.headline.startswith("tight in memory") and "fits in memory" not in v.headline
    assert "name the trainer" in v.headline
    ok = evaluate(both.suggestions[0].build, catalog).verdict
    assert ok is not None and ok.status == "ok" and ok.headline.startswith("fits in memory")


def test_compare_says_tight(h100_only, both, catalog):
    cmp = compare_builds(
        [
            Option(label="h100", build=h100_only.suggestions[0].build),
            Option(label="h200", build=both.suggestions[0].build),
        ],
        catalog,
        LORA,
    )
    fits = cmp.row("fits")
    assert fits is not None and [c.text for c in fits.cells] == ["tight", "fits"]
    servers = cmp.row("servers")
    assert servers is not None and "(tight)" in servers.cells[0].text
    assert "(tight)" not in servers.cells[1].text
