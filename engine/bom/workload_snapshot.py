"""A workload that names its model by a config.json path or a Hugging Face id, made
self-contained for a BOM: the architecture fields the estimator reads are stored in the workload
(``arch``), so the file gives the same answer on a colleague's machine where the path does not
exist or the Hub cannot be reached.

``self_contained(workload)`` returns the workload with ``config`` replaced by ``arch``: the
config.json's own fields (exactly what ``engine.model.arch.arch_from_config`` reads when it
resolves the path, so the estimate is the same), minus what names the author's machine
(``_name_or_path``, ``_commit_hash``), label maps and null values (TOML has no null; a missing
key and a null are read alike).  It adds ``name`` (the model's name: the config's folder or the
Hub id, never a path) and, for a Hub id, ``hub_id`` and ``hub_revision``.  A reference that
cannot be read now is left as it is (``validate`` then says why).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from slotwise.engine.workload import Workload
from slotwise.parts.safe_io import InputError, loads_json, read_text

#: Keys that describe the author's machine or the tokenizer head, not the architecture.
DROPPED = frozenset({"_name_or_path", "_commit_hash", "id2label", "label2id"})
#: Keys this module adds beside the config's own fields.
ADDED = ("name", "hub_id", "hub_revision")
HUB_REVISION = "main"  # engine.model.resolve fetches a Hub id's config.json at this revision
MAX_CONFIG_BYTES = 4 * 1024 * 1024


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            str(k): _clean(v) for k, v in value.items() if v is not None and str(k) not in DROPPED
        }
    if isinstance(value, list):
        return [_clean(v) for v in value if v is not None]
    return value


def _read_local(ref: str) -> tuple[dict[str, Any], str] | None:
    path = Path(ref).expanduser()
    try:
        if path.is_dir():
            path = path / "config.json"
        if not path.is_file():
            return None
        text = read_text(path, max_bytes=MAX_CONFIG_BYTES, what="config.json")
        cfg = loads_json(text, str(path), what="config.json", nonfinite=True)
    except (InputError, OSError, ValueError):
        return None
    if not isinstance(cfg, dict):
        return None
    name = path.parent.name if path.name == "config.json" and path.parent.name else path.stem
    return cfg, name


def _read_hub(ref: str) -> dict[str, Any] | None:
    from slotwise.engine.model.hub import HubError, fetch_config, is_repo_id

    if not is_repo_id(ref):
        return None
    try:
        fetched = fetch_config(ref, offline=True)
    except HubError:
        return None
    return fetched.config if isinstance(fetched.config, dict) else None


def self_contained(workload: Workload) -> Workload:
    """The workload with a config.json reference replaced by its architecture fields."""
    ref = workload.config
    if not ref:
        return workload
    local = _read_local(ref)
    extra: dict[str, Any]
    if local is not None:
        cfg, name = local
        extra = {"name": name}
    else:
        hub = _read_hub(ref)
        if hub is None:
            return workload
        cfg, extra = hub, {"name": ref, "hub_id": ref, "hub_revision": HUB_REVISION}
    arch = _clean(cfg)
    for key in ADDED:
        arch.pop(key, None)
    arch.update(extra)
    try:
        return workload.model_copy(update={"config": None, "arch": arch})
    except ValueError:
        return workload


def model_name(workload: Workload) -> str:
    """How a document names the workload's model: the preset id, the stored name, the Hub id
    or the config file's folder, never a local path."""
    if workload.model:
        return workload.model
    if workload.arch:
        name = workload.arch.get("name")
        return str(name) if name else "custom architecture"
    ref = workload.config or ""
    path = Path(ref)
    if path.name == "config.json" and path.parent.name:
        return path.parent.name
    if ref.endswith(".json"):
        return path.stem
    if "/" in ref and not ref.startswith((".", "/", "~")) and ref.count("/") == 1:
        return ref  # a Hub id
    return path.name or "custom architecture"
