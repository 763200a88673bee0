"""The tree is the architecture (DESIGN.md): each layer imports only the layers below it, the
clients import only the protocol, and no import cycle exists anywhere in the product.

Imports are read from the source (every ``import`` statement, including those inside functions
and under ``TYPE_CHECKING``), so a cycle hidden from the interpreter still fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PRODUCT = ("server", "protocol", "client_cli", "client_web")

# layer -> the layers (of ours) it may import; a module's layer is its longest listed prefix
ALLOWED: dict[str, set[str]] = {
    "server.rules": set(),
    "server.ai": {"server.rules"},
    "server.config": set(),
    "server.store": {"server.rules"},
    "server.players": {
        "server.rules",
        "server.ai",
        "server.store",
        "server.config",
        "protocol",
    },
    "server.ops": {"server.store", "server.rules", "server.config", "protocol", "server.players"},
    "server.tables": {
        "server.rules",
        "server.ai",
        "server.store",
        "server.ops",
        "server.config",
        "protocol",
    },
    "server.cluster": {
        "server.tables",
        "server.store",
        "server.ops",
        "server.config",
        "server.rules",
        "protocol",
    },
    "server.net": {
        "server.players",
        "server.cluster",
        "server.tables",
        "server.store",
        "server.ops",
        "server.config",
        "server.rules",
        "server.ai",
        "protocol",
        "client_web",
    },
    "server.cli": {
        "server.players",
        "server.net",
        "server.cluster",
        "server.tables",
        "server.store",
        "server.ops",
        "server.config",
        "server.rules",
        "server.ai",
        "protocol",
    },
    "server": set(),  # the package docstring only
    "protocol": set(),
    "client_cli": {"protocol"},
    "client_web": set(),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    out = {}
    for top in PRODUCT:
        for path in sorted((REPO / top).rglob("*.py")):
            out[module_name(path)] = path
    return out


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ours that ``name`` imports (resolved to the deepest known module)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = package.split(".")
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join([*pkg, base] if base else pkg)
            targets.add(base)
            # `from package import module` imports the module
            targets.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known)
    out = set()
    for t in targets:
        while t and t not in known:
            t = t.rpartition(".")[0]
        if t and t != name:
            out.add(t)
    return out


def layer_of(module: str) -> str:
    best = ""
    for layer in ALLOWED:
        if (module == layer or module.startswith(layer + ".")) and len(layer) > len(best):
            best = layer
    assert best, f"{module} belongs to no layer: add it to ALLOWED in tests/test_layout.py"
    return best


GRAPH = {name: imports_of(name, path, modules()) for name, path in modules().items()}


def test_every_product_module_is_read() -> None:
    assert "server.tables.table" in GRAPH
    assert "server.net.app" in GRAPH
    assert "server.rules.deal" in GRAPH
    assert len(GRAPH) > 40


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_layers_import_only_what_they_may(module: str) -> None:
    mine = layer_of(module)
    bad = sorted(
        t for t in GRAPH[module] if layer_of(t) != mine and layer_of(t) not in ALLOWED[mine]
    )
    assert not bad, f"{module} ({mine}) imports {bad}; {mine} may import {sorted(ALLOWED[mine])}"


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the graph (as a path that returns to its start), or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = dict.fromkeys(graph, WHITE)
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        colour[n] = GREY
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if colour.get(m, BLACK) == GREY:
                return [*stack[stack.index(m) :], m]
            if colour.get(m) == WHITE:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        colour[n] = BLACK
        return None

    for n in sorted(graph):
        if colour[n] == WHITE:
            found = visit(n)
            if found:
                return found
    return None


def test_no_import_cycle() -> None:
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_every_package_says_what_lives_there() -> None:
    for top in PRODUCT:
        for init in (REPO / top).rglob("__init__.py"):
            doc = ast.get_docstring(ast.parse(init.read_text()))
            assert doc and len(doc) > 40, f"{init.relative_to(REPO)} needs a docstring"


def test_mypy_checks_the_whole_product() -> None:
    """``mypy`` (its settings in pyproject.toml: server, protocol and client_cli, unused
    ignores refused) finds nothing: the types are checked on every run of the suite, not only
    by ``make lint``."""
    import subprocess
    import sys

    pytest.importorskip("mypy", reason="mypy comes with the dev extra: make test installs it")
    done = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
