"""slotwise.engine.model."""
