"""The editor's facts, whole (issue 38 item 5), on the session the page drives: a fact with nothing marked is
declared none only when the edit says so; a country's neighbouring countries are an edit of their own,
checked, undone and saved as only what differs from the base pack."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from bridge.cli.commands.demo import DEMO_MODULE
from bridge.cli.main import main
from bridge.web.editor.model import EditError, EditorSession
from rules.packs import load_pack


@pytest.fixture
def scaffold(tmp_path: Path, capsys) -> Path:
    pack = tmp_path / "pack"
    assert main(["pack", "scaffold", str(DEMO_MODULE), "--base", "tk", "-o", str(pack)]) == 0
    capsys.readouterr()
    return pack


def line_of(session: EditorSession, fact: str) -> dict:
    return next(c for c in session.coverage() if c["fact"] == fact)


def test_an_empty_fact_is_declared_none_only_when_the_edit_says_none(scaffold) -> None:
    session = EditorSession(scaffold, DEMO_MODULE)
    hexes = line_of(session, "area_hexes")
    assert "eastern_poland" in hexes["missing"] and "eastern_poland" in hexes["empty"]
    with pytest.raises(EditError, match="nothing is marked as the hexes of Eastern Poland"):
        session.apply({"type": "complete", "fact": "area_hexes", "subject": "eastern_poland", "value": True})
    assert session.unsaved() == 0
    with pytest.raises(EditError, match="none is true or false"):
        session.apply({"type": "complete", "fact": "area_hexes", "subject": "eastern_poland", "value": True,
                       "none": "yes"})
    session.apply({"type": "complete", "fact": "area_hexes", "subject": "eastern_poland", "value": True,
                   "none": True})
    hexes = line_of(session, "area_hexes")
    assert "eastern_poland" in hexes["have"] and "eastern_poland" in hexes["none"]
    assert session.edit_state()["facts"]["none"] == 1
    assert session.undo() and "eastern_poland" in line_of(session, "area_hexes")["missing"]


def test_a_fact_with_something_marked_is_confirmed_without_none(scaffold) -> None:
    session = EditorSession(scaffold, DEMO_MODULE)
    assert "Poland" not in line_of(session, "neighbors")["empty"]  # the base pack lists six
    session.apply({"type": "complete", "fact": "neighbors", "subject": "Poland", "value": True})
    assert "Poland" in line_of(session, "neighbors")["have"]


def test_neighbours_are_checked_undone_and_saved_as_what_differs(scaffold) -> None:
    session = EditorSession(scaffold, DEMO_MODULE)
    base = list(load_pack("tk").countries["Poland"].neighbors)
    assert session.neighbors["Poland"] == base == session.base_neighbors["Poland"]
    for bad, why in ((["Narnia"], "not a country"), (["Poland"], "not its own neighbour"),
                     ("Germany", "a list of at most")):
        with pytest.raises(EditError, match=why):
            session.apply({"type": "neighbors", "country": "Poland", "countries": bad})
    with pytest.raises(EditError, match="not a country"):
        session.apply({"type": "neighbors", "country": "Narnia", "countries": []})
    assert session.unsaved() == 0
    session.apply({"type": "neighbors", "country": "Poland", "countries": ["Germany", "Sweden", "Germany"]})
    assert session.neighbors["Poland"] == ["Germany", "Sweden"] and session.unsaved() == 1
    assert session.preview_pack().countries["Poland"].neighbors == ("Germany", "Sweden")
    assert session.undo() and session.neighbors["Poland"] == base and session.unsaved() == 0
    assert session.redo() and session.neighbors["Poland"] == ["Germany", "Sweden"]
    files = session.save()
    own = {}
    for name in files:
        own.update(tomllib.loads((scaffold / name).read_text()).get("countries", {}))
    assert own == {"Poland": {"neighbors": ["Germany", "Sweden"]}}
    saved = load_pack(scaffold)
    assert saved.countries["Poland"].neighbors == ("Germany", "Sweden")
    assert saved.countries["Poland"].kind == load_pack("tk").countries["Poland"].kind  # merged field by field
    # Back to the base's list: the override goes, and no empty [countries] table is left.
    session.apply({"type": "neighbors", "country": "Poland", "countries": base})
    for name in session.save():
        assert "countries" not in tomllib.loads((scaffold / name).read_text())
    assert list(load_pack(scaffold).countries["Poland"].neighbors) == base


def test_a_regions_list_is_its_own_and_its_hexes_borders_are_shown_apart(scaffold) -> None:
    """16.2.2 Step 10: a Region's neighbours are its `[areas.x] neighbors` and the countries its hexes
    border."""
    session = EditorSession(scaffold, DEMO_MODULE)
    with pytest.raises(EditError, match="'Narnia' is not an area"):
        session.apply({"type": "neighbors", "area": "Narnia", "countries": []})
    session.apply({"type": "neighbors", "area": "ukraine", "countries": ["Poland"]})
    # A Russian hex of Ukraine that borders Rumania (marked on the map, not in the list).
    session.apply({"type": "restore", "records": {"e3609": {"country": "Russia", "area": "ukraine",
                                                            "borders": ["Rumania"]}}})
    line = next(c for c in session.coverage() if c["fact"] == "area_neighbors" and "ukraine" in c["missing"])
    assert line["values"]["ukraine"] == ["Poland", "Rumania"]
    assert session.area_neighbors["ukraine"] == ["Poland"]
    session.save()
    own = {}
    for path in scaffold.glob("*.toml"):
        own.update(tomllib.loads(path.read_text()).get("areas", {}))
    assert own == {"ukraine": {"neighbors": ["Poland"]}}
    assert load_pack(scaffold).areas["ukraine"].neighbors == ("Poland",)
