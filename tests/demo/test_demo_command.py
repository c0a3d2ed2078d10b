"""`adjutant demo`: the walk-through names each event of the story by its rule number."""

from __future__ import annotations

import io

from bridge.cli import main
from bridge.commands.demo import walk_through
from module_patches.demo_story import load_story


def test_walk_through_tells_every_story_event_by_rule_number() -> None:
    out = io.StringIO()
    assert walk_through(out) == 0
    text = out.getvalue()
    events = (("16.1.1", "Allied Minor Country Conquest"), ("16.1.2", "Axis Minor Country Occupation"),
              ("16.2.1", "Case Yellow"), ("16.3.3", "Their Finest Hour"), ("16.3.4", "Paris Threatened"),
              ("16.3.5", "Reduced US Impact"), ("16.5.4", "Border Defense Check"))
    for rule, title in events:
        assert f"  {rule} {title}: " in text
    assert text.count("\n[") == len(load_story())
    assert "! the story expected" not in text


def test_plain_demo_behaves_like_no_serve(capsys) -> None:
    assert main(["demo"]) == 0
    plain = capsys.readouterr().out
    assert main(["demo", "--no-serve"]) == 0
    assert capsys.readouterr().out == plain
