"""Every key the app answers to, as data (Harlequin/Posting pattern: one registry, bindings by id).

The help screen, the footer, the command palette and the ``BINDINGS`` of each screen are all
generated from these tuples, so a key documented in one place works in all of them.  Only keys
that reach an app over SSH are used: letters, digits, F1-F10, arrows, Enter, Ctrl combos.
This module does not import Textual at import time (``bindings()`` imports it when called).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Key:
    id: str  # stable id, e.g. "app.undo" (users could remap by id)
    keys: str  # Textual key spec, comma-separated alternatives: "ctrl+z,u"
    action: str  # Textual action name on the screen/app that owns the key
    description: str  # short label (footer, palette)
    help: str  # one sentence for the help screen and the palette
    show: bool = True  # shown in the footer
    priority: bool = False
    bind: bool = True  # False: Textual already binds it (listed for help only)


APP_KEYS: tuple[Key, ...] = (
    Key("app.help", "f1,question_mark", "help", "Help", "Show every key."),
    Key(
        "app.quit",
        "ctrl+q",
        "request_quit",
        "Quit",
        "Quit (asks first when the build has unexported changes).",
        priority=True,
    ),
    Key(
        "app.palette",
        "ctrl+p",
        "command_palette",
        "Commands",
        "Open the command palette: every action by name.",
        show=False,
        bind=False,
    ),
)

BUILD_KEYS: tuple[Key, ...] = (
    Key("build.tab_map", "f2", "show_tab('map')", "Map", "Show the chassis map and findings."),
    Key(
        "build.tab_budgets",
        "f3",
        "show_tab('budgets')",
        "Budgets",
        "Show the budgets: lanes per root, power, heat, GPU memory, time.",
    ),
    Key(
        "build.tab_workload",
        "f4",
        "show_tab('workload')",
        "Workload",
        "Show the workload form and its verdict.",
    ),
    Key("build.tab_bom", "f5", "show_tab('bom')", "BOM", "Show the bill of materials."),
    Key("build.undo", "ctrl+z,u", "undo", "Undo", "Undo the last change."),
    Key("build.redo", "ctrl+y,r", "redo", "Redo", "Redo the change you undid."),
    Key(
        "build.fix",
        "f",
        "apply_fix",
        "Fix",
        "Apply the fix of the selected finding (when the engine offers one).",
    ),
    Key(
        "build.export",
        "ctrl+s,e",
        "export",
        "Export",
        "Export the build: name.toml (the BOM), name.md (the customer document, pinned options "
        "side by side; engineering notes in name.notes.md) or name.csv (line items with part "
        "numbers).",
    ),
    Key(
        "build.quote",
        "i",
        "quote_details",
        "Quote",
        "Customer, project, engineer, quote date, validity and service lines (kept in the BOM).",
        show=False,
    ),
    Key(
        "build.suggest",
        "f7",
        "suggest",
        "Suggest",
        "Suggest complete builds for the build's workload, best first; Enter opens one.",
        show=False,
    ),
    Key(
        "build.tco",
        "f8",
        "tco",
        "TCO",
        "Total cost of ownership of this build: buying + power vs. renting cloud GPUs.",
        show=False,
    ),
    Key(
        "build.cluster",
        "c",
        "cluster",
        "Cluster",
        "Plan a cluster of this build: rail-optimised fabric, optics, racks, power circuits.",
        show=False,
    ),
    Key(
        "build.new",
        "ctrl+n,n",
        "new_build",
        "New",
        "Start a new build on another chassis.",
        show=False,
    ),
    Key(
        "build.pin",
        "p",
        "pin_option",
        "Pin",
        "Keep this build as an option (up to 3) and go on editing a copy of it.",
        show=False,
    ),
    Key(
        "build.compare",
        "f6",
        "compare_options",
        "Compare",
        "Compare the pinned options side by side; 1/2/3 there opens one.",
        show=False,
    ),
    Key(
        "build.legend",
        "l",
        "legend",
        "Legend",
        "Explain the chassis map's symbols (◆ ✖ ▲ • ┏┣┗ ═══ ┄┄┄, used 32/?).",
        show=False,
    ),
    Key("build.quit", "q", "request_quit", "Quit", "Quit (asks first when unsaved).", show=False),
    Key(
        "build.focus_next",
        "tab",
        "app.focus_next",
        "Next pane",
        "Move focus to the next pane.",
        show=False,
    ),
)

MAP_KEYS: tuple[Key, ...] = (
    Key(
        "map.pick",
        "enter,space",
        "pick",
        "Pick part",
        "Choose what goes in the slot / bay / socket / PSU under the cursor.",
    ),
    Key("map.remove", "x,delete", "remove", "Remove", "Empty the slot or row under the cursor."),
    Key(
        "map.move",
        "m",
        "move",
        "Move",
        "Move the card under the cursor: press m, go to the empty target slot, press m again.",
    ),
    Key(
        "map.fill",
        "a",
        "fill",
        "Fill all",
        "Fit the card under the cursor in every free slot that takes it (one undo step).",
    ),
    Key("map.down", "j", "cursor_down", "Down", "Cursor down (also the arrow keys).", show=False),
    Key("map.up", "k", "cursor_up", "Up", "Cursor up (also the arrow keys).", show=False),
)

PICKER_KEYS: tuple[Key, ...] = (
    Key("picker.choose", "enter", "choose", "Choose", "Fit the highlighted part.", show=True),
    Key(
        "picker.all",
        "f6",
        "toggle_all",
        "All parts",
        "Also list catalog parts the vendor does not list for this chassis.",
    ),
    Key("picker.cancel", "escape", "cancel", "Cancel", "Close without changing anything."),
)

CHOOSER_KEYS: tuple[Key, ...] = (
    Key("chooser.choose", "enter", "choose", "Choose", "Start the build on this chassis."),
    Key("chooser.cancel", "escape", "cancel", "Back", "Back to the current build (if any)."),
)

RECOVER_KEYS: tuple[Key, ...] = (
    Key(
        "recover.resume",
        "enter,y",
        "resume",
        "Resume",
        "Resume the highlighted build with its undo history (a build open in another "
        "slotwise opens as a copy).",
    ),
    Key("recover.new", "n", "new", "New build", "Start a new build; every autosave stays listed."),
    Key(
        "recover.discard",
        "d,delete",
        "discard",
        "Discard",
        "Discard the highlighted autosave after you confirm; it stays in the trash for 7 days.",
    ),
)

SUGGEST_KEYS: tuple[Key, ...] = (
    Key("suggest.run", "f9", "run", "Run", "Search again with the constraints as they are now."),
    Key(
        "suggest.open",
        "enter",
        "open",
        "Open build",
        "Open the highlighted build in the build screen (undo returns to the previous one).",
        bind=False,
    ),
    Key(
        "suggest.cluster",
        "f6",
        "cluster",
        "Cluster",
        "Open the highlighted cluster suggestion in the cluster view: fabric, racks, power.",
    ),
    Key("suggest.close", "escape", "close", "Back", "Back to the build screen."),
)

#: The suggest screen's hint line.
SUGGEST_HINTS = ("suggest.open", "suggest.run", "suggest.cluster", "suggest.close")

TCO_KEYS: tuple[Key, ...] = (
    Key("tco.run", "f9", "run", "Compute", "Compute again with the inputs as they are now."),
    Key(
        "tco.save",
        "ctrl+s",
        "save",
        "Save .md",
        "Save the TCO section (inputs, yearly costs, break-even month) as a Markdown file.",
    ),
    Key("tco.close", "escape", "close", "Back", "Back to the build screen."),
)

CLUSTER_KEYS: tuple[Key, ...] = (
    Key("cluster.run", "f9", "run", "Plan", "Plan again with the inputs as they are now."),
    Key("cluster.close", "escape", "close", "Back", "Back to the build screen."),
)

ALL_KEYS: tuple[tuple[str, tuple[Key, ...]], ...] = (
    ("Everywhere", APP_KEYS),
    ("Build screen", BUILD_KEYS),
    ("Chassis map", MAP_KEYS),
    ("Part picker", PICKER_KEYS),
    ("Chassis chooser", CHOOSER_KEYS),
    ("Start screen", RECOVER_KEYS),
    ("Suggest", SUGGEST_KEYS),
    ("Total cost of ownership", TCO_KEYS),
    ("Cluster", CLUSTER_KEYS),
)


def pretty_keys(spec: str) -> str:
    """'ctrl+z,u' -> 'Ctrl+Z / u' for help text."""
    names = {
        "question_mark": "?",
        "delete": "Del",
        "escape": "Esc",
        "enter": "Enter",
        "space": "Space",
        "tab": "Tab",
    }
    out = []
    for k in spec.split(","):
        k = names.get(k, k)
        if "+" in k:
            mod, _, key = k.partition("+")
            k = f"{mod.capitalize()}+{key.upper()}"
        elif k.startswith("f") and k[1:].isdigit():
            k = k.upper()
        out.append(k)
    return " / ".join(out)


#: The key hint line of the build screen, most important first: the first five are always
#: shown (issue #14: Quit, Help, Export, Undo and Fix reachable at 80x24), then the keys of
#: the focused pane, then the rest while they fit.
HINTS_ALWAYS = ("app.help", "app.quit", "build.export", "build.undo", "build.fix")
HINTS_MAP = ("map.pick", "map.remove", "build.pin", "map.move", "map.fill")
#: Shown while there is room (F6-F8 from about 100 columns; ^P lists every key at any width).
HINTS_MORE = (
    "build.compare",
    "build.suggest",
    "build.tco",
    "build.tabs",
    "app.palette",
    "build.legend",
)
#: The chassis chooser's hint line (it has no Footer: see tui.widgets.key_hints).
HINTS_CHOOSER = ("chooser.choose", "chooser.cancel", "app.help", "app.quit")
HINTS_CHOOSER_MORE = ("app.palette",)

_SHORT = {"enter": "Enter", "delete": "Del", "escape": "Esc", "question_mark": "?"}


def short_key(spec: str) -> str:
    """The first alternative of a key spec, as short as it reads: 'ctrl+s,e' -> '^S'."""
    k = spec.split(",")[0]
    if k.startswith("ctrl+"):
        return "^" + k[5:].upper()
    if k.startswith("f") and k[1:].isdigit():
        return k.upper()
    return _SHORT.get(k, k)


def key_by_id() -> dict[str, Key]:
    out = {k.id: k for _, group in ALL_KEYS for k in group}
    out["build.tabs"] = Key("build.tabs", "f2", "", "F2-F5 tabs", "Map, Budgets, Workload, BOM.")
    return out


def hint_items(ids: tuple[str, ...]) -> list[tuple[str, str]]:
    """(key, label) pairs for the hint line, e.g. ('^Q', 'Quit')."""
    keys = key_by_id()
    out = []
    for i in ids:
        k = keys[i]
        if i == "build.tabs":
            out.append(("F2-F5", "Tabs"))
        elif i == "app.palette":
            out.append(("^P", "All keys"))
        else:
            out.append((short_key(k.keys), k.description))
    return out


def bindings(keys: tuple[Key, ...]) -> list:
    """Textual ``Binding`` objects for ``keys`` (imported lazily so this module stays light)."""
    from textual.binding import Binding

    return [
        Binding(
            k.keys,
            k.action,
            k.description,
            show=k.show,
            id=k.id,
            tooltip=k.help,
            priority=k.priority,
        )
        for k in keys
        if k.bind
    ]
