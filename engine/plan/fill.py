"""Fill every free position with the card under the cursor ("fit this card in every free GPU
position"): the slots the engine's own placement rule accepts without a new error
(:func:`slotwise.engine.check.rules.slots.destinations`), one after another, so a double-width
card never lands where a card placed before it covers the slot.  A GPU never goes to a slot the
chassis reserves for NICs, and the chassis' GPU limit is kept."""

from __future__ import annotations

from slotwise.engine.build import Build
from slotwise.engine.build.edits import Place
from slotwise.engine.check.evaluate import make_context
from slotwise.engine.check.rules.slots import destinations
from slotwise.parts.catalog import Catalog
from slotwise.parts.schema import Gpu, Nic


def fill_edits(build: Build, catalog: Catalog, sku: str) -> tuple[Place, ...]:
    """Place edits putting ``sku`` in every free slot that takes it (empty when none does)."""
    part = catalog.records.get(sku)
    if not isinstance(part, Gpu | Nic):
        return ()
    edits: list[Place] = []
    current = build
    while True:
        ctx = make_context(current, catalog, None)
        if ctx is None:
            return ()
        if isinstance(part, Gpu):
            limit = ctx.chassis.max_gpus
            if limit is not None and ctx.gpu_count() >= limit:
                break
        found = [
            sid
            for sid in destinations(ctx, part, "")
            if not (isinstance(part, Gpu) and ctx.idx.slot[sid].purpose == "nic")
        ]
        if not found:
            break
        edits.append(Place(slot=found[0], sku=sku))
        current = current.with_(slots={**current.slots, found[0]: sku})
    return tuple(edits)
