"""slotwise: a terminal configurator for Supermicro GPU servers.

The installed package is one namespace: ``slotwise.engine`` (pure logic), ``slotwise.parts``
(catalog) and ``slotwise.tui`` (the Textual app and the headless CLI). In the repository the three
live as top-level folders (the project's layout); setuptools' ``package-dir`` maps them under this
package in the wheel and in an editable install.

In a checkout, ``import slotwise.engine`` also works without installing anything, and without
relying on the links beside this file (a clone made with ``core.symlinks=false``, Windows' default,
has plain text files there): when the folders are not reachable through this directory, the
checkout's root is added to this package's search path, so ``slotwise.engine`` is
``<checkout>/engine``. Installed copies never take this branch (no ``pyproject.toml`` beside them).
"""

from pathlib import Path as _Path

_HERE = _Path(__file__).resolve().parent
_ROOT = _HERE.parent
if (_ROOT / "pyproject.toml").is_file() and not all(
    (_HERE / name / "__init__.py").is_file() for name in ("engine", "parts", "tui")
):
    __path__.append(str(_ROOT))  # noqa: F821 - the package's own search path
del _Path, _HERE, _ROOT
