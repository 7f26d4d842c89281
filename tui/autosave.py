"""Autosave as an editor's hot exit: one autosave per build, a lock per open build, a trash.

If the app dies (SIGHUP when the SSH session drops, ``kill``, a crash) the next ``slotwise``
lists every build it finds and offers to resume any of them exactly where the user was, undo /
redo history and step labels included.  Nothing here imports Textual.

Layout under the state directory (``state_dir`` argument, else env ``SLOTWISE_STATE_DIR``, else
``platformdirs.user_state_dir("slotwise")``, i.e. ``~/.local/state/slotwise`` on Linux)::

    autosaves/<build-id>.json         one per build being edited (JSON, ``version`` field)
    autosaves/<build-id>.lock         held (flock) by the slotwise that edits that build
    autosaves/<build-id>.json.unreadable-<n>   a file that could not be read, set aside
    trash/<build-id>.discarded-<UTC time>.json discarded autosaves, removed after TRASH_KEEP

Usage::

    store = AutosaveStore()                   # or AutosaveStore(tmp_path) in tests
    for entry in store.entries():             # newest first; store.problems says what was
        entry.state, entry.locked_by          # set aside (never deleted) and where it went
    slot = store.new()                        # a fresh build ...
    slot = store.open(entry.build_id)         # ... or resume one
    if (holder := slot.lock()) is not None:   # another slotwise (holder.pid) edits it:
        slot = store.new()                    # work on a copy instead
    slot.save(build, undo=..., redo=..., undo_labels=..., redo_labels=..., saved=exported)
    slot.discard()                            # moved to trash/, never deleted at once
    slot.unlock()                             # on exit (a dead process's lock frees itself)

Guarantees:

* every save is atomic (engine.store.atomic: temp file, fsync, rename, fsync of the directory): a
  kill at any instant leaves the previous or the new autosave, never a torn file;
* ``load`` never raises on a bad file (torn, hand-edited, newer version, absurdly nested or
  large): it is renamed to ``<id>.json.unreadable-<n>`` and :attr:`Autosave.problem` says why
  and where it went;
* two processes never write one autosave: the lock is an ``flock`` on ``<id>.lock``, which the
  kernel releases when its holder dies, so a lock left by a killed slotwise (its PID is still
  written in the file) is taken over by the next one;
* ``discard`` moves the file to ``trash/`` with the time in its name; files there are removed
  only after :data:`TRASH_KEEP` (by :meth:`AutosaveStore.entries`);
* ``save`` and ``lock`` raise :class:`AutosaveError` (message names the path and the cause)
  when the state directory cannot be written, so the app can tell the user once and go on
  without autosave instead of dying or silently not saving;
* the state is private and a planted symbolic link cannot redirect it: ``autosaves/`` and
  ``trash/`` are made ``0700`` (tightened when older versions made them ``0755``) and refused
  when they are symbolic links or not directories; autosaves and locks are ``0600``; a lock is
  opened ``O_NOFOLLOW`` and must be a regular file; a save renames a new file over the old
  name (a link there is replaced, never written through, and no mode is copied from it); an
  autosave that is not a regular file is set aside, never read through;
* ``discard`` takes the build's lock first: a build open in another slotwise is refused
  (:class:`AutosaveBusy`, "open in another slotwise");
* the purge and the clean-up of leftovers (temporary files of a killed save older than
  :data:`STALE_TEMP`, lock files nobody holds) delete only regular files owned by this user
  whose names slotwise gives, never through a link.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import socket
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from slotwise.engine.bom.meta import BomMeta, Clock, to_utc_seconds, utc_now
from slotwise.engine.build import Build
from slotwise.engine.store import local_paths
from slotwise.engine.store.atomic import atomic_write_text
from slotwise.parts.plain_text import refuse_controls
from slotwise.parts.safe_io import (
    InputError,
    kind_of,
    loads_json,
    read_text,
    shorten,
    shorten_text,
)

try:  # POSIX: advisory locks that die with their process
    import fcntl
except ImportError:  # pragma: no cover - Windows: the lock is then only a PID file
    fcntl = None  # type: ignore[assignment]

STATE_ENV = local_paths.STATE_ENV
AUTOSAVE_DIR = "autosaves"
TRASH_DIR = "trash"
LEGACY_FILE = "autosave.json"  # the single autosave slot of slotwise <= 0.1
AUTOSAVE_VERSION = 1
#: How long a discarded autosave stays in ``trash/`` before it is removed.
TRASH_KEEP = timedelta(days=7)
#: Larger files are not parsed (an autosave of 200 undo steps of a full build is ~2 MB).
MAX_AUTOSAVE_BYTES = 64 * 1024 * 1024
#: A save's temporary file older than this belongs to a killed save (a save takes milliseconds).
STALE_TEMP = timedelta(hours=1)
#: Permissions: the state may name customers and projects, so no other user reads it.
DIR_MODE = 0o700
FILE_MODE = 0o600
_STAMP = "%Y%m%dT%H%M%SZ"
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
#: The names ``discard`` gives to files in ``trash/`` (the purge removes nothing else).
_TRASHED = re.compile(r"[A-Za-z0-9_-]{1,64}\.discarded-[0-9]{8}T[0-9]{6}Z\.json")


class AutosaveError(OSError):
    """The autosave could not be written (message names the file and the cause)."""


class AutosaveBusy(AutosaveError):
    """The build is open in another slotwise (``holder`` says which process)."""

    def __init__(self, message: str, holder: LockHolder):
        super().__init__(message)
        self.holder = holder


def _words(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "it is a symbolic link, which slotwise does not follow here"
    return exc.strerror or str(exc)


def _cannot(what: str, path: Path, why: str) -> AutosaveError:
    return AutosaveError(
        f"cannot {what} {path}: {why}; your work is not autosaved "
        f"(set {STATE_ENV} to a private, writable directory)"
    )


def private_dir(path: Path, *, create: bool = True) -> Path:
    """``path`` as a private directory of this user (``0700``), created when missing.

    Raises :class:`AutosaveError` when it is a symbolic link, not a directory, or cannot be
    made; an existing one with wider permissions is tightened (older versions made ``0755``)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if not create:
            raise
        try:
            path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
            os.mkdir(path, DIR_MODE)
        except FileExistsError:
            pass
        except OSError as exc:
            raise _cannot("create the directory", path, _words(exc)) from exc
        return private_dir(path, create=False)
    except OSError as exc:
        raise _cannot("use the directory", path, _words(exc)) from exc
    if stat.S_ISLNK(st.st_mode):
        raise _cannot("use", path, f"it is a symbolic link (to {_readlink(path)}); remove the link")
    if not stat.S_ISDIR(st.st_mode):
        raise _cannot("use", path, "it is not a directory")
    if st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) & 0o077:
        with contextlib.suppress(OSError):
            os.chmod(path, DIR_MODE, follow_symlinks=False)
    return path


