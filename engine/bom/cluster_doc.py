"""Cluster documents: a cluster plan saved as TOML, read back, exported as Markdown or CSV.

A document holds the plan's inputs, ``[cluster]`` (nodes, switch, planes, source BOM),
``[node]`` (what the plan needs of the node build: engine.plan.cluster.NodeSpec), ``[site]``
(rack limit, rack units, the feed, derating, provisioning) and ``[prices]`` (part number ->
unit price, those the plan used), then what the engine derives from them, ``[plan]`` and
``[[lines]]`` (the cluster BOM).  Reading takes the inputs and plans again; the derived tables
are rewritten on every save (edit the inputs, not them).  Writing what was read gives the same
bytes (test).
"""

from __future__ import annotations

import csv
import io
import tomllib
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from slotwise.engine.bom.toml_writer import dumps
from slotwise.engine.plan.cluster import ClusterPlan, NodeSpec, plan_nodes
from slotwise.engine.plan.racks import Feed, Site
from slotwise.parts.safe_io import MAX_FILE_BYTES, InputError, loads_toml, read_text

FORMAT = 1
_TOP = ("cluster", "node", "site", "prices", "plan", "lines")


class ClusterDocError(ValueError):
    """A cluster document that cannot be read: the message names the file, table and field."""


class ClusterDoc(BaseModel):
    model_config = ConfigDict(frozen=True)

    plan: ClusterPlan
    source_bom: str | None = None
    prices: dict[str, float] = {}


def _drop_none(d: Any) -> Any:
    if isinstance(d, dict):
        return {k: _drop_none(v) for k, v in d.items() if v is not None}
    if isinstance(d, list):
        return [_drop_none(v) for v in d]
    return d


def is_cluster_document(text: str) -> bool:
    """True when ``text`` parses as TOML with a ``[cluster]`` table (a node BOM has none)."""
    try:
        return isinstance(loads_toml(text, "<file>").get("cluster"), dict)
    except (tomllib.TOMLDecodeError, InputError):
        return False


def read_input(path: str) -> tuple[str, bool]:
    """(text, is a cluster document) of a file named on a command line, read as every input is
    (a regular file of at most MAX_FILE_BYTES, UTF-8); :class:`InputError` naming the path."""
    text = read_text(path, max_bytes=MAX_FILE_BYTES, what="file")
    return text, is_cluster_document(text)


def cluster_toml(doc: ClusterDoc) -> str:
    plan = doc.plan
    feed = plan.site.feed
    j = plan.to_json()
    used = {ln.pn for ln in plan.lines if ln.pn}
    prices = {pn: p for pn, p in sorted(doc.prices.items()) if pn in used}
    derived = {
        k: j[k] for k in ("gpus", "racks", "nodes_per_rack", "power", "circuits", "rack_layout")
    }
    derived["fabric"] = j["fabric"]
    data: dict[str, Any] = {
        "cluster": {
            "format": FORMAT,
            "nodes": plan.nodes,
            "switch": plan.switch_key,
            "planes": plan.planes,
            "source_bom": doc.source_bom,
        },
        "node": plan.node.model_dump(),
        "site": {
            "rack_kw": plan.site.rack_kw,
            "rack_u": plan.site.rack_u,
            "phases": feed.phases,
            "volts": feed.volts,
            "amps": feed.amps,
            "derating": feed.derating,
            "provisioning": plan.site.provisioning,
            "cable_m": plan.site.cable_m,
        },
        "prices": prices or None,
        "plan": derived,
        "lines": j["lines"],
    }
    head = (
        "# slotwise cluster document: [cluster], [node], [site] and [prices] are the inputs;\n"
        "# [plan] and [[lines]] are derived and rewritten on every save.\n"
    )
    return head + dumps(_drop_none(data))


def _table(data: dict, name: str, where: str, required: bool = True) -> dict:
    t = data.get(name)
    if t is None and not required:
        return {}
    if not isinstance(t, dict):
        raise ClusterDocError(f"{where}: [{name}] is missing or not a table")
    return t


def _validation(where: str, table: str, exc: ValidationError) -> ClusterDocError:
    e = exc.errors()[0]
    field = ".".join(str(p) for p in e["loc"]) or "(table)"
    return ClusterDocError(
        f"{where}: [{table}] {field}: {e['msg']} (got {e.get('input')!r}); fix that value"
    )


