"""`slotwise validate BOM.toml [--json]`: check a saved build.

Exit 0 ok, 1 the build has errors, 2 bad input, 3 a check failed internally (an internal-failure
finding: a rule or the estimator broke, so the report is incomplete and the build is NOT known
to be OK).

Bad input (exit 2, one paragraph on stderr naming the file, line and field): the file cannot be
read, is not valid TOML, names a SKU the catalog does not have, or has any other ``bom.*``
problem (a field slotwise cannot load faithfully).  With ``--json`` the CLI.md object is still
printed on stdout in that case, the file's problems listed as findings.
"""

from __future__ import annotations

import argparse
import sys

from slotwise.engine.bom import BAD_INPUT_PREFIX, LoadedBom, read_bom
from slotwise.engine.bom.markdown import SYMBOL, budget_figures, budget_label
from slotwise.engine.build import Build
from slotwise.engine.check.report import Finding, Report
from slotwise.engine.check.rules.cooling import BTU_PER_W
from slotwise.engine.check.rules.ids import INTERNAL_RULE
from slotwise.parts.catalog import Catalog
from slotwise.tui.cli import UsageError
from slotwise.tui.commands.common import add_catalog_flag, get_catalog, print_json
from slotwise.tui.commands.flags import cli_words
from slotwise.tui.commands.workload_args import add_margin_flag, with_margin


