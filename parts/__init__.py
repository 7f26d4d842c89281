"""slotwise parts catalog: schema, loader and bundled data. Never imports Textual."""
