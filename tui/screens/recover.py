"""The start screen when autosaved work exists: every recoverable build, newest first, with
its time and a summary.  Resume one, start a new build, or discard one (asks; the file goes to
the trash, not away).  No key here loses work: Esc is not bound, Ctrl+Q quits keeping all."""

from __future__ import annotations

from collections import Counter

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from slotwise.tui.autosave import TRASH_KEEP, AutosaveEntry
from slotwise.tui.keys import APP_KEYS, RECOVER_KEYS, bindings
from slotwise.tui.screens.base import AppScreen
from slotwise.tui.widgets.cursor_list import CursorList


def _cards(build) -> str:
    """The cards that tell builds apart: the baseboard, the most common card with its count,
    how many others ("8 × NVIDIA-H200-NVL-141GB + 1 other")."""
    counts = Counter(build.slots.values())
    parts = [build.baseboard] if build.baseboard else []
    if counts:
        sku, n = counts.most_common(1)[0]
        others = sum(counts.values()) - n
        parts.append(f"{n} × {sku}" + (f" + {others} other" if others else ""))
    return " · ".join(parts) or "no cards"


def entry_text(e: AutosaveEntry) -> Text:
    """One resume row: when, which build (chassis, option or copy), its cards and workload,
    its changes and whether it is exported; where it came from and for whom."""
    st = e.state
    build = st.build
    steps = len(st.undo)
    t = Text(no_wrap=False)
    t.append(st.saved_at.strftime("%Y-%m-%d %H:%M UTC"), style="bold")
    t.append(f"  {build.chassis}")
    if st.label:
        t.append(f" · {st.label}", style="bold")
    t.append(f"\n  {_cards(build)}")
    wl = build.workload
    if wl is not None:
        t.append(f" · {wl.method} {wl.model or wl.config or 'custom model'}")
    t.append(f"\n  {steps} change{'s' if steps != 1 else ''}")
    if st.unexported:
        t.append(" · unexported", style="bold")
    who = " · ".join(x for x in ((st.meta.customer, st.meta.project) if st.meta else ()) if x)
    where = f"from {st.bom_path}" if st.bom_path else "never exported"
    t.append(f" · {where}" + (f" · {who}" if who else ""), style="dim")
    if e.locked_by is not None:
        pid = f" (pid {e.locked_by.pid})" if e.locked_by.pid else ""
        t.append(f"\n  open in another slotwise{pid}: resuming opens a copy", style="italic")
    return t


class RecoverScreen(AppScreen[tuple[str, AutosaveEntry | None]]):
    """Dismisses with ("resume", entry) or ("new", None)."""

    BINDINGS = bindings(APP_KEYS) + bindings(RECOVER_KEYS)

    def __init__(self, entries: list[AutosaveEntry]) -> None:
        super().__init__()
        self.entries = list(entries)

    def compose(self) -> ComposeResult:
        with Vertical(id="recover"):
            yield Static(
                "[b]Recoverable builds[/b] — autosaved work, newest first.\n"
                "Enter resumes · n starts a new build · d discards (asks first)",
                id="recover-title",
            )
            yield CursorList(id="recover-list")
        yield Footer()

    def on_mount(self) -> None:
        self._fill()
        self.query_one(OptionList).focus()

    def _fill(self) -> None:
        ol = self.query_one(OptionList)
        ol.set_options([Option(entry_text(e), id=e.build_id) for e in self.entries])
        if self.entries:
            ol.highlighted = 0

    @property
    def current(self) -> AutosaveEntry | None:
        i = self.query_one(OptionList).highlighted
        return self.entries[i] if i is not None and i < len(self.entries) else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_resume()

    def action_resume(self) -> None:
        if self.current is not None:
            self.dismiss(("resume", self.current))

    def action_new(self) -> None:
        self.dismiss(("new", None))

    def action_discard(self) -> None:
        from slotwise.tui.screens.confirm import ConfirmScreen

        entry = self.current
        if entry is None:
            return
        if entry.locked_by is not None:
            self.notify(
                "That build is open in another slotwise: quit it there.", severity="warning"
            )
            return

        def answer(yes: bool | None) -> None:
            if not yes:
                return
            try:
                where = self.app.discard_autosave(entry)
            except OSError as exc:  # tui.autosave.AutosaveError / AutosaveBusy: says why
                self.notify(str(exc), severity="warning", timeout=10)
                return
            self.entries.remove(entry)
            self.notify(f"Discarded; kept until {TRASH_KEEP.days} days from now in {where}")
            if self.entries:
                self._fill()
            else:
                self.dismiss(("new", None))

        self.app.push_screen(
            ConfirmScreen(
                "Discard this autosaved build?\n\n"
                + entry_text(entry).plain
                + f"\n\nIt is moved to the trash and removed after {TRASH_KEEP.days} days.",
                yes="Discard",
                no="Keep it",
                enter_means_yes=False,
            ),
            answer,
        )

    def action_help(self) -> None:
        self.app.action_help()

    def action_request_quit(self) -> None:
        self.app.action_request_quit()
