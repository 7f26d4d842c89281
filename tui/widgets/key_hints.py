"""One line of key hints that always fits: Help, Quit, Export, Undo and Fix first (never
dropped), then the keys of the focused pane, then the rest while there is room.  Replaces
Textual's Footer on the build screen, whose keys fall off the right edge at 80 columns."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from slotwise.tui.keys import HINTS_ALWAYS, HINTS_MAP, HINTS_MORE, hint_items

GAP = "  "


def hints_text(width: int, context: tuple[str, ...] = ()) -> Text:
    """The hint line for ``width`` columns: the always-keys, then as many others as fit."""
    t = Text(no_wrap=True, overflow="crop")
    used = 0
    for n, (key, label) in enumerate(hint_items(HINTS_ALWAYS + context + HINTS_MORE)):
        item = len(key) + 1 + len(label) + (len(GAP) if n else 0)
        if n >= len(HINTS_ALWAYS) and used + item > width:
            continue
        if n:
            t.append(GAP)
        t.append(key, style="bold reverse")
        t.append(" " + label)
        used += item
    return t


class KeyHints(Static):
    DEFAULT_CSS = """
    KeyHints {
        height: 1;
        dock: bottom;
        padding: 0 1;
        background: $panel;
    }
    """

    def __init__(self, **kw) -> None:
        super().__init__("", **kw)
        self.context: tuple[str, ...] = ()

    def on_mount(self) -> None:
        self.watch(self.screen, "focused", self._focus_changed)

    def _focus_changed(self, focused) -> None:
        from slotwise.tui.widgets.chassis_map import ChassisMap

        self.context = HINTS_MAP if isinstance(focused, ChassisMap) else ()
        self.refresh()

    def render(self) -> Text:
        return hints_text(max(self.size.width - 2, 20), self.context)
