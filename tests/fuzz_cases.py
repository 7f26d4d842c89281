"""Seeded fuzz cases for every input boundary (issue #15), shared by tests/test_fuzz.py (a short
run in CI) and bench/fuzz.py (``--n 5000`` by hand).

A case is ``(kind, seed)``; :func:`run_case` rebuilds it from the seed alone (so any failure is
reproducible with ``bench/fuzz.py --case kind:seed``), feeds it to the public API of that
boundary, and raises only when the API did something the contract forbids: an exception that is
not the boundary's documented error type, or a result that breaks a promise (non-standard JSON,
a runaway message).  Expected refusals (CatalogError, HubError, PriceError, a BOM finding, a set
aside autosave) are the point, not failures.

Kinds:

* ``bom``      a mutated examples/*.toml -> read_bom, evaluate, export (when it loaded)
* ``overlay``  a mutated bundled catalog file in an overlay dir -> load_catalog, JSON dump,
               evaluate an example build against it; sometimes a FIFO, a directory named
               ``x.toml``, a symlink loop or a dangling symlink instead of a file
* ``config``   a mutated config.json (from a bundled model preset) -> resolve_arch, evaluate
* ``autosave`` a mutated autosave.json -> Autosave.load
* ``prices``   a mutated examples/prices-example.toml (or a CSV) -> load_prices
* ``http``     a faulty server route (trickle, silent, huge, nested, ...) as Hub endpoint or
               price-list URL -> fetch_config / load_prices with a short deadline
* ``state``    a hostile or broken state directory (issue #29): symbolic links planted at a
               lock, an autosave, ``autosaves/``, ``trash/``, a trash entry, the legacy file or
               a temporary file, pointing at a victim file; or the state directory under a
               regular file -> the store's whole life (entries, lock, save, load, discard,
               purge a week later); only AutosaveError may be raised and no victim may change
               (content, mode, existence)
* ``control``  control characters (ESC sequences, C1, NUL, newlines) put into a BOM's slot ids,
               SKUs, keys, meta or file name -> validate (text and JSON), export (TOML, Markdown,
               CSV): exit codes 0-2 only, no control byte in stdout, stderr or the export
* ``flags``    a numeric flag set to nan, inf, -inf, 1e308, 1e-300, -1 or a huge integer ->
               the CLI exits 0, 1 or 2, never 3 ("internal error")

The mutator works on text: it swaps numbers and strings for "interesting" values (0, -1, 1e19,
inf, nan, a 5,000-digit integer, true, a 100 kB string), inserts deep nesting (arrays, inline
tables, dotted keys; 10 to 20,000 levels), deletes/duplicates/truncates spans, flips bytes and
injects invalid UTF-8.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import re
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
KINDS = ("bom", "overlay", "config", "autosave", "prices", "http", "state", "control", "flags")
#: Mix of kinds in a run (http cases wait for a deadline, so they are rarer).
WEIGHTS = {
    "bom": 30,
    "overlay": 25,
    "config": 18,
    "autosave": 10,
    "prices": 12,
    "http": 5,
    "state": 10,
    "control": 10,
    "flags": 8,
}
#: A message longer than this echoes user input unshortened (the 10 MB SKU bug).
MAX_MESSAGE = 20_000


class ContractBroken(AssertionError):
    """The API under test broke its contract (not an exception it documents)."""


# ------------------------------------------------------------------------------ mutator

_NUMBER = re.compile(r"(?<![\w.\"'])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.\"'])")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _interesting_number(rnd: random.Random, syntax: str) -> str:
    choices = [
        "0",
        "-1",
        "1",
        "1e19",
        "-1e19",
        "10000000000000000000",
        "9" * 5000,
        "1e400",
        "0.5",
        "3",
        "65537",
        "true",
        '"8"',
        "[]",
        "{}" if syntax == "json" else "{}",
    ]
    if syntax == "toml":
        choices += ["inf", "-inf", "nan", "1_000_000_000", "0x7fffffffffffffff"]
    else:
        choices += ["Infinity", "NaN", "1e308", "null"]
    return rnd.choice(choices)


def _interesting_string(rnd: random.Random) -> str:
    n = rnd.choice([0, 1, 300, 5000, 100_000])
    body = rnd.choice(["X", "é", "\\u0000", "[", "\\\\", "💥"]) * max(n // 2, n and 1)
    return f'"{body}"'


def _nesting(rnd: random.Random, syntax: str) -> str:
    depth = rnd.choice([10, 65, 100, 1000, 5000, 20_000])
    style = rnd.choice(["array", "table", "dotted"]) if syntax == "toml" else "array"
    if style == "array":
        return "[" * depth + "]" * depth
    if style == "table":
        return "{a = " * depth + "1" + "}" * depth if syntax == "toml" else "{}"
    return "1\nz" + ".z" * depth + " = 1"


def mutate(text: str, rnd: random.Random, syntax: str = "toml") -> bytes:
    """1-4 random mutations of ``text``; returns bytes (some mutations break UTF-8)."""
    for _ in range(rnd.randint(1, 4)):
        op = rnd.random()
        if op < 0.30:
            nums = list(_NUMBER.finditer(text))
            if nums:
                m = rnd.choice(nums)
                text = text[: m.start()] + _interesting_number(rnd, syntax) + text[m.end() :]
        elif op < 0.45:
            strs = list(_STRING.finditer(text))
            if strs:
                m = rnd.choice(strs)
                text = text[: m.start()] + _interesting_string(rnd) + text[m.end() :]
        elif op < 0.55:
            vals = list(_NUMBER.finditer(text)) + list(_STRING.finditer(text))
            if vals:
                m = rnd.choice(vals)
                text = text[: m.start()] + _nesting(rnd, syntax) + text[m.end() :]
        elif op < 0.65 and text:
            a = rnd.randrange(len(text))
            b = min(len(text), a + rnd.randint(1, 200))
            text = text[:a] + text[b:]
        elif op < 0.72 and text:
            a = rnd.randrange(len(text))
            b = min(len(text), a + rnd.randint(1, 400))
            text = text[:b] + text[a:b] * rnd.randint(1, 3) + text[b:]
        elif op < 0.78 and text:
            text = text[: rnd.randrange(len(text))]
        elif op < 0.86:
            lines = text.splitlines(keepends=True)
            if len(lines) > 2:
                i, j = rnd.randrange(len(lines)), rnd.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
                text = "".join(lines)
        elif op < 0.93 and text:
            a = rnd.randrange(len(text))
            junk = rnd.choice(["\x00", "\ufeff", "'''", '"""', "#", "=", "[[x]]\n", "\\", "\n"])
            text = text[:a] + junk + text[a:]
        else:
            raw = bytearray(text.encode("utf-8", errors="surrogatepass"))
            if raw:
                for _ in range(rnd.randint(1, 5)):
                    raw[rnd.randrange(len(raw))] = rnd.randrange(256)
            return bytes(raw)
    return text.encode("utf-8", errors="surrogatepass")


