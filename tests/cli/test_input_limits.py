"""Bad input never crashes and never hangs (issue #15): one regression test per case the
mutation fuzzer found, at every boundary (BOM, catalog overlay, config.json, Hub, autosave,
price list), plus the shared primitives of parts.safe_io."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest
import tomli_w

from slotwise.engine.bom import import_bom, read_bom
from slotwise.engine.cost.pricing import PriceError, load_prices, parse_csv
from slotwise.engine.model.arch import ArchConfigError, arch_from_config
from slotwise.engine.model.hub import HubError, fetch_config
from slotwise.engine.model.resolve import ModelResolveError, resolve_arch
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import CatalogError, load_catalog
from slotwise.parts.safe_io import (
    InputError,
    bracket_depth,
    loads_json,
    loads_toml,
    read_text,
    shorten,
)
from slotwise.tui.autosave import AutosaveStore
from slotwise.tui.cli import main as cli_main
from tests.paths import REPO

EXAMPLE = (REPO / "examples" / "minimal-l40s-hand-written.toml").read_text(encoding="utf-8")
CAT = load_catalog()

LLAMA = {
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
}


def finishes(fn, limit_s: float = 10.0):
    """Run ``fn`` in a thread; fail (instead of hanging the suite) when it blocks."""
    box: dict = {}

    def work():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test thread
            box["error"] = exc

    t = threading.Thread(target=work, daemon=True)
    t.start()
    t.join(limit_s)
    assert not t.is_alive(), f"blocked for more than {limit_s} s"
    if "error" in box:
        raise box["error"]
    return box["value"]


def run_cli(argv, capsys):
    code = cli_main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# ------------------------------------------------------------------------------ primitives


def test_bracket_depth_skips_strings_and_comments():
    assert bracket_depth('a = "[[[[" # [[[[\nb = [[1], [2]]') == 2
    assert bracket_depth("x = '''[[[\n[[['''\ny = {a = {b = 1}}") == 2
    assert bracket_depth('{"a": "[[[[", "b": [[[]]]}', "json") == 4
    assert bracket_depth("[" * 10_000, stop_at=64) == 65


def test_shorten_handles_huge_and_deep_values():
    assert len(shorten("x" * 10_000_000)) < 100
    assert "digits" in shorten(10**5000)  # repr() itself would raise ValueError
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    assert len(shorten(deep)) < 100


@pytest.mark.parametrize("depth", [500, 20_000])
def test_loads_refuses_deep_nesting(depth):
    with pytest.raises(InputError, match="more than 64 levels"):
        loads_toml("x = " + "[" * depth + "]" * depth, "f.toml")
    with pytest.raises(InputError, match="more than 64 levels"):
        loads_toml("x = " + "{a = " * depth + "1" + "}" * depth, "f.toml")
    with pytest.raises(InputError, match="more than 64 levels"):
        loads_toml("x" + ".x" * depth + " = 1", "f.toml")  # dotted keys nest without brackets
    with pytest.raises(InputError, match="more than 64 levels"):
        loads_json("[" * depth + "]" * depth, "f.json")


def test_loads_refuses_numbers_too_long_for_python():
    with pytest.raises(InputError, match="number too long"):
        loads_toml("x = " + "9" * 5000, "f.toml")
    with pytest.raises(InputError, match="number too long"):
        loads_json('{"x": ' + "9" * 5000 + "}", "f.json")
    with pytest.raises(InputError, match="Infinity"):
        loads_json('{"x": Infinity}', "f.json")


# ------------------------------------------------------------------------------ BOM


def _bad_bom(loaded, rule: str) -> str:
    assert loaded.build is None
    (p,) = [p for p in loaded.problems if p.rule == rule]
    return p.message


@pytest.mark.parametrize("depth", [500, 20_000])
def test_bom_nesting_depth_is_malformed_not_recursionerror(depth):
    deep = EXAMPLE + "\n[junk]\nx = " + "[" * depth + "]" * depth + "\n"
    msg = _bad_bom(import_bom(deep, CAT, filename="deep.toml"), "bom.malformed")
    assert "deep.toml" in msg and "64 levels" in msg
    inline = EXAMPLE + "\n[junk]\nx = " + "{a = " * depth + "1" + "}" * depth + "\n"
    assert "64 levels" in _bad_bom(import_bom(inline, CAT, filename="d.toml"), "bom.malformed")


def test_dev_zero_as_bom_is_refused_without_reading_it():
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    loaded = finishes(lambda: read_bom("/dev/zero", CAT), 5)
    msg = _bad_bom(loaded, "bom.unreadable")
    assert "/dev/zero" in msg and "character device" in msg


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this OS")
def test_fifo_as_bom_never_blocks(tmp_path, capsys):
    fifo = tmp_path / "build.toml"
    os.mkfifo(fifo)
    loaded = finishes(lambda: read_bom(fifo, CAT), 5)
    assert "FIFO" in _bad_bom(loaded, "bom.unreadable")
    code, _, err = finishes(lambda: run_cli(["validate", str(fifo)], capsys), 10)
    assert code == 2 and "FIFO" in err and str(fifo) in err


def test_bom_os_errors_name_the_path(tmp_path):
    (tmp_path / "dir.toml").mkdir()
    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop)
    dangling = tmp_path / "dangling.toml"
    dangling.symlink_to(tmp_path / "nowhere.toml")
    long_name = tmp_path / ("x" * 300 + ".toml")
    for path, words in [
        (tmp_path / "dir.toml", "directory"),
        (loop, "symbolic link loop"),
        (dangling, "target does not exist"),
        (long_name, "too long"),
    ]:
        msg = _bad_bom(read_bom(path, CAT), "bom.unreadable")
        assert words in msg and path.name[:50] in msg


def test_bom_over_the_size_cap(tmp_path, monkeypatch):
    from slotwise.engine.bom import read

    monkeypatch.setattr(read, "MAX_BOM_BYTES", 1000)
    p = tmp_path / "big.toml"
    p.write_text(EXAMPLE + "#" * 2000, encoding="utf-8")
    assert "over the 1,000-byte limit" in _bad_bom(read_bom(p, CAT), "bom.unreadable")


def test_huge_integers_in_a_bom_are_clear_problems():
    digits = EXAMPLE.replace("count = 16", "count = " + "9" * 5000)
    assert "number too long" in _bad_bom(import_bom(digits, CAT, filename="f"), "bom.malformed")
    big = import_bom(EXAMPLE.replace("count = 16", "count = 99999999999999999999"), CAT)
    (p,) = [p for p in big.problems if p.rule == "bom.bad_value"]
    assert p.field == "memory.count" and "less than or equal to 1024" in p.message


@pytest.mark.parametrize(
    "old,new,field",
    [
        ("seq_len = 8192", "seq_len = 99999999999999", "workload.seq_len"),
        ("seq_len = 8192", "seq_len = inf", "workload.seq_len"),
        ("seq_len = 8192", "seq_len = true", "workload.seq_len"),
        ("micro_batch = 8", "micro_batch = 8\ntokens = inf", "workload.tokens"),
        ("micro_batch = 8", "micro_batch = 8\ntokens = nan", "workload.tokens"),
        ("micro_batch = 8", "micro_batch = 8\ntokens = 1e300", "workload.tokens"),
    ],
)
def test_absurd_workload_numbers_are_bad_values_not_ok(old, new, field, tmp_path, capsys):
    text = EXAMPLE.replace(old, new)
    loaded = import_bom(text, CAT, filename="w.toml")
    assert field in {p.field for p in loaded.problems if p.rule == "bom.bad_value"}
    path = tmp_path / "w.toml"
    path.write_text(text, encoding="utf-8")
    code, _, err = run_cli(["validate", str(path)], capsys)
    assert code == 2 and field in err


@pytest.mark.parametrize("size", [10_000_000, 1_000_000])
def test_long_sku_is_never_echoed_whole(tmp_path, capsys, size):
    """10 MB: over the BOM size cap, refused unread; 1 MB: loaded, and quoted shortened."""
    huge = "X" * size
    for old in ('sku = "SYS-521GE-TNRT"', '"1" = "NVIDIA-L40S-48GB"'):
        new = old.replace("SYS-521GE-TNRT", huge).replace("NVIDIA-L40S-48GB", huge)
        path = tmp_path / "huge.toml"
        path.write_text(EXAMPLE.replace(old, new), encoding="utf-8")
        code, out, err = run_cli(["validate", str(path)], capsys)
        assert code == 2
        assert len(out) + len(err) < 10_000, (len(out), len(err))
        assert ("byte limit" if size > 2**21 else f"{size:,} characters") in err


# ------------------------------------------------------------------------------ validate


def test_internal_failure_of_a_rule_is_exit_3_not_ok(tmp_path, capsys, monkeypatch):
    from slotwise.engine.check import evaluate as ev

    def broken(ctx):
        raise OverflowError("int too large to convert to float")

    families = tuple((n, broken if n == "power" else f) for n, f in ev.FAMILIES)
    monkeypatch.setattr(ev, "FAMILIES", families)
    path = tmp_path / "b.toml"
    path.write_text(EXAMPLE, encoding="utf-8")
    code, out, _ = run_cli(["validate", str(path)], capsys)
    assert code == 3
    assert "engine.internal" in out and "INCOMPLETE" in out and "\n  OK:" not in out
    code, out, _ = run_cli(["validate", str(path), "--json"], capsys)
    assert code == 3
    rules = {f["rule"]: f["severity"] for f in json.loads(out)["findings"]}
    assert rules["engine.internal"] == "error"


def test_internal_failure_of_the_estimator_is_an_error_finding(tmp_path, capsys, monkeypatch):
    from slotwise.engine.check.rules import workload_fit

    def broken(*args, **kwargs):
        raise OverflowError("cannot convert float infinity to integer")

    monkeypatch.setattr(workload_fit, "estimate", broken)
    loaded = import_bom(EXAMPLE, CAT)
    from slotwise.engine.check.evaluate import evaluate

    report = evaluate(loaded.build, CAT)
    internal = [f for f in report.findings if f.rule == "engine.internal"]
    assert internal and internal[0].severity == "error"
    assert "OverflowError" in internal[0].message
    assert "workload_fit.unresolved" not in report.rules()
    path = tmp_path / "b.toml"
    path.write_text(EXAMPLE, encoding="utf-8")
    assert run_cli(["validate", str(path)], capsys)[0] == 3


def test_unexpected_exception_in_a_command_is_one_paragraph_exit_3(capsys, monkeypatch):
    from slotwise.tui.commands import parts as parts_cmd

    def broken(args):
        raise RuntimeError("boom " + "y" * 10_000)

    monkeypatch.setattr(parts_cmd, "run", broken)
    monkeypatch.delenv("SLOTWISE_DEBUG", raising=False)
    code, _, err = run_cli(["parts"], capsys)
    assert code == 3 and "internal error" in err and "Traceback" not in err
    assert len(err) < 1000


# ------------------------------------------------------------------------------ catalog overlay


def _overlay(tmp_path: Path, kind: str, record: dict) -> Path:
    d = tmp_path / "overlay"
    d.mkdir(exist_ok=True)
    (d / f"{kind}.toml").write_text(tomli_w.dumps({kind: [record]}), encoding="utf-8")
    return d


def _bundled(kind: str, sku: str) -> dict:
    rec = CAT.get(sku)
    assert rec is not None and rec.kind == kind
    return rec.model_dump(mode="json", exclude_none=True, exclude={"kind"})


def _problems(overlay: Path) -> str:
    with pytest.raises(CatalogError) as info:
        finishes(lambda: load_catalog(overlay), 10)
    return str(info.value)


@pytest.mark.parametrize(
    "kind,sku,field,value,says",
    [
        ("psu", "SMCI-PSU-2700W-TITANIUM", "watts_high_line", 10**19, "less than or equal"),
        ("gpu", "NVIDIA-L40S-48GB", "memory_gb", float("inf"), "finite number"),
        ("gpu", "NVIDIA-L40S-48GB", "tdp_w", True, "not true/false"),
        ("gpu", "NVIDIA-L40S-48GB", "pcie_lanes", "16", "not a string"),
        ("dimm", "DDR5-4800-64GB-RDIMM", "power_w", -5.0, "greater than or equal to 0"),
        ("model", "llama-3.1-8b", "num_hidden_layers", 10**9, "less than or equal"),
        ("model", "llama-3.1-8b", "num_attention_heads", 31, "does not divide hidden_size"),
        ("model", "llama-3.1-8b", "num_key_value_heads", 5, "does not divide num_attention"),
        ("model", "llama-3.1-8b", "num_attention_heads", 0, "attention layers need num_attention"),
        ("model", "llama-3.1-8b", "vocab_size", 10**400, "less than or equal"),
    ],
)
def test_absurd_overlay_values_are_refused(tmp_path, kind, sku, field, value, says):
    rec = _bundled(kind, sku)
    rec[field] = value
    if isinstance(value, float) and value != value or value == float("inf"):
        text = tomli_w.dumps({kind: [{k: v for k, v in rec.items() if k != field}]})
        text = text.replace(f"sku = {json.dumps(sku)}", f"sku = {json.dumps(sku)}\n{field} = inf")
        d = tmp_path / "overlay"
        d.mkdir()
        (d / f"{kind}.toml").write_text(text, encoding="utf-8")
    else:
        d = _overlay(tmp_path, kind, rec)
    msg = _problems(d)
    assert f"{kind}.toml" in msg and says in msg and sku in msg


def test_overlay_nesting_depth(tmp_path):
    d = tmp_path / "overlay"
    d.mkdir()
    (d / "gpus.toml").write_text("x = " + "[" * 5000 + "]" * 5000, encoding="utf-8")
    msg = _problems(d)
    assert "gpus.toml" in msg and "64 levels" in msg


def test_overlay_with_directory_symlink_loop_dangling_link_and_fifo(tmp_path):
    d = tmp_path / "overlay"
    (d / "chassis").mkdir(parents=True)
    (d / "x.toml").mkdir()
    (d / "loop.toml").symlink_to(d / "loop.toml")
    (d / "dangling.toml").symlink_to(d / "gone.toml")
    if hasattr(os, "mkfifo"):
        os.mkfifo(d / "pipe.toml")
        os.mkfifo(d / "chassis" / "pipe2.toml")
    msg = _problems(d)
    assert "x.toml" in msg and "directory" in msg
    assert "loop.toml" in msg and "symbolic link loop" in msg
    assert "dangling.toml" in msg and "target does not exist" in msg
    if hasattr(os, "mkfifo"):
        assert "pipe.toml" in msg and "chassis/pipe2.toml" in msg and "FIFO" in msg


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this OS")
def test_fifo_in_overlay_never_blocks_the_cli(tmp_path, capsys):
    d = tmp_path / "overlay"
    d.mkdir()
    os.mkfifo(d / "gpus.toml")
    for argv in (["parts", "--catalog", str(d)], ["validate", "x.toml", "--catalog", str(d)]):
        code, _, err = finishes(lambda argv=argv: run_cli(argv, capsys), 10)
        assert code == 2 and "FIFO" in err


def test_long_sku_in_an_overlay_is_shortened(tmp_path):
    rec = _bundled("psu", "SMCI-PSU-2700W-TITANIUM")
    rec["sku"] = "P" * 1_000_000
    msg = _problems(_overlay(tmp_path, "psu", rec))
    assert len(msg) < 5_000 and "1,000,000 characters" in msg


def test_parts_json_is_standard_json(capsys):
    code, out, _ = run_cli(["parts", "--json"], capsys)
    assert code == 0

    def refuse(name):
        raise AssertionError(f"non-standard JSON constant {name}")

    assert len(json.loads(out, parse_constant=refuse)) == len(CAT)


# ------------------------------------------------------------------------------ config.json


@pytest.mark.parametrize("field", ["num_attention_heads", "num_key_value_heads"])
def test_zero_heads_is_a_clear_error_not_zerodivision(field):
    with pytest.raises(ArchConfigError, match=field):
        arch_from_config({**LLAMA, field: 0}, source="cfg.json", name="m")


@pytest.mark.parametrize(
    "field,value,says",
    [
        ("hidden_size", 10**30, "less than or equal"),
        ("num_hidden_layers", 10**9, "more than the 4096 layers"),
        ("num_attention_heads", 7, "does not divide"),
        ("num_key_value_heads", 3, "does not divide"),
        ("vocab_size", True, "whole number"),
    ],
)
def test_absurd_config_values_are_clear_errors(field, value, says):
    with pytest.raises(ArchConfigError, match=says):
        arch_from_config({**LLAMA, field: value}, source="cfg.json", name="m")


def test_config_file_limits(tmp_path):
    wl = Workload(config=str(tmp_path / "config.json"))
    cfg = tmp_path / "config.json"
    cfg.write_text('{"a": ' + "[" * 5000 + "]" * 5000 + "}", encoding="utf-8")
    with pytest.raises(ModelResolveError, match="64 levels"):
        resolve_arch(wl, CAT, offline=True)
    cfg.write_text('{"hidden_size": ' + "9" * 5000 + "}", encoding="utf-8")
    with pytest.raises(ModelResolveError, match="number too long"):
        resolve_arch(wl, CAT, offline=True)
    cfg.unlink()
    if hasattr(os, "mkfifo"):
        os.mkfifo(cfg)
        with pytest.raises(ModelResolveError, match="FIFO"):
            finishes(lambda: resolve_arch(wl, CAT, offline=True), 5)


def test_very_long_hub_id_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("SLOTWISE_CACHE_DIR", str(tmp_path))
    for ref in ("o/" + "n" * 4000, "o" * 300 + "/name"):
        with pytest.raises(HubError, match="not a Hugging Face model id") as info:
            fetch_config(ref, offline=True)
        assert len(str(info.value)) < 1000
        with pytest.raises(ModelResolveError):
            resolve_arch(Workload(config=ref), CAT, offline=True)
    with pytest.raises(ModelResolveError, match="no such file"):
        resolve_arch(Workload(config="/x/" + "y" * 4000 + ".json"), CAT, offline=True)
    with pytest.raises(ValueError, match="at most 4096 characters"):
        Workload(config="o/" + "n" * 5000)


# ------------------------------------------------------------------------------ autosave


def _autosave_slot(tmp_path):
    slot = AutosaveStore(tmp_path).new()
    slot.path.parent.mkdir(parents=True, exist_ok=True)
    return slot


def test_autosave_nesting_depth_is_set_aside(tmp_path):
    store = _autosave_slot(tmp_path)
    store.path.write_text('{"version": 1, "x": ' + "[" * 20_000 + "]" * 20_000 + "}")
    assert store.load() is None
    assert "64 levels" in store.problem and "unreadable-1" in store.problem


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this OS")
def test_autosave_fifo_never_blocks(tmp_path):
    store = _autosave_slot(tmp_path)
    os.mkfifo(store.path)
    assert finishes(store.load, 5) is None
    assert "not a regular file" in store.problem  # set aside unread, never opened


# ------------------------------------------------------------------------------ price lists


def test_price_list_limits(tmp_path):
    p = tmp_path / "prices.toml"
    p.write_text("[meta]\ncurrency = 'USD'\nx = " + "[" * 5000 + "]" * 5000)
    with pytest.raises(PriceError, match="64 levels"):
        load_prices(p)
    p.write_text("[meta]\ncurrency = 'USD'\n[[price]]\nsku = 'A'\nprice = inf\n")
    with pytest.raises(PriceError, match="finite"):
        load_prices(p)
    with pytest.raises(PriceError, match="not a usable CSV"):
        parse_csv("sku,price,currency\n" + "A" * 200_000 + ",1,USD\n", "p.csv")
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.csv"
        os.mkfifo(fifo)
        with pytest.raises(PriceError, match="FIFO"):
            finishes(lambda: load_prices(fifo), 5)


def test_read_text_never_reads_past_the_cap(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"a" * 5000)
    with pytest.raises(InputError, match="over the 100-byte limit"):
        read_text(p, max_bytes=100)
    t0 = time.monotonic()
    if sys.platform != "win32" and Path("/dev/zero").exists():
        with pytest.raises(InputError, match="character device"):
            read_text("/dev/zero")
    assert time.monotonic() - t0 < 1


# ------------------------------------------------------------------------------ network


@pytest.fixture
def faulty(monkeypatch, tmp_path):
    from tests.faulty_http import faulty_server

    with faulty_server() as server:
        monkeypatch.setenv("SLOTWISE_HF_ENDPOINT", server.url)
        monkeypatch.setenv("SLOTWISE_CACHE_DIR", str(tmp_path / "cache"))
        for var in ("HF_TOKEN", "SLOTWISE_OFFLINE", "HF_HUB_OFFLINE"):
            monkeypatch.delenv(var, raising=False)
        yield server


@pytest.mark.parametrize("route", ["trickle", "trickle-head", "silent"])
def test_trickling_or_silent_hub_is_cut_off_at_the_total_deadline(faulty, route):
    t0 = time.monotonic()
    with pytest.raises(HubError, match=r"did not answer within 0.4 s"):
        finishes(lambda: fetch_config(f"{route}/model", timeout=0.4), 10)
    assert time.monotonic() - t0 < 5  # deadline 0.4 s; was unbounded (45 s+)


@pytest.mark.parametrize(
    "route,says",
    [
        ("huge", "over the 4,194,304-byte limit"),
        ("huge-chunked", "over the 4,194,304-byte limit"),
        ("nested", "64 levels"),
        ("bigint", "number too long"),
        ("garbage", "not UTF-8|malformed JSON"),
        ("truncate", "cannot reach"),
    ],
)
def test_faulty_hub_answers_are_clear_errors(faulty, route, says):
    with pytest.raises(HubError, match=says) as info:
        finishes(lambda: fetch_config(f"{route}/model", timeout=5.0), 15)
    assert len(str(info.value)) < 1000


def test_zero_heads_from_the_hub_is_a_clear_error(faulty):
    with pytest.raises(ModelResolveError, match="num_attention_heads"):
        resolve_arch(Workload(config="zero-heads/model"), CAT)


def test_trickling_price_server_is_cut_off(faulty, monkeypatch):
    from slotwise.engine.cost import pricing

    monkeypatch.setattr(pricing, "TIMEOUT_S", 0.4)
    t0 = time.monotonic()
    with pytest.raises(PriceError, match="did not deliver the list within 0.4 s"):
        finishes(lambda: load_prices(f"{faulty.url}/trickle/p.toml"), 10)
    assert time.monotonic() - t0 < 5  # deadline 0.4 s; was unbounded (45 s+)
    faulty.bodies["deep"] = b"[meta]\ncurrency='USD'\nx=" + b"[" * 5000 + b"]" * 5000
    with pytest.raises(PriceError, match="64 levels"):
        load_prices(f"{faulty.url}/body/deep")


@pytest.mark.parametrize("layers", [10**19, 1e308])
def test_absurd_layer_count_is_refused_before_any_per_layer_list(tmp_path, layers):
    """Found by the fuzzer: a family mapper built one entry per layer for 10^19 layers (and, as
    a JSON float, 1e308: fuzz case config:585)."""
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({**LLAMA, "model_type": "gemma2", "num_hidden_layers": layers}))
    t0 = time.monotonic()
    with pytest.raises(ModelResolveError, match="more than the 4096 layers"):
        finishes(lambda: resolve_arch(Workload(config=str(cfg)), CAT, offline=True), 20)
    assert time.monotonic() - t0 < 10


def test_config_json_may_hold_python_infinity_but_counted_fields_must_be_finite():
    """Real Hub config.json files are written by Python's json.dump, which writes Infinity
    (Nemotron-H: "time_step_limit": [0.0, Infinity]); loading them must work, and a non-finite
    value in a field the estimator uses is refused by name."""
    from slotwise.engine.model.arch import ArchConfigError, arch_from_config

    cfg = loads_json('{"time_step_limit": [0.0, Infinity]}', "c.json", nonfinite=True)
    assert cfg["time_step_limit"][1] == float("inf")
    bad = loads_json(
        '{"model_type": "llama", "hidden_size": Infinity, "intermediate_size": 8,'
        ' "num_hidden_layers": 1, "num_attention_heads": 1, "vocab_size": 8}',
        "c.json",
        nonfinite=True,
    )
    with pytest.raises(ArchConfigError, match="hidden_size=inf"):
        arch_from_config(bad, source="c.json", name="c")


def test_a_huge_unknown_model_type_is_not_echoed_whole(tmp_path):
    """Found by the fuzzer (config:1649): a 100 kB model_type came back whole in the message."""
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({**LLAMA, "model_type": "\\" * 100_000}))
    with pytest.raises(ModelResolveError) as info:
        resolve_arch(Workload(config=str(cfg)), CAT, offline=True)
    assert len(str(info.value)) < 20_000
