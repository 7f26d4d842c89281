"""Customer-facing Markdown summary of a BOM: the build, budgets, workload verdict, findings.

``to_markdown(build, catalog, meta, report, prices=None, currency=None, price_note=None,
cluster=None, tco=None) -> str``; ``cluster`` / ``tco`` come from engine.plan.for_build and add the
"Cluster sizing" / "Total cost of ownership" sections (formatting only here).  Deterministic
(no clock): the dates shown are the BOM's own ``created`` / ``updated``.  Figures come straight
from the engine's report; unknown figures are written as "unknown", never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from slotwise.engine.bom.cluster_doc import lines_markdown
from slotwise.engine.bom.config_path import exported_message
from slotwise.engine.bom.meta import BomMeta
from slotwise.engine.bom.workload_snapshot import model_name
from slotwise.engine.build import Build
from slotwise.engine.build.companions import NOT_VERIFIED
from slotwise.engine.build.items import (
    LineItem,
    canonical_build,
    describe,
    gpu_inventory,
    line_items,
    slot_order,
)
from slotwise.engine.check.report import Budget, Finding, Report
from slotwise.engine.check.rules.cooling import BTU_PER_W
from slotwise.engine.check.verdict import verdict
from slotwise.engine.cost.tco import tco_markdown
from slotwise.engine.inputs import plain
from slotwise.engine.plan.cluster import cluster_markdown
from slotwise.engine.plan.for_build import BuildCluster, BuildTco
from slotwise.engine.workload import Workload
from slotwise.parts.catalog import Catalog
from slotwise.parts.plain_text import one_line

GiB = 1024**3
SYMBOL = {"error": "✗", "warning": "⚠", "info": "ℹ"}  # noqa: RUF001 - shown to the user
TITLE = {"error": "Errors", "warning": "Warnings", "info": "Notes"}


_MD_SYNTAX = re.compile(r"([\\`*_\[\]<>|#~])")


def cell(text: object) -> str:
    """User text where one line is expected (a table cell, a heading, a list item): control
    characters escaped and newlines folded (parts.plain_text.one_line), Markdown syntax
    (emphasis, links, HTML, pipes, headings) escaped, so a customer name or SKU from a received
    file can neither forge a line ("**Total: 1.00 USD**") nor reach a terminal raw."""
    return _MD_SYNTAX.sub(r"\\\1", one_line(str(text)))


def _engine_line(text: str) -> str:
    """Engine text (a finding, a fix) that quotes user values: one line, no control
    character, pipes escaped; its own wording is kept readable."""
    return one_line(text).replace("|", "\\|")


def _g(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 100 or float(x).is_integer() else f"{x:,.2f}"


def budget_figures(b: Budget) -> tuple[str, str, str]:
    """(used, available, unit) as a person reads them: bytes as GiB, hours as hours."""
    used, avail, unit = b.used, b.available, b.unit
    if unit == "B":
        used, avail, unit = used / GiB, None if avail is None else avail / GiB, "GiB"
        fmt = lambda x: f"{x:,.1f}"  # noqa: E731
    else:
        fmt = _g
    return fmt(used), ("—" if avail is None else fmt(avail)), unit


def budget_label(b: Budget) -> str:
    if b.name.startswith("lanes:"):
        return f"PCIe lanes, {b.name.split(':', 1)[1]}"
    return {
        "power": "Power, DC (worst-case load vs PSU output)",
        "heat": "Heat (worst case at the wall, AC)",
        "gpu_memory": "GPU memory per GPU",
        "train_time": "Time to train",
        "serving_users": "Concurrent users (KV cache)",
        "serving_rate": "Tokens/s per user",
    }.get(b.name, b.name)


def _count(x: float) -> str:
    """1.5e12 -> '1.5 T', 2e9 -> '2 B' (the CLI's --tokens suffixes)."""
    for div, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:,.4g} {suffix}"
    return f"{x:,.4g}"


def _money(x: float | None, currency: str | None) -> str:
    if x is None:
        return "—"
    return f"{x:,.2f}" + (f" {cell(currency)}" if currency else "")


