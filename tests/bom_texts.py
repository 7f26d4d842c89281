"""BOM files as a user could receive them, for tests that feed the reader whole files (no tests
in this module)."""

from __future__ import annotations

from collections.abc import Sequence

L40S = "NVIDIA-L40S-48GB"


def l40s_bom(slots: Sequence[str] = ("1",), tables: str = "") -> str:
    """A small valid build as BOM TOML on the bundled catalog: SYS-521GE-TNRT, two XEON-6530,
    16 x 64 GB DDR5, four 2700 W PSUs and an L40S in each of ``slots``; ``tables`` (more TOML
    tables, such as ``[meta]`` or ``[workload]``) follow the slots."""
    cards = "".join(f'"{s}" = "{L40S}"\n' for s in slots)
    text = f"""schema = 1

[chassis]
sku = "SYS-521GE-TNRT"

[cpu]
sku = "XEON-6530"
count = 2

[memory]
sku = "DDR5-4800-64GB-RDIMM"
count = 16

[psu]
sku = "SMCI-PSU-2700W-TITANIUM"
count = 4

[slots]
{cards}"""
    return text + ("\n" + tables if tables else "")
