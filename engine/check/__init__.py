"""slotwise.engine.check."""
