"""slotwise.engine.plan."""