def to_markdown(
    build: Build,
    catalog: Catalog,
    meta: BomMeta,
    report: Report,
    prices: Mapping[str, float] | None = None,
    currency: str | None = None,
    price_note: str | None = None,
    cluster: BuildCluster | None = None,
    tco: BuildTco | None = None,
) -> str:
    """The customer document; ``cluster`` / ``tco`` (from engine.plan.for_build) add their
    sections.  It names the model (never a path), lists the build and the line items with part
    numbers, power and prices, words the workload verdict and lists the assumptions.  Rule ids,
    catalog to-dos and engineering notes are not in it: :func:`engineering_notes` writes them."""
    build = canonical_build(build, catalog)
    out: list[str] = []
    title = cell(meta.project) if meta.project else "Server build"
    out.append(f"# {title}" + (f" for {cell(meta.customer)}" if meta.customer else ""))
    out.append("")
    byline = []
    if meta.engineer:
        byline.append(f"Prepared by {cell(meta.engineer)}")
    if meta.quote_date:
        byline.append(f"quote date {meta.quote_date:%Y-%m-%d}")
    elif meta.updated:
        byline.append(f"updated {meta.updated:%Y-%m-%d}")
    if meta.valid_until:
        byline.append(f"valid until {meta.valid_until:%Y-%m-%d}")
    if byline:
        out += [" · ".join(byline), ""]
    if meta.notes:  # free text: its lines kept (as Markdown line breaks), each escaped
        out += ["  \n".join(cell(line) for line in meta.notes.strip().splitlines()), ""]

    # --- system
    ch = catalog.chassis.get(build.chassis)
    out += ["## System", "", "| | |", "| --- | --- |"]
    out.append(f"| Chassis | {cell(build.chassis)}" + (f" — {cell(ch.name)}" if ch else "") + " |")
    n_gpus, gpu_mem = gpu_inventory(build, catalog)
    if n_gpus:
        out.append(f"| GPUs | {n_gpus}, {gpu_mem:,.0f} GB GPU memory in total |")
    if build.cpu:
        out.append(f"| CPUs | {build.cpu_count} × {cell(describe(catalog, build.cpu))} |")
    if build.dimm:
        dimm = catalog.dimms.get(build.dimm)
        total = f" ({build.dimm_count * dimm.capacity_gb:,} GB)" if dimm else ""
        out.append(
            f"| Memory | {build.dimm_count} × {cell(describe(catalog, build.dimm))}{total} |"
        )
    if build.psu:
        out.append(f"| Power supplies | {build.psu_count} × {cell(describe(catalog, build.psu))} |")
    out.append("")

    # --- slots
    if build.slots or build.bridges:
        labels = {s.id: s.label for s in ch.slots} if ch else {}
        out += ["## Slots", "", "| Slot | Part |", "| --- | --- |"]
        for sid in sorted(build.slots, key=slot_order(build, catalog)):
            out.append(
                f"| {cell(labels.get(sid, sid))} | {cell(describe(catalog, build.slots[sid]))} |"
            )
        for br in build.bridges:
            n = f"{br.count} × " if br.count > 1 else ""
            what = describe(catalog, br.sku)
            out.append(
                f"| {cell(' + '.join(labels.get(s, s) for s in br.slots))} | {n}{cell(what)} |"
            )
        out.append("")

    # --- line items
    items = line_items(build, catalog, prices, meta.services)
    out += bom_table(items, currency, price_note, report)

    # --- power, heat and the workload's figures
    shown = [b for b in report.budgets if not b.name.startswith("lanes:")]
    if shown:
        out += ["## Budgets", "", "| Budget | Used | Available | Unit |"]
        out.append("| --- | ---: | ---: | --- |")
        for b in shown:
            used, avail, unit = budget_figures(b)
            flag = " (over)" if b.over else ""
            out.append(f"| {cell(budget_label(b))} | {used}{flag} | {avail} | {unit} |")
            if b.name == "heat":
                out.append(f"| Heat | {b.used * BTU_PER_W:,.0f} | — | BTU/h |")
        out.append("")

    # --- workload
    wl = build.workload
    if wl is not None:
        out += ["## Workload", "", _workload_line(wl, report), "", _verdict(report, catalog), ""]

    if cluster is not None:
        out += _cluster_section(cluster, currency)
    if tco is not None:
        out += _tco_section(tco)

    # --- open points: what the customer must decide (errors and warnings, in words)
    open_points = [f for f in report.findings if f.severity != "info" and not is_catalog_todo(f)]
    if open_points:
        out += ["## Open points", ""]
        for f in open_points:
            said = plain(exported_message(f.rule, f.message))
            line = f"- {'Must change' if f.severity == 'error' else 'Check'}: {_engine_line(said)}"
            if f.fix and not _is_catalog_text(f.fix):
                line += f" Suggested: {_engine_line(plain(f.fix))}"
            out.append(line)
        out.append("")

    out += _assumptions(build, catalog, report, items)
    return "\n".join(out).rstrip("\n") + "\n"


