"""No user-facing engine string names a CLI flag (issue #16).

Engine text points at the inputs a user should change with ``slotwise.engine.inputs.ref`` and
each front end words the reference: the CLI as a flag, the app as its field label.  This test
reads every string literal of engine/ and parts/ (messages, findings and their fixes, advice,
assumption notes, errors raised to users; docstrings aside: they are developer documentation)
and fails on any that names a flag (``--`` followed by a letter).
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

from slotwise.engine.bom.schema import HEADER as BOM_HEADER
from slotwise.engine.inputs import INPUT_NAMES, InputRef, plain, ref, refs, word
from slotwise.tui.commands.flags import cli_words, flag
from slotwise.tui.input_labels import LABELS, app_words, label
from tests.paths import REPO

ROOT = REPO
FLAG = re.compile(r"--[a-z]")
# A CLI command in a message is a flag by another name (the app has no such command); the BOM
# file's header comment, which documents the file for whoever opens it, may name one.
COMMAND = re.compile(r"\bslotwise (parts|validate|estimate|suggest|compare|export)\b")


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


@cache
def _literals(package: str) -> tuple[tuple[Path, int, str], ...]:
    """Every non-docstring string literal of ``package`` (parsed once for both scans below)."""
    out = []
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
            ):
                out.append((path.relative_to(ROOT), node.lineno, node.value))
    return tuple(out)


def test_no_engine_or_parts_string_names_a_flag():
    found = [
        f"{p}:{line}: {text!r}"
        for package in ("engine", "parts")
        for p, line, text in _literals(package)
        if FLAG.search(text)
    ]
    assert not found, "engine text names CLI flags; use engine.inputs.ref:\n" + "\n".join(found)


def test_no_engine_or_parts_message_names_a_cli_command():
    found = [
        f"{p}:{line}: {text!r}"
        for package in ("engine", "parts")
        for p, line, text in _literals(package)
        if COMMAND.search(text) and text != BOM_HEADER
    ]
    assert not found, "engine text names CLI commands; use engine.inputs.ref:\n" + "\n".join(found)


def test_the_scan_sees_literals_inside_f_strings():
    """The scan is not blind: an f-string's constant parts are literals it reads."""
    tree = ast.parse('x = f"No --kwh-price given for {y}"')
    texts = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    assert any(FLAG.search(t) for t in texts)


@pytest.mark.parametrize("name", INPUT_NAMES)
def test_every_input_has_cli_and_app_words(name):
    r = InputRef(name=name, value="x")
    assert flag(r) and label(r) and plain(ref(name, "x"))
    assert "\u27e6" not in flag(r) + label(r)


def test_a_reference_is_structured_and_worded_per_front_end():
    text = f"No {ref('kwh_price')} given: the cost of power is unknown."
    assert refs(text) == (InputRef(name="kwh_price"),)
    assert cli_words(text) == "No --kwh-price given: the cost of power is unknown."
    assert app_words(text) == "No Price per kWh given: the cost of power is unknown."
    assert plain(text) == "No price per kWh given: the cost of power is unknown."
    chosen = f"use {ref('loss', 'chunked')}"
    assert refs(chosen) == (InputRef(name="loss", value="chunked"),)
    assert cli_words(chosen) == "use --loss chunked"
    assert word("no reference here", flag) == "no reference here"


def test_the_app_labels_are_the_workload_form_labels():
    from slotwise.tui.widgets.workload_form import FIELD_LABELS

    shared = set(FIELD_LABELS) & set(LABELS)
    assert shared >= {"tp", "mfu", "loss", "lora_targets", "target_days"}
    assert {k: LABELS[k] for k in shared} == {k: FIELD_LABELS[k] for k in shared}


def test_an_unknown_input_name_fails_where_the_engine_writes_it():
    with pytest.raises(ValueError, match="unknown input"):
        ref("kwh-price")  # type: ignore[arg-type]
