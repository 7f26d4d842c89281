"""Companion lines: what an order needs beside the parts, each kind from one sourced rule.

The rules, applied to the parts' line items in BOM order (one rule per kind, each naming its
source; a figure no source gives stays "PN needed" / power "not verified"):

``catalog_companions``
    A record's ``[[<kind>.companions]]``: lines the vendor's own BOM lists with the part (a
    BlueField-3 B3220's NVIDIA software-support contract and aux power cable; a chassis' rail kit
    where its record lists one), ``per_unit`` per unit of the part.
``power_cords``
    One AC power cord per PSU, of the connector the PSU record's ``inlet`` takes (C19 for a C20
    inlet, C13 for a C14 inlet).  Each Supermicro PSU module has its own single AC inlet
    (netbox-community/devicetype-library module-types/Supermicro/PWS-2K70A-1R.yaml: one power
    port, iec-60320-c20).  No Supermicro cord part number is in a public source we could reach,
    so the line says "PN needed"; the plug end follows the rack PDU (a site choice).
``transceivers``
    One pluggable module per port of every network card and on-board NIC (every cage
    populated), of the card's cage form and port speed, multimode up to 50 m; a DAC or AOC may
    replace module and fibre for runs inside the rack (a site choice the line states).  NVIDIA's
    OPNs and maximum power from its transceiver product specifications (:data:`MODULES`); an
    RJ45 port takes a copper patch cable, no module.

Services (warranty, on-site service, assembly) are never derived: the user chooses them
(``[meta] services``, ``export --service``, the app's quote details) from :data:`SERVICES`, the
codes a Supermicro-generated BOM lists.  Nothing here is priced unless the price list prices it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import Nic, Psu, Record

#: The Supermicro-generated BOM every service code and the DPU companions come from.
SMC_BOM = (
    "Supermicro-generated BOM for AS-4126GS-NBR-LCC, github.com/afewell-hh/aid "
    "docs/requirements/real-server-bom.csv @d1f0771e"
)
CORD_RULE = (
    "one AC power cord per PSU: each Supermicro PSU module has one AC inlet "
    "(netbox-community/devicetype-library module-types/Supermicro/PWS-2K70A-1R.yaml @7aadbc92: one "
    "power port, iec-60320-c20); no Supermicro cord part number found in a public source"
)
MODULE_RULE = "one module per port of every network card (each cage populated), cage form and speed of the card"
#: The IEC 60320 connector on the cord for each inlet the PSU records name.
CORD_CONNECTOR = {"C19/C20": ("C19", "C20"), "C13/C14": ("C13", "C14"), "C15/C16": ("C15", "C16")}
#: Words for a line whose power is not a figure.
DRAWS_NONE = "none"
NOT_VERIFIED = "not verified"
IN_CARD = "in the card's figure"
DAC_NOTE = "a DAC/AOC may replace module + fibre inside the rack"


class Module(BaseModel):
    """A pluggable module for a cage form at a port speed; ``pn`` None: no published OPN."""

    model_config = ConfigDict(frozen=True)

    name: str
    pn: str | None = None
    power_w: float | None = None
    source: str
    confidence: Literal["A", "B"] | None = None


_MMA4Z = (
    "https://docs.nvidia.com/networking/display/MMA4Z00NS400 (MMA4Z00-NS400 400Gb/s single-port "
    "OSFP multimode SR4 50m); flat top riding the ConnectX-7 cage's heat sink and 9 W maximum at "
    "400Gb/s: https://docs.nvidia.com/networking/display/MMA4Z00NS400T/Connectivity+Scenarios "
    "(its Ethernet twin, the same design)"
)
_MMA1Z = (
    "https://docs.nvidia.com/networking/display/MMA1Z00NS400T/Overview (MMA1Z00-NS400-T 400Gb/s "
    "single-port QSFP112 multimode, for BlueField-3 / ConnectX-7 QSFP112 cards; 9 W maximum at "
    "400Gb/s, 5 W maximum at 200Gb/s on a 1:2 splitter fibre; BlueField-3 takes only QSFP112)"
)
_NO_OPN = "no NVIDIA OPN for this cage and speed in the NVIDIA transceiver documents we reached"

#: (cage, port Gb/s) -> the module; a cage/speed not here gets a "PN needed" line.
MODULES: dict[tuple[str, int], Module] = {
    ("OSFP", 400): Module(
        name="400G single-port OSFP transceiver, flat top (card side), multimode SR4, 50 m",
        pn="MMA4Z00-NS400",
        power_w=9,
        source=_MMA4Z,
        confidence="A",
    ),
    ("QSFP112", 400): Module(
        name="400G single-port QSFP112 transceiver, multimode SR4, 50 m",
        pn="MMA1Z00-NS400-T",
        power_w=9,
        source=_MMA1Z,
        confidence="A",
    ),
    ("QSFP112", 200): Module(
        name="QSFP112 transceiver run at 200G (2 of 4 channels, splitter fibre), multimode, 50 m",
        pn="MMA1Z00-NS400-T",
        power_w=5,
        source=_MMA1Z,
        confidence="A",
    ),
}


class Service(BaseModel):
    """A service line the user may add; ``code`` as Supermicro's BOM lists it."""

    model_config = ConfigDict(frozen=True)

    code: str
    kind: Literal["warranty", "onsite", "assembly"]
    description: str
    source: str
    confidence: Literal["A", "B"]


