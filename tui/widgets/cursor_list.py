"""An OptionList whose highlighted option stays visible with NO_COLOR.

Textual draws the highlight as a background shade and turns CSS ``reverse`` into swapped
colours; with NO_COLOR the app drops every colour (tui.app), so both would vanish.  Here the
highlighted option's lines carry the terminal's own reverse-video attribute instead, which
survives without colour."""

from __future__ import annotations

from rich.style import Style
from textual.strip import Strip
from textual.widgets import OptionList

REVERSE = Style(reverse=True, bold=True)


class CursorList(OptionList):
    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if not self.app.no_color or self.highlighted is None:
            return strip
        try:
            index, _ = self._lines[self.scroll_offset.y + y]
        except IndexError:
            return strip
        return strip.apply_style(REVERSE) if index == self.highlighted else strip
