"""How the app words the inputs that engine messages point at: by the labels it shows.

Engine text names inputs by reference (``slotwise.engine.inputs.ref``); the app's dialogs,
notifications, findings and estimate notes word them with :func:`app_words`, so
``No ⟦kwh_price⟧ given`` reads "No Price per kWh given" here and ``No --kwh-price given`` on the
command line.  The labels are the ones on the workload form, the TCO and the Suggest screens.
"""

from __future__ import annotations

from slotwise.engine.inputs import Namer, table_namer, word

#: Input name -> the label of the field that sets it (quoted as the screen shows it), or where
#: the app shows the thing (``{value}``: the reference's value).
LABELS: dict[str, str] = {
    "model": "Model preset",
    "config": "config / HF id",
    "tp": "Tensor parallel",
    "mfu": "MFU override",
    "loss": "Loss",
    "precision": "Precision",
    "lora_targets": "LoRA targets",
    "target_days": "Target days",
    "compile": "torch.compile",
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
    "part_list": "the part picker's {value} list",
    "part_details": "the {value} details in the part picker",
    "fetch_config": "enter {value} in the config / HF id field",
}


#: The app's words for an input: the field's label (and the value to choose).
label: Namer = table_namer(LABELS)


def app_words(text: str) -> str:
    """``text`` with every input reference worded as the app's field label."""
    return word(text, label)
