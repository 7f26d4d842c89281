"""The user inputs that engine messages point at, and how each front end words them.

Engine text never names a CLI flag or an app field.  Where a message tells the user which input
to change (and, when the engine knows it, to what), it embeds a reference made by :func:`ref`:
``f"No {ref('kwh_price')} given"``.  A reference is an :class:`InputRef` (the input's engine name,
one of :data:`InputName`, and an optional value) written into the text as ``⟦name⟧`` or
``⟦name=value⟧``; :func:`refs` reads them back as models.  Each front end words the references
in its own terms with :func:`word`: the CLI as flags (``--kwh-price``,
``slotwise.tui.commands.flags``), the app as its field labels ("Price per kWh",
``slotwise.tui.input_labels``); :func:`plain` words them for documents and logs that belong to
neither (the Markdown export, a BOM's summary).

Values inside a reference are engine-chosen words (``chunked``, ``price``, a part kind, a
Hugging Face id already checked by ``hub.is_repo_id``), never free user text, so ``⟧`` cannot
occur in them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict

InputName = Literal[
    # the workload (engine.workload.Workload fields)
    "model",
    "config",
    "tp",
    "mfu",
    "loss",
    "precision",
    "lora_targets",
    "target_days",
    "compile",
    # the hardware the workload is estimated on
    "gpu",
    # TCO (engine.cost.tco.TcoInputs)
    "kwh_price",
    "cloud_gpu_hour",
    # build search (engine.plan.suggest.Constraints and its options)
    "chassis",
    "max_power_w",
    "max_nodes",
    "limit",
    "objective",
    "budget",
    "prices",
    # cluster plans (engine.plan.racks.Site, engine.plan.cluster)
    "kw_per_rack",
    "rack_u",
    "switch",
    # files and catalogs
    "force",
    "catalog",
    # where to look a part up: value = the part kind ("chassis", "gpu", "model", ...)
    "part_list",
    # the full record of a part kind (slot maps, NVLink groups): value = the part kind
    "part_details",
    # fetch a Hugging Face config.json while online: value = the Hugging Face id
    "fetch_config",
]
INPUT_NAMES: tuple[str, ...] = get_args(InputName)

_OPEN, _CLOSE = "\u27e6", "\u27e7"  # ⟦ ⟧ mathematical white square brackets
_TOKEN = re.compile(f"{_OPEN}([a-z_]+)(?:=([^{_CLOSE}]*))?{_CLOSE}")


class InputRef(BaseModel):
    """An input a message asks the user to change: which one and, if known, to what."""

    model_config = ConfigDict(frozen=True)

    name: InputName
    value: str | None = None


def ref(name: InputName, value: str | None = None) -> str:
    """The reference to ``name`` (set to ``value``) for embedding in an engine message."""
    if name not in INPUT_NAMES:  # a typo in engine code fails at once, not in a front end
        raise ValueError(f"unknown input name {name!r}")
    if value is None:
        return f"{_OPEN}{name}{_CLOSE}"
    return f"{_OPEN}{name}={value.replace(_CLOSE, '')}{_CLOSE}"


def refs(text: str) -> tuple[InputRef, ...]:
    """The inputs ``text`` points at, in order (the structured advice behind the words)."""
    return tuple(InputRef(name=m[1], value=m[2]) for m in _TOKEN.finditer(text))


Namer = Callable[[InputRef], str]


def word(text: str, namer: Namer) -> str:
    """``text`` with every input reference replaced by ``namer``'s words for it."""
    if _OPEN not in text:
        return text
    return _TOKEN.sub(lambda m: namer(InputRef(name=m[1], value=m[2])), text)


_PLAIN: dict[str, str] = {
    "model": "the model preset",
    "config": "the config.json or Hugging Face id",
    "tp": "the tensor-parallel degree",
    "mfu": "the MFU override",
    "loss": "the loss",
    "precision": "the precision",
    "lora_targets": "the LoRA targets",
    "target_days": "the target days",
    "compile": "torch.compile",
    "gpu": "the GPU model",
    "kwh_price": "price per kWh",
    "cloud_gpu_hour": "cloud price per GPU-hour",
    "chassis": "the chassis",
    "max_power_w": "the power limit per server",
    "max_nodes": "the node limit",
    "limit": "the number of results",
    "objective": "the objective",
    "budget": "the budget",
    "prices": "a price list",
    "force": "overwrite",
    "catalog": "the overlay catalog option",
    "kw_per_rack": "the rack power limit",
    "rack_u": "the rack height",
    "switch": "the compute switch",
    "part_list": "the catalog's {value} list",
    "part_details": "the catalog's {value} records",
    "fetch_config": "fetching {value}",
}


def table_namer(words: Mapping[str, str], joiner: str = " = ") -> Namer:
    """A :data:`Namer` that looks each input up in ``words``: the value goes where the entry
    says ``{value}``, or else follows the words after ``joiner`` (one front end's wording is one
    table; every front end words references the same way)."""

    def name(r: InputRef) -> str:
        entry = words[r.name]
        if "{value}" in entry:
            return entry.replace("{value}", r.value or "")
        return entry if r.value is None else f"{entry}{joiner}{r.value}"

    return name


#: Neutral words for an input: for text that no front end words (documents, logs).
plain_name: Namer = table_namer(_PLAIN)


def plain(text: str) -> str:
    return word(text, plain_name)