def _readlink(path: Path) -> str:
    try:
        return shorten_text(os.readlink(path))
    except OSError:  # pragma: no cover - it was a link a moment ago
        return "?"


def _regular_mine(path: Path) -> os.stat_result | None:
    """``lstat`` of ``path`` when it is a regular file of this user (not a link); else None."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
        return None
    return st


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
    # The build as last exported to / opened from ``bom_path`` (None: never exported).
    saved: Build | None = None
    # Which of the session's builds this was ("Option B", "copy"): told apart in the resume list.
    label: str | None = Field(None, max_length=40)
    # Pinned options (tui.options): the session the build belongs to (the build id of its
    # first option) and its letter there; resuming one option brings back the whole set.
    session: str | None = None
    option: str | None = Field(None, pattern=r"^[A-C]$")

    @field_validator("bom_path", "undo_labels", "redo_labels", "label")
    @classmethod
    def _no_control_characters(cls, v: object) -> object:
        """Shown in the app: an autosave holding control characters is set aside, not shown."""
        return refuse_controls(v)

    @property
    def unexported(self) -> bool:
        return self.saved != self.build


@dataclass(frozen=True)
class LockHolder:
    """Who holds a build's lock (read from the lock file; pid 0 when it could not be read)."""

    pid: int
    host: str


@dataclass(frozen=True)
class AutosaveEntry:
    """One recoverable build, as the start screen lists it."""

    build_id: str
    path: Path
    state: AutosaveState
    locked_by: LockHolder | None  # another slotwise is editing it now


def default_state_dir() -> Path:
    return local_paths.state_root()


