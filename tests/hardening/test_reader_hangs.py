"""Issue 14, hangs and blow-ups from a few kilobytes: each decode is linear or stopped at a cap.

Each test ran for tens of seconds (or ran out of memory) before its fix; `bounded.outcome` runs it
in a subprocess under a hard bound so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.grids import builders
from tests.hardening.bounded import outcome


def _save_with_board_picker(folder: Path, col: str, row: str = "0") -> tuple[Path, Path]:
    module = builders.write_module(folder)
    top = ["begin_save", "", builders.encode(["", builders.piece("p1", "Tank", "Main Map", 40, 40)],
                                                 builders.ESC),
           f"Main MapBoardPicker\tBoard\t{col}\t{row}", "SETUP_STACK\t", "end_save"]
    save = builders.write_game(folder, builders.encode(top, builders.ESC) or "")
    return module, save


def _load(module: Path, save: Path) -> str:
    return f"""
        from vassal_parser.game import load_game
        from vassal_parser.module import load_module
        try:
            pieces = load_game({str(save)!r}, load_module({str(module)!r})).position()
            print("ok", [(p.board, p.location) for p in pieces])
        except InputError as exc:
            print("InputError:", exc.one_line())
        """


def test_board_picker_huge_column_is_a_one_line_error_not_a_range(tmp_path: Path) -> None:
    # A 3 KB save with column 100000000 took 23 s and 0.86 GB (`range(col)` in board placement).
    module, save = _save_with_board_picker(tmp_path, "100000000")
    result = outcome(_load(module, save))
    assert result.startswith("InputError:") and "game.vsav" in result and "column 100000000" in result


def test_board_picker_column_past_java_int_reads_as_zero_as_vassal_does(tmp_path: Path) -> None:
    # 99999999999 ended in MemoryError; Integer.parseInt fails on it, and nextInt(0) gives 0.
    module, save = _save_with_board_picker(tmp_path, "99999999999")
    assert outcome(_load(module, save)) == "ok [('Board', 'A1')]"


def test_board_picker_placement_sums_only_occupied_cells(tmp_path: Path) -> None:
    # Column 1000 (the cap) with one board: placed after 1000 empty cells of width 0, at once.
    module, save = _save_with_board_picker(tmp_path, "1000", "1000")
    assert outcome(_load(module, save)) == "ok [('Board', 'A1')]"  # empty cells before it add nothing


def test_sequence_decoder_is_linear_in_escaped_delimiters() -> None:
    # 5.5 KB of repeated escaped delimiters took 41 s: every token re-counted the rest of the text.
    result = outcome("""
        from vassal_parser.sequence import decode
        tokens = decode("a\\\\;b;" * 400_000, ";")
        print("ok", len(tokens), tokens[0])
        """)
    assert result == "ok 400001 a;b"


def test_trait_tab_run_regex_does_not_backtrack_on_backslash_runs() -> None:
    # `(\\*)\t` retried a long backslash run from each backslash: 3.8 KB took 45 s.
    result = outcome("""
        from vassal_parser.traits import decode_chain
        text = "mark;Side\\t" + "piece;;;a;b" + "\\\\" * 200_000 + "x"
        traits = decode_chain(text, "Allies\\tnull;0;0")
        print("ok", len(traits))
        """)
    assert result == "ok 2"


def test_deeply_nested_maps_load_in_one_walk(tmp_path: Path) -> None:
    # Each map walked its whole subtree again: 2,000 nested Map elements took 5.6 s (quadratic).
    pkg = "VASSAL.build.module"
    depth = 2000  # libxml2's own nesting limit with huge trees is a little above this
    nested = "".join(f'<{pkg}.Map mapName="M{k}">' for k in range(depth)) + f"</{pkg}.Map>" * depth
    build = f'<VASSAL.build.GameModule name="N" version="1">{nested}</VASSAL.build.GameModule>'
    path = tmp_path / "buildFile.xml"
    path.write_text(build)
    result = outcome(f"""
        from vassal_parser.module import load_module
        try:
            print("ok", len(load_module({str(path)!r}).maps))
        except InputError as exc:
            print("InputError:", exc.one_line())
        """)
    assert result == f"ok {depth}" or ("InputError:" in result and "buildFile.xml" in result)


@pytest.mark.parametrize("kind", ["A", "N"])
def test_letter_and_digit_names_of_huge_cell_numbers_are_capped(kind: str) -> None:
    # `value -= 26` ran value / 26 times; a huge value never finished. Now: computed, and capped.
    result = outcome(f"""
        from vassal_parser.grids import GridValueError, RegularGridNumbering
        print(RegularGridNumbering.part_name(27, {kind!r}, 1), end=" ")
        try:
            RegularGridNumbering.part_name(10**15, {kind!r}, 10**12)
            print("no cap")
        except GridValueError as exc:
            print("capped:", exc)
        """)
    first = "BB" if kind == "A" else "27"
    assert result.startswith(f"{first} capped:")


def test_extension_target_backtracking_is_not_exponential(tmp_path: Path) -> None:
    # Same-class children at every level were tried again for every path: 2^depth.
    from lxml import etree

    pkg = "VASSAL.build.module"
    depth = 40
    inner = "<leaf/>"
    for _ in range(depth):
        inner = f"<{pkg}.X>{inner}</{pkg}.X><{pkg}.X>{inner}</{pkg}.X>"[: 10**6]
    del etree  # the tree is built in the subprocess, from a generator that stays small
    result = outcome(f"""
        from lxml import etree
        from vassal_parser.module import find_target
        root = etree.Element("root")
        level = [root]
        for _ in range({depth}):
            nxt = []
            for node in level[:2]:
                nxt += [etree.SubElement(node, "{pkg}.X"), etree.SubElement(node, "{pkg}.X")]
            level = nxt
        try:
            find_target(root, "/".join(["{pkg}.X"] * {depth} + ["{pkg}.Missing"]), "ext.vmdx")
            print("found")
        except InputError as exc:
            print("InputError:", exc.one_line())
        """)
    assert result.startswith("InputError: ext.vmdx: extension target")
