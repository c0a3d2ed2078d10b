"""Russia's BRPs read off the A3R scenario card's BRP track (issue 38 item 6): three `RUS BRP` markers,
hundreds, tens and units rows; the count is what 60.61/60.62 measure a grant's deficit against. A marker
moved by Adjutant's own save writer changes the figure; one off the track leaves it unknown (asked)."""

from __future__ import annotations

from pathlib import Path

from bridge.pipeline import CheckPipeline, board_origins
from tests.awaw.vassal_situation import FOLDER, MODULE, SAVE, rewrite_save
from vassal_parser.patch import Move

# The track's geometry (rules/packs/awaw/vassal.toml): box 0 at x = 787, 42 px a box; rows at y 835/876/919.
BOX_0, PITCH, ROWS = 787, 42, {"hundreds": 835, "tens": 876, "units": 919}


def _mapped(corpus_dir: Path, save: Path):  # type: ignore[no-untyped-def]
    pipeline = CheckPipeline(corpus_dir / FOLDER / MODULE, "awaw", remember=False)
    game, pieces, _info = pipeline._position(save, None)
    return pipeline.mapping.map_pieces(pieces, pipeline.pack, pipeline.prototypes,
                                       board_origins=board_origins(pipeline.mapping, game.layout))


def _moved(corpus_dir: Path, out: Path, row: str, x: int, y: int | None = None) -> Path:
    """The 1939 save with the RUS BRP marker of `row` moved to (x, y) on the scenario card."""
    def ops(_pipeline, _game, pieces):  # type: ignore[no-untyped-def]
        marker = next(p for p in pieces if p.basic_name == "RUS BRP" and abs(p.y - ROWS[row]) < 15)
        return [Move(marker.id, "Scenario Card", x, ROWS[row] if y is None else y)]

    return rewrite_save(corpus_dir, out, ops)


def test_the_1939_template_reads_russias_90_brps_60_61(corpus_dir: Path) -> None:
    mapped = _mapped(corpus_dir, corpus_dir / FOLDER / SAVE)
    assert mapped.position["awaw"]["russia"]["brps"] == 90  # 0 hundreds, 9 tens, 0 units
    assert "awaw.russia.brps" in mapped.state_paths
    assert "RUS BRP" not in mapped.unmapped_pieces


def test_a_marker_moved_changes_the_figure_60_62(corpus_dir: Path, tmp_path: Path) -> None:
    save = _moved(corpus_dir, tmp_path / "hundreds.vsav", "hundreds", BOX_0 + PITCH)  # box 1: +100
    assert _mapped(corpus_dir, save).position["awaw"]["russia"]["brps"] == 190
    save = _moved(corpus_dir, tmp_path / "units.vsav", "units", BOX_0 + 7 * PITCH)  # box 7: +7
    assert _mapped(corpus_dir, save).position["awaw"]["russia"]["brps"] == 97


def test_a_marker_off_the_track_leaves_the_count_unknown_60_62(corpus_dir: Path, tmp_path: Path) -> None:
    save = _moved(corpus_dir, tmp_path / "off.vsav", "units", 300, 1150)  # elsewhere on the card
    mapped = _mapped(corpus_dir, save)
    assert "brps" not in mapped.position["awaw"].get("russia", {})  # never 90 from the two left
    assert "awaw.russia.brps" not in mapped.state_paths
    assert mapped.unmapped_pieces.get("RUS BRP") == 1
    assert any("awaw.russia.brps is not read from the map" in w and "units" in w for w in mapped.warnings)
    # two markers in one row: not read either
    save = _moved(corpus_dir, tmp_path / "two.vsav", "units", BOX_0 + 2 * PITCH, ROWS["tens"])
    mapped = _mapped(corpus_dir, save)
    assert "brps" not in mapped.position["awaw"].get("russia", {})
    assert any("more than one in tens" in w for w in mapped.warnings)


def test_the_fact_is_not_asked_where_the_map_gives_it(corpus_dir: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from bridge.cli.main import main

    module = str(corpus_dir / FOLDER / MODULE)
    save = corpus_dir / FOLDER / SAVE
    main(["check", str(save), "--module", module, "--pack", "awaw", "--json", "--fact", "brps=20"])
    facts = json.loads(capsys.readouterr().out)["game_facts"]
    shown = {f["name"]: f for f in facts["from_map"]}
    assert shown["brps"]["value"] == 90 and shown["brps"]["set_aside"]["value"] == 20
    assert "brps" not in {q["name"] for q in facts["questions"]} | set(facts["not_asked"])
    assert "brps" not in {g["name"] for g in facts["given"]}
    off = _moved(corpus_dir, tmp_path / "off.vsav", "tens", 300, 1150)
    main(["check", str(off), "--module", module, "--pack", "awaw", "--json"])
    facts = json.loads(capsys.readouterr().out)["game_facts"]
    assert "brps" not in {f["name"] for f in facts["from_map"]}
    assert "brps" in {q["name"] for q in facts["questions"]} | set(facts["not_asked"])


def test_the_reading_gives_every_powers_1939_brps(corpus_dir: Path) -> None:
    """The evidence for the rows' order: the Russian track's boxes, moved onto each power's section of the
    card (left half: box 0 at x = 186), read the six powers' 1939 BRPs from the template's markers; the
    other way round (top row the units) they would read 051, 521, 570 ..."""
    pipeline = CheckPipeline(corpus_dir / FOLDER / MODULE, "awaw", remember=False)
    track = next(t for t in pipeline.mapping.tracks.tracks if t.name == "Russian BRP track")
    _game, pieces, _info = pipeline._position(corpus_dir / FOLDER / SAVE, None)
    read = {}
    for power in ("GE", "UK", "IT", "RUS", "FR", "US"):
        markers = [p for p in pieces if p.basic_name == f"{power} BRP"]
        dx = 0 if min(p.x for p in markers) > 700 else BOX_0 - 186
        dy = ROWS["hundreds"] - min(p.y for p in markers)
        boxes = [track.box_at(None, (p.x + dx, p.y + dy)) for p in markers]
        assert all(b is not None for b in boxes) and len({dict(b.extra)["row"] for b in boxes}) == 3
        read[power] = sum(b.value for b in boxes)
    assert read == {"GE": 150, "UK": 125, "IT": 75, "RUS": 90, "FR": 80, "US": 150}
