"""The build screen: chassis map + findings (side by side when wide, stacked when narrow),
budgets, workload form and BOM in tabs.  It holds no rules and no state of its own beyond
the cursor: every change goes through the app (``apply_edits``), which re-runs the engine."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static, TabbedContent, TabPane

from slotwise.engine.build.edits import (
    Move,
    Remove,
    RemoveBridge,
    SetBaseboard,
    SetCount,
    SetDrives,
    SetWorkload,
)
from slotwise.tui.keys import BUILD_KEYS, HINTS_MAP, bindings
from slotwise.tui.screens.base import AppScreen
from slotwise.tui.screens.picker import PartPicker
from slotwise.tui.screens.picker_model import target_for
from slotwise.tui.widgets.bom_view import BomView
from slotwise.tui.widgets.budgets import BudgetsView
from slotwise.tui.widgets.chassis_map import ChassisMap
from slotwise.tui.widgets.findings import FindingsList, summary_text, unverified_text
from slotwise.tui.widgets.key_hints import KeyHints
from slotwise.tui.widgets.map_rows import MapRow
from slotwise.tui.widgets.workload_form import WorkloadForm


class BuildScreen(AppScreen[None]):
    BINDINGS = bindings(BUILD_KEYS)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]

    def __init__(self) -> None:
        super().__init__()
        self.move_src: str | None = None
        self.form_problem: str | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="status")
        with TabbedContent(initial="map", id="tabs"):
            with TabPane("Map F2", id="map"), Horizontal(id="split"):
                yield ChassisMap(id="chassis-map")
                with Vertical(id="side"):
                    yield Static("", id="findings-title")
                    yield FindingsList(id="findings")
            with TabPane("Budgets F3", id="budgets"), VerticalScroll():
                yield BudgetsView(id="budgets-view")
            with TabPane("Workload F4", id="workload"):
                presets = [
                    (f"{m.sku} — {m.name}", m.sku)
                    for m in sorted(self.app.catalog.models.values(), key=lambda m: m.sku)
                ]
                yield WorkloadForm(presets, id="workload-form")
            with TabPane("BOM F5", id="bom"), VerticalScroll():
                yield BomView(id="bom-view")
        yield KeyHints(id="key-hints", context_for=_hint_context)

    def on_mount(self) -> None:
        self.app.apply_blink(self)
        self.refresh_view(reload_form=True)
        self.query_one(ChassisMap).focus()

    # ------------------------------------------------------------------------- drawing
    def refresh_view(self, reload_form: bool = False) -> None:
        app = self.app
        build = app.editing.current
        report = app.report
        chassis = app.catalog.chassis.get(build.chassis)
        # Most important first, so a narrow terminal crops only the tail: the unexported flag,
        # the verdict in words (errors, warnings, what could not be verified), then the build.
        status = Text(no_wrap=True, overflow="ellipsis")
        if app.dirty:
            status.append("✎ UNEXPORTED", style="bold reverse")
            status.append(" │ ")
        status.append_text(summary_text(report, compact=True))
        unverified = unverified_text(report)
        if unverified.plain:
            status.append(" │ ")
            status.append_text(unverified)
        gpus = sum(1 for s in build.slots.values() if s in app.catalog.gpus)
        board = app.catalog.baseboards.get(build.baseboard or "")
        gpus += board.gpu_count if board else 0
        status.append(f" │ {build.chassis} │ {gpus} GPU{'s' if gpus != 1 else ''}")
        if self.move_src:
            status.append(
                f" │ moving slot {self.move_src}: m on the target, Esc cancels",
                style="bold reverse",
            )
        self.query_one("#status", Static).update(status)

        findings = self.query_one(FindingsList)
        findings.show(report)
        n = len(report.findings) if report else 0
        self.query_one("#findings-title", Static).update(
            f"[b]Findings[/b] ({n}) — Tab to focus, f applies a fix"
        )
        cur = findings.current
        marked = set(cur.slots) if cur else set()
        marked_parts = set(cur.parts) if cur else set()
        cmap = self.query_one(ChassisMap)
        cmap.moving = self.move_src
        if chassis is not None:
            cmap.show(chassis, build, app.catalog, report, marked, marked_parts)
        self.query_one(BudgetsView).show(report)
        form = self.query_one(WorkloadForm)
        if reload_form:
            form.load(build.workload)
        form.show_verdict(report, build.workload, self.form_problem)
        self.query_one(BomView).show(build, app.catalog, app.open_meta, report, app.pricing)

    # ------------------------------------------------------------------------- events
    def on_findings_list_selected(self, event: FindingsList.Selected) -> None:
        f = event.finding
        marked = set(f.slots) if f else set()
        marked_parts = set(f.parts) if f else set()
        cmap = self.query_one(ChassisMap)
        chassis = self.app.catalog.chassis.get(self.app.editing.current.chassis)
        if chassis is not None:
            cmap.show(
                chassis,
                self.app.editing.current,
                self.app.catalog,
                self.app.report,
                marked,
                marked_parts,
            )

    def on_chassis_map_pick(self, event: ChassisMap.Pick) -> None:
        app = self.app
        build = app.editing.current
        chassis = app.catalog.chassis.get(build.chassis)
        target = target_for(event.row.key, chassis, build) if chassis else None
        if target is None or chassis is None:
            return

        def done(edits: tuple | None) -> None:
            if edits:
                app.apply_edits(edits, "; ".join(e.describe() for e in edits))

        app.push_screen(
            PartPicker(target, build, chassis, app.catalog, app.evaluate_build, app.open_report),
            done,
        )

    def on_chassis_map_remove_row(self, event: ChassisMap.RemoveRow) -> None:
        edit = _removal(event.row, self.app.editing.current)
        if edit is None:
            self.notify("Nothing to remove here.", severity="warning")
            return
        build = self.app.editing.current
        bridged = [br for br in build.bridges if isinstance(edit, Remove) and edit.slot in br.slots]
        if self.app.apply_edits((edit,), edit.describe()) and bridged:
            joined = "; ".join(f"{br.sku} on slots {', '.join(br.slots)}" for br in bridged)
            self.notify(
                f"The NVLink bridge went with the card ({joined}). Ctrl+Z puts both back.",
                severity="warning",
                timeout=6,
            )

    def on_chassis_map_move_row(self, event: ChassisMap.MoveRow) -> None:
        sid = event.row.slots[0]
        build = self.app.editing.current
        if self.move_src is None:
            if sid not in build.slots:
                self.notify(
                    "This slot is empty: put the cursor on a card to move it.", severity="warning"
                )
                return
            self.move_src = sid
            self.notify(
                f"Moving the card in slot {sid}: put the cursor on an empty slot and "
                "press m again (Esc cancels)."
            )
            self.refresh_view()
            return
        src, self.move_src = self.move_src, None
        if src == sid:
            self.refresh_view()
            return
        edit = Move(src=src, dst=sid)
        if not self.app.apply_edits((edit,), edit.describe()):
            self.refresh_view()

    def on_workload_form_changed(self, event: WorkloadForm.Changed) -> None:
        self.form_problem = event.problem
        if event.problem is None:
            edit = SetWorkload(workload=event.workload)
            if self.app.apply_edits(
                (edit,), edit.describe(), coalesce="workload", reload_form=False
            ):
                return
        form = self.query_one(WorkloadForm)
        form.show_verdict(self.app.report, self.app.editing.current.workload, self.form_problem)

    def on_workload_form_fetch(self, event: WorkloadForm.Fetch) -> None:
        self.notify(f"Reading the model config {event.workload.config} …")
        self._fetch_config(event.workload)

    @work(thread=True, exclusive=True, group="fetch-config")
    def _fetch_config(self, workload) -> None:
        """evaluate() resolves models offline only; this fills the cache (file or the
        Hugging Face hub), then the build is re-checked."""
        from slotwise.engine.model.resolve import ModelResolveError, resolve_arch

        try:
            arch = resolve_arch(workload, self.app.catalog, offline=False)
        except ModelResolveError as exc:
            self.app.call_from_thread(self._fetched, None, str(exc))
            return
        except Exception as exc:  # network stack errors: say so, never crash
            self.app.call_from_thread(self._fetched, None, f"{type(exc).__name__}: {exc}")
            return
        self.app.call_from_thread(self._fetched, arch.name, None)

    def _fetched(self, name: str | None, problem: str | None) -> None:
        if problem:
            self.form_problem = problem
            self.notify(problem, severity="error", timeout=8)
        else:
            self.form_problem = None
            self.notify(f"Model config read: {name}")
        self.app.recheck()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        pane = event.pane.id
        if pane == "map":
            self.query_one(ChassisMap).focus()
        elif pane == "workload":
            self.call_after_refresh(self._focus_form)
        else:  # budgets, BOM: arrows / PgUp / PgDn scroll the text
            event.pane.query_one(VerticalScroll).focus()

    def _focus_form(self) -> None:
        self.query_one("#wl-model").focus()

    # ------------------------------------------------------------------------- actions
    def action_show_tab(self, tab: str) -> None:
        tabs = self.query_one(TabbedContent)
        if tabs.active == tab:
            if tab == "map":  # F2 on the map tab: back to the map from the findings
                self.query_one(ChassisMap).focus()
            return
        tabs.active = tab  # focus follows in on_tabbed_content_tab_activated

    def action_undo(self) -> None:
        self.app.undo()

    def action_redo(self) -> None:
        self.app.redo()

    def action_apply_fix(self) -> None:
        f = self.query_one(FindingsList).current
        if f is None:
            self.notify("No finding selected (Tab to the findings, ↑↓ to choose).")
            return
        if not f.edit:
            self.notify(f"No automatic fix for {f.rule}. {f.fix or ''}".strip(), severity="warning")
            return
        label = f"fix {f.rule}: " + "; ".join(e.describe() for e in f.edit)
        if self.app.apply_edits(tuple(f.edit), label):
            self.notify(label)

    def action_export(self) -> None:
        self.app.action_export()

    def action_new_build(self) -> None:
        self.app.action_new_build()

    def action_suggest(self) -> None:
        from slotwise.tui.screens.suggest import SuggestScreen

        self.app.push_screen(SuggestScreen())

    def action_tco(self) -> None:
        from slotwise.tui.screens.tco import TcoScreen

        self.app.push_screen(TcoScreen())

    def action_cluster(self) -> None:
        from slotwise.tui.screens.cluster import ClusterScreen

        self.app.push_screen(ClusterScreen())

    def action_legend(self) -> None:
        from slotwise.tui.screens.help import LegendScreen

        if not isinstance(self.app.screen, LegendScreen):
            self.app.push_screen(LegendScreen())

    def action_pin_option(self) -> None:
        self.app.pin_option()

    def action_compare_options(self) -> None:
        self.app.action_compare_options()

    def action_request_quit(self) -> None:
        self.app.action_request_quit()

    def key_escape(self) -> None:
        if self.move_src is not None:
            self.move_src = None
            self.refresh_view()


def _hint_context(focused) -> tuple[str, ...]:
    """The map's own keys join the hint line while the map has focus."""
    return HINTS_MAP if isinstance(focused, ChassisMap) else ()


def _removal(row: MapRow, build):
    k = row.kind
    if k == "slot":
        sid = row.slots[0]
        return Remove(slot=sid) if sid in build.slots else None
    if k == "nvlink":
        return RemoveBridge(slots=row.slots) if row.filled else None
    if k in ("cpu", "dimm", "psu"):
        return SetCount(what=k, sku=None, count=0) if row.filled else None
    if k == "bay":
        return SetDrives(bay=row.key[4:], sku=None, count=0) if row.filled else None
    if k == "baseboard":
        return SetBaseboard(sku=None) if build.baseboard else None
    return None
