"""The model preset box: a Select whose type-to-search finds a preset by its displayed name.

Textual's Select jumps to the first option containing the typed text verbatim, forgets the
text 0.7 s after the last key and never shows it, so "llama 3.1 70" typed at a normal pace, or
"llama 70", or "Llama-3.1-70B" did not reliably reach "llama-3.1-70b — Llama 3.1 70B" (issue
#14).  Here the search uses the CLI's matcher (``slotwise.engine.names.close_names``: every
typed word in any order, ignoring case, dots and dashes; else the closest name), the query is
shown on the open list's border, Backspace edits it, and it lasts until the list closes.

Built on Textual's ``SelectOverlay`` (``textual.widgets._select``, pinned ``textual<9`` in
pyproject): only ``_find_search_match`` and the key handler are replaced.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.widgets import Select
from textual.widgets._select import SelectCurrent, SelectOverlay

from slotwise.engine.names import close_names, matches_all_words

#: The query stays until the list closes (it is on screen, so nothing is typed blind).
KEEP_QUERY_S = 3600.0


class PresetOverlay(SelectOverlay):
    def __init__(self, type_to_search: bool = True) -> None:
        super().__init__(type_to_search=type_to_search)
        self._search_reset_delay = KEEP_QUERY_S
        self._typed_before_focus = ""

    def _labels(self) -> list[str]:
        out = []
        for option in self._options:
            prompt = option.prompt
            out.append(prompt.plain if isinstance(prompt, Text) else str(prompt))
        return out

    def _find_search_match(self, query: str) -> int | None:
        labels = self._labels()
        best = close_names(query, labels, n=1)
        if not best:
            self._show_query(query, "no preset matches")
            return None
        exact = matches_all_words(query, best[0])
        self._show_query(query, "" if exact else "closest")
        return labels.index(best[0])

    def _show_query(self, query: str, note: str = "") -> None:
        self.border_title = f"search: {query}" + (f" ({note})" if note else "") if query else None

    def watch_has_focus(self, value: bool) -> None:
        super().watch_has_focus(value)  # clears the query
        self._show_query("")
        if value and self._typed_before_focus:
            self._search_query, self._typed_before_focus = self._typed_before_focus, ""
            index = self._find_search_match(self._search_query)
            if index is not None:
                self.select(index)

    def type_ahead(self, character: str) -> None:
        """A key typed on the closed box (or before this list has focus): it starts the query."""
        if self.has_focus:
            self._search_query += character
            index = self._find_search_match(self._search_query)
            if index is not None:
                self.select(index)
        else:
            self._typed_before_focus += character

    async def _on_key(self, event: events.Key) -> None:
        if self._type_to_search and event.key == "backspace" and self._search_query:
            event.stop()
            event.prevent_default()
            self._search_query = self._search_query[:-1]
            index = self._find_search_match(self._search_query) if self._search_query else None
            if not self._search_query:
                self._show_query("")
            if index is not None:
                self.select(index)
            return
        await super()._on_key(event)


class PresetSelect(Select):
    """A Select of (label, preset id) whose type-to-search is :class:`PresetOverlay`.  A letter
    or digit typed on the closed box opens the list and starts the search with it (Textual's
    Select drops it: "llama 3.1 70" searched for "3.1 70", the space having opened the list)."""

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        """Letters typed on the closed box are a search, not the screen's one-letter keys."""
        return bool(
            self._type_to_search and character and character.isprintable() and character != " "
        )

    async def _on_key(self, event: events.Key) -> None:
        char = event.character
        if not (self._type_to_search and char and event.is_printable and char != " "):
            return
        overlay = self.query_one(PresetOverlay)
        if self.expanded and overlay.has_focus:
            return  # the list has it
        event.stop()
        event.prevent_default()
        if not self.expanded:
            self.action_show_overlay()
        overlay.type_ahead(char)

    def compose(self) -> ComposeResult:
        yield SelectCurrent(self.prompt)
        yield PresetOverlay(type_to_search=self._type_to_search).data_bind(compact=Select.compact)
