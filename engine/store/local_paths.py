"""Where slotwise keeps files on this machine, and whether it may use the network: one policy.

* ``SLOTWISE_CACHE_DIR`` — cache root (Hub configs under ``hub/``, price lists under ``prices/``);
  default ``platformdirs.user_cache_dir("slotwise")``.
* ``SLOTWISE_STATE_DIR`` — autosaves and locks; default ``platformdirs.user_state_dir("slotwise")``
  (``~/.local/state/slotwise`` on Linux).
* ``SLOTWISE_OFFLINE=1`` (or ``HF_HUB_OFFLINE=1``) — never touch the network: every fetcher (Hub
  configs, price lists) answers from its cache or says it has none.

Every module that needs one of these asks here, so the rules cannot drift apart.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "SLOTWISE_CACHE_DIR"
STATE_ENV = "SLOTWISE_STATE_DIR"
OFFLINE_ENVS = ("SLOTWISE_OFFLINE", "HF_HUB_OFFLINE")
_TRUE = ("1", "true", "yes", "on")


def cache_root() -> Path:
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs  # deferred: only needed when a cache is used

    return Path(platformdirs.user_cache_dir("slotwise"))


def state_root() -> Path:
    override = os.environ.get(STATE_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_state_dir("slotwise"))


def offline_from_env() -> bool:
    """True when the environment forbids network use (``SLOTWISE_OFFLINE`` / ``HF_HUB_OFFLINE``)."""
    return any(os.environ.get(name, "").strip().lower() in _TRUE for name in OFFLINE_ENVS)
