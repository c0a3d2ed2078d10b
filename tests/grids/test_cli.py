"""`adjutant pieces` and `adjutant verify` through the real CLI entry point (exit codes, one-line errors).

Only these two subcommands are registered here, so a half-built sibling command elsewhere in the
checkout cannot make these tests fail for reasons that are not theirs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.cli import main as cli
from tests.grids import builders

RAGNAROK = "jzedwards__vassal-hex-n-counters-template/ragnarok/vassal"


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.setattr(cli, "SUBCOMMAND_MODULES", ("pieces", "verify"))

    def invoke(*argv: str) -> tuple[int, str, str]:
        status = cli.main([str(a) for a in argv])
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return invoke


def _record(name: str) -> dict[str, str]:
    return {"OldMap": "Main Map", "OldX": "135", "OldY": "145", "OldLocationName": name, "OldZone": ""}


def test_pieces_json_lists_every_piece_with_location(tmp_path: Path, run) -> None:
    """§5.5: each piece with map, x, y, board, zone and VASSAL's LocationName."""
    module = builders.write_module(tmp_path)
    text = builders.stream(
        [
            builders.piece("a", "Tank", "Main Map", 135, 145),
            builders.piece("d", "Loner", "Main Map", 460, 470),
        ]
    )
    save = builders.write_game(tmp_path, text)
    status, out, _ = run("pieces", save, "--module", module, "--json")
    assert status == 0
    document = json.loads(out)
    pieces = {p["id"]: p for p in document["pieces"]}
    assert (pieces["a"]["location"], pieces["a"]["board"], pieces["a"]["zone"]) == ("C3", "Board", None)
    assert (pieces["d"]["location"], pieces["d"]["zone"]) == ("Box", "Box")
    assert pieces["a"]["properties"]["Side"] == "Allies"
    status, out, _ = run("pieces", save, "--module", module)
    assert status == 0 and "\tC3" in out and "Side=Allies" in out


def test_verify_all_agree_exits_0(tmp_path: Path, run) -> None:
    """(135,145) on Main Map is `C3` (see test_game_replay): a matching record agrees."""
    module = builders.write_module(tmp_path)
    text = builders.stream([builders.piece("a", "Tank", "Main Map", 300, 300, _record("C3"))])
    save = builders.write_game(tmp_path, text)
    status, out, _ = run("verify", save, "--module", module)
    assert status == 0
    assert out.splitlines()[0] == f"{save}: 1 of 1 recorded locations agree; 0 pieces carry no record"


def test_verify_lists_disagreements_and_exits_1(tmp_path: Path, run) -> None:
    module = builders.write_module(tmp_path)
    text = builders.stream(
        [
            builders.piece("a", "Tank", "Main Map", 300, 300, _record("C3")),
            builders.piece("b", "Infantry", "Main Map", 300, 300, _record("Z9")),
        ]
    )
    save = builders.write_game(tmp_path, text)
    status, out, _ = run("verify", save, "--module", module)
    assert status == 1
    lines = out.splitlines()
    assert lines[0] == f"{save}: 1 of 2 recorded locations agree, 1 disagrees; 0 pieces carry no record"
    assert lines[1] == "DISAGREE b 'Infantry' at Main Map (135,145): VASSAL says 'Z9', we compute 'C3'"
    status, out, _ = run("verify", save, "--module", module, "--json")
    document = json.loads(out)
    assert status == 1 and (document["agree"], document["total"]) == (1, 2)
    assert (document["format"], document["version"], document["unrecorded"]) == ("adjutant-verify", 1, 0)
    assert document["disagreements"][0]["we_compute"] == "C3"


def test_verify_with_no_records_says_so(tmp_path: Path, run) -> None:
    module = builders.write_module(tmp_path)
    text = builders.stream([builders.piece("a", "Tank", "Main Map", 300, 300)])
    save = builders.write_game(tmp_path, text)
    status, out, _ = run("verify", save, "--module", module)
    assert status == 0
    assert out.splitlines() == [
        f"{save}: 0 of 0 recorded locations agree; 1 piece carries no record",
        "no piece carries VASSAL's record of where it was (OldMap/OldX/OldY/OldLocationName)",
    ]


def test_save_from_another_module_exits_2_with_one_line(tmp_path: Path, run) -> None:
    module = builders.write_module(tmp_path)
    save = builders.write_game(tmp_path, builders.stream([]), module_name="Some Other Game")
    for command in ("verify", "pieces"):
        status, out, err = run(command, save, "--module", module)
        assert status == 2 and out == ""
        assert err.count("\n") == 1 and "'Some Other Game'" in err and str(save) in err


@pytest.mark.parametrize(
    "content",
    [
        b"<VASSAL.build.GameModule><broken></VASSAL.build.GameModule>",
        b'<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        b"<VASSAL.build.GameModule name='&b;'/>",
        b"PK\x03\x04 truncated zip",
    ],
    ids=["malformed-xml", "entity-bomb", "truncated-zip"],
)
def test_bad_module_exits_2_with_one_line(tmp_path: Path, run, content: bytes) -> None:
    bad = tmp_path / ("bad.vmod" if content.startswith(b"PK") else "buildFile.xml")
    bad.write_bytes(content)
    save = builders.write_game(tmp_path, builders.stream([]))
    status, out, err = run("verify", save, "--module", bad)
    assert status == 2 and out == ""
    assert err.startswith("adjutant: ") and err.count("\n") == 1 and str(bad) in err


def test_verify_real_ragnarok_save(corpus_dir: Path, run) -> None:
    """The corpus save with its own module: 43 records, all agree (see test_corpus_verify). The bare
    buildFile has no board image, so one note names it (its size-dependent names are unknown)."""
    save = corpus_dir / RAGNAROK / "ragnarok-start.vsav"
    status, out, _ = run("verify", save, "--module", corpus_dir / RAGNAROK / "buildFile.xml")
    lines = out.splitlines()
    assert status == 0 and lines[0].startswith(f"{save}: 43 of 43 recorded locations agree; ")
    assert len(lines) == 2 and lines[1].startswith("note: map 'Main Map', board 'Map': its image 'map.jpg'")


def test_pieces_of_a_log_default_to_its_end_and_step_picks_one(tmp_path: Path, run) -> None:
    """§3.5: a log's position after N replay steps; without --step the end (as `adjutant check`)."""
    module = builders.write_module(tmp_path)
    text = builders.stream(
        [builders.piece("a", "Tank", "Main Map", 135, 145)],
        steps=[["M/a/Main Map/335/345/null/Main Map/135/145/null/secret"]],
    )
    log = builders.write_game(tmp_path, text, "game.vlog")
    locations = {}
    for extra in ((), ("--step", "0"), ("--step", "-1")):
        status, out, _ = run("pieces", log, "--module", module, "--json", *extra)
        assert status == 0
        document = json.loads(out)
        locations[extra] = (document["step"], document["pieces"][0]["location"])
    assert locations == {(): (1, "G7"), ("--step", "0"): (0, "C3"), ("--step", "-1"): (1, "G7")}
    status, _, err = run("pieces", log, "--module", module, "--step", "5")
    assert status == 2 and "out of range" in err and err.count("\n") == 1
