"""Widgets of the slotwise app.  map_rows is plain data and imports no Textual."""
