"""Base classes for the app's screens: ``self.app`` is the ``SlotwiseApp``, typed.

Textual types ``Screen.app`` as ``App[object]``; these bases narrow it for the type checker (a
``TYPE_CHECKING``-only property, nothing changes at run time), so a screen reads the app's typed
state (``self.app.history``, ``self.app.report`` ...) and calls its methods without casts or
``getattr``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual.screen import ModalScreen, Screen

if TYPE_CHECKING:
    from slotwise.tui.app import SlotwiseApp

ResultT = TypeVar("ResultT")


class AppScreen(Screen[ResultT]):
    """A full screen of the slotwise app."""

    if TYPE_CHECKING:
        app: SlotwiseApp


class AppModal(ModalScreen[ResultT]):
    """A dialog of the slotwise app."""

    if TYPE_CHECKING:
        app: SlotwiseApp
