"""The packages' and bridge/'s wings' import directions, read from the source (issue 26).

docs/architecture.md ("bridge in wings") is the table these tests hold: vassal_parser imports only itself,
rules only itself and vassal_parser, module_patches never bridge/; inside bridge/ the wings import down only
(cli -> daemon -> web / writeback / reports -> pipeline -> mapping -> common). Every import counts, the ones
inside functions too, so the shape cannot erode behind a lazy import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# bridge/'s wings, each with the wings it may import (itself always allowed).
WING_IMPORTS: dict[str, frozenset[str]] = {
    "common": frozenset(),
    "mapping": frozenset({"common"}),
    "pipeline": frozenset({"mapping", "common"}),
    "reports": frozenset({"pipeline", "mapping", "common"}),
    "writeback": frozenset({"pipeline", "mapping", "common"}),
    "web": frozenset({"reports", "pipeline", "mapping", "common"}),
    "daemon": frozenset({"web", "writeback", "reports", "pipeline", "mapping", "common"}),
    "cli": frozenset({"daemon", "web", "writeback", "reports", "pipeline", "mapping", "common"}),
    "entry": frozenset({"cli"}),  # bridge/__main__.py: `python -m bridge`
}
# The top-level packages, each with the packages it may import.
PACKAGE_IMPORTS: dict[str, frozenset[str]] = {
    "vassal_parser": frozenset(),
    "rules": frozenset({"vassal_parser"}),
    "module_patches": frozenset({"vassal_parser", "rules"}),
    "bridge": frozenset({"vassal_parser", "rules", "module_patches"}),
    "adjutant": frozenset({"bridge"}),
}
MAX_LINES = 500
LONG_REASON = "Why over 500 lines:"


def wing_of(relative: Path) -> str:
    """The wing a file of bridge/ belongs to: its first folder, or pipeline/entry for the hall's files."""
    parts = relative.parts
    if len(parts) > 2:
        return parts[1]
    name = parts[1].removesuffix(".py")
    if name == "__main__":
        return "entry"
    if name == "__init__":
        return "common"  # bridge/__init__.py holds only the version: anything may import it
    return name


