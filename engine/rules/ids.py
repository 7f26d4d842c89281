"""Every rule id the engine emits, with what it checks.  Ids are stable: the CLI's JSON, saved
reports and the UI key on them.  tests/test_evaluate_rule_ids.py keeps this list and the code in
step."""

from __future__ import annotations

RULES: dict[str, str] = {
    # platform (CPUs)
    "platform.no_cpu": "no CPU fitted",
    "platform.unknown_cpu": "CPU SKU not in the catalog",
    "platform.cpu_count": "more CPUs than the chassis has sockets",
    "platform.cpu_max_sockets": "more CPUs than the CPU model supports per system",
    "platform.cpu_socket": "CPU of another socket type than the chassis takes",
    "platform.cpu_not_listed": "CPU not on the chassis' supported list",
    # slots
    "slots.unknown_chassis": "chassis SKU not in the catalog",
    "slots.unknown_slot": "a card in a slot id the chassis does not have",
    "slots.unknown_part": "a slot holds a SKU that is not in the catalog",
    "slots.not_a_card": "a slot holds a part that is not a GPU or NIC",
    "slots.needs_cpu": "slot wired to a CPU socket that is empty",
    "slots.sxm_in_pcie": "SXM module placed in a PCIe slot",
    "slots.ocp_nic": "OCP 3.0 NIC placed in a PCIe slot",
    "slots.not_ocp": "GPU or stand-up card placed in an OCP 3.0 / AIOM slot",
    "slots.onboard_nic": "an on-board NIC (not a card) placed in a slot",
    "slots.too_wide": "double-width card in a single-width slot",
    "slots.too_long": "full-length card in a half-length slot",
    "slots.too_tall": "full-height card in a low-profile slot",
    "slots.mechanical": "card edge wider than the slot's mechanical size",
    "slots.double_width_blocked": "double-width card covers an occupied neighbour slot",
    "slots.runs_narrow": "card runs with fewer lanes than it has (e.g. x16 card at x8)",
    "slots.runs_slower_gen": "card links at an older PCIe generation",
    "slots.purpose": "GPU in a slot meant for a NIC",
    "slots.unknown_figures": "card width/length/lanes unknown: fit not fully checked",
    "slots.gpu_not_listed": "GPU not on the vendor's supported list for the chassis",
    "slots.unknown_gpu_list": "chassis' supported-GPU list unknown",
    "slots.consumer_gpu": "consumer (non-data-centre) GPU in a server",
    "slots.mixed_gpus": "different GPU models in one build",
    "slots.too_many_gpus": "more GPUs than the chassis supports",
    "slots.unknown_max_gpus": "chassis' GPU limit unknown",
    "slots.no_baseboard": "HGX system without its GPU baseboard",
    "slots.unknown_baseboard": "baseboard SKU not in the catalog",
    "slots.baseboard_not_supported": "baseboard the chassis does not take",
    "slots.baseboard_in_pcie_chassis": "HGX baseboard set on a PCIe-GPU chassis",
    # lanes
    "lanes.root_over": "cards and switches need more lanes than a root (or its CPU) has",
    "lanes.switch_oversubscribed": "switch downstream lanes exceed its uplink",
    "lanes.unknown_root": "root lane count unknown",
    # nvlink
    "nvlink.unknown_bridge": "bridge SKU not in the catalog",
    "nvlink.unknown_slot": "bridge joins a slot the chassis does not have",
    "nvlink.overlap": "two bridge sets on one slot",
    "nvlink.wrong_ways": "bridge set on a group of the wrong size",
    "nvlink.empty_slot": "bridge joins a slot without a GPU",
    "nvlink.no_nvlink": "bridge on GPUs without an NVLink connector",
    "nvlink.wrong_gpu": "bridge made for another GPU model",
    "nvlink.group_not_allowed": "bridge across slots the chassis cannot bridge",
    "nvlink.unknown_groups": "chassis' bridgeable slot groups unknown",
    "nvlink.cross_socket": "bridge joins GPUs under different CPUs",
    "nvlink.bridge_count": "wrong number of bridges on a group (H100 NVL: 3 per pair)",
    "nvlink.unbridged": "NVLink-capable GPUs left without a bridge",
    # memory
    "memory.no_dimms": "no system memory",
    "memory.unknown_dimm": "DIMM SKU not in the catalog",
    "memory.dimm_not_listed": "DIMM not on the chassis' validated list",
    "memory.wrong_type": "DDR4 DIMM on a DDR5 platform",
    "memory.unknown_slots": "chassis DIMM slot count unknown",
    "memory.too_many_dimms": "more DIMMs than slots",
    "memory.unknown_channels": "CPU memory channel count unknown",
    "memory.unbalanced": "DIMMs do not fill every channel of every CPU equally",
    "memory.2dpc_speed": "two DIMMs per channel lower the memory speed",
    "memory.speed_capped": "DIMM faster than the CPU runs memory",
    "memory.host_vs_gpu": "system memory small next to total GPU memory",
    # power
    "power.unknown_figures": "parts whose power is unknown were left out of the sum",
    "power.no_psu": "no power supply",
    "power.unknown_psu": "PSU SKU not in the catalog",
    "power.unknown_psu_list": "chassis' PSU options unknown",
    "power.psu_not_allowed": "PSU the chassis does not take",
    "power.psu_bays": "more PSUs than power bays",
    "power.unknown_bays": "chassis' power bay count unknown",
    "power.low_line_unknown": "PSU rating at 100-127 V unknown",
    "power.redundancy": "worst-case draw above PSU capacity under N+1 / N+N",
    # cooling
    "cooling.liquid_only": "liquid-only chassis or baseboard at an air-cooled site",
    "cooling.unknown_gpu_limit": "chassis' air-cooled GPU TDP limit unknown",
    "cooling.gpu_tdp_air": "GPU TDP above what the chassis cools with air",
    "cooling.open_air_gpu": "open-air (fan) cooled consumer card in a server",
    "cooling.liquid_gpu": "liquid-cooled card at an air-cooled site",
    "cooling.unknown_ambient": "chassis' rated ambient temperature unknown",
    "cooling.ambient": "inlet temperature above the chassis' rating",
    "cooling.unknown_cpu_limit": "chassis' CPU TDP limit unknown",
    "cooling.cpu_tdp": "CPU TDP above what the chassis cools",
    # storage
    "storage.unknown_bays": "chassis' drive-bay layout unknown",
    "storage.unknown_bay": "drives in a bay group the chassis does not have",
    "storage.unknown_drive": "drive SKU not in the catalog",
    "storage.bay_mismatch": "drive form factor or interface does not match the bays",
    "storage.too_many": "more drives than bays",
    # workload
    "workload_fit.no_gpu": "workload set but no GPU in the build",
    "workload_fit.unresolved": "workload model could not be resolved offline",
    "workload_fit.gpu_memory": "workload does not fit the GPUs' memory",
    "workload_fit.train_time": "training takes longer than the target",
    "workload_fit.serving_users": "the KV cache of the concurrent users does not fit",
    "workload_fit.serving_rate": "each user gets fewer tokens/s than asked",
    # network
    "network.nic_ratio": "multi-node training with too few fast NICs",
    "network.gpu_nic_placement": "GPUs without a fast NIC under the same PCIe switch",
    # the engine itself
    "engine.internal": "a rule failed on this build (a bug): the report is incomplete",
}

#: The rule id of a finding that says a rule family or the estimator failed internally.
INTERNAL_RULE = "engine.internal"
