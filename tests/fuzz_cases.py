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

The mutator works on text: it swaps numbers and strings for "interesting" values (0, -1, 1e19,
inf, nan, a 5,000-digit integer, true, a 100 kB string), inserts deep nesting (arrays, inline
tables, dotted keys; 10 to 20,000 levels), deletes/duplicates/truncates spans, flips bytes and
injects invalid UTF-8.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
KINDS = ("bom", "overlay", "config", "autosave", "prices", "http")
#: Mix of kinds in a run (http cases wait for a deadline, so they are rarer).
WEIGHTS = {"bom": 30, "overlay": 25, "config": 18, "autosave": 10, "prices": 12, "http": 5}
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
HTTP_DEADLINE_S = 0.5


def case_http(rnd: random.Random, tmp: Path) -> str:
    from faulty_http import faulty_server

    from slotwise.engine.cost import pricing
    from slotwise.engine.model.hub import HubError, fetch_config

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


CASES = {
    "bom": case_bom,
    "overlay": case_overlay,
    "config": case_config,
    "autosave": case_autosave,
    "prices": case_prices,
    "http": case_http,
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
