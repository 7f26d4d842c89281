"""What a build search takes and returns: the customer's constraints, each suggested build with
its report, estimate, power and price, and the search's outcome (notes, rejection reasons)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from slotwise.engine.build import Build, InputVoltage, Redundancy
from slotwise.engine.check.report import Report
from slotwise.engine.check.sizing import Sizing
from slotwise.engine.cost.pricing import Quote
from slotwise.engine.cost.tco import TcoResult, servers_tco
from slotwise.engine.estimate import Estimate
from slotwise.engine.plan.cluster import DEFAULT_KW_PER_RACK, ClusterPlan
from slotwise.parts.catalog import Catalog

Objective = Literal["gpus", "power", "price", "time"]


OBJECTIVES: tuple[str, ...] = ("gpus", "power", "price", "time")


Estimator = Callable[..., Estimate]  # estimate(workload, gpu, gpus, *, arch) -> Estimate


Evaluator = Callable[[Build, Catalog], Report]


class SuggestError(ValueError):
    """Bad constraints (unknown chassis, GPU, ...); the message says what is known."""


class Constraints(BaseModel):
    """What the customer fixes; every field is optional."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    chassis: tuple[str, ...] = Field((), description="chassis SKUs or families (X13, H14...)")
    gpus: tuple[str, ...] = Field((), description="GPU SKUs allowed")
    cooling: Literal["air", "liquid"] | None = None
    voltage: InputVoltage = "200-240"
    max_power_w: float | None = Field(None, gt=0, description="per server")
    budget: float | None = Field(None, gt=0, description="total, in the price list's currency")
    redundancy: Redundancy = "N+1"
    kw_per_rack: float = Field(DEFAULT_KW_PER_RACK, gt=0)
    max_nodes: int = Field(1024, ge=1)
    min_nic_gbps: int = Field(200, ge=1, description="per GPU NIC speed for multi-node")


@dataclass(frozen=True)
class Suggestion:
    rank: int
    build: Build
    report: Report
    estimate: Estimate
    gpu: str
    gpus: int  # per node
    nodes: int
    power_w: float | None  # per node, the engine's power budget
    quote: Quote | None  # per node
    cluster: ClusterPlan | None
    key: tuple
    #: The one sizing answer for this build and the whole workload (engine.check.sizing);
    #: None with an injected estimator/evaluator.
    sizing: Sizing | None = None

    def tco(
        self,
        currency: str,
        *,
        years: int = 3,
        utilization: float = 1.0,
        pue: float = 1.0,
        kwh_price: float | None = None,
        cloud_gpu_hour: float | None = None,
    ) -> TcoResult | None:
        """TCO of every server of the suggestion and its fabric's power (engine.cost.tco.
        servers_tco); None when the price or the node power is unknown."""
        if self.price is None or self.power_w is None:
            return None
        return servers_tco(
            purchase_price=self.price,
            node_power_w=self.power_w,
            nodes=self.nodes,
            gpus=self.total_gpus,
            fabric_power_w=self.cluster.fabric_power_w if self.cluster is not None else 0.0,
            years=years,
            utilization=utilization,
            pue=pue,
            kwh_price=kwh_price,
            cloud_gpu_hour=cloud_gpu_hour,
            currency=currency,
        )

    @property
    def unknown(self) -> tuple[str, ...]:
        """What is unknown about this build's speed (listed apart when not empty)."""
        return self.sizing.unknown if self.sizing is not None else ()

    @property
    def total_gpus(self) -> int:
        return self.gpus * self.nodes

    @property
    def price(self) -> float | None:
        if self.quote is None or self.quote.total is None:
            return None
        return self.quote.total * self.nodes

    @property
    def train_hours(self) -> float | None:
        return self.estimate.train_hours

    def to_json(self) -> dict:
        est = self.estimate
        est_json = est.to_json()
        b = self.build
        return {
            "rank": self.rank,
            "chassis": b.chassis,
            "gpu": self.gpu,
            "gpus": self.gpus,
            "nodes": self.nodes,
            "total_gpus": self.total_gpus,
            "errors": self.report.errors,
            "warnings": self.report.warnings,
            "power_w": self.power_w,
            "memory_per_gpu": est_json.get("memory_per_gpu"),
            "train_hours": self.train_hours,
            "train_tokens_per_s": est_json.get("train_tokens_per_s"),
            "train_tokens_per_s_per_gpu": est_json.get("train_tokens_per_s_per_gpu"),
            "mfu_effective": est_json.get("mfu_effective"),
            "step_seconds": est_json.get("step_seconds"),
            "gpu_hours": est_json.get("gpu_hours"),
            "time_breakdown": est_json.get("time_breakdown"),
            "interconnect": (est_json.get("assumptions") or {}).get("interconnect"),
            "decode_tokens_per_s": est.decode_tokens_per_s,
            "serving": est_json.get("serving"),
            "price": self.price,
            "currency": self.quote.currency if self.quote else None,
            "price_missing": list(self.quote.missing) if self.quote else [],
            "price_is_example": bool(self.quote and self.quote.example),
            "build": {
                "cpu": b.cpu,
                "cpu_count": b.cpu_count,
                "dimm": b.dimm,
                "dimm_count": b.dimm_count,
                "baseboard": b.baseboard,
                "slots": dict(b.slots),
                "bridges": [br.model_dump() for br in b.bridges],
                "drives": [d.model_dump() for d in b.drives],
                "psu": b.psu,
                "psu_count": b.psu_count,
                "env": b.env.model_dump(),
            },
            "cluster": self.cluster.to_json() if self.cluster else None,
            "sizing": self.sizing.to_json() if self.sizing else None,
            "unknown": list(self.unknown),
        }


@dataclass(frozen=True)
class SuggestResult:
    suggestions: tuple[Suggestion, ...]
    objective: str
    multi_node: bool
    notes: tuple[str, ...] = ()
    rejected: tuple[tuple[str, int], ...] = ()  # (reason, how many candidates)
    validated: int = 0
    #: The precision the workload is estimated in ("auto" resolved against the checkpoint by
    #: engine.estimate.checkpoint.served_precision): what headers show beside the workload.
    precision: str = ""

    @property
    def ok(self) -> bool:
        return bool(self.suggestions)