_METHOD_WORDS = {
    "inference": "inference (serving)",
    "lora": "LoRA fine-tuning",
    "qlora": "QLoRA fine-tuning",
    "full": "full fine-tuning",
    "pretrain": "pre-training",
}


def _precision_words(wl: Workload, report: Report) -> str:
    """The precision as estimated: a chosen one, or what "auto" resolved to (the engine's
    decision, engine.estimate.checkpoint, carried by the estimate's assumptions)."""
    if wl.precision != "auto":
        return wl.precision
    est = report.estimate
    if est is None:
        return "precision auto"
    if est.assumptions.precision_note and est.assumptions.precision != "bf16":
        return f"{est.assumptions.precision} (auto: the checkpoint's stored format)"
    return f"{est.assumptions.precision} (auto)"


def _workload_line(wl: Workload, report: Report) -> str:
    """The job in words: the model's name (never a path), the method, the precision, and the
    training fields only for a training job."""
    line = (
        f"{cell(model_name(wl))}: {_METHOD_WORDS.get(wl.method, wl.method)}, "
        f"{_precision_words(wl, report)}, "
        f"sequence length {wl.seq_len:,}"
    )
    if wl.method != "inference":
        line += f", micro-batch {wl.micro_batch}"
        if wl.tokens:
            line += f", {_count(wl.tokens)} tokens"
    return line + "."


def _assumptions(
    build: Build, catalog: Catalog, report: Report, items: list[LineItem]
) -> list[str]:
    env = build.env
    out = ["## Assumptions", ""]
    out.append(
        f"- Site: {env.input_voltage} V AC input, {env.ambient_c:g} °C inlet air, "
        f"{env.redundancy} power-supply redundancy, {env.cooling} cooling."
    )
    out.append(
        "- Power per line is the part's rated figure (GPU and CPU at full TDP); the wall figure "
        "adds fans, board and power-supply losses and is a worst case, not a typical draw."
    )
    if report.power is not None and not report.power.verified:
        out.append(
            "- Some parts have no published power figure, so the power total is a lower bound."
        )
    if any(i.part_number is None and not i.included for i in items):
        out.append(
            "- Lines marked 'PN needed' have no public orderable part number yet; the vendor "
            "confirms them on the order."
        )
    est = report.estimate
    if est is not None and build.workload is not None:
        out.append(
            "- The workload figures are estimates from the model's architecture, not a "
            "measurement on this server."
        )
        if build.workload.method != "inference" and est.train_hours is not None:
            out.append(
                f"- Training time assumes {est.assumptions.mfu:.0%} of the GPUs' peak "
                "throughput (model FLOPs utilisation)."
            )
    out.append("")
    return out


CATALOG_WORDS = ("catalog", "record", "overlay", "(with its source)")


def _is_catalog_text(text: str) -> bool:
    t = text.lower()
    return any(w in t for w in CATALOG_WORDS)


def is_catalog_todo(f: Finding) -> bool:
    """A finding whose point is a gap in slotwise's own data (a figure to add to a catalog
    record), not something about the customer's build: it goes to the engineering notes."""
    return _is_catalog_text(f.message) or (f.fix is not None and _is_catalog_text(f.fix))