# ------------------------------------------------------------------------------ helpers


def _examples() -> list[Path]:
    return sorted(p for p in (REPO / "examples").glob("*.toml") if "prices" not in p.name)


def _catalog_files() -> list[Path]:
    data = REPO / "parts" / "data"
    return sorted(data.glob("*.toml")) + sorted(data.glob("chassis/*.toml"))


_STATE: dict[str, Any] = {}


def bundled_catalog():
    if "catalog" not in _STATE:
        from slotwise.parts.catalog import load_catalog

        _STATE["catalog"] = load_catalog()
    return _STATE["catalog"]


def _check_message(text: str, where: str) -> None:
    if len(text) > MAX_MESSAGE:
        raise ContractBroken(f"{where}: a {len(text):,}-character message (input echoed whole?)")


def _check_report(report: Any) -> None:
    for f in report.findings:
        _check_message(f.message, f"finding {f.rule}")
    json.dumps([{"rule": f.rule, "message": f.message} for f in report.findings], allow_nan=False)


def _evaluate(build: Any, catalog: Any) -> None:
    from slotwise.engine.check.evaluate import evaluate

    _check_report(evaluate(build, catalog))


# ------------------------------------------------------------------------------ cases


def case_bom(rnd: random.Random, tmp: Path) -> str:
    from slotwise.engine.bom import export_bom, read_bom
    from slotwise.engine.check.report import Report

    cat = bundled_catalog()
    src = rnd.choice(_examples())
    path = tmp / "fuzz.toml"
    path.write_bytes(mutate(src.read_text(encoding="utf-8"), rnd))
    loaded = read_bom(path, cat)
    for p in loaded.problems:
        _check_message(p.message, f"BOM problem {p.rule}")
    if loaded.build is not None:
        _evaluate(loaded.build, cat)
        if loaded.ok:
            export_bom(loaded.build, cat, loaded.meta, Report())
    return "loaded" if loaded.ok else "refused"


