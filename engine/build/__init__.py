"""The user's assembly: immutable.  Edit operations (engine.build.edits) return a new Build."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from slotwise.engine.workload import Workload
from slotwise.parts.bounds import FloatSized, PartCount, PositivePartCount, float_range
from slotwise.parts.plain_text import SingleLine
from slotwise.parts.schema import MAX_SKU_CHARS

InputVoltage = Literal["200-240", "100-127"]
# N+1: any one PSU may fail; N+N: one of two feeds may fail; "chassis": the scheme the chassis
# record specifies (e.g. 4+2, 3+3), see engine.check.power_model.usable_units.
Redundancy = Literal["N+1", "N+N", "chassis"]
SiteCooling = Literal["air", "liquid"]
#: A part number (the longest real SKU is ~40 characters) and a slot or bay id; neither holds
#: a control character (parts.plain_text: a received BOM cannot reach the terminal raw).
Sku = Annotated[str, StringConstraints(max_length=MAX_SKU_CHARS), SingleLine]
SlotId = Annotated[str, StringConstraints(max_length=64), SingleLine]


class Environment(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    input_voltage: InputVoltage = "200-240"
    ambient_c: Annotated[float, float_range(-10, 60, "deg C", "server inlet"), FloatSized] = 25.0
    redundancy: Redundancy = "N+1"
    # What the site can cool with: "air" only, or a liquid (direct-to-chip) loop as well.
    cooling: SiteCooling = "air"


class BridgeFit(BaseModel):
    """NVLink bridges of one SKU joining a group of slots (a pair, or four for a 4-way)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sku: Sku
    slots: tuple[SlotId, ...]
    count: PositivePartCount = Field(1, description="bridges fitted on this group")


class DriveFit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    bay: SlotId
    sku: Sku
    count: PositivePartCount


class Build(BaseModel):
    """What the user has chosen.  Never mutated: every edit returns a copy."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    chassis: Sku
    cpu: Sku | None = None
    cpu_count: PartCount = 0
    dimm: Sku | None = None
    dimm_count: PartCount = 0
    slots: dict[SlotId, Sku] = Field(default_factory=dict, description="slot id -> GPU/NIC SKU")
    baseboard: Sku | None = None
    bridges: tuple[BridgeFit, ...] = ()
    drives: tuple[DriveFit, ...] = ()
    psu: Sku | None = None
    psu_count: PartCount = 0
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
