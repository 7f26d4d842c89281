"""Cluster screen: N copies of the current build with their fabric, racks and power.

Every figure comes from engine.plan.cluster (``plan_nodes``: the rail-optimised fabric, the
management networks, racks, circuits and the cluster BOM) and engine.plan.for_build
(``node_spec``: what the plan needs of this build; ``nodes_for_workload``: the node count the
workload needs).  The screen parses its four inputs, names the field of a bad one, and lays out
what the engine returns; it does no arithmetic of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid, VerticalScroll
from textual.widgets import Footer, Markdown, Static

from slotwise.engine.bom.cluster_doc import ClusterDoc
from slotwise.engine.build import Build
from slotwise.engine.check.report import Report
from slotwise.engine.plan.cluster import DEFAULT_KW_PER_RACK, DEFAULT_RACK_U, ClusterPlan
from slotwise.parts.catalog import Catalog
from slotwise.tui.input_labels import app_words
from slotwise.tui.keys import CLUSTER_KEYS, bindings
from slotwise.tui.screens.base import AppScreen
from slotwise.tui.widgets.ordered_input import Input


@dataclass(frozen=True)
class ClusterOutcome:
    plan: ClusterPlan | None
    problem: str | None = None


def _positive(label: str, text: str) -> tuple[float | None, str | None]:
    text = text.strip()
    try:
        v = float(text)
    except ValueError:
        return None, f"{label}: {text!r} is not a number"
    if v <= 0:
        return None, f"{label}: must be above 0"
    return v, None


def _site_fields(rack_kw: str, volts: str, amps: str) -> tuple[dict, str | None]:
    parsed = {}
    for key, label, text in (
        ("rack_kw", "Rack kW", rack_kw),
        ("volts", "Volts", volts),
        ("amps", "Amps", amps),
    ):
        value, problem = _positive(label, text)
        if problem:
            return {}, problem
        parsed[key] = value
    return parsed, None


def cluster_from_document(
    doc: ClusterDoc, *, nodes: str, rack_kw: str, volts: str, amps: str
) -> ClusterOutcome:
    """Plan a saved cluster document again with the form's values in place of its own (blank
    Nodes: the document's count)."""
    from slotwise.engine.plan.cluster import plan_nodes

    parsed, problem = _site_fields(rack_kw, volts, amps)
    if problem:
        return ClusterOutcome(None, problem)
    count = doc.plan.nodes
    if nodes.strip():
        n, problem = _positive("Nodes", nodes)
        if problem or n is None or n != int(n):
            return ClusterOutcome(None, problem or "Nodes: a whole number")
        count = int(n)
    old = doc.plan.site
    site = old.model_copy(
        update={
            "rack_kw": parsed["rack_kw"],
            "feed": old.feed.model_copy(update={"volts": parsed["volts"], "amps": parsed["amps"]}),
        }
    )
    try:
        plan = plan_nodes(
            doc.plan.node,
            count,
            site,
            switch=doc.plan.switch_key,
            planes=doc.plan.planes,
            prices=doc.prices,
        )
    except ValueError as exc:
        return ClusterOutcome(None, app_words(str(exc)))
    return ClusterOutcome(plan)


def cluster_from_form(
    build: Build,
    report: Report | None,
    catalog: Catalog,
    *,
    nodes: str,
    rack_kw: str,
    volts: str,
    amps: str,
) -> ClusterOutcome:
    """Parse the form and plan the cluster; a problem names the field to change.  Blank Nodes:
    the fewest copies that run the build's workload."""
    from slotwise.engine.plan.cluster import plan_nodes
    from slotwise.engine.plan.for_build import node_spec, nodes_for_workload
    from slotwise.engine.plan.racks import Feed, Site

    if report is None:
        return ClusterOutcome(None, "The engine could not check this build.")
    parsed, problem = _site_fields(rack_kw, volts, amps)
    if problem:
        return ClusterOutcome(None, problem)
    notes: tuple[str, ...] = ()
    if nodes.strip():
        n, problem = _positive("Nodes", nodes)
        if problem or n is None or n != int(n):
            return ClusterOutcome(None, problem or "Nodes: a whole number")
        count = int(n)
    else:
        if build.workload is None:
            return ClusterOutcome(None, "Nodes: give a number (the build has no workload)")
        sized = nodes_for_workload(build, catalog, report)
        if isinstance(sized, str):
            return ClusterOutcome(None, f"Nodes: the workload could not size them: {sized}")
        count = sized
        notes = (f"{count} node(s): the fewest copies of this build that run the workload.",)
    spec, spec_notes = node_spec(build, catalog, report)
    site = Site(
        rack_kw=parsed["rack_kw"],
        rack_u=DEFAULT_RACK_U,
        feed=Feed(volts=parsed["volts"], amps=parsed["amps"]),
    )
    try:
        plan = plan_nodes(spec, count, site)
    except ValueError as exc:
        return ClusterOutcome(None, app_words(str(exc)))
    return ClusterOutcome(plan.model_copy(update={"notes": (*plan.notes, *notes, *spec_notes)}))


