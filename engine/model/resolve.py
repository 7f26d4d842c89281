"""Turn a Workload's model reference into the architecture the estimator needs.

``workload.model``  -> a preset from the catalog (``parts/data/models.toml``);
``workload.config`` -> a local config.json (a file, or a directory holding one) when the path
                       exists, else a Hugging Face id fetched through :mod:`engine.model.hub` (cached;
                       ``offline=True`` means cache only);
``workload.arch``   -> a dict of config.json-style numbers, read by ``arch_from_config``.

Every failure is a :class:`ModelResolveError` whose message names the flag, file or Hub id and
what to do.  Warnings about an imported config (unknown model_type, assumed fields) are returned
by :func:`resolve_arch_with_warnings` and appended to the preset's ``notes``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slotwise.engine.inputs import ref as input_ref
from slotwise.engine.model.arch import ArchConfigError, arch_from_config
from slotwise.engine.model.checkpoint import checkpoint_format
from slotwise.engine.names import close_names
from slotwise.parts.safe_io import (
    MAX_CONFIG_BYTES,
    InputError,
    loads_json,
    read_text,
    shorten,
    shorten_path,
    shorten_text,
)
from slotwise.parts.schema import ModelPreset

if TYPE_CHECKING:
    from slotwise.engine.workload import Workload
    from slotwise.parts.catalog import Catalog


class ModelResolveError(ValueError):
    """The workload's model could not be resolved; the message says what to do."""


def resolve_arch(
    workload: Workload,
    catalog: Catalog,
    *,
    offline: bool = False,
    timeout: float | None = None,
) -> ModelPreset:
    """The architecture of the workload's model (see the module docstring)."""
    preset, _ = resolve_arch_with_warnings(workload, catalog, offline=offline, timeout=timeout)
    return preset


def resolve_arch_with_warnings(
    workload: Workload,
    catalog: Catalog,
    *,
    offline: bool = False,
    timeout: float | None = None,
) -> tuple[ModelPreset, list[str]]:
    if workload.model:
        return _preset(workload.model, catalog), []
    if workload.config:
        return _from_config_ref(workload.config, offline=offline, timeout=timeout)
    if workload.arch:
        return _from_arch(dict(workload.arch))
    raise ModelResolveError(
        f"No model given: name a preset with {input_ref('model')} (list them with "
        f"{input_ref('part_list', 'model')}), a config.json file or Hugging Face id with "
        f"{input_ref('config')}, or architecture numbers."
    )


# ------------------------------------------------------------------------------ presets


def _preset(model_id: str, catalog: Catalog) -> ModelPreset:
    models = catalog.models
    key = model_id.strip()
    if key in models:
        return models[key]
    lowered = {k.lower(): k for k in models}
    if key.lower() in lowered:
        return models[lowered[key.lower()]]
    close = close_names(key[:200], models, n=3)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise ModelResolveError(
        f"{input_ref('model')} {shorten(model_id)} is not a preset in the catalog.{hint} List the "
        f"presets with {input_ref('part_list', 'model')}, or pass a config.json path or Hugging "
        f"Face id with {input_ref('config')}."
    )


# ------------------------------------------------------------------------------ config.json


def _exists(path: Path) -> bool:
    """Whether anything is at ``path`` (an over-long or otherwise impossible path: no)."""
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):
        return False


def _from_config_ref(
    ref: str, *, offline: bool, timeout: float | None
) -> tuple[ModelPreset, list[str]]:
    # engine.model.hub (httpx) is imported only when a Hub id is resolved: evaluating a build or a
    # preset never loads the network stack.
    from slotwise.engine.model.hub import (
        DEFAULT_TIMEOUT_S,
        HubError,
        fetch_config,
        is_repo_id,
        safetensors_params,
    )

    path = Path(ref).expanduser()
    if _exists(path) and os.path.isdir(path):
        path = path / "config.json"
        if not _exists(path):
            raise ModelResolveError(
                f"{input_ref('config')} {shorten(ref)} is a directory without a config.json; point at the file."
            )
    if _exists(path):
        return _from_file(path)
    if _looks_like_path(ref) or not is_repo_id(ref):
        raise ModelResolveError(
            f"{input_ref('config')} {shorten(ref)}: no such file. Give the path of an existing config.json, or a "
            "Hugging Face model id such as meta-llama/Llama-3.1-8B."
        )
    try:
        fetched = fetch_config(
            ref, offline=offline, timeout=DEFAULT_TIMEOUT_S if timeout is None else timeout
        )
    except HubError as exc:
        raise ModelResolveError(f"{input_ref('config')} {shorten_text(ref)}: {exc}") from exc
    warnings: list[str] = []
    if fetched.stale_reason:
        warnings.append(
            f"{ref}: using the cached config.json ({fetched.stale_reason}); it may be outdated"
        )
    preset, warnings = _arch(fetched.config, source=fetched.url, name=ref, warnings=warnings)
    hub_total = safetensors_params(
        ref,
        offline=offline or fetched.from_cache,  # the Hub just failed: do not wait on it twice
        timeout=DEFAULT_TIMEOUT_S if timeout is None else timeout,
    )
    if hub_total:
        warnings.append(cross_check(preset, hub_total, ref))
    return preset.model_copy(update={"hf_id": ref}), warnings


