"""How the CLI words the inputs that engine messages point at: as its flags.

Engine text names inputs by reference (``slotwise.engine.inputs.ref``); every line the CLI
prints or writes goes through :func:`cli_words`, so ``No ⟦kwh_price⟧ given`` reads
``No --kwh-price given`` here and "No Price per kWh given" in the app.
"""

from __future__ import annotations

from slotwise.engine.inputs import Namer, table_namer, word

#: Input name -> the flag that sets it (with its metavar where the sentence shows one), or the
#: command that shows the thing (``{value}``: the reference's value).
FLAGS: dict[str, str] = {
    "model": "--model",
    "config": "--config",
    "tp": "--tp",
    "mfu": "--mfu",
    "loss": "--loss",
    "precision": "--precision",
    "lora_targets": "--lora-targets",
    "target_days": "--target-days",
    "compile": "--compile",
    "gpu": "--gpu",
    "kwh_price": "--kwh-price",
    "cloud_gpu_hour": "--cloud-gpu-hour",
    "chassis": "--chassis",
    "max_power_w": "--max-power-w",
    "max_nodes": "--max-nodes",
    "limit": "--limit",
    "objective": "--objective",
    "budget": "--budget",
    "prices": "--prices FILE_OR_URL",
    "force": "--force",
    "catalog": "--catalog DIR",
    "kw_per_rack": "--kw-per-rack",
    "rack_u": "--rack-u",
    "switch": "--switch",
    "part_list": "'slotwise parts --kind {value}'",
    "part_details": "'slotwise parts --kind {value} --json'",
    "fetch_config": "`slotwise estimate --config {value}`",
}


#: The CLI's words for an input: its flag (and value), or the command that shows the thing.
flag: Namer = table_namer(FLAGS, " ")


def cli_words(text: str) -> str:
    """``text`` with every input reference worded as a flag."""
    return word(text, flag)