def engineering_notes(
    build: Build,
    catalog: Catalog,
    meta: BomMeta,
    report: Report,
    items: list[LineItem] | None = None,
) -> str:
    """The engineer's companion to the customer document: every finding with its rule id and
    fix, the PCIe lane budgets, the catalog to-dos, where each part number comes from and the
    estimator's notes."""
    build = canonical_build(build, catalog)
    items = items if items is not None else line_items(build, catalog, services=meta.services)
    title = cell(meta.project) if meta.project else "Server build"
    out = [f"# Engineering notes: {title}", ""]
    byline = [f"catalog {cell(catalog.version)}"]
    if meta.updated:
        byline.append(f"updated {meta.updated:%Y-%m-%d %H:%M} UTC")
    out += [" · ".join(byline), ""]
    wl = build.workload
    if wl is not None:
        named = wl.model or wl.config or (wl.arch or {}).get("hub_id") or model_name(wl)
        out += ["## Workload source", "", f"{cell(str(named))}: {_workload_line(wl, report)}", ""]
    lanes = [b for b in report.budgets if b.name.startswith("lanes:")]
    if lanes:
        out += ["## PCIe lanes", "", "| Root | Used | Available | Detail |"]
        out.append("| --- | ---: | ---: | --- |")
        for b in lanes:
            used, avail, _ = budget_figures(b)
            out.append(f"| {cell(budget_label(b))} | {used} | {avail} | {cell(b.detail)} |")
        out.append("")
    out += ["## Part numbers", "", "| SKU | Part number | Vendor | Conf. | Source |"]
    out.append("| --- | --- | --- | --- | --- |")
    for i in items:
        out.append(
            f"| {cell(i.sku)} | {cell(i.pn_cell)} | {cell(i.part_number_vendor or '')} | "
            f"{cell(i.part_number_confidence or '')} | "
            f"{cell(i.part_number_source or i.basis or '')} |"
        )
    out.append("")
    out += ["## Findings", ""]
    if not report.findings:
        out += ["No problems found.", ""]
    for sev in ("error", "warning", "info"):
        found = report.of(sev)
        if not found:
            continue
        out += [f"### {TITLE[sev]} ({len(found)})", ""]
        out += [_finding(f) for f in found]
        out.append("")
    todos = [f for f in report.findings if is_catalog_todo(f)]
    if todos:
        out += ["## Catalog to-dos", ""]
        out += [f"- {cell(f.rule)}: {_engine_line(f.fix or f.message)}" for f in todos]
        out.append("")
    est = report.estimate
    if est is not None and est.assumptions.notes:
        out += ["## Estimator notes", ""]
        out += [f"- {_engine_line(n)}" for n in est.assumptions.notes]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _watts(x: float | None, words: str | None = None) -> str:
    """A power cell: the figure, else the line's words ("none", "not verified" ...), else —."""
    if x is None:
        return cell(words) if words else "—"
    return f"{x:,.0f}" if x >= 100 else f"{x:,.4g}"


def bom_table(
    items: list[LineItem], currency: str | None, price_note: str | None, report: Report
) -> list[str]:
    """The "Bill of materials" section: type, part number, description, quantity, power per unit
    and per line, prices where a price list gives them; the parts' power in total and the
    engine's figure at the wall; the lines whose part number is still needed."""
    priced = any(i.unit_price is not None for i in items)
    out = ["## Bill of materials", ""]
    head = "| Type | Part number | Description | Qty | W each | W total |"
    rule = "| --- | --- | --- | ---: | ---: | ---: |"
    if priced:
        head += " Unit price | Extended |"
        rule += " ---: | ---: |"
    out += [head, rule]
    for i in items:
        row = (
            f"| {cell(i.type_label)} | {cell(i.pn_cell)} | {cell(i.description)} | "
            f"{i.quantity} | {_watts(i.unit_power_w, i.power_cell)} | "
            f"{_watts(i.total_power_w, i.power_cell)} |"
        )
        if priced:
            row += f" {_money(i.unit_price, currency)} | {_money(i.extended_price, currency)} |"
        out.append(row)
    out.append("")
    known = [i.total_power_w for i in items if i.total_power_w is not None and not i.included]
    unknown = [
        i
        for i in items
        if i.unit_power_w is None
        and i.kind not in ("psu", "bridge", "chassis")
        and i.power_note in (None, NOT_VERIFIED)
    ]
    power = f"Power of the listed parts: {sum(known) + _included_w(items):,.0f} W"
    if unknown:
        power += " (no figure for " + ", ".join(cell(i.description) for i in unknown) + ")"
    if report.power is not None:
        power += (
            f"; the whole server at the wall, worst case: {report.power.worst_ac_w:,.0f} W "
            "(fans, board and power-supply losses included)"
        )
    out.append(power + ".")
    needed = [i for i in items if i.part_number is None and not i.included]
    if needed:
        out += [
            "",
            f"Part numbers still needed for {len(needed)} line(s): "
            + ", ".join(cell(i.description) for i in needed)
            + ".",
        ]
    if priced:
        missing = [i.description for i in items if i.unit_price is None]
        priced_total = sum(i.extended_price or 0.0 for i in items)
        out.append("")
        if missing:
            out.append(
                f"Total of the priced lines: {_money(priced_total, currency)}; no price for "
                + ", ".join(cell(m) for m in missing)
                + " (the total is incomplete)."
            )
        else:
            out.append(f"**Total: {_money(priced_total, currency)}**")
        if price_note:
            out += ["", f"*{cell(price_note)}*"]
    out.append("")
    return out


