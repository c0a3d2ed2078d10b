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


def test_no_long_bridge_module_without_a_reason():
    """A module of bridge/ over 500 lines says why at its top (its docstring holds 'Why over 500 lines:')."""
    long = []
    for path in project_files("bridge"):
        text = (ROOT / path).read_text("utf-8")
        if text.count("\n") > MAX_LINES and LONG_REASON not in (ast.get_docstring(ast.parse(text)) or ""):
            long.append(f"{path}: {text.count(chr(10))} lines")
    assert long == []
