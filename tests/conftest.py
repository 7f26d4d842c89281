"""Fixtures shared by every test folder: the catalogs, built once per session."""

from __future__ import annotations

import os
from functools import lru_cache

import pytest

from slotwise.parts.catalog import CATALOG_ENV, Catalog, load_catalog


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    """The bundled catalog (parts/data), as the app and the CLI load it."""
    return load_catalog()


@lru_cache(maxsize=1)
def _bundled_only() -> Catalog:
    """The bundled catalog with no overlay (called only while SLOTWISE_CATALOG is unset)."""
    return load_catalog()


@pytest.fixture(autouse=True)
def _cli_reads_the_bundled_catalog_once(monkeypatch):
    """In-process CLI calls (``slotwise.tui.cli.main``) read the catalog's TOML once per command,
    as a real process does once per run: ~60 ms of parsing and validation per call, and the
    suite makes hundreds of such calls.  When a command asks for the bundled catalog alone (no
    ``--catalog``, no SLOTWISE_CATALOG overlay) it gets the records read once per session, in a
    Catalog instance of this test's own: the engine keeps its per-catalog caches (estimates,
    chassis indexes) on the instance, so no cached answer crosses from one test to the next (a
    test that breaks the estimator sees it broken).  An overlay still reads its files, and the
    subprocess tests, the app's start-up and tests/parts load the catalog for real."""
    from slotwise.tui.commands import common

    real = common.load_catalog
    mine: list[Catalog] = []

    def load(overlay=None, *, bundled=None):
        if overlay is None and bundled is None and not os.environ.get(CATALOG_ENV):
            if not mine:
                read = _bundled_only()
                mine.append(Catalog(records=read.records, origin=read.origin, version=read.version))
            return mine[0]
        return real(overlay, bundled=bundled)

    monkeypatch.setattr(common, "load_catalog", load)
