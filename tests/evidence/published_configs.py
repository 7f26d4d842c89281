"""The real config.json copies under tests/fixtures/configs/ and the totals their publishers state.

Test evidence, not runtime code.  PUBLISHED.toml names each copy's source and published figure
(its header gives the format); :func:`load` reads a copy and counts it the way ``--config`` does.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from slotwise.engine.model.arch import arch_from_config
from slotwise.engine.model.params import ParamCounts, count_params
from slotwise.parts.schema import ModelPreset

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "configs"
PUBLISHED: dict[str, dict[str, Any]] = tomllib.loads(
    (ROOT / "PUBLISHED.toml").read_text(encoding="utf-8")
)


def load(key: str) -> tuple[dict[str, Any], ModelPreset, ParamCounts, list[str]]:
    """(the config dict, the preset read from it, its counts, the reader's warnings)."""
    entry = PUBLISHED[key]
    cfg = json.loads((ROOT / entry["dir"] / "config.json").read_text(encoding="utf-8"))
    preset, warnings = arch_from_config(cfg, source=entry["dir"], name=entry["hf_id"])
    return cfg, preset, count_params(preset), warnings
