"""Entry point for ``slotwise [BOM.toml]``: open the Textual app.  Returns the exit code."""

from __future__ import annotations


def launch(bom: str | None = None, catalog: str | None = None) -> int:
    """Run the app (resume the autosave or start a new build; ``bom`` opens a saved build)."""
    from slotwise.tui.app import SlotwiseApp

    app = SlotwiseApp(bom=bom, catalog_dir=catalog)
    result = app.run()
    return int(result or 0) if app.return_code in (None, 0) else int(app.return_code)