#: How each service kind reads in a hint or message.
SERVICE_WORDS = {"warranty": "warranty", "onsite": "on-site service", "assembly": "assembly"}


def services_hint() -> str:
    """'EWCSC warranty, OSNBD3 on-site service, MC0037 assembly'."""
    return ", ".join(f"{c} {SERVICE_WORDS[s.kind]}" for c, s in SERVICES.items())


_SVC_NOTE = "; seen on a Supermicro BOM for an H14 system: confirm the code for this system"
SERVICES: dict[str, Service] = {
    s.code: s
    for s in (
        Service(
            code="EWCSC",
            kind="warranty",
            description="Warranty: 3 years labour, 3 years parts, 1 year cross-ship "
            "(Supermicro limited warranty)",
            source=f"{SMC_BOM}: EWCSC '0% 3 YRS LABOR, 3 YRS PARTS, 1 YR CRS UNDER LIMITED WRNTY'"
            + _SVC_NOTE,
            confidence="A",
        ),
        Service(
            code="OSNBD3",
            kind="onsite",
            description="On-site service (Supermicro OSNBD3)",
            source=f"{SMC_BOM}: 'Onsite Service,OSNBD3'" + _SVC_NOTE,
            confidence="A",
        ),
        Service(
            code="MC0037",
            kind="assembly",
            description="Assembly and integration (Supermicro MC0037)",
            source=f"{SMC_BOM}: 'Assembly,MC0037,Assembly'" + _SVC_NOTE,
            confidence="A",
        ),
    )
}


def check_services(codes: Sequence[str]) -> tuple[str, ...]:
    """The codes as given, upper-cased and each once; ValueError naming an unknown one."""
    out: list[str] = []
    for raw in codes:
        code = raw.strip().upper()
        if not code:
            continue
        if code not in SERVICES:
            raise ValueError(f"{raw!r} is not a known service code; known: {services_hint()}")
        if code not in out:
            out.append(code)
    return tuple(out)


def parse_services(text: str) -> tuple[str, ...]:
    """Codes from free text: comma or space separated ("EWCSC, OSNBD3")."""
    return check_services(text.replace(",", " ").split())


class Companion(BaseModel):
    """One companion line before it becomes a LineItem (engine.build.items)."""

    model_config = ConfigDict(frozen=True)

    sku: str
    kind: str
    description: str
    quantity: int
    pn: str | None = None
    vendor: str | None = None
    confidence: str | None = None
    source: str
    unit_power_w: float | None = None
    power_note: str | None = None


def _catalog_companions(parts: Sequence[tuple[str, int]], catalog: Catalog) -> list[Companion]:
    out: list[Companion] = []
    for sku, qty in parts:
        rec = catalog.get(sku)
        for c in rec.companions if rec is not None else ():
            out.append(
                Companion(
                    sku=c.pn,
                    kind=c.kind,
                    description=c.description,
                    quantity=c.per_unit * qty,
                    pn=c.pn,
                    vendor="Supermicro",
                    confidence=c.confidence,
                    source=c.source,
                    power_note=DRAWS_NONE,
                )
            )
    return out


