"""slotwise.engine.cost."""
