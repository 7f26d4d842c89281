"""docs/CLI.md documents every flag of every sub-command (issue 28, item 15): the flag list is
generated from the argparse parsers, so a new flag without documentation fails here."""

from __future__ import annotations

import argparse
import re

import pytest

from slotwise.tui.cli import build_parser
from slotwise.tui.commands.workload_args import add_workload_flags
from tests.paths import REPO

DOC = (REPO / "docs" / "CLI.md").read_text(encoding="utf-8")


def _section(title: str, level: str) -> str:
    """The text under the heading ``title`` up to the next heading of the same level or above."""
    m = re.search(rf"(?m)^{level} {re.escape(title)}\s*$", DOC)
    assert m, f"docs/CLI.md has no heading {level} {title}"
    stop = re.compile(rf"(?m)^#{{1,{len(level)}}} ")
    nxt = stop.search(DOC, m.end())
    return DOC[m.end() : nxt.start() if nxt else len(DOC)]


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _flags(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    """(group title, flag) for every long option of ``parser`` but --help."""
    out = []
    for group in parser._action_groups:
        for action in group._group_actions:
            for flag in action.option_strings:
                if flag.startswith("--") and flag != "--help":
                    out.append((group.title or "", flag))
    return out


def _mentions(text: str, flag: str) -> bool:
    return re.search(re.escape(flag) + r"(?![\w-])", text) is not None


def _workload_flags() -> set[str]:
    """The flags add_workload_flags gives a command (documented once, in the workload table)."""
    parser = argparse.ArgumentParser()
    add_workload_flags(parser)
    return {flag for _, flag in _flags(parser)}


WORKLOAD_FLAGS = _workload_flags()
WORKLOAD_TABLE = _section(
    "Workload flags (shared by estimate, suggest and the app's workload form)", "##"
)
TOP = DOC[: DOC.index("\n## ")]


@pytest.mark.parametrize("name", sorted(_subparsers()))
def test_every_flag_of_every_command_is_documented(name):
    own = _section(f"`{name}`", "###")
    missing = []
    for _group, flag in _flags(_subparsers()[name]):
        if flag in WORKLOAD_FLAGS:
            where = WORKLOAD_TABLE + own
        elif flag == "--catalog":
            where = TOP
        else:
            where = own
        if not _mentions(where, flag):
            missing.append(flag)
    assert not missing, f"docs/CLI.md does not document {name}'s {', '.join(missing)}"


def test_the_check_finds_an_undocumented_flag():
    parser = argparse.ArgumentParser()
    parser.add_argument("--surely-not-documented")
    assert [f for _, f in _flags(parser)] == ["--surely-not-documented"]
    assert not _mentions(DOC, "--surely-not-documented")
    assert _mentions(DOC, "--kw-per-rack") and not _mentions("--kw-per-rackx", "--kw-per-rack")


def test_top_level_flags_are_documented():
    for flag in ("--catalog", "--version", "--help"):
        assert _mentions(TOP, flag)
