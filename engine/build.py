"""The user's assembly: immutable.  Edit operations (engine.edits) return a new Build."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.workload import Workload

InputVoltage = Literal["200-240", "100-127"]
Redundancy = Literal["N+1", "N+N"]
SiteCooling = Literal["air", "liquid"]


class Environment(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    input_voltage: InputVoltage = "200-240"
    ambient_c: float = Field(25.0, ge=-10, le=60)
    redundancy: Redundancy = "N+1"
    # What the site can cool with: "air" only, or a liquid (direct-to-chip) loop as well.
    cooling: SiteCooling = "air"


class BridgeFit(BaseModel):
    """NVLink bridges of one SKU joining a group of slots (a pair, or four for a 4-way)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sku: str
    slots: tuple[str, ...]
    count: int = Field(1, ge=1, description="bridges fitted on this group")


class DriveFit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    bay: str
    sku: str
    count: int = Field(ge=1)


class Build(BaseModel):
    """What the user has chosen.  Never mutated: every edit returns a copy."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    chassis: str
    cpu: str | None = None
    cpu_count: int = Field(0, ge=0)
    dimm: str | None = None
    dimm_count: int = Field(0, ge=0)
    slots: dict[str, str] = Field(default_factory=dict, description="slot id -> GPU/NIC SKU")
    baseboard: str | None = None
    bridges: tuple[BridgeFit, ...] = ()
    drives: tuple[DriveFit, ...] = ()
    psu: str | None = None
    psu_count: int = Field(0, ge=0)
    env: Environment = Environment()
    workload: Workload | None = None

    def with_(self, **changes) -> Build:
        """A copy with fields replaced (validated)."""
        data = self.model_dump()
        data.update(
            {k: (v.model_dump() if isinstance(v, BaseModel) else v) for k, v in changes.items()}
        )
        return Build.model_validate(data)

    def occupant(self, slot_id: str) -> str | None:
        return self.slots.get(slot_id)
