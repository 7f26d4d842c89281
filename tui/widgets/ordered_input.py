"""Textual's Input, with its own editing keys kept in order with typed characters.

Textual 8.2.8 inserts a printable key in ``Input._on_key`` at once, but a key the Input
handles through a binding (Backspace, Delete, arrows, Home/End, Ctrl+U ...) first bubbles up
to the app, which runs the action later.  When keys arrive in one burst (pasted by a terminal
without bracketed paste, a macro, or batched by a slow SSH link) the characters typed after
such a key are inserted before it runs: "⌫⌫⌫⌫2048" in one read leaves an empty field.  Upstream:
https://github.com/Textualize/textual/issues/6605 (open), fix proposed in
https://github.com/Textualize/textual/pull/6631 (not merged; no release to pin).  The
workaround is that PR's idea: run the Input's own (non-priority) bindings inline, in the
same handler and order as the characters.  Priority bindings are unaffected: the app runs
them before the key reaches the Input.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input as _TextualInput


class Input(_TextualInput):
    async def _on_key(self, event: events.Key) -> None:
        if not event.is_printable:
            for key in event.aliases:
                for binding in self._bindings.key_to_bindings.get(key, ()):
                    if not binding.priority and await self.app.run_action(binding.action, self):
                        event.stop()
                        event.prevent_default()
                        return
        await super()._on_key(event)
