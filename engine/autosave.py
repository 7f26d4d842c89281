"""Autosave and resume: the app's whole editing state, saved atomically after every change.

If the app dies (SIGHUP when the SSH session drops, ``kill``, a crash) the next ``slotwise``
finds the autosave and offers to resume exactly where the user was, undo/redo history included.

Usage (the Textual app; nothing here imports Textual)::

    from engine.autosave import Autosave

    autosave = Autosave()                      # or Autosave(state_dir=tmp_path) in tests
    # after every edit / undo / redo / load / save-as:
    autosave.save(build, undo=undo_stack, redo=redo_stack, bom_path=current_file, meta=meta,
                  undo_labels=labels_of_undo, redo_labels=labels_of_redo)   # labels optional
    # at start-up, when no BOM was named on the command line:
    state = autosave.load()                    # AutosaveState | None
    if state is not None:                      # offer to resume ...
        build, undo, redo = state.build, list(state.undo), list(state.redo)
        # state.undo_labels / state.redo_labels: same length as undo / redo, or empty
        bom_path, meta = state.bom_path, state.meta
    elif autosave.problem:                     # an autosave existed but could not be read:
        notify(autosave.problem)               # it was moved aside (never deleted), say where
    # when the user quits normally, or declines to resume:
    autosave.clear()

Where: ``state_dir`` argument, else env ``SLOTWISE_STATE_DIR``, else
``platformdirs.user_state_dir("slotwise")`` (``~/.local/state/slotwise`` on Linux).  The file is
``autosave.json`` in that directory, JSON with a ``version`` field; the Builds are stored as
their exact pydantic dump, so a resumed build compares equal to the saved one.

Guarantees:

* every save is atomic (engine.atomic): a kill at any instant leaves the previous or the new
  autosave, never a torn file;
* ``load`` never raises on a bad file: a file it cannot read (torn by another tool, written by
  a newer slotwise, hand-edited) is renamed to ``autosave.json.unreadable-<n>`` and
  :attr:`Autosave.problem` says why and where it went; ``load`` then returns ``None``;
* ``save`` raises :class:`AutosaveError` (message names the path and the cause) when the state
  directory cannot be written, so the app can tell the user instead of silently not saving.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from engine import local_paths
from engine.atomic import atomic_write_text
from engine.bom.meta import BomMeta, Clock, to_utc_seconds, utc_now
from engine.build import Build

STATE_ENV = local_paths.STATE_ENV
AUTOSAVE_FILE = "autosave.json"
AUTOSAVE_VERSION = 1


class AutosaveError(OSError):
    """The autosave could not be written (message names the file and the cause)."""


class AutosaveState(BaseModel):
    """Everything needed to put the app back exactly as it was."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = AUTOSAVE_VERSION
    saved_at: datetime
    build: Build
    undo: tuple[Build, ...] = ()  # oldest first; undo pops from the end
    redo: tuple[Build, ...] = ()  # as the app keeps it; redo pops from the end
    bom_path: str | None = None  # the BOM file the build was opened from / saved to
    meta: BomMeta | None = None  # customer / project / engineer being edited
    # Optional: what each undo/redo step did ("put X in slot 3"), parallel to undo / redo.
    undo_labels: tuple[str, ...] = ()
    redo_labels: tuple[str, ...] = ()


def default_state_dir() -> Path:
    return local_paths.state_root()


class Autosave:
    """Reads and writes ``<state_dir>/autosave.json``.  Holds no open files between calls."""

    def __init__(self, state_dir: str | os.PathLike[str] | None = None, *, clock: Clock = utc_now):
        self.state_dir = Path(state_dir).expanduser() if state_dir else default_state_dir()
        self.path = self.state_dir / AUTOSAVE_FILE
        self._clock = clock
        #: Why the last ``load()`` could not use an existing autosave (None if it could).
        self.problem: str | None = None

    # ------------------------------------------------------------------------------ write
    def save(
        self,
        build: Build,
        undo: Sequence[Build] = (),
        redo: Sequence[Build] = (),
        bom_path: str | os.PathLike[str] | None = None,
        meta: BomMeta | None = None,
        *,
        undo_labels: Sequence[str] | None = None,
        redo_labels: Sequence[str] | None = None,
    ) -> AutosaveState:
        """Atomically replace the autosave with this state; return what was written.

        ``undo_labels`` / ``redo_labels`` (optional) name each step, one per Build in ``undo`` /
        ``redo``; a length mismatch is a programming error (ValueError)."""
        for name, labels, stack in (("undo", undo_labels, undo), ("redo", redo_labels, redo)):
            if labels is not None and len(labels) != len(stack):
                raise ValueError(f"{name}_labels has {len(labels)} entries for {len(stack)} builds")
        state = AutosaveState(
            saved_at=to_utc_seconds(self._clock()),
            build=build,
            undo=tuple(undo),
            redo=tuple(redo),
            bom_path=None if bom_path is None else str(bom_path),
            meta=meta,
            undo_labels=tuple(undo_labels or ()),
            redo_labels=tuple(redo_labels or ()),
        )
        text = state.model_dump_json(indent=1, exclude_defaults=False) + "\n"
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.path, text)
        except OSError as exc:
            raise AutosaveError(
                f"cannot write the autosave {self.path}: {exc.strerror or exc}; "
                f"set {STATE_ENV} to a writable directory"
            ) from exc
        return state

    # ------------------------------------------------------------------------------ read
    def exists(self) -> bool:
        return self.path.is_file()

    def load(self) -> AutosaveState | None:
        """The saved state, or None when there is none (or it was unreadable: see problem)."""
        self.problem = None
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            return self._set_aside(f"cannot read it ({exc})")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            return self._set_aside(f"it is not valid JSON (line {exc.lineno}, column {exc.colno})")
        if not isinstance(data, dict):
            return self._set_aside("it is not a JSON object")
        version = data.get("version")
        if version != AUTOSAVE_VERSION:
            return self._set_aside(
                f"it has version {version!r}; this slotwise reads version {AUTOSAVE_VERSION}"
            )
        try:
            return AutosaveState.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(x) for x in err["loc"])
            return self._set_aside(f"field '{where}': {err['msg']}")

    def clear(self) -> None:
        """Forget the autosave (normal quit, or the user declined to resume).

        Also removes temporary files a killed save may have left behind (``.autosave.json.*``):
        they are never read, and only a session that is ending calls ``clear``."""
        self.path.unlink(missing_ok=True)
        for stale in self.state_dir.glob(f".{AUTOSAVE_FILE}.*.tmp"):
            stale.unlink(missing_ok=True)

    # ------------------------------------------------------------------------------ helpers
    def _set_aside(
        self, why: str
    ) -> AutosaveState | None:  # always None: `return self._set_aside(...)`
        n = 1
        while (aside := self.path.with_name(f"{AUTOSAVE_FILE}.unreadable-{n}")).exists():
            n += 1
        try:
            os.replace(self.path, aside)
            where = f"it was kept as {aside}"
        except OSError as exc:
            where = f"it could not be moved aside ({exc.strerror or exc}) and was left in place"
        self.problem = f"the autosave {self.path} could not be resumed: {why}; {where}"
        return None