def read_cluster(text: str, filename: str = "<cluster>") -> ClusterDoc:
    """Parse a cluster document and plan it again (see the module doc)."""
    try:
        data = loads_toml(text, filename, what="cluster document")
    except tomllib.TOMLDecodeError as exc:
        raise ClusterDocError(f"{filename}: not valid TOML: {exc}") from None
    except InputError as exc:
        raise ClusterDocError(str(exc)) from None
    extra = sorted(set(data) - set(_TOP))
    if extra:
        raise ClusterDocError(
            f"{filename}: unknown table(s) {', '.join(extra)}; a cluster document has "
            + ", ".join(_TOP)
        )
    c = _table(data, "cluster", filename)
    if c.get("format") != FORMAT:
        raise ClusterDocError(
            f"{filename}: [cluster] format: expected {FORMAT}, got {c.get('format')!r}"
        )
    nodes = c.get("nodes")
    if not isinstance(nodes, int) or isinstance(nodes, bool) or nodes < 1:
        raise ClusterDocError(f"{filename}: [cluster] nodes: a whole number >= 1, got {nodes!r}")
    planes = c.get("planes", 1)
    if not isinstance(planes, int) or planes < 1:
        raise ClusterDocError(f"{filename}: [cluster] planes: a whole number >= 1")
    switch = c.get("switch")
    if switch is not None and not isinstance(switch, str):
        raise ClusterDocError(f"{filename}: [cluster] switch: a switch name such as 'qm9700'")
    try:
        node = NodeSpec(**_table(data, "node", filename))
    except (ValidationError, TypeError) as exc:
        if isinstance(exc, ValidationError):
            raise _validation(filename, "node", exc) from None
        raise ClusterDocError(f"{filename}: [node]: {exc}") from None
    s = dict(_table(data, "site", filename))
    try:
        feed = Feed(**{k: s.pop(k) for k in ("phases", "volts", "amps", "derating") if k in s})
        site = Site(feed=feed, **s)
    except ValidationError as exc:
        raise _validation(filename, "site", exc) from None
    prices_t = _table(data, "prices", filename, required=False)
    prices: dict[str, float] = {}
    for pn, p in prices_t.items():
        if not isinstance(p, int | float) or isinstance(p, bool) or p < 0:
            raise ClusterDocError(f"{filename}: [prices] {pn}: a price >= 0, got {p!r}")
        prices[pn] = float(p)
    try:
        plan = plan_nodes(node, nodes, site, switch=switch, planes=planes, prices=prices)
    except ValueError as exc:
        raise ClusterDocError(f"{filename}: {exc}") from None
    return ClusterDoc(plan=plan, source_bom=c.get("source_bom"), prices=prices)


def cluster_csv(plan: ClusterPlan) -> str:
    """The cluster BOM, one line a row (part number "PN needed" where none is published)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["item", "pn", "qty", "unit_w", "unit_price", "extended_price", "source"])
    for ln in plan.to_json()["lines"]:
        w.writerow(
            [
                ln["item"],
                ln["pn"],
                ln["qty"],
                "" if ln["unit_w"] is None else f"{ln['unit_w']:g}",
                "" if ln["unit_price"] is None else f"{ln['unit_price']:.2f}",
                "" if ln["extended_price"] is None else f"{ln['extended_price']:.2f}",
                ln["source"],
            ]
        )
    return buf.getvalue()


def lines_markdown(plan: ClusterPlan, currency: str | None = None) -> list[str]:
    """The cluster BOM as a Markdown table: part number ("PN needed" where none is published),
    quantity, unit power and, when any line has a price, unit and extended prices (a total only
    when every line is priced)."""
    from slotwise.engine.plan.cluster import PN_NEEDED

    priced = any(ln.unit_price is not None for ln in plan.lines)
    cur = f" ({currency})" if currency else ""
    head = "| Item | Part number | Qty | Unit W |"
    rule = "| --- | --- | ---: | ---: |"
    if priced:
        head += f" Unit price{cur} | Extended{cur} |"
        rule += " ---: | ---: |"
    out = [head, rule]
    for ln in plan.lines:
        w = "" if ln.unit_w is None else f"{ln.unit_w:,.0f}"
        row = f"| {ln.item} | {ln.pn or PN_NEEDED} | {ln.qty:,} | {w} |"
        if priced:
            unit = "no price" if ln.unit_price is None else f"{ln.unit_price:,.2f}"
            ext = "" if ln.extended_price is None else f"{ln.extended_price:,.2f}"
            row += f" {unit} | {ext} |"
        out.append(row)
    if priced:
        missing = [ln for ln in plan.lines if ln.unit_price is None]
        out.append("")
        if missing:
            out.append(
                f"No total: {len(missing)} line(s) have no price (a partial total would mislead)."
            )
        else:
            total = sum(ln.extended_price or 0.0 for ln in plan.lines)
            out.append(f"**Total: {total:,.2f}{cur}**")
    return out


def cluster_document_markdown(plan: ClusterPlan, currency: str | None = None) -> str:
    """The customer-facing cluster document: summary, BOM lines, rack elevations."""
    from slotwise.engine.plan.cluster import cluster_markdown

    out = [cluster_markdown(plan).replace("## Cluster", "# Cluster", 1).rstrip("\n"), ""]
    out += ["## Bill of materials", "", *lines_markdown(plan, currency), ""]
    if plan.rack_plan is not None:
        out += ["## Rack elevations", ""]
        for r in plan.rack_plan.racks:
            out += [
                f"{r.kind} rack x {r.count}: {r.peak_w / 1000:,.1f} kW peak, {r.circuits} "
                f"circuits, {r.pdus} PDUs",
                "",
                "```",
                r.elevation or "(node height unknown)",
                "```",
                "",
            ]
    return "\n".join(out).rstrip("\n") + "\n"
