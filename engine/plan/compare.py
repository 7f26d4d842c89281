"""Options side by side: the figures a customer decides on, for two or more complete builds.

``compare_builds`` evaluates every option against ONE workload (the caller's, or the first
option's own) and returns a :class:`Comparison`: one column per option, one row per decision
figure (GPUs, memory per GPU, time to train or decode speed, power, rack space, servers and racks
for the target, price and TCO when a price list is given, errors and warnings).  Each row says
whether lower or higher is better and which option(s) are best, so every front end (CLI text,
Markdown, CSV, JSON, the app's Compare screen) marks the same winner in words.

Nothing here words a front end's inputs (flags, field labels): rows carry figures and units.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from slotwise.engine.build import Build
from slotwise.engine.build.items import gpu_inventory
from slotwise.engine.check.evaluate import evaluate
from slotwise.engine.check.report import Report
from slotwise.engine.check.rules.cooling import BTU_PER_W
from slotwise.engine.cost.pricing import PriceList, quote_build
from slotwise.engine.plan.cluster import ClusterPlan
from slotwise.engine.plan.for_build import TcoParams, cluster_for_build, tco_for_build
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import Catalog

GIB = 1024**3
Better = Literal["lower", "higher"]


class Option(BaseModel):
    """One build to compare, with the label its column carries (usually the file name)."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    label: str
    build: Build


class Cell(BaseModel):
    """One figure: ``value`` for machines (None = unknown / not applicable), ``text`` for people."""

    model_config = ConfigDict(frozen=True)

    value: bool | int | float | str | None
    text: str


