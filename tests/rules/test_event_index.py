"""rules.events.IMPL_MODULES (issue 27): a plan imports only the event modules its pack uses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import rules.events
from rules.engine import REGISTRY, load_event_modules

ROOT = Path(__file__).resolve().parents[2]


def test_the_index_names_the_module_of_every_registered_implementation() -> None:
    load_event_modules()  # the full walk: every module under rules.events
    registered = {name: fn.__module__.removeprefix("rules.events.") for name, fn in REGISTRY.items()}
    assert registered == rules.events.IMPL_MODULES


def _imported_after_a_plan(position: Path, pack: str) -> set[str]:
    """The rules.events modules a fresh `adjutant plan POSITION --pack PACK` process imported."""
    code = (
        "import contextlib, io, json, sys\n"
        "from bridge.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['plan', {str(position)!r}, '--pack', {pack!r}, '--json'])\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('rules.events'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_a_tk_plan_imports_no_dai_senso_or_awaw_event_module() -> None:
    imported = _imported_after_a_plan(ROOT / "examples" / "tk" / "quiet-turn.position.json", "tk")
    assert "rules.events.conquest" in imported
    # ds.occupation only registers 16.1.2's DS exception, which minor_occupation looks up by name
    others = {m for m in imported if m.startswith(("rules.events.ds.", "rules.events.awaw."))}
    assert others <= {"rules.events.ds.occupation"}
    assert "rules.events.ds.programs" not in imported and "rules.events.awaw.common" not in imported


def test_an_awaw_plan_imports_only_awaw_event_modules() -> None:
    imported = _imported_after_a_plan(ROOT / "examples" / "awaw" / "grant.position.json", "awaw")
    assert "rules.events.awaw.grants" in imported and "rules.events.conquest" not in imported


def test_every_implementation_of_the_index_imports_what_the_full_walk_imports() -> None:
    """No module under rules.events registers anything out of the index's reach (16.1.2's occupation
    exceptions live in rules/events/ds/occupation.py, reached through EXTRA_MODULES)."""
    code = (
        "import json, sys\n"
        "import rules.events\n"
        "from rules.engine import load_event_modules\n"
        "load_event_modules(frozenset(sys.argv[1].split(',')) if sys.argv[1] else None)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('rules.events'))))\n"
    )

    def imported(impls: str) -> list[str]:
        done = subprocess.run([sys.executable, "-c", code, impls], capture_output=True, text=True, cwd=ROOT,
                              check=True)
        return json.loads(done.stdout.splitlines()[-1])

    assert imported(",".join(rules.events.IMPL_MODULES)) == imported("")


def test_a_ds_plan_finds_the_occupation_exceptions_its_pack_names() -> None:
    """16.1.2 (DS): the pack's `exceptions = ["showa_restoration"]` is registered by a module no
    implementation of the index lives in; a fresh process planning with it must load it."""
    code = (
        "from rules.engine import load_event_modules\n"
        "from rules.events.occupation import OCCUPATION_EXCEPTIONS\n"
        "load_event_modules(frozenset({'minor_occupation'}))\n"
        "print(sorted(OCCUPATION_EXCEPTIONS))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert "showa_restoration" in done.stdout


def test_an_implementation_the_index_does_not_know_takes_the_full_walk() -> None:
    load_event_modules(frozenset({"no_such_impl"}))
    assert set(rules.events.IMPL_MODULES) <= set(REGISTRY)
