"""Where a BOM's ``workload.config`` may point: the BOM's own folder, or a Hugging Face id.

A BOM comes from anyone (a colleague, a customer, a stranger).  Its ``config`` is read from the
disk of the machine that opens it, so a hostile file could name any local file (``~/.ssh/...``,
``/etc/...``) and learn from the export whether it exists and what its first fields say.  The
policy, decided here and applied by :func:`engine.bom.read.import_bom`:

* a Hugging Face id (``owner/name``, :func:`engine.model.hub.is_repo_id`) that is not a file
  beside the BOM stays as it is (it is read from the Hub cache);
* a relative path is read **relative to the BOM's folder** (not to the current directory) and
  must stay inside it: ``config.json`` or ``llama/config.json`` beside the BOM is used as its
  absolute path (so it is not looked up in the current folder); one that is not there is kept
  as written (the check then says the model could not be read);
* an absolute path, a ``~`` path, and a path that leaves the folder (``../``, or a symbolic link
  inside the folder that points out of it) are refused: :func:`place_config` says why, the BOM
  loads without that config, and the app asks whether to read it.

A path the user types (on the command line, in the app's field) is the user's own choice and never passes
through here.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict


class PlacedConfig(BaseModel):
    """What :func:`place_config` decided: ``config`` to use (None: refused), ``refused`` why."""

    model_config = ConfigDict(frozen=True)

    config: str | None
    refused: str | None = None


def _is_hub_id(ref: str) -> bool:
    from slotwise.engine.model.hub import is_repo_id  # no network stack: a shape check only

    return is_repo_id(ref) and not ref.endswith(".json")


def place_config(ref: str, bom_file: str | os.PathLike[str] | None) -> PlacedConfig:
    """Apply the policy above to a BOM's ``workload.config``; ``bom_file`` is the BOM's path
    (None, or a name such as ``<bom>`` that is no file: text from elsewhere, whose relative
    paths are checked against the current folder and kept as written)."""
    real = bom_file is not None and os.path.isfile(bom_file)  # "<bom>": text with no file
    folder = Path(bom_file).parent if bom_file is not None and real else Path(".")
    if ref.startswith("~"):
        return PlacedConfig(config=None, refused="it names a file in a home directory")
    if os.path.isabs(ref) or ref.startswith(("\\", "/")) or (len(ref) > 1 and ref[1] == ":"):
        return PlacedConfig(config=None, refused="it is an absolute path")
    try:
        base = folder.resolve()
        target = (base / ref).resolve()
        beside = os.path.lexists(base / ref)
    except (OSError, ValueError, RuntimeError):  # a loop, a NUL byte, a name too long
        return PlacedConfig(config=None, refused="it cannot be read as a path")
    if not beside and _is_hub_id(ref):
        return PlacedConfig(config=ref)
    if target != base and base not in target.parents:
        return PlacedConfig(
            config=None, refused="it leads out of the BOM's folder (.. or a symbolic link)"
        )
    # Beside the BOM: its absolute path (read from there wherever slotwise runs).  Not there:
    # kept as written, so a re-export round-trips it and the check says it is missing.
    return PlacedConfig(config=str(target) if beside and real else ref)


#: Findings whose text comes from reading the model config on this machine.
LOCAL_READ_RULES = frozenset({"workload_fit.unresolved"})
LOCAL_READ_MESSAGE = (
    "could not check the workload: its model config could not be read on the machine that "
    "wrote this document"
)


def exported_message(rule: str, message: str) -> str:
    """A finding's message as an exported document (BOM summary, Markdown) writes it: a failure
    to read the model config says only that, never the local file's name, whether it exists or
    what it holds (the document may go back to whoever sent the BOM)."""
    return LOCAL_READ_MESSAGE if rule in LOCAL_READ_RULES else message
