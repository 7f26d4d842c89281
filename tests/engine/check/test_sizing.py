"""The one sizing answer (engine.check.sizing): every front end gives the same server count for
the same build and workload, NICs never lower it, the planning margin is shown and moves the
count where it should, serving scales by replicas, and the defaults are the benches' figures."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from slotwise.engine.bom import read_bom
from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.check.margin import (
    MEMORY_HELD_OUT_ERROR,
    SERVING_HELD_OUT_ERROR,
    TIME_HELD_OUT_ERROR,
    Margin,
)
from slotwise.engine.check.sizing import size_servers
from slotwise.engine.model.resolve import resolve_arch
from slotwise.engine.workload import Workload
from slotwise.tui.cli import main
from tests.paths import REPO

ROOT = REPO
EX = ROOT / "examples"
H200_NVL = EX / "h200-nvl-lora-421ge.toml"

LLAMA70_200 = Workload(
    model="llama-3.1-70b", method="inference", users=200, tokens_per_user_s=30, seq_len=8192
)
PRETRAIN_7B = Workload(model="llama-2-7b", method="pretrain", tokens=1e12, target_days=30)
WORKLOADS = {
    "own": None,
    "serve-70b-200": LLAMA70_200,
    "pretrain-7b": PRETRAIN_7B,
    "serve-8b-5000": Workload(model="llama-3.1-8b", method="inference", users=5000, seq_len=4096),
}
GOOD = [
    p
    for p in sorted(EX.glob("*.toml"))
    if not p.name.startswith(("broken-", "prices")) or p.name == "broken-workload-does-not-fit.toml"
]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _with(path: Path, catalog, wl: Workload | None, tmp_path: Path) -> Path:
    """The BOM at ``path`` with workload ``wl`` (None: its own), written for the CLI."""
    if wl is None:
        return path
    from slotwise.engine.bom import export_bom
    from slotwise.engine.bom.meta import BomMeta

    build = read_bom(path, catalog).build.model_copy(update={"workload": wl})
    out = tmp_path / f"{path.stem}-{wl.method}-{wl.users or 0}.toml"
    out.write_text(export_bom(build, catalog, BomMeta.new(project="sizing test")))
    return out


def _validate(capsys, bom: Path) -> int | None:
    _, out, _ = run(capsys, "validate", bom, "--json")
    wl = json.loads(out)["workload"]
    return None if wl is None else wl["servers"]


def _compare(capsys, bom: Path) -> int | None:
    _, out, _ = run(capsys, "compare", bom, bom, "--json")
    row = next(r for r in json.loads(out)["rows"] if r["key"] == "servers")
    return row["values"][0]


def _estimate(capsys, bom: Path) -> int | None:
    code, out, err = run(capsys, "estimate", "--bom", bom, "--json")
    assert code in (0, 1), err
    sz = json.loads(out)["sizing"]
    return None if sz is None else sz["servers"]


@pytest.mark.parametrize("name", WORKLOADS)
@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_validate_compare_estimate_give_one_server_count(capsys, catalog, tmp_path, path, name):
    bom = _with(path, catalog, WORKLOADS[name], tmp_path)
    loaded = read_bom(bom, catalog)
    if loaded.build is None or loaded.build.workload is None:
        pytest.skip("no workload")
    report = evaluate(loaded.build, catalog)
    if report.verdict is None:
        pytest.skip("no estimate for this build")
    engine = report.verdict.sizing.servers
    assert _validate(capsys, bom) == engine
    assert _compare(capsys, bom) == engine
    assert _estimate(capsys, bom) == engine


def _without_nics(build, catalog):
    return build.with_(slots={s: k for s, k in build.slots.items() if k not in catalog.nics})


@pytest.mark.parametrize("name", WORKLOADS)
@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_removing_nics_never_lowers_the_server_count(catalog, path, name):
    build = read_bom(path, catalog).build
    wl = WORKLOADS[name] or build.workload
    if wl is None:
        pytest.skip("no workload")
    build = build.with_(workload=wl)
    before = evaluate(build, catalog).verdict
    after = evaluate(_without_nics(build, catalog), catalog).verdict
    if before is None:
        pytest.skip("no estimate")
    n0, n1 = before.sizing.servers, after.sizing.servers
    if n1 is not None:  # None: cannot be sized (no NIC to join servers): never lower
        assert n0 is not None and n1 >= n0, (n0, n1)


def test_no_nics_multi_node_training_is_an_error_with_a_fix(catalog):
    """The issue's case: pre-training a 7B model on 1T tokens in 30 days on 8x H200 NVL.  With
    its 400G NICs the build is sized; without them it is not one node of 8, but an error naming
    the NICs and the slots, with the count that fix gives."""
    build = read_bom(H200_NVL, catalog).build.with_(workload=PRETRAIN_7B)
    with_nics = evaluate(build, catalog).verdict.sizing
    assert with_nics.servers is not None and with_nics.servers > 1
    bare = evaluate(_without_nics(build, catalog), catalog)
    sz = bare.verdict.sizing
    assert sz.servers is None and sz.fabric_needed
    assert "no scale-out NIC" in sz.problem
    assert sz.fix.startswith("fit ") and "in slots" in sz.fix
    assert sz.would_take is not None and sz.would_take > 1
    assert any(f.rule == "workload_fit.servers" for f in bare.findings)
    assert bare.verdict.status == "miss"


def test_margin_changes_the_server_count_where_it_should(catalog):
    """70B at 30 tokens/s per user on the 8x H200 NVL example (NVLink 4-way bridges): the
    default margin never asks for fewer servers than none, and for some user count (met only
    inside the serving margin) it asks for a second server that a 0 % margin does not."""
    build = read_bom(H200_NVL, catalog).build
    moved = []
    for users in range(100, 260, 20):
        wl = LLAMA70_200.model_copy(update={"users": users})
        default = evaluate(build.with_(workload=wl), catalog).verdict
        zero = evaluate(build.with_(workload=wl.model_copy(update={"margin": 0.0})), catalog)
        assert default.servers >= zero.verdict.servers
        if default.servers > zero.verdict.servers:
            moved.append(users)
            assert default.sizing.tight and default.sizing.need("serving").bare == 1
            assert default.status == "tight" and "tight on 30 tokens/s" in default.headline
            assert zero.verdict.status == "ok" and "with " in zero.verdict.headline
    assert moved, "the margin never changed the count"
    wl = LLAMA70_200.model_copy(update={"users": moved[0]})
    # the same through the core function with an explicit Margin
    gpu = catalog.gpus["NVIDIA-H200-NVL-141GB"]
    arch = resolve_arch(wl, catalog)
    zero = Margin(memory=0, time=0, serving=0, user_set=True)
    more = size_servers(wl, gpu, 8, arch=arch)
    less = size_servers(wl, gpu, 8, arch=arch, margin=zero)
    assert more.servers >= less.servers
    # training time: a target met with 10 % to spare is tight under the 15 % default margin
    hours = evaluate(build, catalog).verdict.train_hours
    wl = build.workload.model_copy(update={"target_days": hours * 1.10 / 24})
    tight = evaluate(build.with_(workload=wl), catalog).verdict
    assert tight.sizing.need("time").bare == 1 and tight.sizing.need("time").servers > 1
    assert tight.status == "tight" and "tight on the" in tight.headline
    loose = evaluate(build.with_(workload=wl.model_copy(update={"margin": 0.05})), catalog)
    # one server meets the target; the status is the three-way memory verdict's (this LoRA
    # names no trainer, so the high end of its range passes the H200 NVL's memory: "tight")
    assert loose.verdict.servers == 1
    assert loose.verdict.status == ("tight" if loose.verdict.memory == "tight" else "ok")
    assert "with 10 % margin" in loose.verdict.headline


def test_margin_is_shown_in_every_sizing_answer(capsys, tmp_path, catalog):
    bom = _with(H200_NVL, catalog, LLAMA70_200, tmp_path)
    _, out, _ = run(capsys, "validate", bom)
    pct = {k: round(v * 100) for k, v in (("m", MEMORY_HELD_OUT_ERROR),
                                          ("t", TIME_HELD_OUT_ERROR),
                                          ("s", SERVING_HELD_OUT_ERROR))}  # fmt: skip
    assert f"margin {pct['m']} % on memory, {pct['t']} % on time, {pct['s']} % on serving" in out
    _, out, _ = run(capsys, "validate", bom, "--margin", "0")
    assert "margin 0 % (set for this workload)" in out
    _, out, _ = run(capsys, "estimate", "--bom", bom)
    assert f"margin {pct['m']} % on memory" in out
    _, out, _ = run(capsys, "compare", bom, bom)
    assert "planning margin" in out and f"{pct['s']} % serving" in out
    _, out, _ = run(capsys, "validate", bom, "--json")
    sz = json.loads(out)["workload"]["sizing"]
    assert sz["margin"]["serving"] == pytest.approx(SERVING_HELD_OUT_ERROR)
    assert "margin" in sz["margin_text"]
    with pytest.raises(SystemExit) as exc:
        main(["validate", str(bom), "--margin", "150"])
    assert exc.value.code == 2 and "--margin" in capsys.readouterr().err


def test_serving_ten_thousand_users_is_a_cluster_of_replicas(catalog):
    wl = Workload(model="llama-3.1-70b", method="inference", users=10_000, seq_len=8192)
    gpu = catalog.gpus["NVIDIA-H200-NVL-141GB"]
    sz = size_servers(wl, gpu, 8, arch=resolve_arch(wl, catalog))
    assert sz.servers is not None and sz.servers > 1
    assert sz.need("memory").servers == 1  # one replica per server
    assert not sz.fabric_needed  # replicas need no scale-out fabric between them
    assert sz.load is not None and "user(s) per server" in sz.load
    assert sz.serving is not None and sz.serving.users <= 10_000 // (sz.servers - 1)


def test_cap_says_which_cap_and_what_it_would_take(catalog):
    gpu = catalog.gpus["NVIDIA-H200-NVL-141GB"]
    sz = size_servers(PRETRAIN_7B, gpu, 8, arch=resolve_arch(PRETRAIN_7B, catalog), max_servers=2)
    assert sz.servers is None and sz.cap == 2 and sz.would_take > 2
    assert "max_nodes" in sz.problem and str(sz.would_take) in sz.fix


def test_headline_never_ticks_above_a_miss(catalog):
    build = read_bom(H200_NVL, catalog).build.with_(workload=PRETRAIN_7B)
    v = evaluate(build, catalog).verdict
    assert v.fits and v.status == "miss"
    assert v.headline.startswith("fits in memory")
    assert "misses the 30-day target" in v.headline and "servers needed" in v.headline


def test_default_margins_are_the_benches_held_out_errors():
    from bench import memory_accuracy as memory
    from bench import serving_accuracy as serving

    median, _ = serving.summary(serving.HELD_OUT)
    assert median == pytest.approx(SERVING_HELD_OUT_ERROR, abs=0.0015)
    held = memory.sets()["held-out"]
    s = memory.summary(memory.error(c) for c in held)
    assert s["median"] == pytest.approx(MEMORY_HELD_OUT_ERROR, abs=0.0015)
    from bench import perf_accuracy as perf
    from tests.evidence import perf_cases

    times = [c for c in perf_cases.held_out() if c.kind == "time"]
    errs = [abs(e) for _, e in perf.errors(times, perf_cases.predict)]
    assert statistics.median(errs) == pytest.approx(TIME_HELD_OUT_ERROR, abs=0.0015)
