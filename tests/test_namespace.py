"""One install namespace (issue #16): the wheel installs ``slotwise.engine``, ``slotwise.parts`` and
``slotwise.tui`` (never the generic top-level names), the package list in pyproject.toml matches the
folders, and no module anywhere imports the top-level names (which would load a second copy of a
module beside its ``slotwise.*`` twin in a checkout)."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOP = ("engine", "parts", "tui")


def _python_files():
    for folder in (*TOP, "tests", "bench", "scripts", "slotwise"):
        for path in (ROOT / folder).rglob("*.py"):
            if "__snapshots__" not in path.parts:
                yield path


def test_no_module_imports_the_bare_top_level_names():
    offenders = []
    for path in _python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(ROOT)}:{node.lineno}: {n}"
                for n in names
                if n.split(".")[0] in TOP
            ]
    assert offenders == [], "import slotwise.<pkg>... instead:\n" + "\n".join(offenders)


def test_the_package_list_matches_the_folders():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    declared = set(config["setuptools"]["packages"])
    on_disk = {"slotwise"} | {
        "slotwise." + ".".join(init.parent.relative_to(ROOT).parts)
        for top in TOP
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert declared == on_disk
    assert config["setuptools"]["package-dir"] == {"slotwise": "slotwise"} | {
        f"slotwise.{t}": t for t in TOP
    }


def test_the_checkout_links_where_present_point_at_the_folders():
    for top in TOP:
        link = ROOT / "slotwise" / top
        if link.is_symlink():
            assert link.resolve() == (ROOT / top).resolve()


def test_a_checkout_without_symlinks_imports_the_folders(tmp_path):
    """``git -c core.symlinks=false clone`` leaves text files where the links were; the package's
    ``__init__`` then finds the folders beside it (nothing depends on the links)."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (tmp_path / "slotwise").mkdir()
    init = (ROOT / "slotwise" / "__init__.py").read_text(encoding="utf-8")
    (tmp_path / "slotwise" / "__init__.py").write_text(init, encoding="utf-8")
    for top in TOP:
        (tmp_path / "slotwise" / top).write_text(f"../{top}", encoding="utf-8")
        (tmp_path / top).mkdir()
        (tmp_path / top / "__init__.py").write_text(f"NAME = {top!r}\n", encoding="utf-8")
    code = (
        "import sys; sys.path.insert(0, '.')\n"
        "import slotwise.engine, slotwise.parts, slotwise.tui\n"
        "print(slotwise.engine.NAME, slotwise.parts.NAME, slotwise.tui.NAME)"
    )
    out = _isolated(code, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == list(TOP)


def _isolated(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # -I: no current directory and no PYTHONPATH on sys.path, so only an installed copy answers
    return subprocess.run(
        [sys.executable, "-I", "-c", code], cwd=cwd, capture_output=True, text=True
    )


def test_after_install_slotwise_engine_imports_and_engine_does_not(tmp_path):
    probe = _isolated(
        "import importlib.util; print(importlib.util.find_spec('slotwise') is None)", tmp_path
    )
    if probe.stdout.strip() != "False":
        pytest.skip("slotwise is not installed in this environment (CI runs `pip install .`)")
    code = (
        "import importlib.util, slotwise.engine, slotwise.parts.catalog, slotwise.tui.cli\n"
        "print([importlib.util.find_spec(n) is None for n in ('engine', 'parts', 'tui')])\n"
        "print(slotwise.parts.catalog.load_catalog().chassis != {})"
    )
    out = _isolated(code, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[True,", "True,", "True]", "True"], out.stdout
    script = Path(sys.executable).with_name("slotwise")
    if script.exists():
        run = subprocess.run(
            [str(script), "parts", "--kind", "chassis"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0 and "SYS-421GE-TNRT" in run.stdout, run.stderr