def summary_line(plan: ClusterPlan) -> str:
    """The answer first: nodes, GPUs, switches, racks, power."""
    fab = plan.fabric
    parts = [f"{plan.nodes} nodes, {plan.total_gpus} GPUs"]
    if fab is not None:
        parts.append(f"{fab.leaf}/{fab.spine}/{fab.core} leaf/spine/core {fab.switch.name}")
    if plan.racks is not None:
        parts.append(f"{plan.racks} racks")
    if plan.total_power_w is not None:
        parts.append(f"{plan.total_power_w / 1000:,.1f} kW")
    return "✓ " + ", ".join(parts)


class ClusterScreen(AppScreen[None]):
    BINDINGS = bindings(CLUSTER_KEYS)
    DEFAULT_CSS = """
    ClusterScreen #cl-title { height: 1; padding: 0 1; background: $panel; }
    ClusterScreen #cl-form {
        grid-size: 4 2; grid-rows: 1; grid-columns: 1fr 1fr 1fr 1fr; height: 2;
        padding: 0 1; grid-gutter: 0 1;
    }
    ClusterScreen .cl-label { color: $text-muted; }
    ClusterScreen #cl-summary { height: auto; padding: 0 1; text-style: bold; }
    ClusterScreen #cl-body { height: 1fr; border-top: hkey $primary-darken-2; padding: 0 1; }
    """

    def __init__(self, doc: ClusterDoc | None = None, *, opened_file: bool = False) -> None:
        """``doc``: a cluster to show (a document the app opened, ``opened_file``, or a cluster
        suggestion); else the cluster of the build being edited."""
        super().__init__()
        self.doc = doc
        self.opened_file = opened_file
        self.plan: ClusterPlan | None = None

    def compose(self) -> ComposeResult:
        doc = self.doc
        if doc is None:
            title = "[b]Cluster[/b] of this build — Enter/F9 plan · Esc back"
            nodes, kw, volts, amps = "", f"{DEFAULT_KW_PER_RACK:g}", "415", "60"
        else:
            title = "[b]Cluster document[/b] — Enter/F9 plan · " + (
                "Esc: a new build" if self.opened_file else "Esc back"
            )
            site = doc.plan.site
            nodes, kw = str(doc.plan.nodes), f"{site.rack_kw:g}"
            volts, amps = f"{site.feed.volts:g}", f"{site.feed.amps:g}"
        yield Static(title, id="cl-title")
        with Grid(id="cl-form"):
            yield Static("Nodes (blank=auto)", classes="cl-label")
            yield Static("Rack kW", classes="cl-label")
            yield Static(
                f"Volts ({'3' if doc is None else doc.plan.site.feed.phases}-phase)",
                classes="cl-label",
            )
            yield Static("Amps", classes="cl-label")
            yield Input(
                nodes, placeholder="from workload", type="integer", compact=True, id="cl-nodes"
            )
            yield Input(kw, type="number", compact=True, id="cl-kw")
            yield Input(volts, type="number", compact=True, id="cl-volts")
            yield Input(amps, type="number", compact=True, id="cl-amps")
        yield Static("", id="cl-summary")
        with VerticalScroll(id="cl-body"):
            yield Markdown("", id="cl-text")
        yield Footer()

    def on_mount(self) -> None:
        self.app.apply_blink(self)
        self.query_one("#cl-nodes", Input).focus()
        self.action_run()

    def _val(self, wid: str) -> str:
        return self.query_one(wid, Input).value

    def action_run(self) -> None:
        from slotwise.engine.bom.cluster_doc import cluster_document_markdown

        app = self.app
        fields = {
            "nodes": self._val("#cl-nodes"),
            "rack_kw": self._val("#cl-kw"),
            "volts": self._val("#cl-volts"),
            "amps": self._val("#cl-amps"),
        }
        if self.doc is not None:
            outcome = cluster_from_document(self.doc, **fields)
        else:
            outcome = cluster_from_form(app.editing.current, app.report, app.catalog, **fields)
        summary = self.query_one("#cl-summary", Static)
        body = self.query_one("#cl-text", Markdown)
        self.plan = outcome.plan
        if outcome.plan is None:
            summary.update(Text(f"✗ {outcome.problem}"))
            body.update("")
            return
        summary.update(Text(summary_line(outcome.plan)))
        body.update(app_words(cluster_document_markdown(outcome.plan)))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run()

    def action_close(self) -> None:
        self.dismiss(None)
