"""`slotwise` command line (contract: docs/CLI.md).  Headless commands never import Textual.

Each sub-command lives in ``tui/commands/<name>.py`` and exposes ``register(subparsers)``; the
module's ``run(args) -> int`` returns the exit code (0 ok, 1 build has errors / does not fit,
2 bad input, 3 an internal failure: a check broke, or an unexpected exception, reported in one
paragraph instead of a traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import os
import sys
from collections.abc import Iterator
from typing import Any, NoReturn

from slotwise.tui import __version__

# Sub-commands, in --help order.  A module listed here must exist and be finished.
COMMANDS = (
    "parts", "validate", "estimate", "suggest", "compare", "export", "cluster", "trainers",
)  # fmt: skip


class UsageError(Exception):
    """Bad input: printed as one paragraph on stderr, exit code 2."""


class _Visible:
    """A text stream that writes control characters as ``\\uXXXX`` (parts.plain_text.visible):
    whatever a BOM, overlay or flag value holds, no terminal escape reaches the terminal, and
    JSON stays JSON (the escape is JSON's own).  Newline and tab pass unchanged."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        from slotwise.parts.plain_text import visible

        self._inner.write(visible(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding, ...
        return getattr(self._inner, name)


@contextlib.contextmanager
def visible_output() -> Iterator[None]:
    """stdout and stderr escape control characters while the block runs."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Visible(out), _Visible(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # exit 2 with a clear message, never a traceback
        # One line: the error, with a "did you mean" for a mistyped flag, and where the usage
        # is (argparse's usage dump of ~45 lines would bury it).
        message = _with_suggestions(self, message)
        sys.stderr.write(f"{self.prog}: error: {message} (see '{self.prog} --help')\n")
        raise SystemExit(2)


def _option_strings(parser: argparse.ArgumentParser) -> list[str]:
    return [o for o in parser._option_string_actions if o.startswith("--")]


def _with_suggestions(parser: argparse.ArgumentParser, message: str) -> str:
    """``message`` with "did you mean" added after each unrecognized ``--flag`` that is close
    to one of ``parser``'s flags."""
    head = "unrecognized arguments: "
    if not message.startswith(head):
        return message
    words = []
    for arg in message[len(head) :].split():
        flag = arg.split("=", 1)[0]
        close = (
            difflib.get_close_matches(flag, _option_strings(parser), n=2, cutoff=0.6)
            if flag.startswith("--")
            else []
        )
        words.append(f"{arg} (did you mean {' or '.join(close)}?)" if close else arg)
    return head + " ".join(words)


def _unknown_command(word: str) -> int:
    """``slotwise WORD`` where WORD is neither a command nor an existing file: exit 2 with the
    closest command, never the full-screen app (which, without a terminal, would wait forever)."""
    if word.endswith(".toml") or os.sep in word:
        sys.stderr.write(
            f"slotwise: cannot open '{word}': no such file ('slotwise' alone starts a new "
            "build or resumes one).\n"
        )
        return 2
    close = difflib.get_close_matches(word, COMMANDS, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}? " if close else ""
    sys.stderr.write(
        f"slotwise: '{word}' is not a command or a file; {hint}Commands: "
        f"{', '.join(COMMANDS)} (see 'slotwise --help'); 'slotwise' alone opens the app.\n"
    )
    return 2


def _available_commands() -> list:
    mods = []
    for name in COMMANDS:
        try:
            mods.append(importlib.import_module(f"slotwise.tui.commands.{name}"))
        except ModuleNotFoundError as exc:
            if exc.name != f"slotwise.tui.commands.{name}":
                raise
    return mods


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="slotwise",
        description="Configure Supermicro GPU servers slot by slot and check them live: "
        "PCIe lanes, NVLink, power, cooling and whether the customer's model fits.",
        epilog="Run 'slotwise' alone to open the app; 'slotwise BOM.toml' opens a saved build.",
    )
    p.add_argument("--version", action="version", version=f"slotwise {__version__}")
    p.add_argument(
        "--catalog",
        metavar="DIR",
        help="overlay catalog directory (env SLOTWISE_CATALOG); adds or corrects parts",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for mod in _available_commands():
        mod.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    names = set(COMMANDS) | {"-h", "--help", "--version"}
    # `slotwise [--catalog DIR] [BOM.toml]` opens the app; everything else is a sub-command.
    positional = [a for a in argv if not a.startswith("-")]
    catalog_val = None
    if "--catalog" in argv:
        i = argv.index("--catalog")
        catalog_val = argv[i + 1] if i + 1 < len(argv) else None
    positional = [a for a in positional if a != catalog_val]
    if not (names & set(argv)) and not (positional and positional[0] in COMMANDS):
        if positional and not os.path.exists(positional[0]):
            with visible_output():
                return _unknown_command(positional[0])
        return _open_app(argv)
    with visible_output():
        return _run_command(argv)


def _run_command(argv: list[str]) -> int:
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if extras:  # reported by the sub-command's parser, which knows its own flags
        subparsers = next(
            (a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None
        )
        owner = subparsers.choices.get(args.command) if subparsers and args.command else None
        (owner or parser).error(f"unrecognized arguments: {' '.join(extras)}")
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    try:
        return int(args.run(args) or 0)
    except UsageError as exc:
        from slotwise.tui.commands.flags import cli_words  # engine text names inputs: word them

        sys.stderr.write(f"slotwise: {cli_words(str(exc))}\n")
        return 2
    except BrokenPipeError:
        return 0
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # noqa: BLE001 - a bug: one paragraph and exit 3, not a traceback
        if os.environ.get("SLOTWISE_DEBUG"):
            raise
        what = f"{type(exc).__name__}: {exc}"
        if len(what) > 300:
            what = what[:270] + f"... ({len(what):,} characters)"
        sys.stderr.write(
            f"slotwise: internal error in '{args.command}' ({what}). This is a bug: please "
            "report it with the command line; SLOTWISE_DEBUG=1 shows the traceback.\n"
        )
        return 3


def _open_app(argv: list[str]) -> int:
    p = _Parser(prog="slotwise", add_help=False)
    p.add_argument("bom", nargs="?")
    p.add_argument("--catalog", metavar="DIR")
    args = p.parse_args(argv)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        sys.stderr.write(
            "slotwise: the app needs a terminal (stdin and stdout are not one); use the "
            "sub-commands for scripts (see 'slotwise --help').\n"
        )
        return 2
    try:
        launcher = importlib.import_module("slotwise.tui.launch")
    except ModuleNotFoundError as exc:
        if exc.name != "slotwise.tui.launch":
            raise
        sys.stderr.write(
            "slotwise: the interactive app is not built yet; use the sub-commands "
            "(slotwise --help).\n"
        )
        return 2
    return int(launcher.launch(bom=args.bom, catalog=args.catalog) or 0)


if __name__ == "__main__":  # pragma: no cover
    # `python -m slotwise.tui.cli`: run the imported module's main, so that the UsageError the commands
    # raise (slotwise.tui.cli.UsageError) is the class main() catches (not a second __main__ copy).
    from slotwise.tui.cli import main as _main

    raise SystemExit(_main())