def _special_file(rnd: random.Random, path: Path) -> str:
    what = rnd.choice(["fifo", "dir", "loop", "dangling"])
    if what == "fifo" and hasattr(os, "mkfifo"):
        os.mkfifo(path)
    elif what == "dir":
        path.mkdir()
    elif what == "loop":
        path.symlink_to(path)
    else:
        path.symlink_to(path.with_name("gone.toml"))
    return what


def case_overlay(rnd: random.Random, tmp: Path) -> str:
    from slotwise.parts.catalog import CatalogError, load_catalog

    src = rnd.choice(_catalog_files())
    rel = src.relative_to(REPO / "parts" / "data")
    overlay = tmp / "overlay"
    target = overlay / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if rnd.random() < 0.08:
        _special_file(rnd, target)
    else:
        target.write_bytes(mutate(src.read_text(encoding="utf-8"), rnd))
    try:
        cat = load_catalog(overlay)
    except CatalogError as exc:
        _check_message(str(exc), "CatalogError")
        return "refused"
    records = [r.model_dump(mode="json") for r in cat]
    json.dumps(records, allow_nan=False)  # parts --json never emits Infinity/NaN
    from slotwise.engine.bom import read_bom

    loaded = read_bom(rnd.choice(_examples()), cat)
    if loaded.build is not None:
        _evaluate(loaded.build, cat)
    return "loaded"


def _config_dict(rnd: random.Random) -> dict:
    cat = bundled_catalog()
    preset = rnd.choice(sorted(cat.models.values(), key=lambda m: m.sku))
    skip = {"sku", "name", "source", "confidence", "notes", "field_sources", "kind", "hf_id"}
    skip |= {"published_params_b", "published_active_params_b"}
    return {
        k: v for k, v in preset.model_dump(mode="json").items() if k not in skip and v is not None
    }


def case_config(rnd: random.Random, tmp: Path) -> str:
    from slotwise.engine.bom import read_bom
    from slotwise.engine.model.resolve import ModelResolveError, resolve_arch
    from slotwise.engine.workload import Workload

    cat = bundled_catalog()
    text = json.dumps(_config_dict(rnd), indent=1)
    path = tmp / "config.json"
    path.write_bytes(mutate(text, rnd, "json"))
    wl = Workload(config=str(path), method=rnd.choice(["inference", "lora", "full"]))
    try:
        resolve_arch(wl, cat, offline=True)
    except ModelResolveError as exc:
        _check_message(str(exc), "ModelResolveError")
        return "refused"
    loaded = read_bom(rnd.choice(_examples()), cat)
    if loaded.build is not None:
        _evaluate(loaded.build.with_(workload=wl), cat)
    return "loaded"


def case_autosave(rnd: random.Random, tmp: Path) -> str:
    from slotwise.engine.bom import read_bom
    from slotwise.tui.autosave import AutosaveStore

    cat = bundled_catalog()
    loaded = read_bom(rnd.choice(_examples()), cat)
    store = AutosaveStore(tmp / "state").new()
    if loaded.build is None:
        return "skipped"
    store.save(loaded.build, undo=[loaded.build] * rnd.randint(0, 3))
    text = store.path.read_text(encoding="utf-8")
    store.path.write_bytes(mutate(text, rnd, "json"))
    state = store.load()
    if state is None:
        if store.problem is not None:
            _check_message(store.problem, "autosave problem")
        return "refused"
    _evaluate(state.build, cat)
    return "loaded"


