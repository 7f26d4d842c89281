"""Rule families: each module has ``check(ctx)`` that appends Findings (and Budgets) to ctx."""
