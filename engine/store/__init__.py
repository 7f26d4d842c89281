"""slotwise.engine.store."""
