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
from slotwise.tui.options import LETTERS
from slotwise.tui.screens.base import AppScreen
from slotwise.tui.screens.picker import PartPicker
from slotwise.tui.screens.picker_model import target_for
from slotwise.tui.widgets.bom_view import BomView
from slotwise.tui.widgets.budgets import BudgetsView
from slotwise.tui.widgets.chassis_map import ChassisMap
from slotwise.tui.widgets.findings import FindingsList, summary_text, unverified_areas
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
            # The workload form (~110 widgets) is mounted when its tab is first shown
            # (_mount_form): until then every other view, and every return from a dialog,
            # restyles and walks ~40 widgets instead of ~150.
            yield TabPane("Workload F4", id="workload")
            with TabPane("BOM F5", id="bom"), VerticalScroll():
                yield BomView(id="bom-view")
        yield KeyHints(id="key-hints", context_for=_hint_context)

    def on_resize(self) -> None:
        if self.app.history is not None and self.is_mounted:
            self.call_after_refresh(self.refresh_view)  # the map's columns follow its width

    def _update_status(self) -> None:
        app = self.app
        width = self.query_one("#status", Static).content_size.width or self.size.width - 2
        status = status_line(app, app.editing.current, app.report, self.move_src, width)
        self.query_one("#status", Static).update(status)

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
        self._update_status()

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
        form = self._form()
        if form is not None:
            self._fill_form(form, reload=reload_form)
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
            app.release_keys()  # no picker: keys typed ahead go where they would have gone
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

    def on_chassis_map_fill_row(self, event: ChassisMap.FillRow) -> None:
        from slotwise.engine.plan.fill import fill_edits

        app = self.app
        build = app.editing.current
        sku = build.slots.get(event.row.slots[0])
        if sku is None:
            self.notify(
                "This slot is empty: fit a card here first (Enter), then press a to put the "
                "same card in every free slot that takes it.",
                severity="warning",
            )
            return
        edits = fill_edits(build, app.catalog, sku)
        if not edits:
            self.notify(f"No free slot takes another {sku}.", severity="warning")
            return
        slots = ", ".join(e.slot for e in edits)
        if app.apply_edits(edits, f"fit {sku} in slots {slots}"):
            self.notify(f"Fitted {len(edits)} more {sku} (slots {slots}); Ctrl+Z undoes it.")

    def on_workload_form_changed(self, event: WorkloadForm.Changed) -> None:
        self.form_problem = event.problem
        if event.problem is None:
            edit = SetWorkload(workload=event.workload)
            if self.app.apply_edits(
                (edit,), edit.describe(), coalesce="workload", reload_form=False
            ):
                return
        form = self._form()
        if form is not None:
            self._fill_form(form, reload=False)

    def _form(self) -> WorkloadForm | None:
        """The workload form, once its tab has been shown (None before)."""
        found = self.query(WorkloadForm)
        return found.first() if found else None

    async def _mount_form(self) -> None:
        """Mount the workload form on first use, filled from the build as it is now."""
        if self._form() is not None:
            return
        presets = [
            (f"{m.sku} — {m.name}", m.sku)
            for m in sorted(self.app.catalog.models.values(), key=lambda m: m.sku)
        ]
        form = WorkloadForm(presets, id="workload-form")
        await self.query_one("#workload", TabPane).mount(form)
        self._fill_form(form, reload=True)

    def _fill_form(self, form: WorkloadForm, *, reload: bool) -> None:
        """The build's workload into the form (``reload``) and its verdict beside it."""
        workload = self.app.editing.current.workload
        if reload:
            form.load(workload)
        form.show_verdict(self.app.report, workload, self.form_problem)

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

    async def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        pane = event.pane.id
        if pane == "map":
            self.query_one(ChassisMap).focus()
        elif pane == "workload":
            await self._mount_form()
            self.call_after_refresh(self._focus_form)
        else:  # budgets, BOM: arrows / PgUp / PgDn scroll the text
            event.pane.query_one(VerticalScroll).focus()

    def _focus_form(self) -> None:
        self.query_one("#wl-model").focus()
        self.app.release_keys()

    # ------------------------------------------------------------------------- actions
    def action_show_tab(self, tab: str) -> None:
        tabs = self.query_one(TabbedContent)
        if tabs.active == tab:
            if tab == "map":  # F2 on the map tab: back to the map from the findings
                self.query_one(ChassisMap).focus()
            return
        if tab == "workload":
            # Keys typed right behind F4 wait for the form (mounted on first use: ~0.2 s, more
            # on a loaded machine) to take the focus, instead of acting on the map ("q" would
            # ask to quit): released in _focus_form.
            self.app.hold_keys(at_most_s=5.0)
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

    def action_quote_details(self) -> None:
        self.app.action_quote_details()

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


def _identity(app, build) -> str:
    """Which build this is: chassis, GPU count and the option letter (or "copy")."""
    gpus = sum(1 for s in build.slots.values() if s in app.catalog.gpus)
    board = app.catalog.baseboards.get(build.baseboard or "")
    gpus += board.gpu_count if board else 0
    parts = [build.chassis, f"{gpus} GPU{'s' if gpus != 1 else ''}"]
    opts = app.options
    if len(opts):
        parts.append(f"opt {LETTERS[opts.active]}")
    if app.is_copy:
        parts.append("copy")
    return " · ".join(parts)


def _counts(report) -> Text:
    """The verdict, short: errors in words ("✖ 1 ERROR"), warnings and infos as bare counts
    ("▲2 •3"): the status line's shortest form (the Findings pane has the words)."""
    if report is None:
        return summary_text(report, compact=True)
    t = Text()
    errors = len(report.of("error"))
    if errors:
        t.append(f"✖ {errors} ERROR{'S' if errors != 1 else ''}", style="bold red")
    for sev, sym, style in (("warning", "▲", "yellow"), ("info", "•", "")):
        n = len(report.of(sev))
        if n:
            t.append(f"{' ' if t.plain else ''}{sym}{n}", style=style)
    return t if t.plain else summary_text(report, compact=True)


def status_line(app, build, report, move_src: str | None, width: int) -> Text:
    """The status line, fitted to ``width`` so a narrow terminal never cuts the build's
    identity: the unexported flag (and a move in progress), the verdict (errors, warnings),
    which build this is (chassis, GPUs, option or copy), then what could not be verified.
    When it does not fit, the list of unverified areas becomes a count, then the verdict its
    bare counts (the Findings pane has the words)."""
    sep = " │ "
    areas = unverified_areas(report)
    unverified = [""]
    if areas:
        unverified = [
            f"? {', '.join(areas)} not verified",
            f"? {areas[0]} +{len(areas) - 1} not verified",
            f"? {len(areas)} not verified",
        ]
    full, counts = summary_text(report, compact=True), _counts(report)
    # the area names matter more than the verdict's words (the Findings pane has those)
    tries = [(v, t) for t in unverified[:2] for v in (full, counts)]
    tries += [(v, t) for t in unverified[2:] for v in (full, counts)]
    line = Text()
    for verdict, tail in tries:
        line = Text(no_wrap=True, overflow="ellipsis")
        if app.dirty:
            line.append("✎ UNEXPORTED", style="bold reverse")
            line.append(sep)
        if move_src:
            line.append(
                f"moving slot {move_src}: m on the target, Esc cancels", style="bold reverse"
            )
            line.append(sep)
        line.append_text(verdict)
        line.append(sep)
        line.append(_identity(app, build), style="bold")
        if tail:
            line.append(sep)
            line.append(tail, style="bold yellow")
        if len(line.plain) <= width:
            return line
    return line


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
