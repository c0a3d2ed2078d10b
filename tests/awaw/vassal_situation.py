"""The corpus A3R/AWAW 1939 save moved into a Russian surrender situation by Adjutant's own writer
(vassal_parser.patch: the same Table and patch_save `adjutant apply` writes a save with), for the tests of
rule 60 on the real module (issue 25). Nothing is copied from the corpus into the project: the save is
read from ../shared at test time and the new one is written into the test's tmp_path."""

from __future__ import annotations

from pathlib import Path

from bridge.pipeline import CheckPipeline
from bridge.writeback.applier import _locator, _stacking
from vassal_parser.commands import decode_stream, iter_commands
from vassal_parser.container import open_container
from vassal_parser.patch import Change, Move, Op, Table, patch_save
from vassal_parser.writer import write_game_file

FOLDER = "patricksurry__jspy-vassal/test"
SAVE = "A3R_1939_Scenario_Template_Rev1702_AWAW.vsav"
MODULE = "buildFile-a3r.yml"
# The IC marker's Layer levels (the module's PieceSlot): 1-10 ru-factory-1..10, 11/12 15/20,
# 13-15 German 5/7/10.
GERMAN_10 = 15
# Russian ICs taken: these markers show their German side (60.11: 5 Russian ICs left, -2).
TAKEN_ICS = ("D44", "O39", "U48", "O43")
# Hexes of the pack's sample graph that are real European Front locations (docs/awaw.md): where the
# writer moves the German army (an invasion of Russia), and London, where a Russian unit stands (60.33).
INVASION = ("K44", "K45", "L44", "L45", "M44", "M45", "J44", "J45", "I44", "I45", "N44", "N45")
LONDON = "G30"


def point_of(pipeline: CheckPipeline, game, location: str) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """The grid centre of a European Front hex, as `adjutant apply` would place a piece there."""
    from bridge.writeback.translate import Targets, Writeback

    writeback = Writeback.from_pack(pipeline.pack)
    targets = Targets(game, pipeline.module, pipeline.mapping, writeback, pipeline.pack)
    _map, x, y = targets.point(location)
    return x, y


def season_save(corpus_dir: Path, out: Path, x: int = 166, y: int = 2193) -> Path:
    """The 1939 save with the Season marker moved (by default into the turn track's Winter box)."""
    def ops(pipeline: CheckPipeline, game, pieces) -> list[Op]:  # type: ignore[no-untyped-def]
        season = next(p for p in pieces if p.basic_name == "Season")
        return [Move(season.id, "Map Window", x, y)]

    return rewrite_save(corpus_dir, out, ops)


def surrender_save(corpus_dir: Path, out: Path) -> Path:
    """Write the surrender situation: four Russian ICs captured, twelve German ground units on Russian
    hexes of the sample graph, one Russian infantry unit in London (Western Allied: repatriated, 60.33)."""
    return rewrite_save(corpus_dir, out, _surrender_ops)


def _surrender_ops(pipeline: CheckPipeline, game, pieces) -> list[Op]:  # type: ignore[no-untyped-def]
    ops: list[Op] = []
    for piece in pieces:
        if piece.basic_name == "RUS Industrial Center" and piece.location in TAKEN_ICS:
            ops.append(Change(piece.id, "", GERMAN_10))
    germans = [p for p in pieces if p.basic_name.startswith("GE ") and p.map == "Map Window"
               and any(k in p.basic_name for k in (" Inf ", " Arm "))]
    for piece, hex_id in zip(germans, INVASION, strict=False):
        x, y = point_of(pipeline, game, hex_id)
        ops.append(Move(piece.id, "Map Window", x, y))
    russian = next(p for p in pieces if p.basic_name.startswith("RUS Inf") and p.map == "Scenario Card")
    x, y = point_of(pipeline, game, LONDON)
    ops.append(Move(russian.id, "Map Window", x, y))
    return ops


def rewrite_save(corpus_dir: Path, out: Path, make_ops) -> Path:  # type: ignore[no-untyped-def]
    """The corpus save with `make_ops(pipeline, game, pieces)` applied, written as `adjutant apply` does."""
    pipeline = CheckPipeline(corpus_dir / FOLDER / MODULE, "awaw", remember=False)
    game, pieces, _info = pipeline._position(corpus_dir / FOLDER / SAVE, None)
    ops = make_ops(pipeline, game, pieces)
    container = open_container(corpus_dir / FOLDER / SAVE)
    tree = decode_stream(container.command_text())
    table = Table.from_placed(pieces, _stacking(pipeline.module), _locator(game, pipeline.module))
    restore = [c for c in iter_commands(tree) if c.kind == "add_piece"]
    table.learn_layers(restore)
    table.reserve_ids(c.fields.get("id") or "" for c in restore)
    for op in ops:
        table.apply(op)
    written = patch_save(tree, table)
    moduledata = container.read_entry("moduledata") if container.has_entry("moduledata") else None
    write_game_file(out, written, module_metadata=moduledata or {"name": game.module_name},
                    module_version=game.module_version, vassal_version=game.vassal_version or "3.7.12",
                    ensure=False, plain=container.savedgame_encoding == "plain")
    return out
