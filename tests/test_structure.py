"""The code's shape: no import circle, the runtime apart from evaluation and training, small runtime functions."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("scoring", "vision", "ledger", "webapp", "service", "evaluation", "training")
RUNTIME = ("scoring", "vision", "ledger", "webapp", "service")
LONGEST = 60  # lines: the longest function of the runtime


def modules() -> dict[str, Path]:
    """Every module of the project's packages, by dotted name."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    out["app"] = ROOT / "app.py"
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project's modules ``name`` imports anywhere in its file (inside functions too), by dotted name."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of two or more modules (Tarjan), a module's import of its own package (the
    package re-exporting it) not counted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(g[v]):
            if w == v.rpartition(".")[0]:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_no_module_imports_itself_round_a_circle() -> None:
    """An import circle makes a module's meaning depend on which file was imported first, and forces imports
    inside functions; the project has none."""
    assert circles(graph()) == []


def test_the_runtime_imports_no_evaluation_nor_training() -> None:
    """The page, the CLIs and the API read photos without the evaluation or the training code (nor torch)."""
    g = graph()
    bad = sorted(f"{m} -> {t}" for m, ts in g.items() if m.split(".")[0] in (*RUNTIME, "app") for t in ts
                 if t.split(".")[0] in ("evaluation", "training"))
    assert bad == []


def test_the_runtime_is_small_functions() -> None:
    """No function of the runtime (``vision/``, ``scoring/``, ``ledger/``, ``service/``, ``webapp/``) runs over 60
    lines: each says one step."""
    long = []
    for path in sorted(p for pkg in RUNTIME for p in (ROOT / pkg).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > LONGEST:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []


def test_the_evaluation_command_in_vision_is_imported_by_nothing() -> None:
    """``vision.evaluate_hands`` is a command that runs the evaluation (``python -m``), not part of the reader."""
    g = graph()
    assert sorted(m for m, ts in g.items() if "vision.evaluate_hands" in ts) == []
    assert "import evaluation" not in (ROOT / "vision" / "evaluate_hands.py").read_text()
