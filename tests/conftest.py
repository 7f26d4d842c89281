"""Fixtures shared by every test folder: the catalogs, built once per session."""

from __future__ import annotations

import pytest

from slotwise.parts.catalog import load_catalog


@pytest.fixture(scope="session")
def catalog():
    """The bundled catalog (parts/data), as the app and the CLI load it."""
    return load_catalog()
