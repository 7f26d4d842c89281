"""Fetch a model's config.json from the Hugging Face Hub, cache it, and turn it into a ModelPreset.

Network behaviour (all settings come from the environment, never from files):

* ``SLOTWISE_HF_ENDPOINT`` — base URL (default ``https://huggingface.co``); the file is
  ``{endpoint}/{repo_id}/resolve/{revision}/config.json``.
* ``HF_TOKEN`` — sent as ``Authorization: Bearer …`` when set; it is never written to the cache,
  never logged and never part of an error message.
* ``SLOTWISE_CACHE_DIR`` — cache root (default ``platformdirs.user_cache_dir("slotwise")``); a
  fetched config.json lands in ``<root>/hub/<owner>--<name>/<revision>/config.json``, written
  atomically (temp file in the same directory + ``os.replace``).
* ``SLOTWISE_OFFLINE=1`` or ``HF_HUB_OFFLINE=1`` — cache only, no network.

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

import httpx
from pydantic import ValidationError

from engine import local_paths
from engine.atomic import atomic_write_bytes
from parts.schema import ModelPreset

DEFAULT_ENDPOINT = "https://huggingface.co"
ENDPOINT_ENV = "SLOTWISE_HF_ENDPOINT"
CACHE_ENV = local_paths.CACHE_ENV
TOKEN_ENV = "HF_TOKEN"
OFFLINE_ENVS = local_paths.OFFLINE_ENVS
DEFAULT_TIMEOUT_S = 10.0

# "owner/name" (or a legacy single-segment id such as "gpt2"); no "..", no leading dot.
_REPO_ID = re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9_.-]*/)?[A-Za-z0-9][A-Za-z0-9_.-]*$")
_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class HubError(Exception):
    """Fetching a config.json failed; the message says what happened and what to do."""


class ArchConfigError(ValueError):
    """A config.json (or arch dict) lacks a field the estimator needs, or has a bad value."""


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
    """True when ``text`` is shaped like a Hub model id (``owner/name``)."""
    return bool(_REPO_ID.match(text)) and ".." not in text


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
            f"{repo_id!r} is not a Hugging Face model id: use the form owner/name, e.g. "
            "meta-llama/Llama-3.1-8B, or give the path of a config.json file that exists."
        )
    if not _REVISION.match(revision):
        raise HubError(f"revision {revision!r} is not a branch, tag or commit name.")
    url = config_url(repo_id, revision)
    path = cache_path(repo_id, revision)

    if offline or offline_from_env():
        cached = _read_cache(repo_id, path, url)
        if cached is None:
            raise HubError(
                f"Cache only (offline: SLOTWISE_OFFLINE / HF_HUB_OFFLINE, or a check that never "
                f"uses the network) and the config.json of {repo_id} is not in the cache "
                f"({path}). Run `slotwise estimate --config {repo_id}` once with network access "
                "to cache it, or give the path of a local config.json instead."
            )
        return cached

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
        with httpx.Client(timeout=timeout, follow_redirects=True, headers=headers) as client:
            response = client.get(url)
    except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
        raise HubError(
            f"The Hub address {endpoint()!r} is not a usable http(s) URL ({exc}); fix or unset "
            f"{ENDPOINT_ENV}."
        ) from exc
    except httpx.TimeoutException:
        return _fallback(repo_id, path, url, f"the Hub did not answer within {timeout:g} s")
    except httpx.RequestError as exc:  # connection refused, DNS, TLS, too many redirects, ...
        return _fallback(repo_id, path, url, f"cannot reach {endpoint()} ({type(exc).__name__})")

    status = response.status_code
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
            "use a preset with --model."
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
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HubError(f"Cannot read the cached config.json {path}: {exc}.") from exc
    config = _parse(data, f"the cached config.json {path} (delete it to fetch it again)")
    return HubConfig(repo_id, config, url, path, from_cache=True, stale_reason=stale_reason)


def _parse(data: bytes, what: str) -> dict[str, Any]:
    try:
        config = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise HubError(f"{what} is not UTF-8 text: {exc}.") from exc
    except json.JSONDecodeError as exc:
        raise HubError(
            f"{what} is malformed JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})."
        ) from exc
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


# ------------------------------------------------------------------------------ config.json


# model_type -> (what config.json calls the routed-expert count) and default tie_word_embeddings
# (each transformers Config class's own default when the key is absent).
_EXPERT_KEYS = {
    "mixtral": "num_local_experts",
    "deepseek_v3": "n_routed_experts",
    "deepseek_v2": "n_routed_experts",
}
_TIE_DEFAULT = {
    "llama": False,
    "mistral": False,
    "mixtral": False,
    "qwen2": False,
    "gemma": True,  # GemmaConfig's default; google/gemma-2b's config.json does not say it
    "gemma2": True,
    "phi3": False,
    "deepseek_v3": False,
    "deepseek_v2": False,
}
KNOWN_MODEL_TYPES = frozenset(_TIE_DEFAULT)
_REQUIRED = (
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "vocab_size",
)
_OPTIONAL_INTS = (
    "num_key_value_heads",
    "head_dim",
    "max_position_embeddings",
    "num_experts_per_tok",
    "moe_intermediate_size",
    "n_shared_experts",
    "first_k_dense_replace",
    "q_lora_rank",
    "kv_lora_rank",
    "qk_nope_head_dim",
    "qk_rope_head_dim",
    "v_head_dim",
)


def arch_from_config(
    cfg: dict[str, Any], *, source: str, name: str
) -> tuple[ModelPreset, list[str]]:
    """Map a config.json dict to a :class:`ModelPreset`; also return warnings for the user.

    Understands model_type llama, mistral, mixtral (``num_local_experts``), qwen2 (q/k/v bias
    hard-coded in ``Qwen2Attention``), gemma2, phi3 and deepseek_v3 (``n_routed_experts``, MLA
    fields).  Other types are read through the standard field names with a warning that the
    parameter count assumes a Llama-style decoder.  A multimodal config's ``text_config`` is used
    when the top level has no ``hidden_size``.  ``published_params_b`` of the result is the
    computed count (there is no published figure for an imported config); ``notes`` says so.
    Raises :class:`ArchConfigError` naming ``source`` and the missing or bad fields.
    """
    warnings: list[str] = []
    if not isinstance(cfg, dict):
        raise ArchConfigError(f"{source}: expected a JSON object of config fields")
    if "hidden_size" not in cfg and isinstance(cfg.get("text_config"), dict):
        warnings.append(
            f"{source}: used text_config (the language model); vision/audio towers are not counted"
        )
        outer_type = cfg.get("model_type")
        cfg = dict(cfg["text_config"])
        cfg.setdefault("model_type", outer_type)

    model_type = cfg.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        model_type = "llama"
        warnings.append(
            f"{source}: no model_type; counted as a Llama-style decoder "
            "(SwiGLU MLP, RMSNorm, no biases)"
        )
    elif model_type not in KNOWN_MODEL_TYPES:
        warnings.append(
            f"{source}: model_type {model_type!r} is not one slotwise knows "
            f"({', '.join(sorted(KNOWN_MODEL_TYPES))}); read through the standard field names and "
            "counted as a Llama-style decoder (SwiGLU MLP, RMSNorm), so the figures are approximate"
        )

    missing = [k for k in _REQUIRED if cfg.get(k) is None]
    if missing:
        raise ArchConfigError(
            f"{source}: missing {', '.join(missing)}; a config.json for a decoder-only model "
            "has them (hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, "
            "vocab_size)"
        )

    fields: dict[str, Any] = {k: cfg[k] for k in _REQUIRED}
    for k in _OPTIONAL_INTS:
        if cfg.get(k) is not None:
            fields[k] = cfg[k]
    if "num_key_value_heads" not in fields:
        fields["num_key_value_heads"] = fields["num_attention_heads"]
        warnings.append(
            f"{source}: no num_key_value_heads; assumed {fields['num_attention_heads']} "
            "(one KV head per attention head, as transformers does)"
        )

    expert_key = _EXPERT_KEYS.get(model_type, "num_experts")
    experts = cfg.get(expert_key, cfg.get("num_experts", cfg.get("num_local_experts")))
    if experts is not None:
        fields["num_experts"] = experts
        if model_type not in _EXPERT_KEYS:
            warnings.append(
                f"{source}: mixture of experts read from the standard fields (num_experts, "
                "num_experts_per_tok, moe_intermediate_size); shared experts or per-layer MoE "
                "patterns of this architecture may not be counted"
            )

    if "tie_word_embeddings" in cfg:
        fields["tie_word_embeddings"] = cfg["tie_word_embeddings"]
    elif model_type in _TIE_DEFAULT:
        fields["tie_word_embeddings"] = _TIE_DEFAULT[model_type]
    else:
        fields["tie_word_embeddings"] = False
        warnings.append(
            f"{source}: no tie_word_embeddings; assumed a separate lm_head (the larger count)"
        )

    notes = ["published_params_b is the computed parameter count (imported config)."]
    if model_type == "qwen2":
        fields["attention_bias"] = True
        notes.append("attention_bias set: Qwen2Attention hard-codes bias on q/k/v.")
    elif "attention_bias" in cfg:
        fields["attention_bias"] = cfg["attention_bias"]
    if cfg.get("num_nextn_predict_layers"):
        notes.append(
            f"{cfg['num_nextn_predict_layers']} multi-token-prediction layer(s) not counted."
        )

    bad_types = [
        k
        for k, v in fields.items()
        if k != "tie_word_embeddings"
        and k != "attention_bias"
        and (isinstance(v, bool) or not isinstance(v, int | float))
    ]
    if bad_types:
        raise ArchConfigError(
            f"{source}: {', '.join(bad_types)} must be whole numbers, got "
            + ", ".join(f"{k}={fields[k]!r}" for k in bad_types)
        )

    hidden, heads = fields["hidden_size"], fields["num_attention_heads"]
    if "head_dim" not in fields and "kv_lora_rank" not in fields and hidden % heads:
        warnings.append(
            f"{source}: hidden_size {hidden} is not a multiple of num_attention_heads {heads} "
            "and there is no head_dim; head_dim taken as the integer quotient"
        )
    if heads % fields["num_key_value_heads"]:
        warnings.append(
            f"{source}: num_attention_heads {heads} is not a multiple of "
            f"num_key_value_heads {fields['num_key_value_heads']}"
        )

    base = {
        "sku": name,
        "name": name,
        "source": source,
        "confidence": "B",
        "model_type": model_type,
        "notes": " ".join(notes),
        "published_params_b": 1.0,  # replaced by the computed count just below
        **fields,
    }
    try:
        preset = ModelPreset.model_validate(base)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise ArchConfigError(f"{source}: {problems}") from exc
    # Deferred import: engine.estimate's package may import engine.estimate.resolve -> engine.hub.
    from engine.estimate.params import count_params

    counts = count_params(preset)
    update: dict[str, Any] = {"published_params_b": counts.total / 1e9}
    if counts.is_moe:
        update["published_active_params_b"] = counts.active / 1e9
    return preset.model_copy(update=update), warnings
