"""Fabric switches, optics, cables and management appliances: a sourced table.

The catalog schema (parts/) describes what goes inside one server; nothing in it fits a switch,
so the cluster's parts live here, each record with its source and confidence tier (A vendor
document, B careful third party, C derived: the record says how and from what).  Part numbers
are NVIDIA's where a reference architecture's bill of materials publishes them; elsewhere ``pn``
is None and the quote says "PN needed".

Sources (the published tables are transcribed, with their sources, in
shared/reference/fabric.md):

* H100 SuperPOD RA (RA-11333-001), "Network fabrics" and the 4-SU component BOM:
  https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/latest/
* B300 SuperPOD RA, XDR InfiniBand (Table 3, larger SuperPOD component counts):
  https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html
* B300 SuperPOD RA, Spectrum-X Ethernet (Table 3):
  https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300/latest/dgx-superpod-architecture.html
* QM9700 product page: https://www.nvidia.com/en-us/networking/infiniband/qm9700/
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Confidence = Literal["A", "B", "C"]

H100_RA = (
    "NVIDIA DGX SuperPOD H100 RA (RA-11333-001): compute-fabric table and 4-SU component BOM "
    "(https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/"
    "latest/)"
)
B300_XDR_RA = (
    "NVIDIA DGX SuperPOD B300 XDR RA, Table 3 (https://docs.nvidia.com/dgx-superpod/"
    "reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html)"
)
B300_ETH_RA = (
    "NVIDIA DGX SuperPOD B300 Spectrum-X RA, Table 3 (https://docs.nvidia.com/dgx-superpod/"
    "reference-architecture/scalable-infrastructure-b300/latest/dgx-superpod-architecture.html)"
)


class Switch(BaseModel):
    """A switch: ports at each speed it runs, its cages, height and power."""

    model_config = ConfigDict(frozen=True)

    key: str = Field(description="short name used on the command line and in documents")
    name: str
    pn: str | None = Field(None, description="NVIDIA part number where an RA's BOM gives it")
    protocol: Literal["infiniband", "ethernet"]
    ports: dict[int, int] = Field(description="Gb/s -> ports at that speed (split modes)")
    cages: int | None = Field(None, description="OSFP cages: one switch-side module each")
    height_u: int | None = None
    power_typical_w: float | None = None
    power_max_w: float | None = Field(None, description="maximum, with optics/active cables")
    ufm_links: int = Field(
        0,
        description="leaf ports the reference design gives to UFM appliances (first unit); "
        "they take one node position from the first scalable unit",
    )
    source: str
    confidence: Confidence

    def radix(self, gbps: int) -> int | None:
        return self.ports.get(gbps)

    def ports_per_cage(self, gbps: int) -> int | None:
        r = self.radix(gbps)
        return None if r is None or not self.cages else r // self.cages


QM9700 = Switch(
    key="qm9700",
    name="NVIDIA Quantum-2 QM9700",
    pn="920-9B210-00FN-0M0",
    protocol="infiniband",
    # 32 OSFP cages = 64 NDR 400 Gb/s ports, or 128 NDR200 ports in split mode (product page)
    ports={400: 64, 200: 128},
    cages=32,
    height_u=1,
    power_typical_w=747,
    power_max_w=1720,
    ufm_links=4,
    source=f"{H100_RA}: 32 OSFP cages, 64 x 400G, 1U; power 1.72 kW max with active cables, "
    "0.747 kW typical; the compute table's node+UFM->leaf cables are N x 8 + 4 at 1-4 SU",
    confidence="A",
)
Q3400 = Switch(
    key="q3400",
    name="NVIDIA Quantum-X800 Q3400",
    pn=None,
    protocol="infiniband",
    ports={800: 144},
    # 72 cages: derived (C) from 144 ports at two ports per twin-port OSFP cage as on Quantum-2
    cages=72,
    height_u=None,
    power_typical_w=None,
    power_max_w=None,
    ufm_links=0,
    source=f"{B300_XDR_RA}: 144 x 800G XDR; 72 nodes per SU, 8 leaf / 4 spine, node-leaf cables "
    "= nodes x 8 (no leaf port set aside for UFM); cages derived (144 / 2); height and power: "
    "not found in a reachable source",
    confidence="C",
)
SN5600 = Switch(
    key="sn5600",
    name="NVIDIA Spectrum-X SN5600",
    pn=None,
    protocol="ethernet",
    # 64 x 800GbE OSFP, split 128 x 400GbE / 256 x 200GbE; the B300 Spectrum-X RA's 64-node SU
    # with 16 leaf / 8 spine (two 400G planes per 800G SuperNIC) needs 128 ports at 400G.
    ports={800: 64, 400: 128, 200: 256},
    cages=64,
    height_u=2,
    power_typical_w=940,
    power_max_w=None,
    ufm_links=0,
    source=f"{B300_ETH_RA} (64 nodes per SU: 16 leaf / 8 spine) and the SN5600 data sheet "
    "(64 x 800G OSFP, 2U); 0.94 kW typical per the SuperPOD RA's switch table; maximum not "
    "published",
    confidence="B",
)
COMPUTE_SWITCHES: tuple[Switch, ...] = (QM9700, Q3400, SN5600)


class Device(BaseModel):
    """A management-network switch or appliance (sized by scaling a published BOM)."""

    model_config = ConfigDict(frozen=True)

    key: str
    name: str
    pn: str | None = None
    height_u: int | None = None
    power_w: float | None = Field(None, description="typical, as the RA's table gives it")
    source: str
    confidence: Confidence


SN4600C = Device(
    key="sn4600c",
    name="NVIDIA Spectrum SN4600C (in-band / storage Ethernet)",
    height_u=2,
    power_w=466,
    source=f"{H100_RA}: 0.466 kW typical; 8 in the 4-SU BOM; 2U (SN4600C data sheet)",
    confidence="B",
)
SN2201 = Device(
    key="sn2201",
    name="NVIDIA Spectrum SN2201 (out-of-band management)",
    height_u=1,
    power_w=98,
    source=f"{H100_RA}: 0.098 kW; 8 in the 4-SU BOM; 1U (SN2201 data sheet)",
    confidence="B",
)
UFM_APPLIANCE = Device(
    key="ufm",
    name="NVIDIA UFM appliance",
    height_u=1,
    power_w=689,
    source=f"{H100_RA}: 0.689 kW; 4 in the 4-SU BOM; 1U",
    confidence="B",
)


class Optic(BaseModel):
    """A transceiver or cable of one link speed."""

    model_config = ConfigDict(frozen=True)

    name: str
    pn: str | None = None
    reach: str = ""
    source: str


CABLING = (
    "NVIDIA Interconnect Structured Cabling Requirements for InfiniBand NDR/XDR and 400/800G "
    "ETH (https://docs.nvidia.com/networking/display/intrcnctcabreqndr400eth): MPO multimode "
    "up to 50 m for NDR and 400G ETH (OM3 to 30 m, OM4 to 50 m), MPO single-mode up to 500 m, "
    "LC single-mode up to 2,000 m, patch panels included"
)


class Reach(BaseModel):
    """A cable reach class: the longest run it covers and its fibre."""

    model_config = ConfigDict(frozen=True)

    max_m: float
    name: str
    mode: Literal["multimode", "single-mode"]


REACHES: tuple[Reach, ...] = (
    Reach(max_m=30, name="multimode MPO, OM3 (up to 30 m)", mode="multimode"),
    Reach(max_m=50, name="multimode MPO, OM4 (up to 50 m)", mode="multimode"),
    Reach(max_m=500, name="single-mode MPO, OS2 (up to 500 m)", mode="single-mode"),
    Reach(max_m=2000, name="single-mode LC, OS2 (up to 2 km)", mode="single-mode"),
)


def reach_for(gbps: int, metres: float) -> Reach | None:
    """The shortest-reach class that covers ``metres`` (CABLING); multimode only up to 400G
    (the requirements give its reach for NDR and 400G ETH only).  None: past 2 km."""
    for r in REACHES:
        if r.max_m >= metres and (r.mode == "single-mode" or gbps <= 400):
            return r
    return None


# NDR (400G) multimode optics of the H100 SuperPOD BOM (its cables are 30 m); other speeds, reach
# classes and single-port cards are not in a published BOM we could reach, so they carry no part
# number ("PN needed" in the quote).
OPTICS: dict[tuple[int, str, str], Optic] = {
    (400, "switch", "multimode"): Optic(
        name="twin-port 2x400G OSFP transceiver, finned (switch side)",
        pn="980-9I510-00NS00",
        reach="multimode, SR8",
        source=H100_RA,
    ),
    (400, "node", "multimode"): Optic(
        name="twin-port 2x400G OSFP transceiver, flat-top (node side)",
        pn="980-9I51A-00NS00",
        reach="multimode, SR8",
        source=H100_RA,
    ),
    (400, "cable", REACHES[0].name): Optic(
        name="NDR multimode fibre cable, MPO-12 APC, 30 m",
        pn="980-9I570-00N030",
        reach=REACHES[0].name,
        source=H100_RA,
    ),
}


def optic(gbps: int, role: str, reach: Reach = REACHES[0]) -> Optic:
    """The transceiver (keyed by fibre mode) or cable (keyed by reach class) of a link speed;
    one without a published part number says so."""
    key = reach.name if role == "cable" else reach.mode
    found = OPTICS.get((gbps, role, key))
    if found is not None:
        return found
    what = {
        "switch": "twin-port OSFP transceiver, finned (switch side)",
        "node": "twin-port OSFP transceiver, flat-top (node side)",
        "node-single": "single-port OSFP transceiver, flat-top (one per single-port card)",
        "cable": "fibre cable",
    }[role]
    return Optic(
        name=f"{gbps}G {reach.mode} {what}",
        reach=reach.name if role == "cable" else reach.mode,
        source="no part number in a published reference-architecture BOM; reach: " + CABLING,
    )


def switch_by_key(key: str) -> Switch | None:
    return next((s for s in COMPUTE_SWITCHES if s.key == key.lower()), None)


def default_switch(gbps: int, protocol: str = "infiniband") -> Switch | None:
    """The reference designs' compute switch for a NIC speed: Quantum-2 for NDR/NDR200,
    Quantum-X800 for XDR, Spectrum-X SN5600 for Ethernet."""
    for s in COMPUTE_SWITCHES:
        if s.protocol == protocol and gbps in s.ports:
            return s
    return None