def case_prices(rnd: random.Random, tmp: Path) -> str:
    from slotwise.engine.cost.pricing import PriceError, load_prices

    if rnd.random() < 0.3:
        text = "sku,price,currency,example\nSYS-421GE-TNRT,12345.5,USD,true\nX,1,USD,false\n"
        path = tmp / "prices.csv"
        syntax = "csv"
    else:
        text = (REPO / "examples" / "prices-example.toml").read_text(encoding="utf-8")
        path = tmp / "prices.toml"
        syntax = "toml"
    path.write_bytes(mutate(text, rnd, "toml" if syntax == "toml" else "json"))
    try:
        prices = load_prices(path)
    except PriceError as exc:
        _check_message(str(exc), "PriceError")
        return "refused"
    for e in prices.entries.values():
        if not math.isfinite(e.price):
            raise ContractBroken(f"price {e.price} for {e.sku!r} loaded")
    return "loaded"


HTTP_ROUTES = (
    "ok",
    "trickle",
    "trickle-head",
    "silent",
    "truncate",
    "huge",
    "huge-chunked",
    "nested",
    "bigint",
    "zero-heads",
    "garbage",
)
HTTP_DEADLINE_S = 0.25  # a trickling route (a byte every 50 ms) is still cut off mid-answer


def case_http(rnd: random.Random, tmp: Path) -> str:
    from slotwise.engine.cost import pricing
    from slotwise.engine.model.hub import HubError, fetch_config
    from tests.faulty_http import faulty_server

    route = rnd.choice(HTTP_ROUTES)
    old_env = {k: os.environ.get(k) for k in ("SLOTWISE_HF_ENDPOINT", "SLOTWISE_CACHE_DIR")}
    old_timeout = pricing.TIMEOUT_S
    try:
        with faulty_server() as server:
            os.environ["SLOTWISE_HF_ENDPOINT"] = server.url
            os.environ["SLOTWISE_CACHE_DIR"] = str(tmp / "cache")
            if rnd.random() < 0.5:
                try:
                    fetch_config(f"{route}/m{rnd.randrange(10**6)}", timeout=HTTP_DEADLINE_S)
                except HubError as exc:
                    _check_message(str(exc), "HubError")
                    return "refused"
            else:
                pricing.TIMEOUT_S = HTTP_DEADLINE_S
                try:
                    pricing.load_prices(f"{server.url}/{route}/p.toml")
                except pricing.PriceError as exc:
                    _check_message(str(exc), "PriceError")
                    return "refused"
    finally:
        pricing.TIMEOUT_S = old_timeout
        for k, v in old_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return "loaded"


# ------------------------------------------------------------------------------ issue #29