def new_build_id(clock: Clock = utc_now) -> str:
    """Sortable by time, unique across processes: ``20261201T030000Z-3fa2c1``."""
    return f"{to_utc_seconds(clock()).strftime(_STAMP)}-{secrets.token_hex(3)}"


class Autosave:
    """One build's autosave file ``<state_dir>/autosaves/<build_id>.json`` and its lock."""

    def __init__(
        self,
        state_dir: str | os.PathLike[str] | None = None,
        *,
        build_id: str | None = None,
        clock: Clock = utc_now,
    ):
        self.state_dir = Path(state_dir).expanduser() if state_dir else default_state_dir()
        self.dir = self.state_dir / AUTOSAVE_DIR
        self.build_id = build_id or new_build_id(clock)
        self.path = self.dir / f"{self.build_id}.json"
        self.lock_path = self.dir / f"{self.build_id}.lock"
        self._clock = clock
        self._lock_fd: int | None = None
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
        saved: Build | None = None,
        label: str | None = None,
        session: str | None = None,
        option: str | None = None,
    ) -> AutosaveState:
        """Atomically replace this build's autosave with this state; return what was written.

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
            saved=saved,
            label=label,
            session=session,
            option=option,
        )
        text = state.model_dump_json(indent=1, exclude_defaults=False) + "\n"
        private_dir(self.dir)
        try:  # a new file renamed over the name: a link planted there is replaced, not followed
            atomic_write_text(self.path, text, mode=FILE_MODE)
        except OSError as exc:
            raise _cannot("write the autosave", self.path, _words(exc)) from exc
        return state

    # ------------------------------------------------------------------------------ read
    def exists(self) -> bool:
        try:
            return stat.S_ISREG(os.lstat(self.path).st_mode)
        except OSError:
            return False

    def load(self) -> AutosaveState | None:
        """The saved state, or None when there is none (or it was unreadable: see problem)."""
        self.problem = None
        try:
            st = os.lstat(self.path)
        except (OSError, ValueError):
            return None
        if not stat.S_ISREG(st.st_mode):  # a link (to anything) is never read through
            kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else kind_of(st.st_mode)
            return self._set_aside(f"it is {kind}, not a regular file slotwise wrote")
        try:
            text = read_text(self.path, max_bytes=MAX_AUTOSAVE_BYTES, what="autosave")
            data = loads_json(text, str(self.path), what="autosave")
        except InputError as exc:
            return self._set_aside(f"cannot read it: {exc.reason}")
        except json.JSONDecodeError as exc:
            return self._set_aside(f"it is not valid JSON (line {exc.lineno}, column {exc.colno})")
        except RecursionError:  # json's C scanner refuses absurd nesting this way
            return self._set_aside("its JSON nests too deeply to be an autosave")
        except ValueError as exc:  # e.g. an integer with too many digits
            return self._set_aside(f"it is not valid JSON ({exc})")
        if not isinstance(data, dict):
            return self._set_aside("it is not a JSON object")
        version = data.get("version")
        if version != AUTOSAVE_VERSION:
            return self._set_aside(
                f"it has version {shorten(version)}; this slotwise reads version {AUTOSAVE_VERSION}"
            )
        try:
            return AutosaveState.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = shorten_text(".".join(str(x) for x in err["loc"]))
            return self._set_aside(f"field '{where}': {err['msg']}")
        except (RecursionError, ValueError) as exc:  # pragma: no cover - pydantic's own guard
            return self._set_aside(f"it cannot be read as an autosave ({type(exc).__name__})")

    def set_aside(self, why: str) -> None:
        """Move a readable autosave the app cannot use (e.g. an unknown chassis) aside."""
        self._set_aside(why)

    # ------------------------------------------------------------------------------ lock
    def lock(self) -> LockHolder | None:
        """Take this build's lock; None when taken, else who holds it (another slotwise).

        A lock file left by a dead process is not held (flock dies with its holder): it is
        taken over, and the file then names this process."""
        if self._lock_fd is not None:
            return None
        private_dir(self.dir)
        me = f"{os.getpid()} {socket.gethostname()}\n"
        for _ in range(5):
            fd = self._open_lock(os.O_RDWR | os.O_CREAT)
            if not _try_flock(fd):
                os.close(fd)
                return self.holder() or LockHolder(0, "")
            try:
                same = os.fstat(fd).st_ino == os.lstat(self.lock_path).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # unlinked by its previous holder meanwhile: lock the new file
                os.close(fd)
                continue
            try:
                os.ftruncate(fd, 0)
                os.write(fd, me.encode())
            except OSError as exc:  # e.g. a full disk: the flock is held all the same
                if exc.errno != errno.ENOSPC:
                    os.close(fd)
                    raise _cannot("write the lock", self.lock_path, _words(exc)) from exc
            self._lock_fd = fd
            return None
        return LockHolder(0, "")  # pragma: no cover - the file kept being replaced

    def _open_lock(self, flags: int) -> int:
        """The lock file, opened without following a link; a regular file or AutosaveError."""
        try:
            fd = os.open(self.lock_path, flags | _O_NOFOLLOW | _O_CLOEXEC | _O_NONBLOCK, FILE_MODE)
        except OSError as exc:
            raise _cannot("open the lock", self.lock_path, _words(exc)) from exc
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            raise _cannot("use the lock", self.lock_path, "it is not a regular file")
        return fd

    def holder(self) -> LockHolder | None:
        """Who holds the lock now (None: nobody, or this object itself)."""
        if self._lock_fd is not None:
            return None
        try:
            fd = self._open_lock(os.O_RDONLY)
        except OSError:
            return None
        try:
            if _try_flock(fd, shared=True):
                return None  # nobody holds it (a stale file of a dead process counts as free)
            text = os.read(fd, 200).decode("utf-8", "replace").split()
        finally:
            os.close(fd)
        pid = int(text[0]) if text and text[0].isdigit() else 0
        return LockHolder(pid, text[1] if len(text) > 1 else "")

    def unlock(self) -> None:
        if self._lock_fd is None:
            return
        fd, self._lock_fd = self._lock_fd, None
        with contextlib.suppress(OSError):
            self.lock_path.unlink()  # while still held: a waiter then re-checks the inode
        os.close(fd)

    # ------------------------------------------------------------------------------ discard
    def discard(self) -> Path | None:
        """Move the autosave to ``trash/`` (kept for TRASH_KEEP); return where it went.

        Takes the build's lock first (and frees it again unless this object held it):
        :class:`AutosaveBusy` when another slotwise has the build open.  Also removes
        temporary files a killed save may have left behind (never read)."""
        held = self._lock_fd is not None
        holder = self.lock()
        if holder is not None:
            pid = f" (pid {holder.pid})" if holder.pid else ""
            raise AutosaveBusy(
                f"the build {self.build_id} is open in another slotwise{pid}: quit it there "
                "first; nothing was discarded",
                holder,
            )
        try:
            dest = None
            if os.path.lexists(self.path):
                trash = private_dir(self.state_dir / TRASH_DIR)
                stamp = to_utc_seconds(self._clock()).strftime(_STAMP)
                dest = trash / f"{self.build_id}.discarded-{stamp}.json"
                try:
                    os.replace(self.path, dest)
                except OSError as exc:
                    raise _cannot("move to the trash", self.path, _words(exc)) from exc
            for stale in self.dir.glob(f".{self.path.name}.*.tmp"):
                if _regular_mine(stale) is not None:
                    stale.unlink(missing_ok=True)
            return dest
        finally:
            if not held:
                self.unlock()

    # ------------------------------------------------------------------------------ helpers
    def _set_aside(self, why: str) -> AutosaveState | None:  # always None (for `return`)
        n = 1
        while os.path.lexists(aside := self.path.with_name(f"{self.path.name}.unreadable-{n}")):
            n += 1
        try:
            os.replace(self.path, aside)
            where = f"it was kept as {aside}"
        except OSError as exc:
            where = f"it could not be moved aside ({exc.strerror or exc}) and was left in place"
        self.problem = f"the autosave {self.path} could not be resumed: {why}; {where}"
        return None


def _try_flock(fd: int, shared: bool = False) -> bool:
    if fcntl is None:  # pragma: no cover - no advisory locks: behave as unlocked
        return True
    try:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:  # pragma: no cover - a file system without flock
        return True
    if shared:
        fcntl.flock(fd, fcntl.LOCK_UN)
    return True


class AutosaveStore:
    """All autosaves under one state directory."""

    def __init__(self, state_dir: str | os.PathLike[str] | None = None, *, clock: Clock = utc_now):
        self.state_dir = Path(state_dir).expanduser() if state_dir else default_state_dir()
        self.dir = self.state_dir / AUTOSAVE_DIR
        self.trash = self.state_dir / TRASH_DIR
        self._clock = clock
        #: What the last ``entries()`` set aside, one sentence each (path included).
        self.problems: list[str] = []

    def new(self) -> Autosave:
        return Autosave(self.state_dir, clock=self._clock)

    def open(self, build_id: str) -> Autosave:
        return Autosave(self.state_dir, build_id=build_id, clock=self._clock)

    def entries(self) -> list[AutosaveEntry]:
        """Every recoverable build, newest first.  Unreadable files are set aside (see
        ``problems``); the single autosave of older versions is moved into ``autosaves/``;
        trash older than TRASH_KEEP is removed."""
        self.problems = []
        try:
            return self._entries()
        except OSError as exc:  # e.g. a state directory this user may not read
            self.problems.append(
                str(exc)
                if isinstance(exc, AutosaveError)
                else str(_cannot("read the autosaves in", self.dir, _words(exc)))
            )
            return []

    def _entries(self) -> list[AutosaveEntry]:
        if os.path.lexists(self.dir):
            private_dir(self.dir, create=False)
        self._adopt_legacy()
        self._empty_trash()
        self._clean_leftovers()
        out = []
        for path in sorted(self.dir.glob("*.json")) if self.dir.is_dir() else ():
            slot = self.open(path.stem)
            state = slot.load()
            if state is None:
                if slot.problem:
                    self.problems.append(slot.problem)
                continue
            out.append(AutosaveEntry(slot.build_id, slot.path, state, slot.holder()))
        out.sort(key=lambda e: (e.state.saved_at, e.build_id), reverse=True)
        return out

    def _adopt_legacy(self) -> None:
        legacy = self.state_dir / LEGACY_FILE
        st = _regular_mine(legacy)
        if st is None:
            return
        try:
            when = datetime.fromtimestamp(st.st_mtime, UTC)
            private_dir(self.dir)
            os.replace(legacy, self.dir / f"{new_build_id(lambda: when)}.json")
        except OSError as exc:
            self.problems.append(
                f"the autosave {legacy} of an older slotwise could not be moved to "
                f"{self.dir}: {exc.strerror or exc}"
            )

    def _empty_trash(self) -> None:
        """Remove discarded autosaves older than TRASH_KEEP: only regular files of this user
        named as ``discard`` names them, in a ``trash/`` that is a real directory."""
        try:
            if not os.path.lexists(self.trash):
                return
            private_dir(self.trash, create=False)
        except (AutosaveError, FileNotFoundError) as exc:
            self.problems.append(f"{exc}; nothing in it was removed")
            return
        now = to_utc_seconds(self._clock())
        for p in self.trash.glob("*.discarded-*.json"):
            if not _TRASHED.fullmatch(p.name) or _regular_mine(p) is None:
                continue  # not ours: leave it
            stamp = p.name.rsplit(".discarded-", 1)[1].removesuffix(".json")
            try:
                when = datetime.strptime(stamp, _STAMP).replace(tzinfo=UTC)
            except ValueError:
                continue
            if now - when > TRASH_KEEP:
                with contextlib.suppress(OSError):
                    p.unlink()

    def _clean_leftovers(self) -> None:
        """Temporary files of saves killed more than STALE_TEMP ago, and lock files that no
        slotwise holds and whose build has no autosave (regular files of this user only)."""
        if not self.dir.is_dir():
            return
        cutoff = time.time() - STALE_TEMP.total_seconds()
        for tmp in self.dir.glob(".*.json.*.tmp"):
            st = _regular_mine(tmp)
            if st is not None and st.st_mtime < cutoff:
                with contextlib.suppress(OSError):
                    tmp.unlink()
        for lock in self.dir.glob("*.lock"):
            if _regular_mine(lock) is None or os.path.lexists(lock.with_suffix(".json")):
                continue
            slot = self.open(lock.stem)
            with contextlib.suppress(OSError):
                if slot.lock() is None:  # nobody holds it: take it, then unlock removes it
                    slot.unlock()
