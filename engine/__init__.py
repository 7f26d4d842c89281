"""slotwise engine: pure logic (rules, estimator, solver, BOM). Never imports Textual."""
