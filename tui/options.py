"""The session's options: up to three builds kept side by side, each with its own undo history,
autosave slot, BOM path and header, so the customer can compare them (engine.plan.compare).

Pure Python, no Textual.  The app keeps one :class:`OptionSet`; the option being edited is the
active one, the others wait with their state untouched.  Pinning keeps the current build as an
option and goes on editing a copy of it (a new option with a fresh history and its own autosave);
opening an option makes it the active one again, with its own undo steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from slotwise.tui.state import BomPricing

if TYPE_CHECKING:  # the app imports this before its first frame: nothing heavy at import time
    from slotwise.engine.bom.meta import BomMeta
    from slotwise.engine.build import Build
    from slotwise.tui.autosave import Autosave
    from slotwise.tui.history import History

MAX_OPTIONS = 3
LETTERS = "ABC"


@dataclass
class BuildOption:
    """Everything that belongs to one build of the session (not to the app)."""

    history: History
    meta: BomMeta
    saved_build: Build | None = None
    bom_path: str | None = None
    slot: Autosave | None = None
    pricing: BomPricing = field(default_factory=BomPricing)

    @property
    def build(self) -> Build:
        return self.history.current


@dataclass
class OptionSet:
    """Up to MAX_OPTIONS builds; ``active`` is the index of the one being edited."""

    options: list[BuildOption] = field(default_factory=list)
    active: int = 0
    #: Written into every option's autosave so a restart brings the set back together: the
    #: build id of the first option's autosave (None until the first pin).
    session: str | None = None

    def __len__(self) -> int:
        return len(self.options)

    @property
    def full(self) -> bool:
        return len(self.options) >= MAX_OPTIONS

    def label(self, i: int) -> str:
        return f"Option {LETTERS[i]}"

    def letter(self, i: int) -> str:
        return LETTERS[i]

    def add(self, option: BuildOption) -> int:
        if self.full:
            raise ValueError(f"the session keeps at most {MAX_OPTIONS} options")
        self.options.append(option)
        return len(self.options) - 1

    def copy_of(self, option: BuildOption, slot: Autosave | None) -> BuildOption:
        """A new option that starts as ``option``'s current build, with a history of its own."""
        from slotwise.tui.history import History

        return BuildOption(
            history=History(option.build),
            saved_build=None,
            meta=option.meta,
            bom_path=None,  # a copy is not the file the original came from
            slot=slot,
            pricing=option.pricing,  # frozen: shared safely
        )
