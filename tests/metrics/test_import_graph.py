"""The metrics package has no import cycle and no import inside a function (counting every import)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "metrics"


def _imports(tree: ast.AST) -> list[tuple[ast.AST, str]]:
    out: list[tuple[ast.AST, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node, node.module))
    return out


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.glob("*.py")):
        name = f"metrics.{path.stem}" if path.stem != "__init__" else "metrics"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[name] = {m for _, m in _imports(tree) if m.startswith("metrics.") or m == "metrics"}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt == "metrics" or nxt not in graph:
                continue  # the package __init__ only re-exports metrics.types
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in graph:
        if node not in state and (found := visit(node)):
            return found
    return None


def test_metrics_modules_import_each_other_without_a_cycle():
    assert _cycle(_graph()) is None, " → ".join(_cycle(_graph()) or [])


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"metrics.a": {"metrics.b"}, "metrics.b": {"metrics.a"}}) == [
        "metrics.a",
        "metrics.b",
        "metrics.a",
    ]


def test_no_import_inside_a_function():
    """Function-level imports are kept for heavy optional libraries only; metrics has none."""
    found = []
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                found += [f"{path.name}:{node.lineno} {m}" for node, m in _imports(fn)]
    assert not found, found
