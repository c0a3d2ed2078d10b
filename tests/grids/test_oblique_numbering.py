"""`ThirdReich.ObliqueHexGridNumbering` (the "A3R with AWAW Map" module's own numbering), worked by hand.

The grid of that module's "A3R European Front" board: sideways HexGrid dx=62.35382907247958, dy=72,
x0=35, y0=23; numbering first=H, hType=A (letters), vType=N, hOff=-1, vOff=15, hLeading=vLeading=1,
stagger=true. On a sideways grid x0/dx run along board y, so a point (x, y) has raw column
floor((y-35)/dx + 0.5) and, for an even column, raw row round((x-23)/72) (odd: round((x-23-36)/72));
stagger adds 1 to the row of an odd column; the class then subtracts (int)(col-1)/2 (Java division).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vassal_parser.grids import HexGrid, HexGridNumbering
from vassal_parser.layout import MapLayout
from vassal_parser.module import load_module
from vassal_parser.oblique_numbering import (
    ThirdReichObliqueNumbering,
    java_int_div,
    oblique_neighbors,
)

FOLDER = "patricksurry__jspy-vassal/test"
SAVE = "A3R_1939_Scenario_Template_Rev1702_AWAW.vsav"


def a3r_grid(sideways: bool = True) -> HexGrid:
    numbering = ThirdReichObliqueNumbering(
        first="H",
        sep="",
        h_type="A",
        v_type="N",
        h_leading=1,
        v_leading=1,
        h_off=-1,
        v_off=15,
        stagger=True,
        sideways=sideways,
    )
    return HexGrid(dx=62.35382907247958, dy=72.0, x0=35, y0=23, sideways=sideways, numbering=numbering)


def test_java_division_truncates_toward_zero() -> None:
    """(int)(col-1)/2 in Java: -1/2 is 0, -3/2 is -1 (Python's // would give -1 and -2)."""
    assert [java_int_div(a, 2) for a in (-3, -1, 0, 1, 2, 3, 7)] == [-1, 0, 0, 0, 1, 1, 3]


def test_norwegian_hex_c35_worked_by_hand() -> None:
    """(1499,222): raw column floor(187/62.354 + .5) = 3 (odd), raw row round((1499-23-36)/72) = 20;
    stagger +1 -> 21; slant 21 - (int)(3-1)/2 = 20. Name: letter 3-1 = 2 -> C, number 20+15 = 35."""
    grid = a3r_grid()
    assert grid.location_name(1499, 222) == "C35"
    assert grid.location("C35") == (1499, 222)


def test_russian_ic_hex_h55_worked_by_hand() -> None:
    """(3119,533): raw column floor(498/62.354 + .5) = 8 (even), raw row round(3096/72) = 43;
    no stagger; slant 43 - (int)7/2 = 40. Letter 8-1 = 7 -> H, number 40+15 = 55. Back: unslant
    40+3 = 43 -> x = int(43*72)+23 = 3119, y = int(8*62.354)+35 = 533."""
    grid = a3r_grid()
    assert grid.location_name(3119, 533) == "H55"
    assert grid.location("H55") == (3119, 533)


def test_column_zero_is_not_shifted_java_truncation() -> None:
    """(383,35): raw column 0, raw row round(360/72) = 5; (int)(0-1)/2 is 0 in Java, so the row stays 5
    (floor division would make it 6). Letter 0-1 = -1 -> "-B" (VASSAL's sign-then-letter), number 20."""
    assert a3r_grid().location_name(383, 35) == "-B20"


def test_not_sideways_numbers_as_hexgridnumbering() -> None:
    """The class only slants on a sideways grid: upright, it names as VASSAL's HexGridNumbering."""
    plain = HexGrid(
        dx=62.35382907247958,
        dy=72.0,
        x0=35,
        y0=23,
        numbering=HexGridNumbering(first="H", h_type="A", v_type="N", h_off=-1, v_off=15),
    )
    upright = a3r_grid(sideways=False)
    for point in [(100, 100), (640, 1210), (1499, 222), (3119, 533)]:
        assert upright.location_name(*point) == plain.location_name(*point)


@pytest.mark.parametrize("name", ["C35", "H55", "M28", "BB35", "K44", "GG19"])
def test_neighbors_follow_the_grid_geometry(name: str) -> None:
    """The six neighbours `oblique_neighbors` gives are the hexes VASSAL names at the six neighbouring
    centres of the sideways grid: +-dy along board x, and +-dy/2 along x with +-dx along y."""
    grid = a3r_grid()
    numbering = grid.numbering
    assert numbering is not None
    x, y = grid.location(name) or (0, 0)
    geometric = {
        grid.location_name(int(x + ox), int(y + oy))
        for ox, oy in [(72, 0), (-72, 0), (36, 62.36), (-36, 62.36), (36, -62.36), (-36, -62.36)]
    }
    col, row = numbering.parse_location(name) or (0, 0)
    derived = {numbering.grid_location(r, c) for c, r in oblique_neighbors(col, row)}
    assert geometric == derived


def test_module_reads_the_custom_numbering(corpus_dir: Path) -> None:
    """The corpus build file's HexGrid carries ThirdReich.ObliqueHexGridNumbering: it is now read
    (with the grid's sideways flag), not reported as unknown."""
    module = load_module(corpus_dir / FOLDER / "buildFile-a3r.yml")
    grid = module.map_by_id("Map Window").boards[0].grid.background
    assert isinstance(grid.numbering, ThirdReichObliqueNumbering)
    assert grid.numbering.sideways and grid.unknown_numbering is None
    layout = MapLayout(module.map_by_id("Map Window"))
    assert layout.location_name(1499, 222) == "C35"


def test_pieces_names_the_european_front_hexes(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`adjutant pieces` on the corpus A3R/AWAW save: every piece on the "A3R European Front" board
    now has a hex name or a zone (no `offboard`); the Norwegian 1-3s stand in C35, a Russian
    Industrial Center in H55 (both worked above)."""
    import json

    from bridge.cli.main import main

    folder = corpus_dir / FOLDER
    code = main(["pieces", str(folder / SAVE), "--module", str(folder / "buildFile-a3r.yml"), "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    pieces = data["pieces"] if isinstance(data, dict) else data
    front = [p for p in pieces if p.get("board") == "A3R European Front"]
    assert len(front) > 200
    assert not [p for p in front if p["location"] == "offboard"]
    assert {p["location"] for p in front if p["basic_name"] == "Nor Inf 1-3"} == {"C35"}
    assert "H55" in {p["location"] for p in front if p["basic_name"] == "RUS Industrial Center"}
