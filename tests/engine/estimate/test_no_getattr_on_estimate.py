"""No ``getattr`` on the estimate (issue #16): ``Report.estimate`` is a typed ``Estimate`` and
every reader uses its fields, so a renamed field is a type error, not a silent ``None``.

Reads engine/ and tui/ and fails on a ``getattr`` whose object is an estimate or a report, or
whose attribute is a field of the estimate's models (Estimate, its memory breakdown, assumptions,
serving figures, the verdict and the report).
"""

from __future__ import annotations

import ast
import re

from slotwise.engine.check.report import Report
from slotwise.engine.check.verdict import TargetCheck, Verdict
from slotwise.engine.estimate import Assumptions, Estimate, MemoryBreakdown
from slotwise.engine.estimate.serving import Serving
from tests.paths import REPO

ROOT = REPO
MODELS = (Estimate, MemoryBreakdown, Assumptions, Serving, Report, Verdict, TargetCheck)
# argparse namespaces and catalog records share a few field names (model, gpu, parallel...):
# those objects are not estimates.
NOT_AN_ESTIMATE = re.compile(r"^(args|rec|r|part|self|os|workload|w|f|model|build|loaded|p)$")
ESTIMATE_LIKE = re.compile(r"(^|[._])(est|estimate|report|mem|sv|verdict)\b")


def _fields() -> set[str]:
    out: set[str] = set()
    for m in MODELS:
        names = m.model_fields if hasattr(m, "model_fields") else m.__dataclass_fields__
        out |= set(names)
    return out


def _offences(source: str, fields: set[str]) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(source)):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and node.args
        ):
            continue
        obj = ast.unparse(node.args[0])
        attr = node.args[1] if len(node.args) > 1 else None
        name = attr.value if isinstance(attr, ast.Constant) else None
        if ESTIMATE_LIKE.search(obj) or (name in fields and not NOT_AN_ESTIMATE.match(obj)):
            out.append(f"{node.lineno}: {ast.unparse(node)}")
    return out


def test_no_getattr_on_the_estimate_in_engine_or_tui():
    fields = _fields()
    found = [
        f"{p.relative_to(ROOT)}:{line}"
        for package in ("engine", "tui")
        for p in sorted((ROOT / package).rglob("*.py"))
        for line in _offences(p.read_text(encoding="utf-8"), fields)
    ]
    assert not found, "getattr on the estimate; use the typed fields:\n" + "\n".join(found)


def test_the_scan_finds_the_patterns_it_forbids():
    fields = _fields()
    assert _offences('h = getattr(est, "train_hours", None)', fields)
    assert _offences('x = getattr(report.estimate, "fits")', fields)
    assert _offences('x = getattr(thing, "decode_tokens_per_s", None)', fields)
    assert not _offences('x = getattr(args, "model", None)', fields)
