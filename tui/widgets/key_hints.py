"""One line of key hints that always fits: the keys that must stay visible first (never
dropped), then the keys of the focused pane, then the rest while there is room.  Replaces
Textual's Footer on the build screen, whose keys fall off the right edge at 80 columns, and on
the chassis chooser, where the Footer's one widget per key also cost the first frame about as
much as the rest of the screen (issue #14, start-up time)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.widgets import Static

from slotwise.tui.keys import HINTS_ALWAYS, HINTS_MORE, hint_items

GAP = "  "


def hints_text(
    width: int,
    context: tuple[str, ...] = (),
    *,
    always: tuple[str, ...] = HINTS_ALWAYS,
    more: tuple[str, ...] = HINTS_MORE,
    labels: dict[str, str] | None = None,
) -> Text:
    """The hint line for ``width`` columns: ``always``, then as many others as fit.
    ``labels`` overrides a key's label by id (e.g. Esc reads "Quit" where it quits)."""
    t = Text(no_wrap=True, overflow="crop")
    used = 0
    ids = always + context + more
    for n, (key, label) in enumerate(hint_items(ids)):
        label = (labels or {}).get(ids[n], label)
        item = len(key) + 1 + len(label) + (len(GAP) if n else 0)
        if n >= len(always) and used + item > width:
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

    def __init__(
        self,
        *,
        always: tuple[str, ...] = HINTS_ALWAYS,
        more: tuple[str, ...] = HINTS_MORE,
        context_for: Callable[[object], tuple[str, ...]] | None = None,
        labels: dict[str, str] | None = None,
        **kw,
    ) -> None:
        """``context_for(focused widget)`` gives the extra keys of the focused pane."""
        super().__init__("", **kw)
        self.always, self.more, self.labels = always, more, labels
        self.context_for = context_for
        self.context: tuple[str, ...] = ()

    def on_mount(self) -> None:
        if self.context_for is not None:
            self.watch(self.screen, "focused", self._focus_changed)

    def _focus_changed(self, focused) -> None:
        assert self.context_for is not None
        self.context = self.context_for(focused)
        self.refresh()

    def render(self) -> Text:
        return hints_text(
            max(self.content_size.width, 20),
            self.context,
            always=self.always,
            more=self.more,
            labels=self.labels,
        )
