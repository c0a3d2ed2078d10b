"""benchmarks/free_passes.py (issue 27): passes answered from a table decode exactly what they compute.

Why a test for a benchmark: its figures bound what compiling the chain splits and the `/` unescape
could give; they mean that only if the tabled passes give the same decode. No time is asserted.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALMORAVID = "Cattlesquat__Almoravid/Scenario_D_Arrival_of_the_Africans.vsav"


def _decoded(path: Path, module: object) -> list[tuple]:
    from vassal_parser.container import open_container
    from vassal_parser.game import game_from_container
    from vassal_parser.traits import forget_shared_traits

    forget_shared_traits()
    container = open_container(path)
    placed = game_from_container(path, container, module).position()  # type: ignore[arg-type]
    return [(p.id, p.location, tuple(sorted(p.properties.items())), tuple(repr(t.fields) for t in p.traits))
            for p in placed]


def test_tabled_passes_give_the_same_pieces_and_fields_and_are_restored(corpus_dir: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from benchmarks import free_passes, parse
    from vassal_parser import commands, traits
    from vassal_parser.module import load_module

    path = corpus_dir / ALMORAVID
    module = load_module(parse.build_file_for(path))
    plain = _decoded(path, module)
    names = free_passes.SETTINGS["chain splits and / unescape free"]
    before = (traits._split_levels_and_tail, traits._split_levels, commands._unescaped_type)
    with free_passes.passes_free(names):
        assert traits._split_levels_and_tail is not before[0]  # the table is in use
        first, second = _decoded(path, module), _decoded(path, module)  # fills, then answers
    assert (traits._split_levels_and_tail, traits._split_levels, commands._unescaped_type) == before
    assert len(plain) == 589
    assert first == plain and second == plain
