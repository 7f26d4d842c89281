"""Messages the app and its screens exchange. They live apart from ``tui/app.py`` so that a screen
can post one without importing the app (no app <-> screens import cycle)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from slotwise.parts.catalog import Catalog


class CatalogReady(Message):
    def __init__(self, catalog: Catalog, loaded=None) -> None:
        super().__init__()
        self.catalog = catalog
        self.loaded = loaded  # engine.bom.LoadedBom when a BOM was named


class PricesPathChosen(Message):
    """Posted by a screen that used a price list file (the Suggest and TCO screens)."""

    def __init__(self, path: str | None) -> None:
        super().__init__()
        self.path = path


class StartupFailed(Message):
    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title = title
        self.text = text


class KeysReleased(Message):
    """The modal that keys were held for is up: replay them (``SlotwiseApp.hold_keys``).  A
    message, so that every key the app receives before it is held too and the order stays
    the typist's."""