def imported_names(source: str, module: str) -> list[tuple[int, str]]:
    """Every module an import names, with its line: absolute, relative resolved against `module`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")[: -node.level]
                base = ".".join([*anchor, base] if base else anchor)
            found.append((node.lineno, base))
            # `from bridge import protocol` names the module bridge.protocol, not bridge itself
            found.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names)
    return found


def target_wing(name: str) -> str | None:
    """The wing of bridge/ an imported dotted name lands in (None: not bridge/)."""
    parts = name.split(".")
    if parts[0] != "bridge":
        return None
    if len(parts) == 1 or parts[1] == "__version__":
        return "common"
    if parts[1] in WING_IMPORTS:
        return parts[1]
    return None  # a name imported from bridge/__init__ itself (the version)


def violations(relative: Path, source: str) -> list[str]:
    """What one file imports against the tables above, as 'file:line imports name' lines."""
    module = ".".join(relative.with_suffix("").parts)
    package = relative.parts[0]
    bad: list[str] = []
    for line, name in imported_names(source, module):
        top = name.split(".")[0]
        if top in PACKAGE_IMPORTS and top != package and top not in PACKAGE_IMPORTS[package]:
            bad.append(f"{relative}:{line} imports {name}")
        if package == "bridge" and top == "bridge":
            own, other = wing_of(relative), target_wing(name)
            if other is not None and other != own and other not in WING_IMPORTS[own]:
                bad.append(f"{relative}:{line} ({own}) imports {name} ({other})")
    return bad


def project_files(package: str) -> list[Path]:
    return sorted(path.relative_to(ROOT) for path in (ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(PACKAGE_IMPORTS))
def test_imports_point_down(package):
    """No package imports one above it, no wing of bridge/ a wing above it (docs/architecture.md)."""
    bad = [hit for path in project_files(package)
           for hit in violations(path, (ROOT / path).read_text("utf-8"))]
    assert bad == []


def test_every_bridge_file_is_in_a_known_wing():
    wings = {wing_of(path) for path in project_files("bridge")}
    assert wings <= set(WING_IMPORTS), wings - set(WING_IMPORTS)


@pytest.mark.parametrize("relative, source", [
    (Path("bridge/mapping/cells.py"), "from bridge.cli.main import main\n"),
    (Path("bridge/reports/report.py"), "def later():\n    from bridge.writeback import applier\n"),
    (Path("bridge/web/server.py"), "import bridge.cli.commands.check\n"),
    (Path("bridge/pipeline.py"), "from bridge.reports import report\n"),
    (Path("bridge/web/protocol.py"), "from bridge import daemon\n"),
    (Path("bridge/mapping/cells.py"), "from ..daemon import watch\n"),
    (Path("rules/engine.py"), "from bridge.pipeline import CheckPipeline\n"),
    (Path("vassal_parser/game.py"), "import rules.state\n"),
    (Path("module_patches/extension.py"), "def _zones():\n    from bridge.writeback.translate import W\n"),
])
def test_a_forbidden_import_is_caught(relative, source):
    """The checker itself: each of these, added to the real file, breaks the shape."""
    assert violations(relative, source)


@pytest.mark.parametrize("relative, source", [
    (Path("bridge/cli/commands/check.py"),
     "from bridge.reports import report\nfrom bridge import __version__\n"),
    (Path("bridge/daemon/watch.py"), "from bridge.web import protocol\n"),
    (Path("bridge/reports/timeline.py"),
     "from .report import HTML_STYLE\nfrom bridge.common import jsonout\n"),
    (Path("bridge/__main__.py"), "from bridge.cli.main import main\n"),
])
def test_an_allowed_import_passes(relative, source):
    assert violations(relative, source) == []


@pytest.mark.parametrize("package", ["bridge", "vassal_parser", "rules"])
def test_no_long_module_without_a_reason(package):
    """A module over 500 lines says why at its top (its docstring holds 'Why over 500 lines:'), in bridge/,
    vassal_parser/ and rules/ (issue 39)."""
    long = []
    for path in project_files(package):
        text = (ROOT / path).read_text("utf-8")
        if text.count("\n") > MAX_LINES and LONG_REASON not in (ast.get_docstring(ast.parse(text)) or ""):
            long.append(f"{path}: {text.count(chr(10))} lines")
    assert long == []


# Issue 39: no circle of files. An edge is every import the file's source holds — at the top, inside a
# function, under `if TYPE_CHECKING:` (a type-only import still makes two files unreadable alone) — from
# one project module to another; importing a submodule (`from a.b import c`) also reaches its package
# `a.b` (its __init__ runs first), and `from a import b` reaches the module a.b when there is one.
CYCLE_PACKAGES = ("vassal_parser", "rules", "bridge", "module_patches", "adjutant")


def module_names(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Every module under `root`'s packages by dotted name (a package by its own name, not `__init__`)."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def import_graph(root: Path, packages: tuple[str, ...] = CYCLE_PACKAGES) -> dict[str, dict[str, int]]:
    """module -> {project module it imports: first line}; relative imports resolved (a package's own
    `from . import x` against the package itself)."""
    modules = module_names(root, packages)
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        anchor = f"{name}.__init__" if path.name == "__init__.py" else name
        edges: dict[str, int] = {}
        for line, target in imported_names(path.read_text("utf-8"), anchor):
            if target in modules and target != name:
                edges.setdefault(target, line)
        graph[name] = edges
    return graph


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Every set of modules that reach each other through imports (Tarjan's strongly connected
    components of more than one module), each sorted, as 'a -> b (line)' edges inside it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:  # iterative: no recursion limit on a deep import chain
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(graph[target])))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(f"{a} -> {b} (line {line})" for a in component
                                            for b, line in graph[a].items() if b in component))

    for name in graph:
        if name not in index:
            visit(name)
    return found


def test_no_circle_of_files():
    """No two files import each other, directly or round a longer ring, in any package (issue 39)."""
    assert circles(import_graph(ROOT)) == []


@pytest.mark.parametrize("files", [
    {"a.py": "from pkg import b\n", "b.py": "from pkg.a import x\n"},
    {"a.py": "def later():\n    from . import b\n", "b.py": "import pkg.c\n", "c.py": "from .a import y\n"},
    {"a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import B\n",
     "b.py": "from pkg.a import A\n"},
    {"__init__.py": "from pkg.a import A\n", "a.py": "from pkg import helpers\n", "helpers.py": ""},
])
def test_a_circle_is_caught(tmp_path, files):
    """The checker itself, on a tiny package: a circle at the top, inside a function round three files,
    under TYPE_CHECKING, and through a package's __init__."""
    (tmp_path / "pkg").mkdir()
    for name, source in {"__init__.py": "", **files}.items():
        (tmp_path / "pkg" / name).write_text(source, "utf-8")
    assert circles(import_graph(tmp_path, ("pkg",)))


def test_no_circle_in_a_line_of_imports(tmp_path):
    (tmp_path / "pkg").mkdir()
    for name, source in {"__init__.py": "", "a.py": "from pkg import b\n", "b.py": "from .c import z\n",
                         "c.py": "import os\n"}.items():
        (tmp_path / "pkg" / name).write_text(source, "utf-8")
    assert circles(import_graph(tmp_path, ("pkg",))) == []
