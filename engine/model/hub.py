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

The fetching and caching is :func:`engine.store.fetch.fetch_cached` (the same one the price lists
use); this module builds the URL and cache path and words the messages.  Online, the Hub is asked
first (with ``If-None-Match`` / ``If-Modified-Since`` when the Hub gave an ETag / Last-Modified,
kept in ``config.json.meta.json`` beside the file; a 304 answers from the cache); when it cannot be
reached (timeout, connection error, 429, 5xx) a cached copy is used and
:attr:`HubConfig.stale_reason` says why.  Every failure is a :class:`HubError`
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
from slotwise.engine.store.fetch import (
    CacheSlot,
    Failure,
    FetchError,
    fetch_cached,
    read_cached,
    remember,
    token_is_usable,
)
from slotwise.parts.safe_io import (
    MAX_CONFIG_BYTES,
    InputError,
    loads_json,
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
    token = os.environ.get(TOKEN_ENV, "").strip()
    try:
        answer = fetch_cached(
            url,
            _slot(path),
            offline=offline,
            token=token,
            headers={"Accept": "application/json"},
            timeout_s=timeout,
            max_bytes=MAX_CONFIG_BYTES,
            transient=lambda status: status >= 500 or status == 429,
            what="cached config.json",
        )
    except FetchError as exc:
        raise _hub_error(exc, repo_id, revision, url, path, timeout, token) from None

    if answer.origin == "network" and answer.status != 200:
        raise HubError(f"The Hub answered HTTP {answer.status} for {url}; try again later.")
    if answer.origin == "network":
        what = f"the config.json the Hub returned for {repo_id} ({url})"
    else:
        what = f"the cached config.json {path} (delete it to fetch it again)"
    config = _parse(answer.content, what)
    remember(answer)  # only after it parsed: a malformed answer is never cached
    stale = answer.stale
    return HubConfig(
        repo_id,
        config,
        url,
        path,
        # a 304 means the Hub answered (the copy is current): not "from the cache" for callers
        # that skip the network after a failure (resolve's safetensors cross-check)
        from_cache=answer.origin == "cache",
        stale_reason=None if stale is None else _why(stale, timeout),
    )


def _slot(path: Path) -> CacheSlot:
    """config.json, with a sidecar for the Hub's ETag / Last-Modified when it gives them."""
    return CacheSlot(path, path.with_name(path.name + ".meta.json"))


def _why(failure: Failure, timeout: float) -> str:
    """The stale-cache reason, in the words :attr:`HubConfig.stale_reason` has always used."""
    if failure.kind == "timeout":
        return f"the Hub did not answer within {timeout:g} s (whole file, connect to last byte)"
    if failure.kind == "unreachable":
        return f"cannot reach {endpoint()} ({failure.exc_name})"
    if failure.kind == "not_modified":
        return "the Hub answered 304 (not modified)"
    return f"the Hub answered HTTP {failure.status}"


def _hub_error(
    exc: FetchError,
    repo_id: str,
    revision: str,
    url: str,
    path: Path,
    timeout: float,
    token: str,
) -> HubError:
    """One paragraph for every way fetching a config.json fails (the same words as always)."""
    failure = exc.failure
    if exc.cache == "unusable":
        return HubError(f"{exc.cache_problem}; delete it to fetch it again.")
    if failure.kind == "offline":
        return HubError(
            f"Cache only (offline: SLOTWISE_OFFLINE / HF_HUB_OFFLINE, or a check that never "
            f"uses the network) and the config.json of {repo_id} is not in the cache "
            f"({path}). Fetch it once with network access ({ref('fetch_config', repo_id)}) to "
            "cache it, or give the path of a local config.json instead."
        )
    if exc.cache == "missing":
        return HubError(
            f"Cannot fetch the config.json of {repo_id}: {_why(failure, timeout)}, and it is not "
            f"in the cache ({path}). Check the network or SLOTWISE_HF_ENDPOINT, or give the path "
            "of a local config.json instead."
        )
    if failure.kind == "bad_token":
        return HubError(
            "HF_TOKEN contains spaces, control or non-ASCII characters; set it to the token "
            "exactly as the Hugging Face settings page shows it."
        )
    if failure.kind == "bad_url":
        return HubError(
            f"The Hub address {shorten(endpoint())} is not a usable http(s) URL "
            f"({shorten_text(failure.detail)}); fix or unset {ENDPOINT_ENV}."
        )
    if failure.kind == "too_large":
        return HubError(
            f"The Hub's answer for {repo_id} is {failure.detail}, over the "
            f"{MAX_CONFIG_BYTES:,}-byte limit for a config.json; check the id and "
            "SLOTWISE_HF_ENDPOINT."
        )
    status = failure.status
    if status in (401, 403):
        return HubError(
            f"The Hub refused access to {repo_id} (HTTP {status}). The model is gated or private, "
            "or the id is misspelt (the Hub answers 401 for unknown ids too): check the id, accept "
            f"the model's licence on its page ({endpoint()}/{repo_id}), then set HF_TOKEN to a "
            "token of that account."
            + (" HF_TOKEN is set but was not accepted for this model." if token else "")
        )
    if status == 404:
        return HubError(
            f"No model {repo_id!r} with a config.json at revision {revision!r} on the Hub "
            f"(HTTP 404 from {url}). Check the spelling (ids are owner/name, case-sensitive), or "
            f"use a preset with {ref('model')}."
        )
    return HubError(f"The Hub answered HTTP {status} for {url}; try again later.")


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
    slot = CacheSlot(path)  # best effort: no sidecar, no revalidation
    token = os.environ.get(TOKEN_ENV, "").strip()
    data: bytes | None = None
    try:
        answer = fetch_cached(
            model_info_url(repo_id, revision),
            slot,
            offline=offline,
            token=token if token_is_usable(token) else None,
            headers={"Accept": "application/json"},
            timeout_s=timeout,
            max_bytes=MAX_CONFIG_BYTES,
            what="cached model info",
        )
        if answer.origin != "network" or answer.status == 200:
            data = answer.content
            remember(answer)  # a network answer only
    except FetchError:
        data = None
    if data is None:  # a 4xx or other non-answer: the cached one (if any) still holds
        try:
            cached = read_cached(slot, what="cached model info", max_bytes=MAX_CONFIG_BYTES)
        except InputError:
            return None
        if cached is None:
            return None
        data = cached[0]
    try:
        info = loads_json(data.decode("utf-8"), str(path), what="model info")
    except (UnicodeDecodeError, ValueError):  # InputError is a ValueError
        return None
    st = info.get("safetensors") if isinstance(info, dict) else None
    total = st.get("total") if isinstance(st, dict) else None
    if isinstance(total, int) and not isinstance(total, bool) and total > 0:
        return total
    return None
