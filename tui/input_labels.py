"""How the app words the inputs that engine messages point at: by the labels it shows.

Engine text names inputs by reference (``slotwise.engine.inputs.ref``); the app's dialogs,
notifications, findings and estimate notes word them with :func:`app_words`, so
``No ⟦kwh_price⟧ given`` reads "No Price per kWh given" here and ``No --kwh-price given`` on the
command line.  The labels are the ones on the workload form, the TCO and the Suggest screens.
"""

from __future__ import annotations

from slotwise.engine.inputs import InputRef, word

#: Input name -> the label of the field that sets it (quoted as the screen shows it).
LABELS: dict[str, str] = {
    "model": "Model preset",
    "config": "config / HF id",
    "tp": "Tensor parallel",
    "mfu": "MFU override",
    "loss": "Loss",
    "precision": "Precision",
    "lora_targets": "LoRA targets",
    "target_days": "Target days",
    "gpu": "GPU model",
    "kwh_price": "Price per kWh",
    "cloud_gpu_hour": "Cloud per GPU-hour",
    "chassis": "Chassis (SKU/family)",
    "max_power_w": "Max W/server",
    "max_nodes": "the node limit",
    "limit": "the number of results",
    "objective": "Objective",
    "budget": "Budget",
    "prices": "Price list file",
    "force": "Overwrite",
    "catalog": "an overlay catalog (start slotwise with --catalog DIR)",
    "kw_per_rack": "Rack power (kW)",
    "rack_u": "Rack units",
    "switch": "Compute switch",
}


def label(r: InputRef) -> str:
    """The app's words for ``r``: the field's label (and the value to choose)."""
    if r.name == "part_list":
        return f"the part picker's {r.value} list"
    if r.name == "part_details":
        return f"the {r.value} details in the part picker"
    if r.name == "fetch_config":
        return f"enter {r.value} in the config / HF id field"
    words = LABELS[r.name]
    return words if r.value is None else f"{words} = {r.value}"


def app_words(text: str) -> str:
    """``text`` with every input reference worded as the app's field label."""
    return word(text, label)
