"""docs/ARCHITECTURE.md and docs/CONTRACTS.md name only paths that exist; the guide names every
engine package."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
TOP_LEVEL = {
    "engine",
    "parts",
    "tui",
    "tests",
    "bench",
    "scripts",
    "docs",
    "examples",
    "screenshots",
    "slotwise",
    "pyproject.toml",
    "README.md",
}


def _named_paths(text: str) -> list[str]:
    out = []
    for token in re.findall(r"`([^`\s]+)`", text):
        if "<" in token or "://" in token:
            continue  # a pattern ("rules/<family>.py") or an address, not a path
        if token.split("/")[0] in TOP_LEVEL and ("/" in token or "." in token):
            out.append(token.rstrip("/"))
    return out


@pytest.mark.parametrize(
    "doc",
    [DOC, ROOT / "docs" / "CONTRACTS.md", ROOT / "docs" / "evidence.md"],
    ids=lambda p: p.name,
)
def test_every_path_the_docs_name_exists(doc):
    named = _named_paths(doc.read_text(encoding="utf-8"))
    assert len(named) >= 3
    missing = [p for p in named if not any(ROOT.glob(p)) and not (ROOT / p).exists()]
    assert missing == []


def test_every_engine_package_is_in_the_guide():
    text = DOC.read_text(encoding="utf-8")
    packages = sorted(p.name for p in (ROOT / "engine").iterdir() if (p / "__init__.py").exists())
    assert [p for p in packages if f"`engine/{p}/`" not in text] == []


def test_the_checker_sees_a_missing_path():
    assert _named_paths("see `engine/nowhere.py` and `parts/`") == ["engine/nowhere.py", "parts"]


def test_the_engine_keeps_at_most_five_loose_modules():
    """engine/ is laid out by what it decides (packages); only the facade and shared vocabulary
    sit directly in it."""
    loose = sorted(p.name for p in (ROOT / "engine").glob("*.py"))
    assert len(loose) <= 5, loose