def cross_check(preset: ModelPreset, hub_total: int, ref: str) -> str:
    """One line comparing the computed count with the Hub's safetensors count.

    A checkpoint can legitimately hold more than the model slotwise counts: a vision tower
    slotwise does not count, multi-token-prediction layers (DeepSeek-V3), quantization scales
    (FP8 block scales, GPTQ/AWQ packing changes the element count), or buffers saved as
    tensors (GPT-2's attention masks).  So a difference is reported, not corrected.
    """
    ours = round(preset.published_params_b * 1e9)
    diff = (ours - hub_total) / hub_total
    line = (
        f"{ref}: {ours / 1e9:.3f}B parameters counted from config.json; the Hub's safetensors "
        f"metadata says {hub_total / 1e9:.3f}B ({diff:+.1%})"
    )
    if abs(diff) <= 0.01:
        return line + ": they agree"
    return line + (
        ": they differ by more than 1 % (the checkpoint may hold a vision tower, "
        "multi-token-prediction layers, quantization scales or packed weights); memory is "
        "estimated from the architecture"
    )


def _looks_like_path(ref: str) -> bool:
    return (
        ref.endswith(".json")
        or ref.startswith((".", "/", "~"))
        or "\\" in ref
        or ref.count("/") > 1
    )


def _from_file(path: Path) -> tuple[ModelPreset, list[str]]:
    shown = shorten_path(path)
    try:
        text = read_text(path, max_bytes=MAX_CONFIG_BYTES, what="config.json")
        cfg = loads_json(text, shown, what="config.json", nonfinite=True)
    except InputError as exc:
        raise ModelResolveError(f"{input_ref('config')} {exc}.") from exc
    except json.JSONDecodeError as exc:
        raise ModelResolveError(
            f"{input_ref('config')} {shown}:{exc.lineno}:{exc.colno}: malformed JSON ({exc.msg}). Fix the "
            "file or download it again from the model's repository."
        ) from exc
    if not isinstance(cfg, dict):
        raise ModelResolveError(
            f"{input_ref('config')} {shown}: the JSON is a {type(cfg).__name__}, not an object of config "
            "fields; is this a config.json?"
        )
    name = path.parent.name if path.name == "config.json" and path.parent.name else path.stem
    return _arch(cfg, source=path.resolve().as_uri(), name=name)


def _from_arch(arch: dict[str, Any]) -> tuple[ModelPreset, list[str]]:
    return _arch(arch, source="architecture numbers", name=str(arch.get("name") or "custom"))


def _arch(
    cfg: dict[str, Any], *, source: str, name: str, warnings: list[str] | None = None
) -> tuple[ModelPreset, list[str]]:
    try:
        preset, found = arch_from_config(cfg, source=source, name=name)
    except ArchConfigError as exc:
        raise ModelResolveError(f"{exc}.") from exc
    except (ArithmeticError, TypeError, ValueError, KeyError, IndexError, RecursionError) as exc:
        # A family mapper met a value it cannot use (a zero period, a string for a count):
        # the config is bad input, said in one sentence instead of a traceback.
        raise ModelResolveError(
            f"{shorten_text(source, 200)}: the config has a value slotwise cannot use "
            f"({type(exc).__name__}: {shorten_text(str(exc), 200)}); check the file against "
            "the model's published config.json."
        ) from exc
    warnings = [*(warnings or []), *found]
    fmt = checkpoint_format(cfg)
    if fmt.note:
        preset = preset.model_copy(
            update={"stored_precision": fmt.precision, "stored_format": fmt.note}
        )
    if warnings:
        notes = " ".join(filter(None, [preset.notes, "Warnings: " + "; ".join(warnings) + "."]))
        preset = preset.model_copy(update={"notes": notes})
    return preset, warnings


def config_dict(ref: str) -> dict[str, Any] | None:
    """The raw config.json behind a workload's ``config`` (a local file or folder, else the Hub
    cache, offline), or None when it cannot be read (resolving reports any problem)."""
    path = Path(ref).expanduser()
    try:
        if path.is_dir():
            path = path / "config.json"
        if os.path.lexists(path):
            text = read_text(path, max_bytes=MAX_CONFIG_BYTES, what="config.json")
            data = loads_json(text, str(path), what="config.json", nonfinite=True)
        else:
            from slotwise.engine.model.hub import HubError, fetch_config

            try:
                data = fetch_config(ref, offline=True).config
            except HubError:
                return None
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None
