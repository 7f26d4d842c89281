"""Fetch a model's config.json from the Hugging Face Hub and cache it.

Turning the config into an architecture is pure data mapping and lives in
:mod:`engine.model.arch` (no network code there); this module only fetches and caches.

Network behaviour (all settings come from the environment, never from files):

* ``SLOTWISE_HF_ENDPOINT`` — base URL (default ``https://huggingface.co``); the file is
  ``{endpoint}/{repo_id}/resolve/{revision}/config.json``.
* ``HF_TOKEN`` — sent as ``Authorization: Bearer …`` when set; it is never written to the cache,
  never logged and never part of an error message.
* ``SLOTWISE_CACHE_DIR`` — cache root (default ``platformdirs.user_cache_dir("slotwise")``); a
  fetched config.json lands in ``<root>/hub/<owner>--<name>/<revision>/config.json``, written
  atomically (temp file in the same directory + ``os.replace``).
* ``SLOTWISE_OFFLINE=1`` or ``HF_HUB_OFFLINE=1`` — cache only, no network.

Input limits (``parts.safe_io``): the whole download must arrive within ``timeout`` seconds
(a total deadline, so a server trickling its answer cannot hold ``estimate`` open), at most
:data:`MAX_CONFIG_BYTES`, JSON nested at most ``safe_io.MAX_DEPTH`` deep; a repo id part is at
most :data:`MAX_ID_PART` characters; the cache file must be a regular file.

Online, the Hub is asked first; when it cannot be reached (timeout, connection error, 5xx) a cached
copy is used and :attr:`HubConfig.stale_reason` says why.  Every failure is a :class:`HubError`
whose message is one paragraph saying what happened and what to do.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slotwise.engine.inputs import ref
from slotwise.engine.store import local_paths
from slotwise.engine.store.atomic import atomic_write_bytes
from slotwise.parts.safe_io import (
    MAX_CONFIG_BYTES,
    DeadlineExceeded,
    InputError,
    TooLarge,
    fetch,
    loads_json,
    read_bytes,
    shorten,
    shorten_text,
)

DEFAULT_ENDPOINT = "https://huggingface.co"
ENDPOINT_ENV = "SLOTWISE_HF_ENDPOINT"
CACHE_ENV = local_paths.CACHE_ENV
TOKEN_ENV = "HF_TOKEN"
OFFLINE_ENVS = local_paths.OFFLINE_ENVS
#: Total time for one download, connect to last byte (a trickling server is cut off here).
DEFAULT_TIMEOUT_S = 10.0
#: The Hub limits a repository (and an owner) name to 96 characters.
MAX_ID_PART = 96

# "owner/name" (or a legacy single-segment id such as "gpt2"); no "..", no leading dot.
_REPO_ID = re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9_.-]*/)?[A-Za-z0-9][A-Za-z0-9_.-]*$")
_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class HubError(Exception):
    """Fetching a config.json failed; the message says what happened and what to do."""


@dataclass(frozen=True)
class HubConfig:
    """A config.json from the Hub: the parsed dict and where it came from."""

    repo_id: str
    config: dict[str, Any]
    url: str
    cache_path: Path
    from_cache: bool
    stale_reason: str | None = None  # set when the Hub was unreachable and the cache answered


# ------------------------------------------------------------------------------ settings


def is_repo_id(text: str) -> bool:
    """True when ``text`` is shaped like a Hub model id (``owner/name``), each part at most
    :data:`MAX_ID_PART` characters (the Hub's own limit on a repository name)."""
    return (
        len(text) <= 2 * MAX_ID_PART + 1
        and bool(_REPO_ID.match(text))
        and ".." not in text
        and all(len(part) <= MAX_ID_PART for part in text.split("/"))
    )


def endpoint() -> str:
    return (os.environ.get(ENDPOINT_ENV) or DEFAULT_ENDPOINT).rstrip("/")


def cache_root() -> Path:
    return local_paths.cache_root()


def offline_from_env() -> bool:
    return local_paths.offline_from_env()


def config_url(repo_id: str, revision: str = "main") -> str:
    return f"{endpoint()}/{repo_id}/resolve/{revision}/config.json"


def cache_path(repo_id: str, revision: str = "main") -> Path:
    return cache_root() / "hub" / repo_id.replace("/", "--") / revision / "config.json"


# ------------------------------------------------------------------------------ fetching


def fetch_config(
    repo_id: str,
    *,
    revision: str = "main",
    offline: bool = False,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> HubConfig:
    """Return the config.json of ``repo_id`` from the Hub (cached) or, offline, from the cache."""
    if not is_repo_id(repo_id):
        raise HubError(
            f"{shorten(repo_id)} is not a Hugging Face model id: use the form owner/name (each "
            f"part at most {MAX_ID_PART} characters), e.g. meta-llama/Llama-3.1-8B, or give the "
            "path of a config.json file that exists."
        )
    if len(revision) > MAX_ID_PART or not _REVISION.match(revision):
        raise HubError(f"revision {shorten(revision)} is not a branch, tag or commit name.")
    url = config_url(repo_id, revision)
    path = cache_path(repo_id, revision)

    if offline or offline_from_env():
        cached = _read_cache(repo_id, path, url)
        if cached is None:
            raise HubError(
                f"Cache only (offline: SLOTWISE_OFFLINE / HF_HUB_OFFLINE, or a check that never "
                f"uses the network) and the config.json of {repo_id} is not in the cache "
                f"({path}). Fetch it once with network access ({ref('fetch_config', repo_id)}) to "
                "cache it, or give the path of a local config.json instead."
            )
        return cached

    import httpx  # deferred: importing the engine never needs the network stack

    headers = {"Accept": "application/json", "User-Agent": "slotwise"}
    token = os.environ.get(TOKEN_ENV, "").strip()
    if token:
        if not token.isascii() or not token.isprintable() or " " in token:
            raise HubError(
                "HF_TOKEN contains spaces, control or non-ASCII characters; set it to the token "
                "exactly as the Hugging Face settings page shows it."
            )
        headers["Authorization"] = f"Bearer {token}"
    try:
        response = fetch(url, headers=headers, deadline_s=timeout, max_bytes=MAX_CONFIG_BYTES)
    except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
        raise HubError(
            f"The Hub address {shorten(endpoint())} is not a usable http(s) URL "
            f"({shorten_text(str(exc))}); fix or unset {ENDPOINT_ENV}."
        ) from exc
    except (DeadlineExceeded, httpx.TimeoutException):
        why = f"the Hub did not answer within {timeout:g} s (whole file, connect to last byte)"
        return _fallback(repo_id, path, url, why)
    except TooLarge as exc:
        raise HubError(
            f"The Hub's answer for {repo_id} is {exc}, over the {MAX_CONFIG_BYTES:,}-byte limit "
            "for a config.json; check the id and SLOTWISE_HF_ENDPOINT."
        ) from exc
    except httpx.RequestError as exc:  # connection refused, DNS, TLS, too many redirects, ...
        return _fallback(repo_id, path, url, f"cannot reach {endpoint()} ({type(exc).__name__})")

    status = response.status
    if status in (401, 403):
        raise HubError(
            f"The Hub refused access to {repo_id} (HTTP {status}). The model is gated or private, "
            "or the id is misspelt (the Hub answers 401 for unknown ids too): check the id, accept "
            f"the model's licence on its page ({endpoint()}/{repo_id}), then set HF_TOKEN to a "
            "token of that account."
            + (" HF_TOKEN is set but was not accepted for this model." if token else "")
        )
    if status == 404:
        raise HubError(
            f"No model {repo_id!r} with a config.json at revision {revision!r} on the Hub "
            f"(HTTP 404 from {url}). Check the spelling (ids are owner/name, case-sensitive), or "
            f"use a preset with {ref('model')}."
        )
    if status >= 500 or status == 429:
        return _fallback(repo_id, path, url, f"the Hub answered HTTP {status}")
    if status != 200:
        raise HubError(f"The Hub answered HTTP {status} for {url}; try again later.")

    config = _parse(response.content, f"the config.json the Hub returned for {repo_id} ({url})")
    _write_atomic(path, response.content)
    return HubConfig(repo_id, config, url, path, from_cache=False)


def _fallback(repo_id: str, path: Path, url: str, why: str) -> HubConfig:
    cached = _read_cache(repo_id, path, url, stale_reason=why)
    if cached is None:
        raise HubError(
            f"Cannot fetch the config.json of {repo_id}: {why}, and it is not in the cache "
            f"({path}). Check the network or SLOTWISE_HF_ENDPOINT, or give the path of a local "
            "config.json instead."
        )
    return cached


def _read_cache(
    repo_id: str, path: Path, url: str, *, stale_reason: str | None = None
) -> HubConfig | None:
    try:
        if not os.path.lexists(path):
            return None
    except (OSError, ValueError):
        return None
    try:
        data = read_bytes(path, max_bytes=MAX_CONFIG_BYTES, what="cached config.json")
    except InputError as exc:
        raise HubError(f"{exc}; delete it to fetch it again.") from exc
    config = _parse(data, f"the cached config.json {path} (delete it to fetch it again)")
    return HubConfig(repo_id, config, url, path, from_cache=True, stale_reason=stale_reason)


def _parse(data: bytes, what: str) -> dict[str, Any]:
    try:
        config = loads_json(data.decode("utf-8"), what, what="config.json", nonfinite=True)
    except UnicodeDecodeError as exc:
        raise HubError(f"{what} is not UTF-8 text: {exc}.") from exc
    except json.JSONDecodeError as exc:
        raise HubError(
            f"{what} is malformed JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})."
        ) from exc
    except InputError as exc:
        raise HubError(f"{exc}.") from exc
    if not isinstance(config, dict):
        raise HubError(f"{what} is JSON but not an object of config fields.")
    return config


def _write_atomic(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)
    except OSError:
        # A cache that cannot be written is not an error for this call: the config is in hand.
        return


# ------------------------------------------------------------------------------ model info


def model_info_url(repo_id: str, revision: str = "main") -> str:
    return f"{endpoint()}/api/models/{repo_id}/revision/{revision}"


def safetensors_params(
    repo_id: str,
    *,
    revision: str = "main",
    offline: bool = False,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> int | None:
    """The parameter count the Hub derives from the checkpoint's safetensors headers
    (``safetensors.total`` of the model-info API, the "Model size" of the model page), or None
    when it is not available: offline without a cached answer, no safetensors, any error.

    Best effort by design: it only cross-checks the count slotwise computes, so a failure never
    stops an estimate.  The answer is cached next to the config.json (``model_info.json``).
    """
    if not is_repo_id(repo_id) or not _REVISION.match(revision):
        return None
    path = cache_path(repo_id, revision).with_name("model_info.json")
    data: bytes | None = None
    if not (offline or offline_from_env()):
        import httpx  # deferred, as above

        headers = {"Accept": "application/json", "User-Agent": "slotwise"}
        token = os.environ.get(TOKEN_ENV, "").strip()
        if token and token.isascii() and token.isprintable() and " " not in token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            response = fetch(
                model_info_url(repo_id, revision),
                headers=headers,
                deadline_s=timeout,
                max_bytes=MAX_CONFIG_BYTES,
            )
            if response.status == 200:
                data = response.content
                _write_atomic(path, data)
        except (httpx.HTTPError, httpx.InvalidURL, DeadlineExceeded, TooLarge):
            data = None
    if data is None:
        try:
            data = read_bytes(path, max_bytes=MAX_CONFIG_BYTES, what="cached model info")
        except InputError:
            return None
    try:
        info = loads_json(data.decode("utf-8"), str(path), what="model info")
    except (UnicodeDecodeError, ValueError):  # InputError is a ValueError
        return None
    st = info.get("safetensors") if isinstance(info, dict) else None
    total = st.get("total") if isinstance(st, dict) else None
    if isinstance(total, int) and not isinstance(total, bool) and total > 0:
        return total
    return None