def register(sub) -> None:
    p = sub.add_parser(
        "validate",
        help="check a BOM file: slots, lanes, NVLink, power, cooling, workload fit",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("bom", metavar="BOM.toml", help="the bill of materials to check")
    p.add_argument("--json", action="store_true", help="machine-readable output (CLI.md shape)")
    add_margin_flag(p)
    add_catalog_flag(p)
    p.set_defaults(run=run)


def bad_input(loaded: LoadedBom) -> list[Finding]:
    """The file's own problems that make it bad input (exit 2)."""
    return [
        p for p in loaded.problems if p.severity == "error" and p.rule.startswith(BAD_INPUT_PREFIX)
    ]


def input_paragraph(loaded: LoadedBom) -> str:
    """One paragraph for stderr: each problem (file, line, field, what) and what to do."""
    parts = []
    for p in bad_input(loaded):
        text = p.message.rstrip(".")
        if p.fix:
            text += f" ({p.fix})"
        parts.append(text)
    return cli_words("cannot use this BOM: " + "; ".join(parts) + ".")


def read_valid_bom(path: str, catalog: Catalog) -> tuple[LoadedBom, Build]:
    """A BOM another command works on, and its build; one that cannot be loaded faithfully exits
    2 with its problems (validate reports them in full)."""
    loaded = read_bom(path, catalog)
    if bad_input(loaded) or loaded.build is None:
        raise UsageError(input_paragraph(loaded) + " Run 'slotwise validate' for details.")
    return loaded, loaded.build


def finding_json(f: Finding) -> dict:
    out = {
        "rule": f.rule,
        "severity": f.severity,
        "message": f.message,
        "parts": list(f.parts),
        "fix": f.fix,
        "slots": list(f.slots),
    }
    for extra in ("file", "line", "field"):
        if hasattr(f, extra):
            out[extra] = getattr(f, extra)
    return out


def result_json(loaded: LoadedBom, report: Report) -> dict:
    findings = list(loaded.problems) + list(report.findings)
    return {
        "file": loaded.filename,
        "errors": sum(1 for f in findings if f.severity == "error"),
        "warnings": sum(1 for f in findings if f.severity == "warning"),
        "findings": [finding_json(f) for f in findings],
        "budgets": [
            {
                "name": b.name,
                "used": b.used,
                "available": b.available,
                "unit": b.unit,
                "detail": b.detail,
            }
            for b in report.budgets
        ],
        "power": report.power.to_json() if report.power is not None else None,
        "workload": report.verdict.to_json() if report.verdict is not None else None,
    }


#: Findings of one rule printed in full; the rest are counted ("and 59,980 more like it"), so
#: a file with 60,000 bogus slots cannot make validate print megabytes (issue #29).
MAX_PER_RULE = 20


def _print_human(loaded: LoadedBom, report: Report) -> None:
    build = loaded.build
    head = loaded.filename
    if build is not None:
        head += f": {build.chassis}"
    print(head)
    findings = list(loaded.problems) + list(report.findings)
    v = report.verdict
    if v is not None:
        print(f"  workload: {cli_words(v.headline)}")
        if v.sizing is not None:
            for line in v.sizing.lines():
                print(f"    sizing: {cli_words(line.strip())}")
    shown: dict[str, int] = {}
    for f in findings:
        shown[f.rule] = shown.get(f.rule, 0) + 1
        if shown[f.rule] > MAX_PER_RULE:
            continue
        print(f"  {SYMBOL[f.severity]} {f.severity:<7} {f.rule}: {cli_words(f.message)}")
        if f.fix:
            print(f"      fix: {cli_words(f.fix)}")
    for rule, n in shown.items():
        if n > MAX_PER_RULE:
            print(f"  … and {n - MAX_PER_RULE:,} more like it ({rule}; --json lists them all)")
    if report.budgets:
        print("  budgets:")
        for b in report.budgets:
            used, avail, unit = budget_figures(b)
            over = "  OVER" if b.over else ""
            ratio = f" ({b.ratio:.0%})" if b.ratio is not None else ""
            extra = f"  ({b.used * BTU_PER_W:,.0f} BTU/h)" if b.name == "heat" else ""
            print(f"    {budget_label(b):<36} {used} / {avail} {unit}{ratio}{over}{extra}")
    p = report.power
    if p is not None:
        print(
            f"  power at the wall: worst case {p.worst_ac_w:,.0f} W, typical {p.typical_ac_w:,.0f} W "
            f"({p.typical_mode}); {p.efficiency_basis}"
        )
        if p.derived_w:
            print(
                f"    {p.derived_w:,.0f} W of it from derived (tier C) figures; on held-out DGX "
                f"systems the model is within +/-{p.could_move_pct:.1f}% of the published maximum"
            )
        if not p.verified:
            print("    power not verified: " + "; ".join(p.not_verified))
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = sum(1 for f in findings if f.severity == "warning")
    verdict = "OK" if errors == 0 else "NOT OK"
    if errors == 0 and p is not None and not p.verified:
        verdict = "OK, power not verified"
    if internal_failures(report):
        verdict = "INCOMPLETE (a check failed internally), NOT OK"
    print(f"  {verdict}: {errors} error(s), {warnings} warning(s)")


def run(args: argparse.Namespace) -> int:
    catalog = get_catalog(args)
    loaded = read_bom(args.bom, catalog)
    if loaded.build is not None and loaded.build.workload is not None:
        loaded = (
            loaded.model_copy(update={"build": with_margin(loaded.build, args.margin)})
            if args.margin is not None
            else loaded
        )
    if loaded.build is not None:
        from slotwise.engine.check.evaluate import evaluate

        report = evaluate(loaded.build, catalog)
    else:
        report = Report()
    if args.json:
        print_json(result_json(loaded, report))
    if bad_input(loaded):
        if not args.json:
            _print_human(loaded, report)
        sys.stdout.flush()
        sys.stderr.write(f"slotwise: {input_paragraph(loaded)}\n")
        return 2
    if not args.json:
        _print_human(loaded, report)
    if internal_failures(report):
        return EXIT_INTERNAL
    return 1 if report.errors else 0


#: A check failed internally: the report is incomplete (CLI.md, exit codes).
EXIT_INTERNAL = 3


def internal_failures(report: Report) -> list[Finding]:
    """The findings that say a rule or the estimator broke on this build."""
    return [f for f in report.findings if f.rule == INTERNAL_RULE]
