"""No import cycle among slotwise's modules (engine, parts, tui: the app and its screens included).

The graph is read from the source with ``ast``: an edge for every ``import`` / ``from ... import``
of a slotwise module made at module level or inside a function (a function-level import still ties
the two modules together; only imports under ``if TYPE_CHECKING:`` are left out, since they never
run). ``from a.b import c`` is an edge to module ``a.b.c`` where it exists, else to ``a/b/__init__``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOP = ("engine", "parts", "tui")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return "slotwise." + ".".join(parts)


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                for child in node.body:
                    for sub in ast.walk(child):
                        if hasattr(sub, "lineno"):
                            lines.add(sub.lineno)
    return lines


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for top in TOP for p in (ROOT / top).rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in files}

    def resolve(target: str) -> list[str]:
        # ``from a.b import c`` names module a.b.c when there is one, else a name in a/b/__init__
        # (grimp's rule, as import-linter reads it); parents' __init__ files are not edges
        name = target
        while name and name not in files:
            name = name.rpartition(".")[0]
        return [name] if name else []

    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skip = _type_checking_lines(tree)
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [f"{node.module}.{a.name}" for a in node.names]
            for t in targets:
                if t.startswith("slotwise."):
                    graph[name].update(m for m in resolve(t) if m != name)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_graph_sees_real_imports():
    graph = _graph()
    assert "slotwise.engine.check.evaluate" in graph["slotwise.engine.check.report"] or any(
        "slotwise.engine" in m for m in graph["slotwise.engine.check.evaluate"]
    )
    assert "slotwise.parts.catalog" in graph["slotwise.engine.check.evaluate"]


def test_a_planted_cycle_is_found():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle_in_engine_parts_or_tui():
    cycles = _cycles(_graph())
    assert cycles == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)