def _included_w(items: list[LineItem]) -> float:
    return sum(i.total_power_w or 0.0 for i in items if i.included)


def _finding(f: Finding) -> str:
    message = exported_message(f.rule, f.message)
    line = f"- {SYMBOL[f.severity]} **{_engine_line(f.rule)}**: {_engine_line(message)}"
    if f.fix:
        line += f" — *Fix:* {_engine_line(f.fix)}"
    return line


def _verdict(report: Report, catalog: Catalog | None = None) -> str:
    est = report.estimate
    if est is None:
        return (
            "Workload verdict: not known yet (the estimate could not be made for this build; "
            "see the open points)."
        )
    v = report.verdict or verdict(est, None)
    gpu = describe(catalog, v.gpu) if catalog is not None else v.gpu
    parts = [f"**{v.headline}**"]
    parts.append(f"{'fits' if v.fits else 'does not fit'} on {v.gpus} × {gpu}")
    if not v.fits and v.min_gpus:
        parts[-1] += f"; needs at least {v.min_gpus} GPUs of this model"
    if v.capacity_bytes:
        parts.append(
            f"{v.need_bytes / GiB:,.1f} GiB needed per GPU of {v.capacity_bytes / GiB:,.1f} GiB"
        )
    if v.train_hours is not None:
        parts.append(
            f"about {v.train_hours:,.1f} h ({v.train_hours / 24:,.1f} days) to train on this server"
        )
    if v.decode_tokens_per_s is not None:
        at = (
            f"{v.serving.users:,} users on this server"
            if v.serving is not None
            else "the workload's micro-batch on this server"
        )
        parts.append(f"about {v.decode_tokens_per_s:,.0f} tokens/s decode with {at}")
    if v.sizing is not None:
        parts.append("sizing: " + v.sizing.summary())
        if v.sizing.load:
            parts.append(f"serving figures hold at {v.sizing.load}")
    return "Workload verdict: " + "; ".join(parts) + "."


def _cluster_section(bc: BuildCluster, currency: str | None = None) -> list[str]:
    out = ["## Cluster sizing", "", f"One server is not enough: {bc.reason}.", ""]
    plan = bc.plan
    if plan is None:
        out += [f"The cluster could not be sized: {bc.problem}.", ""]
        return out
    fab = plan.fabric
    assumptions = [f"{plan.kw_per_rack:g} kW per rack", f"{plan.rack_u} U per rack"]
    if plan.node_u is not None:
        assumptions.append(f"{plan.node_u} U per node")
    if fab is not None:
        assumptions.append(
            f"switch radix {fab.radix} ports of {fab.gbps} Gb/s (rail-optimised, non-blocking)"
        )
    out += [
        f"Copies of this build, each with {plan.gpus_per_node} GPUs; the node count is the fewest "
        "for which the workload estimate fits and meets the target.",
        "",
        "Assumptions: " + ", ".join(assumptions) + ".",
        "",
    ]
    body = cluster_markdown(plan).split("\n", 2)[2]  # drop its own "## Cluster" heading
    out += body.rstrip("\n").split("\n")
    out += ["", "### Cluster bill of materials", "", *lines_markdown(plan, currency), ""]
    return out


def _tco_section(bt: BuildTco) -> list[str]:
    if bt.result is not None:
        md = tco_markdown(bt.result).rstrip("\n").split("\n")
        scope = "For this server as listed in the bill of materials."
        if bt.unpriced_companions:
            scope = (
                "For this server as listed in the bill of materials, without the lines the "
                "price list does not price ("
                + ", ".join(cell(s) for s in bt.unpriced_companions)
                + ")."
            )
        return [md[0], "", scope, *md[1:], ""]
    out = ["## Total cost of ownership", ""]
    if bt.missing_prices:
        out.append(
            "Not computed: no price for "
            + ", ".join(cell(s) for s in bt.missing_prices)
            + ". Add them to the price list to see the purchase total and the break-even month."
        )
    else:
        out.append(f"Not computed: {bt.problem}.")
    out.append("")
    return out