def _power_cords(parts: Sequence[tuple[str, int]], catalog: Catalog) -> list[Companion]:
    out: list[Companion] = []
    for sku, qty in parts:
        psu = catalog.get(sku)
        if not isinstance(psu, Psu):
            continue
        ends = CORD_CONNECTOR.get(psu.inlet or "")
        if ends is None:
            desc = f"Power cord for the {psu.name} (PSU inlet not verified); other end to match the rack PDU"
            cord_sku = f"POWER-CORD-{psu.sku}"
        else:
            desc = f"Power cord, {ends[0]} to the PSU's {ends[1]} inlet; other end to match the rack PDU"
            cord_sku = f"POWER-CORD-{ends[0]}"
        inlet_src = psu.field_sources.get("inlet", psu.source)
        out.append(
            Companion(
                sku=cord_sku,
                kind="cord",
                description=desc,
                quantity=qty,
                source=f"{CORD_RULE}; inlet: {inlet_src if psu.inlet else 'not in the PSU record'}",
                power_note=DRAWS_NONE,
            )
        )
    return out


def module_for(nic: Nic) -> Module | None:
    """The module a port of ``nic`` takes; None for an RJ45 port (a copper cable, no module)."""
    if nic.cage == "RJ45":
        return None
    if nic.cage is None:
        return Module(
            name="transceiver (port cage not verified)",
            source=f"{MODULE_RULE}; the NIC record gives no cage",
        )
    found = MODULES.get((nic.cage, nic.port_gbps))
    if found is not None:
        return found
    return Module(
        name=f"{nic.port_gbps}G {nic.cage} transceiver, multimode",
        source=f"{MODULE_RULE}; {_NO_OPN}",
    )


def _transceivers(parts: Sequence[tuple[str, int]], catalog: Catalog) -> list[Companion]:
    """Cards whose ports take the same module at the same power share one line."""
    groups: dict[tuple[str, float | None, str | None], tuple[Module, list[str], int]] = {}
    for sku, qty in parts:
        nic = catalog.nics.get(sku)
        mod = None if nic is None else module_for(nic)
        if nic is None or mod is None:
            continue
        power, note = mod.power_w, None
        if nic.power_includes_modules:
            power, note = None, IN_CARD
        elif power is None:
            note = NOT_VERIFIED
        line_sku = mod.pn or (
            f"XCVR-{nic.cage}-{nic.port_gbps}G" if nic.cage else f"XCVR-{nic.sku}"
        )
        key = (line_sku, power, note)
        _, names, n = groups.get(key, (mod, [], 0))
        if nic.name not in names:
            names.append(nic.name)
        groups[key] = (mod, names, n + nic.ports * qty)
    return [
        Companion(
            sku=line_sku,
            kind="transceiver",
            description=f"{mod.name}, for the {' and the '.join(names)}; {DAC_NOTE}",
            quantity=n,
            pn=mod.pn,
            vendor="NVIDIA" if mod.pn else None,
            confidence=mod.confidence,
            source=f"{MODULE_RULE}: {mod.source}",
            unit_power_w=power,
            power_note=note,
        )
        for (line_sku, power, note), (mod, names, n) in groups.items()
    ]


RULES = (_catalog_companions, _power_cords, _transceivers)


def companions(
    parts: Sequence[tuple[str, int]], catalog: Catalog, services: Sequence[str] = ()
) -> list[Companion]:
    """Every companion line of the parts (``(sku, quantity)`` in BOM order), one per SKU with
    quantities summed, rule by rule; then the chosen services, one each."""
    merged: dict[tuple[str, str, float | None], Companion] = {}
    for rule in RULES:
        for c in rule(parts, catalog):
            key = (c.sku, c.kind, c.unit_power_w)
            got = merged.get(key)
            merged[key] = (
                c if got is None else got.model_copy(update={"quantity": got.quantity + c.quantity})
            )
    out = list(merged.values())
    for code in check_services(services):
        s = SERVICES[code]
        out.append(
            Companion(
                sku=code,
                kind=s.kind,
                description=s.description,
                quantity=1,
                pn=code,
                vendor="Supermicro",
                confidence=s.confidence,
                source=s.source,
                power_note=DRAWS_NONE,
            )
        )
    return out


def priced(prices: Mapping[str, float], c: Companion) -> float | None:
    """A companion's unit price: the price list's, by part number or internal id; else None."""
    return prices.get(c.pn or c.sku, prices.get(c.sku))


def companion_gaps(records: Sequence[Record], catalog: Catalog) -> list[Companion]:
    """The companion lines ``records`` would bring that have no sourced part number ("PN
    needed" in a quote: cords, modules for a cage or speed without an OPN), one per line SKU,
    for ``slotwise parts --gaps``."""
    seen: dict[str, Companion] = {}
    for c in companions([(r.sku, 1) for r in records], catalog):
        if c.pn is None and c.sku not in seen:
            seen[c.sku] = c
    return sorted(seen.values(), key=lambda c: (c.kind, c.sku))