#: A byte a terminal acts on: C0 except newline and tab (and a CRLF's CR), DEL, C1.
CONTROL_BYTES = re.compile(r"\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_ESCAPES = ("\x1b]0;PWNED\x07", "\x1b[2J", "\x9b2J", "\x00", "\n**Total: 1 USD**\n", "\x7f", "\r")


def _victim_state(victims: list[Path]) -> list[tuple[bool, bytes, int]]:
    out = []
    for v in victims:
        try:
            st = os.stat(v)
            out.append((True, v.read_bytes(), st.st_mode))
        except OSError:
            out.append((False, b"", 0))
    return out


def case_state(rnd: random.Random, tmp: Path) -> str:
    """A state directory with planted links or that cannot be written (see the docstring)."""
    from datetime import UTC, datetime, timedelta

    from slotwise.engine.build import Build
    from slotwise.tui.autosave import TRASH_KEEP, AutosaveError, AutosaveStore

    victim_dir = tmp / "victim"
    victim_dir.mkdir()
    victim = victim_dir / "precious.txt"
    victim.write_text("precious\n")
    os.chmod(victim, rnd.choice([0o600, 0o644, 0o4755, 0o666]))
    t0 = datetime(2026, 12, 1, 3, 0, tzinfo=UTC)
    stamp = (t0 - TRASH_KEEP * 2).strftime("%Y%m%dT%H%M%SZ")
    old_trash = victim_dir / f"20200101T000000Z-abcdef.discarded-{stamp}.json"
    old_trash.write_text("{}")
    victims = [victim, old_trash]
    before = _victim_state(victims)
    state = tmp / "state"
    bid = "20261201T030000Z-aaaaaa"
    plants = ["lock", "json", "autosaves", "trash", "trash_entry", "legacy", "tmp", "blocked"]
    plant = rnd.choice(plants)
    (state / "autosaves").mkdir(parents=True)
    (state / "trash").mkdir()
    if plant == "lock":
        (state / "autosaves" / f"{bid}.lock").symlink_to(victim)
    elif plant == "json":
        (state / "autosaves" / f"{bid}.json").symlink_to(victim)
    elif plant == "autosaves":
        os.rmdir(state / "autosaves")
        (state / "autosaves").symlink_to(victim_dir)
    elif plant == "trash":
        os.rmdir(state / "trash")
        (state / "trash").symlink_to(victim_dir)
    elif plant == "trash_entry":
        (state / "trash" / f"{bid}.discarded-{stamp}.json").symlink_to(victim)
    elif plant == "legacy":
        (state / "autosave.json").symlink_to(victim)
    elif plant == "tmp":
        (state / "autosaves" / f".{bid}.json.x1y2z3.tmp").symlink_to(victim)
    else:  # the state directory sits under a regular file: nothing can be created
        blocker = tmp / "blocker"
        blocker.write_text("a file")
        state = blocker / "state"
    now = [t0]
    store = AutosaveStore(state, clock=lambda: now[0])
    ops = 0
    for step in ("entries", "open", "lock", "save", "load", "discard", "purge"):
        try:
            if step == "entries":
                store.entries()
            elif step == "open":
                slot = store.open(bid)
            elif step == "lock":
                slot.lock()
            elif step == "save":
                slot.save(Build(chassis="C"), undo=[Build(chassis="B")])
            elif step == "load":
                slot.load()
            elif step == "discard":
                slot.discard()
            else:
                now[0] = t0 + TRASH_KEEP + timedelta(days=1)
                store.entries()
            ops += 1
        except AutosaveError as exc:  # the documented refusal
            _check_message(str(exc), f"AutosaveError at {step}")
    with contextlib.suppress(AutosaveError):
        slot.unlock()
    if _victim_state(victims) != before:
        raise ContractBroken(f"a planted {plant} link let slotwise change a file outside state")
    return f"{plant}:{'ok' if ops == 7 else 'refused'}"


def _cli(argv: list[str]) -> tuple[int, str]:
    """Run the CLI in-process; (exit code, stdout + stderr)."""
    import contextlib as _cl
    import io

    from slotwise.tui.cli import main

    out, err = io.StringIO(), io.StringIO()
    with _cl.redirect_stdout(out), _cl.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = int(exc.code or 0) if not isinstance(exc.code, str) else 2
    return rc, out.getvalue() + err.getvalue()


def _poison(text: str, rnd: random.Random) -> str:
    """Put an escape into a string, a key or a table of a BOM text."""
    esc = rnd.choice(_ESCAPES)
    toml_esc = json.dumps(esc)[1:-1]  # TOML basic strings take JSON's escapes
    where = rnd.choice(["value", "key", "meta", "slot"])
    if where == "meta":
        return text.replace("schema = 1", f'schema = 1\n[meta]\ncustomer = "A{toml_esc}"', 1)
    if where == "slot":
        return text.replace("[slots]", f'[slots]\n"9{toml_esc}" = "X{toml_esc}"', 1)
    if where == "key":
        return text.replace("[chassis]", f'[chassis]\n"k{toml_esc}" = 1', 1)
    strings = list(_STRING.finditer(text))
    if not strings:
        return text
    m = rnd.choice(strings)
    return text[: m.end() - 1] + toml_esc + text[m.end() - 1 :]


def case_control(rnd: random.Random, tmp: Path) -> str:
    src = rnd.choice(_examples())
    name = "bom" + rnd.choice(["", "\x1b]0;T\x07", "\x9b"]) + ".toml"
    path = tmp / name
    path.write_text(_poison(src.read_text(encoding="utf-8"), rnd), encoding="utf-8")
    out_md = tmp / "out.md"
    runs = [
        ["validate", str(path)],
        ["validate", str(path), "--json"],
        ["export", str(path), "--format", "toml"],
        ["export", str(path), "--format", "csv"],
        ["export", str(path), "--format", "md", "--out", str(out_md), "--force"],
    ]
    codes = []
    for argv in rnd.sample(runs, 2):  # two of them per case: each run loads the catalog
        rc, said = _cli(argv)
        if rc not in (0, 1, 2):
            raise ContractBroken(f"{argv[0]} exited {rc}: {said[-300:]}")
        if m := CONTROL_BYTES.search(said.replace("\r\n", "\n")):
            raise ContractBroken(f"{argv[:3]} printed the control byte {m.group()!r}")
        if "--json" in argv and rc != 2 and said.strip():
            json.loads(said)
        codes.append(rc)
    if out_md.exists() and CONTROL_BYTES.search(out_md.read_text(encoding="utf-8")):
        raise ContractBroken("the Markdown export holds a control byte")
    return "refused" if 2 in codes else "loaded"


_BAD_NUMBERS = ("nan", "inf", "-inf", "1e308", "1e-300", "-1", "0", "9" * 400)
_FLAG_RUNS = (
    [
        "export",
        "{bom}",
        "--format",
        "md",
        "--prices",
        "{prices}",
        "--kwh-price",
        "0.2",
        "--cloud-gpu-hour",
        "2",
    ],
    [
        "estimate",
        "--model",
        "llama-3.1-8b",
        "--method",
        "lora",
        "--gpu",
        "NVIDIA-H200-NVL-141GB",
        "--tokens",
        "1B",
    ],
)
_FLAGS = {
    0: ("--kwh-price", "--cloud-gpu-hour", "--utilization", "--pue", "--years"),
    1: (
        "--mfu",
        "--target-days",
        "--seq-len",
        "--micro-batch",
        "--lora-dropout",
        "--tp",
        "--gpus",
        "--lora-rank",
    ),
}


def case_flags(rnd: random.Random, tmp: Path) -> str:
    which = rnd.randrange(len(_FLAG_RUNS))
    bom = REPO / "examples" / "h200-nvl-lora-421ge.toml"
    prices = REPO / "examples" / "prices-example.toml"
    argv = [a.format(bom=bom, prices=prices) for a in _FLAG_RUNS[which]]
    flag = rnd.choice(_FLAGS[which])
    value = rnd.choice(_BAD_NUMBERS)
    rc, said = _cli([*argv, flag, value])
    if rc not in (0, 1, 2):
        raise ContractBroken(f"{flag} {value[:20]} exited {rc}: {said[-300:]}")
    if "inf USD" in said or "nan USD" in said:
        raise ContractBroken(f"{flag} {value[:20]} printed a non-finite amount")
    return "refused" if rc == 2 else "accepted"


CASES = {
    "bom": case_bom,
    "overlay": case_overlay,
    "config": case_config,
    "autosave": case_autosave,
    "prices": case_prices,
    "http": case_http,
    "state": case_state,
    "control": case_control,
    "flags": case_flags,
}


def pick_kind(index: int, seed: int) -> str:
    rnd = random.Random(f"kind:{seed}:{index}")
    kinds = list(WEIGHTS)
    return rnd.choices(kinds, weights=[WEIGHTS[k] for k in kinds])[0]


def run_case(kind: str, seed: int) -> str:
    """Run one case in a fresh temp dir; returns "loaded"/"refused"/"skipped" or raises."""
    rnd = random.Random(f"{kind}:{seed}")
    with tempfile.TemporaryDirectory(prefix="slotwise-fuzz-") as d:
        return CASES[kind](rnd, Path(d))
