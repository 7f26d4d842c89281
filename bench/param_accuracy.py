#!/usr/bin/env python3
"""Computed parameter counts against the publishers' figures, for every real config.json copy.

    python bench/param_accuracy.py

Reads tests/fixtures/configs/PUBLISHED.toml (each entry: a config.json copy, where it came from,
the figure its publisher states) and prints, per model, the family slotwise reads it as, the
computed total, the published figure and the difference, then the copies that are only within
the published figure's own rounding (a "2.8B" card promises 2.75-2.85B), with the exact total
derived for such a copy from a sibling checkpoint's count where PUBLISHED.toml has one ("derived",
tier C), how many model types have every copy within 1 %, and how many copies are within 1 %,
within the figure's rounding, and within 1 % of an exact figure.  Nothing is fitted: the counts
follow each family's modeling code (engine/estimate/arch, params.py).
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from slotwise.engine.model.arch import arch_from_config  # noqa: E402
from slotwise.engine.model.params import count_params  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "configs"
_UNIT = {"M": 1e6, "B": 1e9, "T": 1e12, "": 1.0}


def parse(figure: str) -> tuple[float, float]:
    m = re.fullmatch(r"([\d,]+)(?:\.(\d+))?([MBT]?)", figure.strip())
    if not m:
        raise ValueError(f"cannot read the published figure {figure!r}")
    whole, frac, unit = m.groups()
    scale = _UNIT[unit]
    value = float(whole.replace(",", "") + ("." + frac if frac else "")) * scale
    half = 0.5 if unit == "" else 0.5 * scale * 10.0 ** -(len(frac) if frac else 0)
    return value, half


def main() -> int:
    entries = tomllib.loads((FIXTURES / "PUBLISHED.toml").read_text(encoding="utf-8"))
    within_1 = within_rounding = within_exact = 0
    families: dict[str, bool] = {}
    strict_families: dict[str, bool] = {}
    rounding_only: list[str] = []
    print(f"{'model':<26}{'read as':<14}{'computed':>16}{'published':>16}{'diff':>8}")
    for key, e in entries.items():
        cfg = json.loads((FIXTURES / e["dir"] / "config.json").read_text(encoding="utf-8"))
        preset, _ = arch_from_config(cfg, source=e["dir"], name=e["hf_id"])
        total = count_params(preset).total
        value, half = parse(e["published"])
        diff = (total - value) / value
        ok1 = abs(diff) <= 0.01
        okr = abs(total - value) <= max(0.01 * value, half)
        within_1 += ok1
        within_rounding += okr
        derived = e.get("derived")
        ddiff = (total - parse(derived)[0]) / parse(derived)[0] if derived else None
        within_exact += ok1 or (ddiff is not None and abs(ddiff) <= 0.01)
        families[preset.model_type] = families.get(preset.model_type, True) and okr
        strict_families[preset.model_type] = strict_families.get(preset.model_type, True) and ok1
        if okr and not ok1:
            note = f"; derived exact {derived} {ddiff:+.2%}" if ddiff is not None else ""
            rounding_only.append(f"{key} ({e['published']!r}, {diff:+.2%}{note})")
        mark = "" if okr else "  <-- outside"
        print(
            f"{key:<26}{preset.model_type:<14}{total:>16,}{e['published']:>16}{diff:>+8.2%}{mark}"
        )
    n = len(entries)
    if rounding_only:
        print(
            "\nwithin the published figure's rounding only (no exact total is published): "
            + ", ".join(rounding_only)
        )
    print(
        f"{sum(strict_families.values())}/{len(strict_families)} model types have every copy "
        "within 1 % of its published figure"
    )
    print(
        f"{n} configs, {len(families)} model types: {within_1}/{n} within 1 % of the "
        f"published figure, {within_rounding}/{n} within 1 % or the figure's rounding"
    )
    print(
        f"{within_exact}/{n} within 1 % of an exact figure: the published one, or where the "
        "publisher only rounds, a total derived from a sibling checkpoint's count (tier C)"
    )
    return 0 if within_rounding == n else 1


if __name__ == "__main__":
    raise SystemExit(main())
