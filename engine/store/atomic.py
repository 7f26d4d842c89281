"""Atomic file writes: a reader sees the old file or the new one, never half of either.

Recipe: write to a temporary file in the *same directory* (so the final rename never crosses a
file system), flush + ``fsync`` it, then ``os.replace`` it over the target and ``fsync`` the
directory so the rename itself survives a power cut.  If anything fails the temporary file is
removed and the target is untouched.

API (others may import it)::

    atomic_write_text(path, text, *, overwrite=True)   -> Path
    atomic_write_bytes(path, data, *, overwrite=True)  -> Path

With ``overwrite=False`` an existing target raises :class:`FileExistsError` (the check and the
rename are one atomic ``os.link`` where the file system allows hard links).  A new file gets the
usual ``0o666 & ~umask`` permissions; an overwritten file keeps its permission bits (never a
setuid, setgid or sticky bit); ``mode=`` sets them instead (the autosave's private ``0o600``).
The rename replaces a symbolic link at ``path`` itself: nothing is written through it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def _umask() -> int:
    # os.umask can only be read by setting it; restore immediately (no lasting global change).
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_dir(directory: Path) -> None:
    if os.name != "posix":  # pragma: no cover - directories cannot be opened on Windows
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. a directory we may write but not read
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse fsync on directories
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(
    path: str | os.PathLike[str], data: bytes, *, overwrite: bool = True, mode: int | None = None
) -> Path:
    """Write ``data`` to ``path`` atomically; return the path.

    Raises ``FileExistsError`` when ``overwrite`` is false and ``path`` exists, and the usual
    ``OSError`` subclasses when the directory is missing or not writable.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    exists = os.path.lexists(target)
    if mode is None:
        try:  # permission bits only: a setuid / sticky bit is never copied
            mode = stat.S_IMODE(target.stat().st_mode) & 0o777
        except (FileNotFoundError, NotADirectoryError):
            mode = 0o666 & ~_umask()
    if exists and not overwrite:
        raise FileExistsError(f"{target} already exists")

    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        if overwrite:
            os.replace(tmp, target)
        else:
            _link_no_clobber(tmp, target)
        _fsync_dir(directory)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    return target


def _link_no_clobber(tmp: Path, target: Path) -> None:
    """Move ``tmp`` to ``target`` only if ``target`` does not exist (atomically where possible)."""
    try:
        os.link(tmp, target)  # fails with FileExistsError if someone created target meanwhile
    except FileExistsError:
        raise
    except OSError:  # pragma: no cover - file system without hard links
        if target.exists():
            raise FileExistsError(f"{target} already exists") from None
        os.replace(tmp, target)
        return
    tmp.unlink()


def atomic_write_text(
    path: str | os.PathLike[str],
    text: str,
    *,
    overwrite: bool = True,
    encoding: str = "utf-8",
    mode: int | None = None,
) -> Path:
    """Write ``text`` to ``path`` atomically (UTF-8, newlines written exactly as given)."""
    return atomic_write_bytes(path, text.encode(encoding), overwrite=overwrite, mode=mode)
