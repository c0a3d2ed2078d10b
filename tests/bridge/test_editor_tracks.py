"""The editor's track edits (bridge/web/editor/tracks.py; issue 25): an unverified track of a copy of the awaw
pack is loaded as boxes, adjusted, checked and saved with tomlkit in place — its other keys and the file's
comments kept — and a track on a map or board the module lacks is refused with one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bridge.mapping.mapper import VassalMapping
from bridge.web.editor.model import EditError, EditorSession
from rules.packs import PACKS_DIR, load_pack

FOLDER = "patricksurry__jspy-vassal/test"


@pytest.fixture
def session(corpus_dir: Path, tmp_path: Path) -> EditorSession:
    pack = tmp_path / "awaw-mine"
    shutil.copytree(PACKS_DIR / "awaw", pack)
    return EditorSession(pack, corpus_dir / FOLDER / "buildFile-a3r.yml")


def test_an_unverified_track_is_adjusted_and_saved_in_place(session: EditorSession) -> None:
    tracks = {t["name"]: t for t in session.model()["tracks"]}
    turn = tracks["Turn Record Track"]
    assert turn["verified"] is False
    assert [b["name"] for b in turn["boxes"]] == ["Winter", "Spring", "Summer", "Fall"]
    boxes = [dict(b) for b in turn["boxes"]]
    boxes[3]["rect"] = [600, 2114, 797, 2362]  # the Fall box widened to the left
    edit = {"name": "Turn Record Track", "map": "Map Window", "board": "A3R European Front", "boxes": boxes,
            "verified": True}
    session.apply({"type": "track", "track": edit})
    assert session.dirty
    before = (session.pack_dir / "vassal.toml").read_text()
    session.save()
    text = (session.pack_dir / "vassal.toml").read_text()
    assert text.splitlines()[0] == before.splitlines()[0]  # comments kept
    assert text.count("[[vassal.tracks]]") == 3  # replaced in place, not appended (the pack has three)
    mapping = VassalMapping.from_pack(load_pack(session.pack_dir))
    by_name = {t.name: t for t in mapping.tracks.tracks}
    turn_track, pools = by_name["Turn Record Track"], by_name["Scenario Card force pools"]
    assert turn_track.verified and turn_track.boxes[3].polygon[0] == (600, 2114)
    assert pools.places and not pools.verified


def test_a_track_off_the_module_is_refused(session: EditorSession) -> None:
    box = {"name": "1", "value": 1, "rect": [0, 0, 10, 10]}
    with pytest.raises(EditError, match="not a map of module"):
        session.apply({"type": "track", "track": {"name": "T", "map": "Nowhere", "boxes": [box]}})
    with pytest.raises(EditError, match="not a board of map Map Window"):
        session.apply({"type": "track", "track": {"name": "T", "map": "Map Window", "board": "B",
                                                  "boxes": [box]}})
    with pytest.raises(EditError, match="is empty"):
        session.apply({"type": "track", "track": {"name": "T", "map": "Map Window",
                                                  "boxes": [{**box, "rect": [5, 5, 5, 9]}]}})
    assert not session.dirty
