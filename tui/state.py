"""The app's state, typed: the build being edited and what belongs to it.

Pure Python, no Textual (the app imports this before its first frame).  ``SlotwiseApp`` keeps one
:class:`AppState` and exposes its fields as read-only typed properties: screens and widgets read
``app.history``, ``app.report``, ``app.bom_path`` ...; they change them only through the app's
methods (``apply_edits``, ``replace_build``, ``export_to`` ...) or by posting a message the app
handles (``PricesPathChosen``).  A per-build snapshot of it is a ``tui.options.BuildOption``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from slotwise.engine.bom.meta import BomMeta
    from slotwise.engine.build import Build
    from slotwise.engine.check.report import Report
    from slotwise.tui.autosave import Autosave
    from slotwise.tui.history import History
    from slotwise.tui.options import BuildOption


@dataclass(frozen=True)
class BomPricing:
    """Unit prices, currency and price note of an opened BOM, written back on export."""

    prices: dict[str, float] | None = None
    currency: str | None = None
    price_note: str | None = None

    def export_kwargs(self) -> dict[str, Any]:
        """As ``engine.bom.export_bom`` takes them."""
        return {"prices": self.prices, "currency": self.currency, "price_note": self.price_note}


@dataclass
class AppState:
    """The build being edited (None before the first build starts) and the session's choices."""

    history: History | None = None
    #: The engine's report on ``history.current`` (re-run on every edit).
    report: Report | None = None
    meta: BomMeta | None = None
    #: Where the build was last opened from or exported to.
    bom_path: str | None = None
    #: The build as last saved (``dirty`` compares against it).
    saved_build: Build | None = None
    #: This build's autosave (locked while this app edits it).
    slot: Autosave | None = None
    pricing: BomPricing = field(default_factory=BomPricing)
    #: Price list file last used on the Suggest / TCO screens (pre-fills the other one).
    prices_path: str | None = None
    #: The build is a copy of an autosave another slotwise holds open (said in the status).
    is_copy: bool = False

    def enter(self, option: BuildOption) -> None:
        """Make ``option``'s build the one being edited (its own history, header, file)."""
        self.history, self.saved_build, self.meta = option.history, option.saved_build, option.meta
        self.bom_path, self.slot, self.pricing = option.bom_path, option.slot, option.pricing
