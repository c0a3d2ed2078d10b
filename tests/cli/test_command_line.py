"""One consistent command line: --version, -v/-q, --config and adjutant.toml, --json everywhere, help
with examples and exit statuses, `python -m adjutant`, and the refusals a new user meets first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bridge.cli import main as cli
from bridge.cli.main import main
from module_patches.demo_story import load_story, save_path
from module_patches.demo_world import DEMO_DIR
from tests.cli.parsers import every_parser

PROJECT = Path(__file__).resolve().parents[2]
MODULE = DEMO_DIR / "adjutant-demo.vmod"
STORY = load_story()


def test_version_and_python_dash_m_adjutant() -> None:
    from bridge import __version__

    for argv in (["-m", "adjutant", "--version"], ["-m", "bridge", "--version"]):
        result = subprocess.run(
            [sys.executable, *argv], capture_output=True, text=True, cwd=PROJECT, timeout=60
        )
        assert (result.returncode, result.stdout.strip()) == (0, f"adjutant {__version__}")


def test_help_imports_only_the_command_it_runs() -> None:
    """`adjutant --help` lists every command without importing any (start-up: benchmarks/startup.py)."""
    code = (
        "import sys\nfrom bridge.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('bridge.cli.commands', 'lxml', 'rules.engine',"
        " 'websockets', 'watchdog'))), file=sys.stderr)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=PROJECT, timeout=60
    )
    assert result.stderr.strip() == "[]"
    for name in cli.SUBCOMMANDS:
        assert f"    {name}" in result.stdout
    assert "adjutant.toml" in result.stdout and "looked for" in result.stdout


@pytest.mark.parametrize("command", list(cli.SUBCOMMANDS))
def test_every_command_help_has_examples_and_exit_statuses(command: str, capsys) -> None:
    argv = ["pack", "check", "--help"] if command == "pack" else [command, "--help"]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 0
    text = capsys.readouterr().out
    if command != "pack":
        assert "examples:" in text and "exit status" in text, command
    assert "--json" in text, command


def test_every_command_and_action_has_a_description_examples_exit_statuses_and_explained_flags() -> None:
    """Issue 41: `pack scaffold --help` and `pack check --help` had no description, examples nor
    exit statuses and left `--extension` unexplained; the README says every command has them."""
    parsers = dict(every_parser())
    assert {"pack", "pack scaffold", "pack check", "pack edit", "check", "apply"} <= set(parsers)
    for words, parser in parsers.items():
        if not words:
            continue
        text = parser.format_help()
        assert parser.description, words
        assert "examples:" in text and "exit status" in text, words
        unexplained = [a.option_strings for a in parser._actions if a.option_strings and not a.help]
        assert unexplained == [], (words, unexplained)


def test_quiet_pack_scaffold_writes_the_pack_and_prints_nothing(tmp_path: Path, capsys) -> None:
    """Issue 41: -q ("only errors") silences `pack scaffold`, before or after the command."""
    for number, argv in enumerate((["-q", "pack", "scaffold"], ["pack", "scaffold", "-q"])):
        target = tmp_path / f"pack{number}"
        assert main([*argv, str(MODULE), "--base", "tk", "-o", str(target)]) == 0
        assert capsys.readouterr() == ("", "")
        assert (target / "pack.toml").is_file() and (target / "vassal.toml").is_file()
    assert main(["pack", "scaffold", str(MODULE), "-o", str(tmp_path / "loud")]) == 0
    assert "wrote a starting pack" in capsys.readouterr().out


def _demo_config(folder: Path, **extra: object) -> Path:
    lines = [f'module = "{MODULE}"', 'pack = "demo"'] + [f"{k} = {json.dumps(v)}" for k, v in extra.items()]
    path = folder / "adjutant.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_config_beside_the_save_gives_module_and_pack_and_flags_win(tmp_path: Path, capsys) -> None:
    game = tmp_path / "game.vsav"
    game.write_bytes(save_path(STORY[1]).read_bytes())
    _demo_config(tmp_path, out="report.md")
    assert main(["check", str(game), "--format", "markdown"]) == 1  # 16.1.1 due
    assert capsys.readouterr().out == ""
    assert "16.1.1 Allied Minor Country Conquest" in (tmp_path / "report.md").read_text()
    other = tmp_path / "other.txt"
    assert main(["check", str(game), "--out", str(other)]) == 1  # the flag wins over `out`
    assert other.is_file()
    status = main(["check", str(game), "--pack", "tk"])
    assert status == 2  # the flag wins: the tk pack does not map the demo module
    capsys.readouterr()


def test_explicit_config_and_bad_config_are_one_line(tmp_path: Path, capsys) -> None:
    config = _demo_config(tmp_path / "elsewhere" if (tmp_path / "elsewhere").mkdir() is None else tmp_path)
    assert main(["--config", str(config), "check", str(save_path(STORY[0]))]) == 0
    capsys.readouterr()
    bad = tmp_path / "bad.toml"
    bad.write_text('module = "x"\ncolour = "red"\n')
    assert main(["check", str(save_path(STORY[0])), "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown key(s) colour" in err and str(bad) in err
    bad.write_text("module = [unclosed")
    assert main(["check", str(save_path(STORY[0])), "--config", str(bad)]) == 2
    assert "not valid TOML" in capsys.readouterr().err


def test_missing_module_names_the_flag_the_key_and_where_it_looked(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    game = tmp_path / "g.vsav"
    game.write_bytes(save_path(STORY[0]).read_bytes())
    assert main(["check", str(game), "--pack", "demo"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--module is required" in err and "adjutant.toml" in err
    assert str(tmp_path / "adjutant.toml") in err


def test_verbose_and_quiet_set_the_log_level(capsys) -> None:
    import logging

    assert main(["-v", "check", str(save_path(STORY[0])), "--module", str(MODULE), "--pack", "demo"]) == 0
    assert logging.getLogger("adjutant").level == logging.INFO
    assert main(["check", str(save_path(STORY[0])), "--module", str(MODULE), "--pack", "demo", "-q"]) == 0
    assert logging.getLogger("adjutant").level == logging.ERROR
    capsys.readouterr()


def test_plan_refuses_a_vassal_save_and_a_position_without_a_phasing_faction(tmp_path: Path, capsys) -> None:
    assert main(["plan", str(save_path(STORY[0]))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "that is a VASSAL file" in err and "adjutant check" in err
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    assert main(["plan", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "no phasing faction" in err and "Axis, Western, Soviet" in err and "Nothing is due" not in err


def test_demo_is_a_named_pack(capsys) -> None:
    assert main(["check", str(save_path(STORY[1])), "--module", str(MODULE), "--pack", "demo", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["pack"]
    assert main(["check", str(save_path(STORY[1])), "--module", str(MODULE), "--pack", "nosuch"]) == 2
    assert "demo" in capsys.readouterr().err  # the known packs are listed, demo among them


@pytest.mark.parametrize(
    "argv,kind",
    [
        (["inspect", "{save}", "--json"], "adjutant-inspect"),
        (["pieces", "{save}", "--module", "{module}", "--json"], "adjutant-pieces"),
        (["verify", "{save}", "--module", "{module}", "--json"], "adjutant-verify"),
        (["check", "{save}", "--module", "{module}", "--pack", "demo", "--json"], "adjutant-plan"),
        (
            ["pack", "check", "demo", "--module", "{module}", "--save", "{save}", "--json"],
            "adjutant-pack-check",
        ),
        (["continuity", "{save}", "{save}", "--json"], "adjutant-continuity"),
    ],
)
def test_every_json_output_has_a_format_and_version_header(argv: list[str], kind: str, capsys) -> None:
    values = {"save": str(save_path(STORY[1])), "module": str(MODULE)}
    main([a.format(**values) for a in argv])
    data = json.loads(capsys.readouterr().out)
    assert (data["format"], data["version"]) == (kind, 1)
    module = data.get("module") or data.get("vassal", {}).get("module") or data.get("next", {}).get("module")
    assert set(module) == {"name", "version", "vassal_version"} and module["name"] == "Adjutant Demo"


def test_pack_check_save_ends_with_a_summary(capsys) -> None:
    """Text --save output: limited lists, then one summary line."""
    main(["pack", "check", "demo", "--module", str(MODULE), "--save", str(save_path(STORY[1]))])
    lines = capsys.readouterr().out.splitlines()
    summary = next(i for i, line in enumerate(lines) if line.startswith("summary of "))
    assert "unmapped pieces of" in lines[summary] and "counters on" in lines[summary]


def test_apply_and_extension_json_say_what_was_written(tmp_path: Path, capsys) -> None:
    """16.1.1 (scene 2, Poland conquered): `apply --json` names the continuation log and its steps."""
    out = tmp_path / "poland-adjutant.vlog"
    status = main(
        [
            "apply",
            str(save_path(STORY[1])),
            "--module",
            str(MODULE),
            "--pack",
            "demo",
            "--out",
            str(out),
            "--json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and out.is_file()
    assert (data["format"], data["version"], data["kind"], data["out"]) == (
        "adjutant-apply",
        1,
        "log",
        str(out),
    )
    assert data["steps"] > 0
    vmdx = tmp_path / "Adjutant.vmdx"
    assert main(["extension", str(MODULE), "--out", str(vmdx), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["format"], data["out"], data["module"]["name"]) == (
        "adjutant-extension",
        str(vmdx),
        "Adjutant Demo",
    )


def test_verify_says_each_missing_image_once(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 24: a module given as a bare buildFile has no board images; `verify` says so once per
    board (a `note:` on stdout), not again as a `warning:` on stderr."""
    tld = corpus_dir / "uckelman__tld-mod"
    if not (tld / "buildFile").exists():
        pytest.skip(f"The Longest Day's buildFile not found under {tld}")
    status = main(["verify", str(tld / "game" / "0606-1.log"), "--module", str(tld / "buildFile")])
    captured = capsys.readouterr()
    assert status == 0
    notes = [line for line in captured.out.splitlines() if line.startswith("note: ")]
    image_notes = [line for line in notes if "is not in the module" in line]
    assert image_notes, "the bare buildFile has no images: verify must say so"
    assert len(image_notes) == len(set(image_notes))
    assert "warning" not in captured.err
    for note in image_notes:
        assert (captured.out + captured.err).count(note[len("note: "):]) == 1
