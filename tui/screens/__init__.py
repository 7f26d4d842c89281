"""Screens of the slotwise app (Textual)."""
