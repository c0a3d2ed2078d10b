"""The per-piece walks of a plan (issue 15): `VassalMapping.map_pieces` deciding each kind of piece
once (its memo), `concealed_names` reading one piece per kind, `inset._shown_in`.

Checked against the general walks on random selections and orders of real pieces — the demo saves
and the 5,000-piece latency save, whose kinds repeat — with hidden and masked pieces, pieces without
a kind, and counter ids on two pieces: the mapping with its memo must equal the mapping without
(names listed in the order their first pieces come), and so must the names a stream hides.

(Measured, so not done: picking the pieces by C-level `map`/`compress` walks instead of these
loops cost twice the time — Python 3.11's specialized attribute reads in a loop beat `attrgetter`.)"""

from __future__ import annotations

import importlib.util
import random
from dataclasses import fields
from pathlib import Path

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.mapping.memo import MappingMemo
from bridge.pipeline import CheckPipeline, concealed_names
from vassal_parser.game import PlacedPiece

ROOT = Path(__file__).resolve().parents[2]
SAVES = sorted((DEMO_MODULE.parent / "saves").glob("*.vsav"))


@pytest.fixture(scope="module")
def pipeline() -> CheckPipeline:
    return CheckPipeline(DEMO_MODULE, DEMO_PACK, remember=False)


@pytest.fixture(scope="module")
def reader() -> CheckPipeline:
    """A daemon's pipeline: its position memo gives pieces their kinds (vassal_parser.game.PieceKind)."""
    return CheckPipeline(DEMO_MODULE, DEMO_PACK)


@pytest.fixture(scope="module")
def big_save(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 5,000-piece save of benchmarks/latency.py: the demo's pieces and fifty kinds of spare marker."""
    spec = importlib.util.spec_from_file_location("latency_bench", ROOT / "benchmarks" / "latency.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    folder = tmp_path_factory.mktemp("big")
    data, _turn, _count = bench.padded_save(SAVES[1], folder)
    path = folder / "big.vsav"
    path.write_bytes(data)
    return path


@pytest.fixture(scope="module")
def pieces(reader: CheckPipeline, big_save: Path) -> list:  # type: ignore[type-arg]
    found = list(reader.pieces_of(big_save)[0])
    for save in SAVES:
        found.extend(reader.pieces_of(save)[0])
    assert sum(piece.kind is not None for piece in found) > len(found) / 2
    return found


def without_kind(piece: PlacedPiece) -> PlacedPiece:
    return PlacedPiece(**{f.name: getattr(piece, f.name) for f in fields(PlacedPiece) if f.name != "kind"})


def selections(pieces: list, count: int, seed: int):  # type: ignore[no-untyped-def,type-arg]
    rng = random.Random(seed)
    for _ in range(count):
        chosen = rng.sample(pieces, rng.randint(0, min(len(pieces), 400)))  # in any order
        chosen += rng.choices(pieces, k=rng.randint(0, 40))  # repeated pieces: ids and kinds twice
        if chosen and rng.random() < 0.3:  # a piece without a kind (a caller's own)
            chosen[rng.randrange(len(chosen))] = without_kind(chosen[0])
        rng.shuffle(chosen)
        yield chosen


def test_whole_kinds_counted_as_every_piece_mapped(pipeline: CheckPipeline, pieces: list) -> None:  # type: ignore[type-arg]
    mapping = pipeline.mapping
    memo = MappingMemo()
    kinds_counted = 0
    for chosen in selections(pieces, 60, 15):
        fresh = mapping.map_pieces(chosen, pipeline.pack, pipeline.prototypes)
        remembered = mapping.map_pieces(chosen, pipeline.pack, pipeline.prototypes, memo=memo)
        assert remembered == fresh
        assert list(remembered.unmapped_pieces.items()) == list(fresh.unmapped_pieces.items())
        assert list(remembered.position["counters"]) == list(fresh.position["counters"])
        assert remembered.warnings == fresh.warnings
        kinds_counted += len(memo.kinds)
    assert kinds_counted  # the shortcut ran


def test_a_big_save_of_few_kinds(pipeline: CheckPipeline, reader: CheckPipeline, big_save: Path) -> None:
    """A 5,000-piece save of a few dozen kinds: the mapping with its memo counts most of it whole,
    and the result is the general one's; the names a stream must hide are the same either way."""
    chosen = reader.pieces_of(big_save)[0]
    assert len(chosen) > 4900
    memo = MappingMemo()
    remembered = reader.mapping.map_pieces(chosen, reader.pack, reader.prototypes, memo=memo)
    fresh = pipeline.mapping.map_pieces(chosen, pipeline.pack, pipeline.prototypes)
    assert remembered == fresh
    assert list(remembered.unmapped_pieces.items()) == list(fresh.unmapped_pieces.items())
    assert len(memo.kinds) < len(chosen) / 20
    assert concealed_names(chosen, remembered) == concealed_names(
        [without_kind(piece) for piece in chosen], fresh)  # no kinds: every piece read


def test_inset_pieces_are_the_general_walks(pieces: list) -> None:  # type: ignore[type-arg]
    """`inset._shown_in` picks the pieces in an inset's hexes by C-level walks: the same pieces, in
    the same order, as reading every piece (hidden or masked ones never shown)."""
    from bridge.mapping.inset import _shown_in

    rng = random.Random(20)
    places = sorted({(p.map, p.location) for p in pieces if p.map and p.location})
    for chosen in selections(pieces, 40, 40):
        map_id = rng.choice(places)[0]
        seen = {loc for m, loc in rng.sample(places, min(len(places), rng.randint(1, 30))) if m == map_id}
        general = [p for p in chosen if p.map == map_id and p.location in seen and not p.hidden_by
                   and not p.masked_by]
        assert _shown_in(chosen, map_id, seen) == general
        assert [id(p) for p in _shown_in(chosen, map_id, seen)] == [id(p) for p in general]


def test_piece_like_objects_without_kinds(pipeline: CheckPipeline, reader: CheckPipeline,
                                          pieces: list) -> None:  # type: ignore[type-arg]
    """Objects with a piece's attributes but no `kind` at all (a caller's own) are read as pieces
    without a kind: the same mapping and hidden names as for those pieces."""
    from types import SimpleNamespace

    chosen = next(selections(pieces, 1, 3))
    kindless = [without_kind(piece) for piece in chosen]
    bare = [SimpleNamespace(**{f.name: getattr(p, f.name) for f in fields(PlacedPiece) if f.name != "kind"})
            for p in kindless]
    expected = pipeline.mapping.map_pieces(kindless, pipeline.pack, pipeline.prototypes)
    found = reader.mapping.map_pieces(bare, reader.pack, reader.prototypes, memo=MappingMemo())
    assert found == expected
    assert concealed_names(bare, found) == concealed_names(kindless, expected)
