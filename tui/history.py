"""Undo/redo as a stack of immutable Builds (DESIGN.md: "Undo/redo is a stack of Builds").

Pure Python, no Textual.  ``push`` with a ``coalesce`` key replaces the top entry when the
previous push had the same key, so typing in the workload form is one undo step, not one per
keystroke.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from slotwise.engine.build import Build


@dataclass
class History:
    current: Build
    limit: int = 200
    _undo: list[tuple[Build, str]] = field(default_factory=list)
    _redo: list[tuple[Build, str]] = field(default_factory=list)
    _coalesce: str | None = None

    def push(self, build: Build, label: str, *, coalesce: str | None = None) -> bool:
        """Make ``build`` current; returns False (and records nothing) if it is unchanged."""
        if build == self.current:
            return False
        if coalesce is not None and coalesce == self._coalesce and self._undo:
            self.current = build  # same undo step as the previous push
        else:
            self._undo.append((self.current, label))
            del self._undo[: -self.limit]
            self.current = build
        self._redo.clear()
        self._coalesce = coalesce
        return True

    def undo(self) -> str | None:
        """Step back; returns the label of the undone change, or None if there is nothing."""
        if not self._undo:
            return None
        prev, label = self._undo.pop()
        self._redo.append((self.current, label))
        self.current = prev
        self._coalesce = None
        return label

    def redo(self) -> str | None:
        if not self._redo:
            return None
        nxt, label = self._redo.pop()
        self._undo.append((self.current, label))
        self.current = nxt
        self._coalesce = None
        return label

    @classmethod
    def restore(cls, current: Build, undo=(), redo=(), undo_labels=(), redo_labels=()) -> History:
        """Rebuild from the Build stacks tui.autosave keeps (oldest first), with each
        step's label when the autosave has them (older autosaves do not: "earlier change")."""
        h = cls(current)
        h._undo = list(zip(undo, _labels(undo_labels, len(undo)), strict=True))
        h._redo = list(zip(redo, _labels(redo_labels, len(redo)), strict=True))
        # An autosave from elsewhere (or hand-edited) may hold far more steps than the limit:
        # keep the newest, or every later edit rewrites all of them (issue #29).
        del h._undo[: -h.limit]
        del h._redo[: -h.limit]
        return h

    @property
    def undo_labels(self) -> list[str]:
        return [label for _, label in self._undo]

    @property
    def redo_labels(self) -> list[str]:
        return [label for _, label in self._redo]

    @property
    def undo_builds(self) -> list[Build]:
        return [b for b, _ in self._undo]

    @property
    def redo_builds(self) -> list[Build]:
        return [b for b, _ in self._redo]

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)


def _labels(labels, n: int) -> list[str]:
    labels = list(labels)
    return labels if len(labels) == n else ["earlier change"] * n
