"""Edit operations on a Build.  Each is a small frozen model with ``apply(build) -> Build``,
so findings can carry fixes as data, the UI can apply them with one key, and undo/redo is a
stack of Builds.  An edit that makes no sense for the build (e.g. moving from an empty slot)
raises :class:`EditError` with a message for the user; it never corrupts the build."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from slotwise.engine.build import BridgeFit, Build, DriveFit, Environment
from slotwise.engine.workload import Workload


class EditError(ValueError):
    pass


class _Edit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def describe(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def apply(self, build: Build) -> Build:  # pragma: no cover - overridden
        raise NotImplementedError


class Place(_Edit):
    op: Literal["place"] = "place"
    slot: str
    sku: str

    def apply(self, b: Build) -> Build:
        return b.with_(slots={**b.slots, self.slot: self.sku})

    def describe(self) -> str:
        return f"put {self.sku} in slot {self.slot}"


class Remove(_Edit):
    op: Literal["remove"] = "remove"
    slot: str

    def apply(self, b: Build) -> Build:
        if self.slot not in b.slots:
            raise EditError(f"slot {self.slot} is already empty")
        slots = {k: v for k, v in b.slots.items() if k != self.slot}
        bridges = tuple(br for br in b.bridges if self.slot not in br.slots)
        return b.with_(slots=slots, bridges=bridges)

    def describe(self) -> str:
        return f"empty slot {self.slot}"


class Move(_Edit):
    op: Literal["move"] = "move"
    src: str
    dst: str

    def apply(self, b: Build) -> Build:
        if self.src not in b.slots:
            raise EditError(f"slot {self.src} is empty: nothing to move")
        if self.dst in b.slots:
            raise EditError(f"slot {self.dst} is occupied by {b.slots[self.dst]}")
        slots = {k: v for k, v in b.slots.items() if k != self.src}
        slots[self.dst] = b.slots[self.src]
        bridges = tuple(br for br in b.bridges if self.src not in br.slots)
        return b.with_(slots=slots, bridges=bridges)

    def describe(self) -> str:
        return f"move the card in slot {self.src} to slot {self.dst}"


class SetCount(_Edit):
    """Set the model and count of CPUs, DIMMs or PSUs (count 0 removes them)."""

    op: Literal["set_count"] = "set_count"
    what: Literal["cpu", "dimm", "psu"]
    sku: str | None
    count: int = Field(ge=0)

    def apply(self, b: Build) -> Build:
        sku = self.sku if self.count else None
        return b.with_(**{self.what: sku, f"{self.what}_count": self.count})

    def describe(self) -> str:
        if not self.count:
            return f"remove the {self.what.upper()}s"
        return f"fit {self.count} x {self.sku}"


class AddBridge(_Edit):
    op: Literal["add_bridge"] = "add_bridge"
    sku: str
    slots: tuple[str, ...]
    count: int = Field(1, ge=1)

    def apply(self, b: Build) -> Build:
        rest = tuple(br for br in b.bridges if set(br.slots) != set(self.slots))
        new = BridgeFit(sku=self.sku, slots=self.slots, count=self.count)
        return b.with_(bridges=rest + (new,))

    def describe(self) -> str:
        n = f"{self.count} x " if self.count > 1 else ""
        return f"add {n}{self.sku} joining slots {'+'.join(self.slots)}"


class RemoveBridge(_Edit):
    op: Literal["remove_bridge"] = "remove_bridge"
    slots: tuple[str, ...]

    def apply(self, b: Build) -> Build:
        rest = tuple(br for br in b.bridges if set(br.slots) != set(self.slots))
        if len(rest) == len(b.bridges):
            raise EditError(f"no bridge joins slots {'+'.join(self.slots)}")
        return b.with_(bridges=rest)

    def describe(self) -> str:
        return f"remove the bridge on slots {'+'.join(self.slots)}"


class SetDrives(_Edit):
    op: Literal["set_drives"] = "set_drives"
    bay: str
    sku: str | None
    count: int = Field(0, ge=0)

    def apply(self, b: Build) -> Build:
        rest = tuple(d for d in b.drives if d.bay != self.bay)
        if self.sku and self.count:
            rest = rest + (DriveFit(bay=self.bay, sku=self.sku, count=self.count),)
        return b.with_(drives=rest)

    def describe(self) -> str:
        if not (self.sku and self.count):
            return f"empty drive bays {self.bay}"
        return f"fit {self.count} x {self.sku} in bays {self.bay}"


class SetBaseboard(_Edit):
    op: Literal["set_baseboard"] = "set_baseboard"
    sku: str | None

    def apply(self, b: Build) -> Build:
        return b.with_(baseboard=self.sku)

    def describe(self) -> str:
        return f"fit baseboard {self.sku}" if self.sku else "remove the baseboard"


class SetEnv(_Edit):
    op: Literal["set_env"] = "set_env"
    env: Environment

    def apply(self, b: Build) -> Build:
        return b.with_(env=self.env)

    def describe(self) -> str:
        e = self.env
        return (
            f"set input {e.input_voltage} V, {e.ambient_c:g} C ambient, {e.redundancy}, "
            f"{e.cooling} cooling"
        )


class SetWorkload(_Edit):
    op: Literal["set_workload"] = "set_workload"
    workload: Workload | None

    def apply(self, b: Build) -> Build:
        return b.with_(workload=self.workload)

    def describe(self) -> str:
        return "set the workload" if self.workload else "clear the workload"


class SetChassis(_Edit):
    """Switch chassis; keeps parts whose slot ids exist in the new chassis is the caller's job."""

    op: Literal["set_chassis"] = "set_chassis"
    sku: str

    def apply(self, b: Build) -> Build:
        return Build(chassis=self.sku, env=b.env, workload=b.workload)

    def describe(self) -> str:
        return f"start over on chassis {self.sku}"


EditOp = Annotated[
    Place
    | Remove
    | Move
    | SetCount
    | AddBridge
    | RemoveBridge
    | SetDrives
    | SetBaseboard
    | SetEnv
    | SetWorkload
    | SetChassis,
    Field(discriminator="op"),
]


def apply_all(build: Build, edits: tuple[_Edit, ...] | list[_Edit]) -> Build:
    for e in edits:
        build = e.apply(build)
    return build
