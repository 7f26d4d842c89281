"""Regenerate screenshots/*.svg from the real app (App.run_test + save_screenshot).

    .venv/bin/python scripts/screenshots.py [--size 120x36] [--out screenshots]

Shots: a new build (chassis chooser), a full 8-GPU build with its findings, the workload
verdict, and the BOM view.  The builds are made with engine edits on the bundled catalog, the
clock is fixed and the autosave goes to a temporary directory, so the files only change when
the app or the catalog does.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from slotwise.engine.build import Build  # noqa: E402
from slotwise.engine.build.edits import (  # noqa: E402
    AddBridge,
    Place,
    SetCount,
    SetDrives,
    SetWorkload,
)
from slotwise.engine.check.rules.boot import boot_drives  # noqa: E402
from slotwise.engine.workload import Workload  # noqa: E402
from slotwise.parts.catalog import Catalog, load_catalog  # noqa: E402

DEMO_CHASSIS = "SYS-521GE-TNRT"
DEMO_GPU = "NVIDIA-H200-NVL-141GB"
FIXED_NOW = datetime(2026, 1, 15, 9, 30, tzinfo=UTC)
DEMO_WORKLOAD = Workload(model="llama-3.1-70b", method="lora", tokens=2e9, target_days=7)


def demo_build(catalog: Catalog, workload: Workload | None = None) -> Build:
    """8 x H200 NVL in SYS-521GE-TNRT with only 2 PSUs (so the power rule has something to
    say), CPUs, DIMMs, a 4-way NVLink bridge where the chassis lists one and the boot pair."""
    ch = catalog.chassis[DEMO_CHASSIS]
    covered = {s.covers for s in ch.slots if s.covers}
    slots = [
        s.id for s in ch.slots if s.double_width and s.id not in covered and s.purpose != "nic"
    ][:8]
    b = Build(chassis=DEMO_CHASSIS)
    edits = [SetCount(what="cpu", sku=(ch.cpu_skus or ("XEON-8480+",))[0], count=ch.cpu_sockets)]
    dimm = next((d for d in (ch.dimm_skus or tuple(catalog.dimms)) if "64GB" in d), None)
    if dimm:
        edits.append(SetCount(what="dimm", sku=dimm, count=16))
    if ch.psu_skus:
        edits.append(SetCount(what="psu", sku=ch.psu_skus[0], count=2))
    edits += [Place(slot=s, sku=DEMO_GPU) for s in slots]
    quad = next((g for g in ch.nvlink_groups if len(g) == 4 and set(g) <= set(slots)), None)
    bridge = next(
        (br.sku for br in catalog.bridges.values() if br.ways == 4 and DEMO_GPU in br.gpu_skus),
        None,
    )
    if quad and bridge:
        edits.append(AddBridge(sku=bridge, slots=tuple(quad)))
    # the boot pair the boot rule and suggest fit in this chassis (engine.check.rules.boot)
    edits += [SetDrives(bay=d.bay, sku=d.sku, count=d.count) for d in boot_drives(ch, catalog)]
    if workload is not None:
        edits.append(SetWorkload(workload=workload))
    for e in edits:
        b = e.apply(b)
    return b


def free_gpu_slot(catalog: Catalog) -> str:
    """A GPU slot the demo build leaves empty (for a picker shot)."""
    ch = catalog.chassis[DEMO_CHASSIS]
    used = demo_build(catalog).slots
    return next(s.id for s in ch.slots if s.id not in used and s.purpose != "nic")


async def pin_two_options(pilot) -> None:
    """Option A: the demo build as it is (2 PSUs: a power error); option B, pinned from it: a
    copy with every PSU bay filled.  The toasts are cleared once shown (deterministic shots)."""
    from slotwise.engine.build.edits import SetCount

    app = pilot.app
    b = app.history.current
    app.pin_option()
    bays = app.catalog.chassis[b.chassis].psu_bays
    app.apply_edits([SetCount(what="psu", sku=b.psu, count=bays)], "fill the PSU bays")
    await pilot.pause()
    app.clear_notifications()
    await pilot.pause()


def make_app(catalog: Catalog, build: Build | None, state_dir: str):
    from slotwise.tui.app import SlotwiseApp, fixed_clock

    app = SlotwiseApp(
        catalog=catalog,
        build=build,
        state_dir=state_dir,
        clock=fixed_clock(FIXED_NOW),
        cursor_blink=False,
    )
    app.animation_level = "none"
    return app


# name -> (build kind, keys pressed before the shot)
SHOTS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "new-build": (None, ()),
    "full-build-findings": ("full", ("tab",)),
    "workload-verdict": ("workload", ("f4",)),
    "bom-view": ("workload", ("f5",)),
    "compare-options": ("options", ("f6",)),
}


async def shoot(name: str, catalog: Catalog, size: tuple[int, int], out: Path) -> Path:
    kind, keys = SHOTS[name]
    build = None
    if kind == "full":
        build = demo_build(catalog)
    elif kind in ("workload", "options"):
        build = demo_build(catalog, DEMO_WORKLOAD)
    with tempfile.TemporaryDirectory() as state:
        app = make_app(catalog, build, state)
        async with app.run_test(size=size) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            if kind == "options":
                await pin_two_options(pilot)
            if keys:
                await pilot.press(*keys)
                await pilot.pause()
            out.mkdir(parents=True, exist_ok=True)
            path = app.save_screenshot(filename=f"{name}.svg", path=str(out))
    return Path(path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", default="120x36", help="terminal WxH (default 120x36)")
    p.add_argument("--out", default=str(ROOT / "screenshots"), help="output directory")
    args = p.parse_args(argv)
    w, h = (int(x) for x in args.size.lower().split("x"))
    os.environ.pop("NO_COLOR", None)
    catalog = load_catalog()
    for name in SHOTS:
        path = asyncio.run(shoot(name, catalog, (w, h), Path(args.out)))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
