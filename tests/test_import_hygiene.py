"""engine/ and parts/ (and the headless CLI commands) must import without Textual.

Each check runs in a fresh interpreter so that nothing imported by other tests leaks in
(pattern from Harlequin's tests/unit_tests/test_import_hygiene.py)."""

import subprocess
import sys

import pytest

CODE = """
import sys, importlib, pkgutil
import {pkg}
for m in pkgutil.walk_packages({pkg}.__path__, '{pkg}.'):
    importlib.import_module(m.name)
print('textual' in sys.modules)
"""


@pytest.mark.parametrize("pkg", ["slotwise.parts", "slotwise.engine", "slotwise.tui.commands"])
def test_headless_packages_do_not_import_textual(pkg):
    out = subprocess.run(
        [sys.executable, "-c", CODE.format(pkg=pkg)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "False", out.stdout + out.stderr


def test_cli_module_does_not_import_textual():
    code = "import sys, slotwise.tui.cli; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


NO_HTTPX = """
import importlib, pkgutil, sys

class Block:  # as on a machine without the network stack installed
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] == 'httpx':
            raise ModuleNotFoundError("No module named 'httpx'")

sys.meta_path.insert(0, Block())
import {pkg}
for m in pkgutil.walk_packages({pkg}.__path__, '{pkg}.'):
    importlib.import_module(m.name)
print('ok')
"""


@pytest.mark.parametrize("pkg", ["slotwise.parts", "slotwise.engine"])
def test_every_engine_module_imports_without_httpx(pkg):
    """Only a network fetch needs httpx; importing any module of the core must not."""
    out = subprocess.run(
        [sys.executable, "-c", NO_HTTPX.format(pkg=pkg)], capture_output=True, text=True
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
