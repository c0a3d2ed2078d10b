"""`adjutant inspect` on real corpus files (text and --json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.cli.main import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(["inspect", *argv])
    return status, capsys.readouterr().out


def test_inspect_save_json_counts(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixtures = corpus_dir / "pacman-ghost__vasl-templates/vasl_templates/webapp/tests/fixtures"
    path = fixtures / "analyze-vsav/extensions-bfp.vsav"
    status, out = _run(capsys, str(path), "--json")
    report = json.loads(out)
    assert status == 0
    assert (report["format"], report["version"]) == ("adjutant-inspect", 1)
    assert report["kind"] == "save" and report["savedgame_encoding"] == "!VCSK"
    assert report["module"]["name"] == "VASL" and report["vassal_version"] == "3.2.17"
    assert {"name": "BFP_v403", "version": "4.03"} in report["extensions"]
    assert report["add_piece_commands"] == 10  # SOURCES.md: +/ = 10
    assert report["pieces"] + report["stacks"] + report["decks"] == 10
    assert report["log_steps"] == 0


def test_inspect_log_text(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _run(capsys, str(corpus_dir / "hurufu__zxvt-vassal-module/5x5_startup.vlog"))
    assert status == 0
    assert "kind: log" in out and "LOG steps: 6" in out and "savedGame encoding: !VCSK" in out


def test_inspect_module_lists_maps(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus_dir / "jzedwards__vassal-hex-n-counters-template/jzhex-n-counters-template-v12-379.vmod"
    status, out = _run(capsys, str(path), "--json")
    report = json.loads(out)
    assert status == 0 and report["kind"] == "module"
    assert report["module"]["name"] == "Hex'n'Counters template" and report["vassal_version"] == "3.7.9"
    if "maps" in report:  # only when the module reader is present in this checkout
        assert "Main Map" in [m["identifier"] for m in report["maps"]]


def test_inspect_never_prints_player_passwords(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vassal_parser.writer import write_game_file

    text = "begin_save\x1bPLAYER\tsupersecret\tAlice\tGermany\x1bSETUP_STACK\t\x1bend_save"
    path = write_game_file(tmp_path / "p.vsav", text)
    status, out = _run(capsys, str(path), "--json")
    assert status == 0 and "supersecret" not in out


def test_inspect_bare_extension_build_file(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _run(capsys, str(corpus_dir / "npe9__CID-extension/buildFile"))
    assert status == 0 and "kind: buildfile" in out and "build file of: extension" in out