class Row(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    label: str
    unit: str = ""
    better: Better | None = None
    cells: tuple[Cell, ...]
    best: tuple[int, ...] = ()  # column indexes of the best value (ties share it)

    @property
    def differs(self) -> bool:
        return len({c.text for c in self.cells}) > 1


class Comparison(BaseModel):
    model_config = ConfigDict(frozen=True)

    labels: tuple[str, ...]
    chassis: tuple[str, ...]
    workload: str | None
    rows: tuple[Row, ...]
    errors: tuple[int, ...]
    warnings: tuple[int, ...]
    currency: str | None = None
    #: What a short cell left out (the full list of unpriced parts of an option).
    notes: tuple[str, ...] = ()

    def row(self, key: str) -> Row | None:
        return next((r for r in self.rows if r.key == key), None)

    @property
    def exit_code(self) -> int:
        """As ``validate``: 1 when any option has errors (the workload not fitting is one)."""
        return 1 if any(self.errors) else 0

    def to_json(self) -> dict:
        return {
            "options": [
                {"label": lab, "chassis": ch, "errors": e, "warnings": w}
                for lab, ch, e, w in zip(
                    self.labels, self.chassis, self.errors, self.warnings, strict=True
                )
            ],
            "workload": self.workload,
            "currency": self.currency,
            "notes": list(self.notes),
            "rows": [
                {
                    "key": r.key,
                    "label": r.label,
                    "unit": r.unit,
                    "better": r.better,
                    "values": [c.value for c in r.cells],
                    "texts": [c.text for c in r.cells],
                    "best": [self.labels[i] for i in r.best],
                }
                for r in self.rows
            ],
        }


# ----------------------------------------------------------------------------- figures


def _num(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _fmt(x: float | None, digits: int = 0, unit: str = "") -> str:
    if x is None:
        return "unknown"
    text = f"{x:,.{digits}f}"
    return f"{text}\u00a0{unit}" if unit else text


def _duration(hours: float | None) -> str:
    """Hours below a day ("3.5 h", as the app says), days from a day on ("2.4 days")."""
    if not hours:
        return "n/a"
    return _fmt(hours, 1, "h") if hours < 24 else _fmt(hours / 24, 1, "days")


def _no_price(missing: Sequence[str]) -> str:
    """A short cell for an option with unpriced parts: the first part and how many more (the
    full list is in the comparison's notes)."""
    missing = sorted(missing)
    more = f" +{len(missing) - 1} more" if len(missing) > 1 else ""
    return f"no price: {missing[0]}{more}"


def _best(cells: Sequence[Cell], better: Better | None) -> tuple[int, ...]:
    if better is None:
        return ()
    vals = [
        (i, float(c.value))
        for i, c in enumerate(cells)
        if isinstance(c.value, int | float) and not isinstance(c.value, bool)
    ]
    if len(vals) < 2:
        return ()
    pick = min if better == "lower" else max
    target = pick(v for _, v in vals)
    if all(v == target for _, v in vals):
        return ()  # everyone ties: nothing to mark
    return tuple(i for i, v in vals if v == target)


def _row(key: str, label: str, cells: list[Cell], unit: str = "", better: Better | None = None):
    return Row(
        key=key,
        label=label,
        unit=unit,
        better=better,
        cells=tuple(cells),
        best=_best(cells, better),
    )


class _Evaluated(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    option: Option
    build: Build
    report: Report


def _evaluate(option: Option, catalog: Catalog, workload: Workload | None) -> _Evaluated:
    build = option.build
    if workload is not None:
        build = build.model_copy(update={"workload": workload})
    return _Evaluated(option=option, build=build, report=evaluate(build, catalog))


def _gpu_rows(evs: Sequence[_Evaluated], catalog: Catalog) -> list[Row]:
    model: list[Cell] = []
    count: list[Cell] = []
    mem_each: list[Cell] = []
    mem_total: list[Cell] = []
    for ev in evs:
        n, total_gb = gpu_inventory(ev.build, catalog)
        skus = sorted(
            {s for s in ev.build.slots.values() if s in catalog.gpus}
            | (
                {catalog.baseboards[ev.build.baseboard].gpu_sku}
                if ev.build.baseboard in catalog.baseboards
                else set()
            )
        )
        names = ", ".join(catalog.gpus[s].name if s in catalog.gpus else s for s in skus)
        model.append(Cell(value=", ".join(skus) or None, text=names or "none"))
        count.append(Cell(value=n, text=str(n)))
        each = total_gb / n if n else None
        mem_each.append(Cell(value=_num(each), text=_fmt(each, 0, "GB")))
        mem_total.append(Cell(value=_num(total_gb), text=_fmt(total_gb, 0, "GB")))
    return [
        _row("gpu_model", "GPU", model),
        _row("gpus", "GPUs per server", count),
        _row("gpu_memory_gb", "memory per GPU", mem_each, "GB", "higher"),
        _row("gpu_memory_total_gb", "GPU memory per server", mem_total, "GB", "higher"),
    ]


def _workload_rows(evs: Sequence[_Evaluated]) -> list[Row]:
    need: list[Cell] = []
    headroom: list[Cell] = []
    fits: list[Cell] = []
    train_days: list[Cell] = []
    decode: list[Cell] = []
    for ev in evs:
        est = ev.report.estimate
        if est is None:
            for lst in (need, headroom, fits, train_days, decode):
                lst.append(Cell(value=None, text="n/a"))
            continue
        gib = est.memory_per_gpu.total_bytes / GIB
        have = est.gpu_memory_bytes / GIB
        need.append(Cell(value=round(gib, 2), text=f"{gib:,.1f} / {have:,.0f}\u00a0GiB"))
        spare = (est.usable_bytes - est.memory_per_gpu.total_bytes) / GIB
        headroom.append(Cell(value=round(spare, 2), text=_fmt(spare, 1, "GiB")))
        # the three-way memory verdict (engine.estimate.memory_range): "tight" is said
        fits.append(Cell(value=est.fits, text=est.memory_fit))
        days = est.train_hours / 24 if est.train_hours is not None else None
        train_days.append(Cell(value=_num(days), text=_duration(est.train_hours)))
        tps = est.decode_tokens_per_s
        decode.append(Cell(value=_num(tps), text=_fmt(tps, 0, "tok/s") if tps else "n/a"))
    rows = [
        _row("memory_per_gpu_gib", "needs / has per GPU", need, "GiB"),
        _row("headroom_per_gpu_gib", "memory headroom per GPU", headroom, "GiB", "higher"),
        _row("fits", "workload fits", fits),
    ]
    if any(isinstance(c.value, float) for c in train_days):
        rows.append(_row("train_days", "time to train", train_days, "days", "lower"))
    if any(isinstance(c.value, float) for c in decode):
        users = next(
            (ev.report.estimate.serving.users for ev in evs if ev.report.estimate and
             ev.report.estimate.serving), None,
        )  # fmt: skip
        # the estimate's decode rate: the workload's users (else one sequence) on one server
        label = f"decode speed, {users:,} users on one server" if users else "decode speed, 1 user"
        rows.append(_row("decode_tokens_per_s", label, decode, "tok/s", "higher"))
    rows += _serving_rows(evs)
    return rows


def _serving_rows(evs: Sequence[_Evaluated]) -> list[Row]:
    """Serving figures (engine.estimate.serving) when the workload is inference, each at the
    load it holds under: the sizing answer's users per server (engine.check.sizing, the load
    the "servers for the workload" row is sized at), else the workload's users on one server.
    The load is a row of its own, so no figure is read as holding at another load."""
    served = []
    for ev in evs:
        v = ev.report.verdict
        sz = v.sizing if v is not None else None
        est = ev.report.estimate
        served.append(
            sz.serving
            if sz is not None and sz.serving is not None
            else (est.serving if est is not None else None)
        )
    if not any(sv is not None for sv in served):
        return []
    load: list[Cell] = []
    per_server: list[Cell] = []
    per_user: list[Cell] = []
    ttft: list[Cell] = []
    max_users: list[Cell] = []
    for sv in served:
        if sv is None:
            for lst in (load, per_server, per_user, ttft, max_users):
                lst.append(Cell(value=None, text="n/a"))
            continue
        load.append(Cell(value=sv.users, text=f"{sv.users:,}"))
        per_server.append(
            Cell(
                value=_num(sv.tokens_per_s_per_server),
                text=_fmt(sv.tokens_per_s_per_server, 0, "tok/s"),
            )
        )
        per_user.append(
            Cell(
                value=_num(sv.tokens_per_s_per_user),
                text=_fmt(sv.tokens_per_s_per_user, 1, "tok/s"),
            )
        )
        ttft.append(Cell(value=_num(sv.ttft_s), text=_fmt(sv.ttft_s, 2, "s")))
        max_users.append(Cell(value=sv.max_users, text=str(sv.max_users)))
    return [
        _row("serving_users_per_server", "serving load: users per server", load),
        _row(
            "serving_tokens_per_s_per_server",
            "tokens/s per server, at that load",
            per_server,
            "tok/s",
            "higher",
        ),
        _row(
            "serving_tokens_per_s_per_user",
            "tokens/s per user, at that load",
            per_user,
            "tok/s",
            "higher",
        ),
        _row("serving_ttft_s", "first token at that load", ttft, "s", "lower"),
        _row("serving_max_users", "most users that fit a server", max_users, "", "higher"),
    ]


def _power_rows(evs: Sequence[_Evaluated], catalog: Catalog) -> list[Row]:
    worst: list[Cell] = []
    heat: list[Cell] = []
    units: list[Cell] = []
    for ev in evs:
        # the worst case at the wall (AC, PSU losses included): what circuits and heat follow
        w = _num(ev.report.wall_power_w)
        worst.append(Cell(value=w, text=_fmt(w, 0, "W")))
        btu = w * BTU_PER_W if w is not None else None
        heat.append(Cell(value=_num(btu), text=_fmt(btu, 0, "BTU/h")))
        ch = catalog.chassis.get(ev.build.chassis)
        u = ch.form_factor_u if ch is not None else None
        units.append(Cell(value=u, text=f"{u}U" if u else "unknown"))
    return [
        _row("power_worst_w", "worst-case power at the wall (AC)", worst, "W", "lower"),
        _row("heat_btu_h", "heat", heat, "BTU/h", "lower"),
        _row("rack_units", "rack units per server", units, "U", "lower"),
    ]


def _cluster_rows(evs: Sequence[_Evaluated], catalog: Catalog) -> list[Row]:
    """Servers from the one sizing answer (report.verdict.sizing); racks from its cluster."""
    servers: list[Cell] = []
    racks: list[Cell] = []
    space: list[Cell] = []
    margin: list[Cell] = []
    for ev in evs:
        v = ev.report.verdict
        sz = v.sizing if v is not None else None
        ch = catalog.chassis.get(ev.build.chassis)
        u = ch.form_factor_u if ch is not None else None
        margin.append(Cell(value=None, text=sz.margin.short() if sz else "n/a"))
        if sz is None:
            servers.append(Cell(value=None, text="n/a"))
            racks.append(Cell(value=None, text="n/a"))
        elif sz.servers is None:
            # a cell stays short (the table must fit 80 columns); validate and the app say the
            # whole problem and its fix
            why = "past the node cap" if sz.cap is not None else "no scale-out NIC"
            text = f"{sz.would_take:,}, {why}" if sz.would_take else "cannot size"
            servers.append(Cell(value=None, text=text))
            racks.append(Cell(value=None, text="n/a"))
        elif sz.servers == 1:
            servers.append(Cell(value=1, text="1" + (" (tight)" if sz.tight else "")))
            racks.append(Cell(value=1, text="1"))
        else:
            servers.append(
                Cell(value=sz.servers, text=f"{sz.servers:,}" + (" (tight)" if sz.tight else ""))
            )
            bc = cluster_for_build(ev.build, catalog, ev.report)
            r = bc.plan.racks if bc is not None and bc.plan is not None else None
            racks.append(Cell(value=r, text=str(r) if r is not None else "unknown"))
        n_val = servers[-1].value
        total_u = n_val * u if isinstance(n_val, int) and u else None
        space.append(Cell(value=total_u, text=f"{total_u}U" if total_u else "unknown"))
    return [
        _row("servers", "servers for the workload", servers, "", "lower"),
        _row("planning_margin", "planning margin", margin),
        _row("rack_units_total", "rack units for the workload", space, "U", "lower"),
        _row("racks", "racks", racks, "", "lower"),
    ]


def _money(x: float | None, currency: str) -> str:
    return "unknown" if x is None else f"{currency}\u00a0{x:,.0f}"


def _price_rows(
    evs: Sequence[_Evaluated], catalog: Catalog, prices: PriceList, tco: TcoParams | None
) -> list[Row]:
    cur = prices.currency
    price: list[Cell] = []
    owning: list[Cell] = []
    price_map = {k: e.price for k, e in prices.entries.items()}
    for ev in evs:
        q = quote_build(ev.build, prices, catalog)
        if q.missing:
            price.append(Cell(value=None, text=_no_price(q.missing)))
        else:
            price.append(Cell(value=_num(q.total), text=_money(q.total, cur)))
        if tco is None:
            continue
        bt = tco_for_build(ev.build, catalog, ev.report, price_map, cur, tco)
        if bt.result is None:
            why = bt.problem or _no_price(sorted(bt.missing_prices))
            owning.append(Cell(value=None, text=why))
        else:
            total = bt.result.owning(bt.result.months)
            owning.append(Cell(value=_num(total), text=_money(total, cur)))
    rows = [_row("price", "price per server", price, cur, "lower")]
    if tco is not None:
        rows.append(
            _row("tco", f"cost of owning, {tco.years} years", owning, cur, "lower"),
        )
    return rows


def compare_builds(
    options: Sequence[Option],
    catalog: Catalog,
    workload: Workload | None = None,
    prices: PriceList | None = None,
    tco: TcoParams | None = None,
) -> Comparison:
    """Evaluate every option under one workload (``workload``, else the first option's own)."""
    if not options:
        raise ValueError("nothing to compare: give at least one build")
    wl = workload if workload is not None else options[0].build.workload
    evs = [_evaluate(o, catalog, wl) for o in options]
    rows = _gpu_rows(evs, catalog)
    if wl is not None:
        rows += _workload_rows(evs)
    rows += _power_rows(evs, catalog)
    if wl is not None:
        rows += _cluster_rows(evs, catalog)
    notes: list[str] = []
    if prices is not None:
        rows += _price_rows(evs, catalog, prices, tco)
        for o in options:
            missing = quote_build(o.build, prices, catalog).missing
            if missing:
                notes.append(f"{o.label}: no price for {', '.join(sorted(missing))}")
    errors = tuple(ev.report.errors for ev in evs)
    warnings = tuple(ev.report.warnings for ev in evs)
    rows.append(_row("errors", "errors", [Cell(value=e, text=str(e)) for e in errors], "", "lower"))
    rows.append(
        _row("warnings", "warnings", [Cell(value=w, text=str(w)) for w in warnings], "", "lower")
    )
    return Comparison(
        labels=tuple(o.label for o in options),
        chassis=tuple(ev.build.chassis for ev in evs),
        workload=_wl_text(wl),
        rows=tuple(rows),
        errors=errors,
        warnings=warnings,
        currency=prices.currency if prices is not None else None,
        notes=tuple(notes),
    )


def _wl_text(wl: Workload | None) -> str | None:
    if wl is None:
        return None
    model = wl.model or wl.config or "custom model"
    return f"{wl.method} {model}, seq {wl.seq_len}"


# ----------------------------------------------------------------------------- renderings

BEST = "best"


def _marked(row: Row, i: int) -> str:
    text = row.cells[i].text
    return f"{text} ({BEST})" if i in row.best else text


def comparison_markdown(cmp: Comparison, *, heading: str = "## Options compared") -> str:
    """A Markdown section: one column per option, the best value per row marked in words."""
    out = [heading, ""]
    if cmp.workload:
        out += [f"Every option is checked against the same workload: {cmp.workload}.", ""]
    cols = " | ".join(_md_cell(lab) for lab in cmp.labels)
    out.append(f"| | {cols} |")
    out.append("| --- |" + " --- |" * len(cmp.labels))
    for row in cmp.rows:
        cells = " | ".join(
            _md_cell(_marked(row, i)) if i not in row.best else f"**{_md_cell(_marked(row, i))}**"
            for i in range(len(cmp.labels))
        )
        out.append(f"| {_md_cell(row.label)} | {cells} |")
    out += ["", _legend(cmp)]
    out += [f"\n{note}." for note in cmp.notes]
    return "\n".join(out) + "\n"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _legend(cmp: Comparison) -> str:
    parts = ["(best) marks the best value of a row where one option is better"]
    if cmp.workload:
        parts.append("time and servers are for the workload above")
    return "; ".join(parts) + "."


def comparison_text(cmp: Comparison, width: int = 100) -> str:
    """Aligned plain text for a terminal (no colour needed: the best value says so)."""
    label_w = max(len(r.label) for r in cmp.rows) + 2
    cols = [
        max([len(lab)] + [len(_marked(r, i)) for r in cmp.rows]) + 2
        for i, lab in enumerate(cmp.labels)
    ]
    lines = []
    if cmp.workload:
        lines.append(f"workload: {cmp.workload}")
    lines.append(
        " " * label_w + "".join(lab.ljust(w) for lab, w in zip(cmp.labels, cols, strict=True))
    )
    for row in cmp.rows:
        cells = "".join(_marked(row, i).ljust(w) for i, w in enumerate(cols))
        lines.append(row.label.ljust(label_w) + cells)
    lines.append(_legend(cmp))
    lines += [f"{note}." for note in cmp.notes]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def comparison_csv(cmp: Comparison) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["key", "label", "unit", "better", *cmp.labels, "best"])
    for row in cmp.rows:
        w.writerow(
            [
                row.key,
                row.label,
                row.unit,
                row.better or "",
                *(c.text for c in row.cells),
                "; ".join(cmp.labels[i] for i in row.best),
            ]
        )
    return buf.getvalue()


# ----------------------------------------------------------------------------- clusters


def compare_clusters(plans: Sequence[tuple[str, ClusterPlan]]) -> Comparison:
    """Cluster plans side by side (``slotwise compare`` of cluster documents): every figure is
    the plan's own (engine.plan.cluster); nothing is re-derived here."""

    def cells(get, digits: int = 0, unit: str = "") -> list[Cell]:
        out = []
        for _, p in plans:
            v = get(p)
            if isinstance(v, str):
                out.append(Cell(value=v, text=v))
            else:
                out.append(Cell(value=_num(v), text=_fmt(v, digits, unit)))
        return out

    def fab(p: ClusterPlan, attr: str):
        return None if p.fabric is None else getattr(p.fabric, attr)

    def price(p: ClusterPlan) -> float | None:
        if any(ln.unit_price is None for ln in p.lines):
            return None
        return sum(ln.extended_price or 0.0 for ln in p.lines)

    rows = [
        _row("nodes", "nodes", cells(lambda p: p.nodes)),
        _row("gpus", "GPUs", cells(lambda p: p.total_gpus), better="higher"),
        _row("gpu_model", "GPU model", cells(lambda p: p.gpu)),
        _row(
            "compute_switch",
            "compute switch",
            cells(lambda p: "none" if p.fabric is None else p.fabric.switch.name),
        ),
        _row(
            "leaf_spine_core",
            "leaf / spine / core",
            cells(
                lambda p: (
                    "none"
                    if p.fabric is None
                    else f"{p.fabric.leaf} / {p.fabric.spine} / {p.fabric.core}"
                )
            ),
        ),
        _row("switches", "compute switches", cells(lambda p: fab(p, "switches")), better="lower"),
        _row("cables", "compute cables", cells(lambda p: fab(p, "cable_total")), better="lower"),
        _row(
            "transceivers",
            "transceivers (switch + node)",
            cells(
                lambda p: (
                    None
                    if p.fabric is None or p.fabric.transceivers_switch is None
                    else p.fabric.transceivers_switch + p.fabric.transceivers_node
                )
            ),
            better="lower",
        ),
        _row("racks", "racks", cells(lambda p: p.racks), better="lower"),
        _row(
            "nodes_per_rack", "nodes per rack", cells(lambda p: p.nodes_per_rack), better="higher"
        ),
        _row(
            "circuits",
            "power circuits",
            cells(lambda p: None if p.rack_plan is None else p.rack_plan.circuits),
            better="lower",
        ),
        _row(
            "fabric_power_w",
            "fabric power",
            cells(lambda p: p.fabric_power_w, 0, "W"),
            "W",
            "lower",
        ),  # fmt: skip
        _row(
            "power_total_w", "total power", cells(lambda p: p.total_power_w, 0, "W"), "W", "lower"
        ),  # fmt: skip
        _row("price", "price (all lines priced)", cells(price), better="lower"),
    ]
    return Comparison(
        labels=tuple(label for label, _ in plans),
        chassis=tuple(p.chassis for _, p in plans),
        workload=None,
        rows=tuple(rows),
        errors=tuple(0 for _ in plans),
        warnings=tuple(0 for _ in plans),
    )
