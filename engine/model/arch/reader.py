"""Read config.json fields the way the ``transformers`` config classes do.

A config class accepts several spellings of one field (``attribute_map``: GPT-2's ``n_embd`` is
``hidden_size``) and fills a missing key with its ``__init__`` default.  :class:`ConfigReader`
does both for the family modules: ``r.num("hidden_size", "n_embd", default=768)`` returns the
first alias present, else the default, else records the field as missing; a value that is not a
whole number is an error naming the field.  Every default the reader uses is listed in
:attr:`ConfigReader.defaults_used`, so the preset's notes can say what was assumed.
"""

from __future__ import annotations

from typing import Any

from slotwise.parts.safe_io import shorten


class ArchConfigError(ValueError):
    """A config.json (or arch dict) lacks a field the estimator needs, or has a bad value."""


_MISSING: Any = object()


class ConfigReader:
    """Field access over one config dict (see the module docstring)."""

    def __init__(self, cfg: dict[str, Any], source: str) -> None:
        self.cfg = cfg
        self.source = source
        self.missing: list[str] = []
        self.bad: list[str] = []
        self.defaults_used: list[str] = []
        self.warnings: list[str] = []
        self.notes: list[str] = []

    # ---------------------------------------------------------------- lookups

    def has(self, *names: str) -> bool:
        return any(self.cfg.get(n) is not None for n in names)

    def raw(self, *names: str, default: Any = None) -> Any:
        for n in names:
            if self.cfg.get(n) is not None:
                return self.cfg[n]
        return default

    def num(self, *names: str, default: Any = _MISSING, minimum: int = 1) -> int:
        """A whole number >= ``minimum`` under any of ``names`` (else ``default``)."""
        for n in names:
            value = self.cfg.get(n)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                self.bad.append(f"{n}={shorten(value)} (must be a whole number)")
                return max(minimum, 1)
            if isinstance(value, float):
                if not value.is_integer():
                    self.bad.append(f"{n}={shorten(value)} (must be a whole number)")
                    return max(minimum, 1)
                value = int(value)
            if value < minimum:
                self.bad.append(f"{n}={shorten(value)} (must be at least {minimum})")
                return max(minimum, 1)
            return value
        if default is _MISSING:
            self.missing.append(names[0])
            return max(minimum, 1)
        if default is not None:
            self.defaults_used.append(f"{names[0]}={default}")
        return default

    def opt_int(self, *names: str, minimum: int = 0) -> int | None:
        if not self.has(*names):
            return None
        return self.num(*names, minimum=minimum)

    def flag(self, *names: str, default: bool) -> bool:
        for n in names:
            value = self.cfg.get(n)
            if value is None:
                continue
            if not isinstance(value, bool):
                self.bad.append(f"{n}={shorten(value)} (must be true or false)")
                return default
            return value
        return default

    def text(self, *names: str, default: str | None = None) -> str | None:
        value = self.raw(*names)
        if value is None:
            return default
        if not isinstance(value, str):
            self.bad.append(f"{names[0]}={shorten(value)} (must be a string)")
            return default
        return value

    def int_list(self, name: str) -> list[int] | None:
        value = self.cfg.get(name)
        if value is None:
            return None
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            self.bad.append(f"{name}={shorten(value)} (must be a list of whole numbers)")
            return None
        return value

    # ---------------------------------------------------------------- outcome

    def check(self) -> None:
        """Raise :class:`ArchConfigError` naming every missing or bad field."""
        parts = []
        if self.missing:
            parts.append(
                f"missing {', '.join(self.missing)}; a config.json of this family has "
                "them (download it again from the model's repository, or fill them in)"
            )
        if self.bad:
            parts.append("bad value " + "; ".join(self.bad))
        if parts:
            raise ArchConfigError(f"{self.source}: " + "; ".join(parts))
