"""Total cost of ownership: buy the build and pay its power, or rent the same GPUs in a cloud.

Every input is the user's: the purchase price comes from their price list, the power from the
engine's worst-case draw of the build, and PUE, price per kWh, utilization and the cloud price per
GPU-hour from flags.  Nothing here is a market figure.

Formulas (per month of 8,760 / 12 = 730 hours):

* energy (kWh) = draw (kW) x utilization x PUE x 730, where PUE = total facility energy / IT
  energy (The Green Grid, "PUE: A Comprehensive Examination of the Metric", White Paper 49, 2012);
  the default PUE 1.0 counts the IT load only;
* owning(m) = purchase + m x energy x price per kWh;
* cloud(m) = m x GPUs x price per GPU-hour x 730 x utilization (you rent the hours you use);
* break-even = the first whole month m with owning(m) <= cloud(m).

Not included (unknown to the tool, so not guessed): staff, rack space, network, support contracts,
financing, resale value.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from slotwise.engine.inputs import ref

HOURS_PER_MONTH = 8760 / 12


class TcoInputs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    purchase_price: float | None = Field(
        ge=0, description="None: unknown, a part has no price (no break-even month then)"
    )
    power_w: float = Field(ge=0, description="worst-case draw of everything bought")
    gpus: int = Field(ge=1)
    years: int = Field(3, ge=1, le=10)
    # Realistic bounds (issue #29): a price of 1e308 gave "inf USD"; 1% utilisation is the least
    # anyone plans a purchase around.  Prices in any currency: a kWh costs at most a few
    # thousand units of the smallest currencies (Vietnamese dong ~3,000), a cloud GPU-hour
    # some hundred thousand.
    utilization: float = Field(1.0, ge=0.01, le=1, allow_inf_nan=False)
    pue: float = Field(1.0, ge=1, le=5)
    kwh_price: float | None = Field(None, ge=0, le=1e6, allow_inf_nan=False)
    cloud_gpu_hour: float | None = Field(None, ge=0, le=1e8, allow_inf_nan=False)
    currency: str = "USD"


class TcoResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    inputs: TcoInputs
    energy_kwh_month: float
    power_cost_month: float | None
    cloud_cost_month: float | None
    break_even_month: int | None
    notes: tuple[str, ...] = ()

    @property
    def months(self) -> int:
        return self.inputs.years * 12

    def owning(self, month: int) -> float | None:
        if self.power_cost_month is None or self.inputs.purchase_price is None:
            return None
        return self.inputs.purchase_price + month * self.power_cost_month

    def cloud(self, month: int) -> float | None:
        if self.cloud_cost_month is None:
            return None
        return month * self.cloud_cost_month

    def to_json(self) -> dict:
        n = self.months
        return {
            "years": self.inputs.years,
            "currency": self.inputs.currency,
            "purchase_price": self.inputs.purchase_price,
            "power_w": self.inputs.power_w,
            "utilization": self.inputs.utilization,
            "pue": self.inputs.pue,
            "kwh_price": self.inputs.kwh_price,
            "cloud_gpu_hour": self.inputs.cloud_gpu_hour,
            "energy_kwh_month": self.energy_kwh_month,
            "power_cost_month": self.power_cost_month,
            "cloud_cost_month": self.cloud_cost_month,
            "own_total": self.owning(n),
            "cloud_total": self.cloud(n),
            "break_even_month": self.break_even_month,
            "notes": list(self.notes),
        }


def compute_tco(inp: TcoInputs) -> TcoResult:
    energy = inp.power_w / 1000 * inp.utilization * inp.pue * HOURS_PER_MONTH
    notes: list[str] = []
    if inp.purchase_price is None:
        notes.append("The purchase price is unknown (parts without a price): no break-even month.")
    power_month = None if inp.kwh_price is None else energy * inp.kwh_price
    if power_month is None:
        notes.append(f"No {ref('kwh_price')} given: the cost of power is unknown.")
    cloud_month = (
        None
        if inp.cloud_gpu_hour is None
        else inp.gpus * inp.cloud_gpu_hour * HOURS_PER_MONTH * inp.utilization
    )
    if cloud_month is None:
        notes.append(f"No {ref('cloud_gpu_hour')} given: no cloud comparison.")
    even = None
    if power_month is not None and cloud_month is not None and inp.purchase_price is not None:
        saving = cloud_month - power_month
        if saving > 0:
            # first whole month where purchase + m*power <= m*cloud
            even = max(1, math.ceil(inp.purchase_price / saving - 1e-9))
            if even > inp.years * 12:
                notes.append(
                    f"Owning pays off in month {even}, after the {inp.years}-year horizon."
                )
        else:
            notes.append("Power alone costs at least as much as the cloud: owning never pays off.")
    return TcoResult(
        inputs=inp,
        energy_kwh_month=energy,
        power_cost_month=power_month,
        cloud_cost_month=cloud_month,
        break_even_month=even,
        notes=tuple(notes),
    )


def _money(x: float | None, cur: str) -> str:
    return "unknown" if x is None else f"{x:,.0f} {cur}"


def tco_markdown(result: TcoResult) -> str:
    """A Markdown TCO section for the export: inputs, yearly cumulative costs, break-even."""
    i = result.inputs
    cur = i.currency
    lines = [
        f"## Total cost of ownership ({i.years} years)",
        "",
        f"- purchase: {_money(i.purchase_price, cur)}",
        f"- power: {i.power_w:,.0f} W worst-case draw x {i.utilization:.0%} utilization x "
        f"PUE {i.pue:g} = {result.energy_kwh_month:,.0f} kWh per month"
        + (f" at {i.kwh_price:g} {cur}/kWh" if i.kwh_price is not None else ""),
        f"- cloud: {i.gpus} GPUs"
        + (f" at {i.cloud_gpu_hour:g} {cur} per GPU-hour" if i.cloud_gpu_hour is not None else "")
        + f", {i.utilization:.0%} of the hours",
        "",
        "| year | own (cumulative) | cloud (cumulative) |",
        "| --- | --- | --- |",
    ]
    for y in range(1, i.years + 1):
        m = 12 * y
        lines.append(f"| {y} | {_money(result.owning(m), cur)} | {_money(result.cloud(m), cur)} |")
    lines.append("")
    if result.break_even_month is not None and result.break_even_month <= result.months:
        lines.append(f"Owning becomes cheaper than the cloud in month {result.break_even_month}.")
    elif result.break_even_month is None and not result.notes:
        lines.append("Owning does not become cheaper within the horizon.")
    lines += [f"- {n}" for n in result.notes]
    lines.append("- Not included: staff, rack space, network, support, financing, resale value.")
    return "\n".join(lines) + "\n"


def servers_tco(
    *,
    purchase_price: float | None,
    node_power_w: float,
    nodes: int,
    gpus: int,
    fabric_power_w: float = 0.0,
    fabric_priced: bool = False,
    years: int = 3,
    utilization: float = 1.0,
    pue: float = 1.0,
    kwh_price: float | None = None,
    cloud_gpu_hour: float | None = None,
    currency: str = "USD",
) -> TcoResult:
    """TCO of ``nodes`` identical servers and the network that joins them: power = nodes x the
    node's worst case at the wall + the fabric and management switches (the cluster plan's
    ``fabric_power_w``).  ``purchase_price`` is what the caller priced; when the switches are
    not in it (``fabric_priced`` False) a note says so.  The one composition every front end
    uses for a suggestion or a cluster (engine.plan)."""
    result = compute_tco(
        TcoInputs(
            purchase_price=purchase_price,
            power_w=node_power_w * nodes + fabric_power_w,
            gpus=gpus,
            years=years,
            utilization=utilization,
            pue=pue,
            kwh_price=kwh_price,
            cloud_gpu_hour=cloud_gpu_hour,
            currency=currency,
        )
    )
    if fabric_power_w > 0:
        note = f"Power includes {fabric_power_w:,.0f} W of fabric and management switches"
        note += "." if fabric_priced else "; their purchase price is not included."
        result = result.model_copy(update={"notes": (*result.notes, note)})
    return result
