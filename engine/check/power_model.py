"""The numbers behind the power rule: PSU efficiency curves, redundancy schemes, the derived
fans/board/BMC share and the typical-load assumptions.  Pure functions, no catalog access.

PSU efficiency (AC at the wall = DC load / efficiency at the load point)
    80 PLUS minimum efficiencies for "230 V internal redundant" supplies (the data-centre test
    category), as tabulated by Tom's Hardware ("Is 80 PLUS broken?", 2018,
    https://www.tomshardware.com/reviews/80-plus-psu-efficiency,4848-2.html) and Wikipedia
    (https://en.wikipedia.org/wiki/80_Plus):
        Titanium  10 % 90 %, 20 % 94 %, 50 % 96 %, 100 % 91 %
        Platinum  20 % 90 %, 50 % 94 %, 100 % 91 %
    Between points we interpolate linearly; below the lowest point we hold its value.  These are
    the certification *minimums*, so the AC figure is an upper estimate for a certified unit.

Fans, board and BMC (the part no vendor publishes for a Supermicro chassis)
    Derived, tier C: NVIDIA publishes the maximum AC input of its DGX systems; subtracting every
    part we have a figure for (GPUs at TDP, CPUs at TDP, DIMMs, NICs, drives, the HGX board's
    NVSwitches) from the DC side of that maximum leaves fans + board + BMC + VRM losses.  We
    express that remainder as a share of the other DC load, so it scales with the heat the fans
    must move.  EVIDENCE SPLIT (rule in code, bench/power.py ``FIT_SYSTEMS``): the share is derived
    from ONE system, DGX H100 (10.2 kW, the earliest of the NVIDIA-published systems the catalog
    can build), and validated on the others (DGX H200 shares its hardware, so it is reported but
    is not independent; DGX B200 14.3 kW and DGX B300 14.5 kW are the held-out checks).
    ``tests/test_power_bench.py`` re-derives the share from the DGX H100 reference and fails if
    the constant below drifts from it.

Typical draw (stated assumptions, not measurements)
    GPUs at ``TYPICAL_GPU_UTILISATION[mode]`` of TDP, CPUs at ``TYPICAL_CPU_SHARE`` of TDP, the
    rest at its worst-case figure, fans/board at the derived share of that lower load.
"""

from __future__ import annotations

import re
from functools import lru_cache

# (load fraction, efficiency) points, 80 PLUS "230 V internal redundant" minimums (module doc).
EFFICIENCY_CURVES: dict[str, tuple[tuple[float, float], ...]] = {
    "titanium": ((0.10, 0.90), (0.20, 0.94), (0.50, 0.96), (1.00, 0.91)),
    "platinum": ((0.20, 0.90), (0.50, 0.94), (1.00, 0.91)),
}
# Used when a PSU's efficiency class is not in its record: the lowest point of either curve, so
# the AC figure errs high (more heat, more wall power), and the result is marked not verified.
UNKNOWN_EFFICIENCY = 0.90

# Fans, board, BMC as a share of the other DC load: derived from DGX H100 (module doc;
# bench/power.py prints the derivation; tests/test_power_bench.py recomputes it).
FANS_BOARD_SHARE = 0.3057
FANS_BOARD_SOURCE = (
    "derived (tier C) from NVIDIA DGX H100's published 10.2 kW maximum minus its known parts; "
    "validated on DGX B200 and DGX B300 (bench/power.py)"
)
# Largest |error| of the model against the held-out published maxima (bench/power.py);
# tests/test_power_bench.py fails if this drifts from what the bench computes.
HELD_OUT_MAX_ABS_ERR = 0.059

TYPICAL_GPU_UTILISATION: dict[str, float] = {"training": 0.85, "inference": 0.60}
TYPICAL_CPU_SHARE = 0.5
TYPICAL_NOTE = (
    "typical = GPUs at {pct:.0%} of TDP ({mode}), CPUs at 50% of TDP, other parts at their "
    "rated figure (stated assumption, not a measurement)"
)
#: TYPICAL_NOTE worded for each mode once (the power rule states it on every evaluate()).
TYPICAL_BASIS: dict[str, str] = {
    mode: TYPICAL_NOTE.format(pct=util, mode=mode) for mode, util in TYPICAL_GPU_UTILISATION.items()
}


# Compiled once (the power rule reads them on every evaluate()).
_CLASS_PATTERNS = {name: re.compile(name, re.IGNORECASE) for name in EFFICIENCY_CURVES}
_SCHEME = re.compile(r"\s*(\d+)\s*\+\s*(\d+)\s*")


@lru_cache(maxsize=256)
def efficiency_class(text: str | None) -> str | None:
    """'80 PLUS Titanium (96%)' -> 'titanium'; None when the text names no known class."""
    if not text:
        return None
    for name, pattern in _CLASS_PATTERNS.items():
        if pattern.search(text):
            return name
    return None


def efficiency_at(cls: str | None, load: float) -> float:
    """Efficiency of a PSU of class ``cls`` at ``load`` (0..1 of its rating), curve above."""
    if cls not in EFFICIENCY_CURVES:
        return UNKNOWN_EFFICIENCY
    pts = EFFICIENCY_CURVES[cls]
    if load <= pts[0][0]:
        return pts[0][1]
    for (x0, y0), (x1, y1) in zip(pts, pts[1:], strict=False):
        if load <= x1:
            return y0 + (y1 - y0) * (load - x0) / (x1 - x0)
    return pts[-1][1]


def parse_scheme(scheme: str | None) -> tuple[int, int] | None:
    """'4+2' -> (4, 2): units that must carry the load, and spares.  None for anything else."""
    if not scheme:
        return None
    m = _SCHEME.fullmatch(scheme)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2))


def usable_units(n: int, redundancy: str, chassis_scheme: str | None = None) -> int:
    """PSUs whose output counts when the policy's failure happens.

    N+1: any one unit may fail -> n - 1.  N+N: one of two feeds may fail -> n // 2.
    "chassis": the chassis' own scheme a+b (e.g. 4+2, 3+3, 5+1): with a == b it is N+N
    (n // 2); otherwise the b spares may fail -> n - b.  An unknown chassis scheme falls back
    to N+1 (the caller says so)."""
    if n <= 0:
        return 0
    if redundancy == "chassis":
        ab = parse_scheme(chassis_scheme)
        if ab is None:
            return n - 1
        a, b = ab
        return n // 2 if a == b else max(0, n - b)
    return n - 1 if redundancy == "N+1" else n // 2
