"""How suggested builds are ranked: the key per objective (GPUs, power, price or time first) and
the lower bounds of it that let the search stop early (GPU TDP as a power floor, the price of the
parts that cannot change)."""

from __future__ import annotations

import math
from typing import Any

from slotwise.engine.cost.pricing import PriceList
from slotwise.engine.estimate import Estimate
from slotwise.engine.workload import Workload
from slotwise.parts.schema import Baseboard, Gpu

INF = math.inf


def power_of(part: Any) -> float | None:
    return getattr(part, "tdp_w", None) or getattr(part, "power_w", None)


def unpriced(sku: str, prices: PriceList | None) -> int:
    """1 when a price list is loaded and has no price for ``sku``: such a part sorts after every
    priced one, so a quote is complete whenever the list allows (an unpriced part is still
    chosen when no priced one fits, and the candidate then names it in ``price_missing``)."""
    return int(prices is not None and prices.price(sku) is None)


def part_metric(part: Any, objective: str, prices: PriceList | None, qty: int = 1) -> tuple:
    """Sort key for choosing a supporting part: priced before unpriced (when a price list is
    loaded), then price first for 'price', else power first."""
    price = prices.price(part.sku) if prices else None
    p = INF if price is None else price * qty
    w = power_of(part)
    w = INF if w is None else w * qty
    first = unpriced(part.sku, prices)
    return (first, p, w, part.sku) if objective == "price" else (first, w, p, part.sku)


def time_metric(est: Estimate, workload: Workload) -> float:
    if workload.training:
        th = est.train_hours
        return INF if th is None else th
    tps = est.decode_tokens_per_s
    return INF if tps is None else -tps


def ranking_key(
    objective: str, gpus: int, servers: int, power: float, price: float, time: float, tie: tuple
) -> tuple:
    """The objective first, then servers (fewer on a tie), then the rest.  Callers put whether
    every figure is known in front (known builds before any whose speed is unknown)."""
    if objective == "gpus":
        return (gpus, servers, power, price, time, *tie)
    if objective == "power":
        return (power, servers, gpus, price, time, *tie)
    if objective == "price":
        return (price, servers, gpus, power, time, *tie)
    return (time, servers, gpus, power, price, *tie)


def gpu_power_floor(gpu: Gpu, n: int, nodes: int, bb: Baseboard | None) -> float:
    return ((gpu.tdp_w or 0) * n + ((bb.board_power_w or 0) if bb else 0)) * nodes
