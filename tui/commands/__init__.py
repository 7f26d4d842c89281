"""Headless sub-commands of the `slotwise` CLI. None of these modules may import Textual."""
