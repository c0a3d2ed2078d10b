"""`adjutant check` as a PBEM report: text, Markdown, HTML and JSON, `--only-due`, `--faction`,
`--answer`, `--out`, `--timeline`; and `adjutant continuity`. Run through the real CLI on the demo."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bridge.cli.main import main
from bridge.reports.html import render_html
from bridge.reports.markdown import render_markdown
from bridge.reports.report import render_text
from module_patches.demo_story import LOG_FILE, SAVES_DIR, load_story, save_path
from module_patches.demo_world import DEMO_DIR

MODULE = str(DEMO_DIR / "adjutant-demo.vmod")
STORY = load_story()
LOG = str(SAVES_DIR / LOG_FILE)


def check(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["check", *map(str, args), "--module", MODULE, "--pack", "demo"])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_every_format_starts_with_file_module_vassal_turn_and_phasing(capsys) -> None:
    """16.2.1 Case Yellow is due in scene 5, for the Axis, in every format."""
    save = save_path(STORY[4])
    for fmt in ("text", "markdown", "html"):
        status, out, _ = check(capsys, save, "--format", fmt)
        assert status == 1, fmt
        head = out[out.find("<body>") :][:900] if fmt == "html" else out[:900]
        for fact in (
            str(save),
            "Adjutant Demo 1.0",
            "no extensions",
            "VASSAL 3.7",
            "Axis faction phasing",
            "May-Jun 1940",
        ):
            assert fact in head, (fmt, fact)
        assert "16.2.1" in out and "Case Yellow" in out
    status, out, _ = check(capsys, save, "--json")
    data = json.loads(out)
    assert (data["format"], data["version"]) == ("adjutant-plan", 1)
    assert data["vassal"]["module"] == {
        "name": "Adjutant Demo",
        "version": "1.0",
        "vassal_version": data["vassal"]["module"]["vassal_version"],
    }
    assert check(capsys, save, "--format", "json")[1] == out  # --json is --format json


def test_only_due_keeps_due_events_and_choices_and_nothing_else(capsys) -> None:
    save = save_path(STORY[3])  # 16.1.2 Hungary under Occupation, with the Axis's remedy choice
    _status, full, _ = check(capsys, save)
    status, due, _ = check(capsys, save, "--only-due")
    assert status == 1
    assert "not due" in full and "not due" not in due
    assert "16.1.2 Axis Minor Country Occupation" in due and "16.1.2:remedy:Hungary" in due
    _status, out, _ = check(capsys, save, "--only-due", "--json")
    statuses = {event["status"] for event in json.loads(out)["events"]}
    assert statuses and statuses <= {"fired", "waiting", "undecided"}


def test_markdown_escapes_and_lists_steps_as_a_checklist(capsys) -> None:
    status, out, _ = check(capsys, save_path(STORY[1]), "--format", "markdown", "--only-due")
    assert status == 1
    assert out.startswith("## Adjutant: Axis faction phasing")
    assert re.search(r"^### 16\.1\.1 Allied Minor Country Conquest: DUE$", out, re.M)
    assert re.search(r"^- \[ \] \(16\.1\.1 Step \d\) ", out, re.M)


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append(tag)
        self.links += [value for name, value in attrs if name in ("href", "src") and value]


def test_html_is_one_self_contained_file_with_inline_svg_insets(capsys, tmp_path: Path) -> None:
    """--out writes the file (a temporary name, then a rename); no external stylesheet, script or image."""
    target = tmp_path / "report.html"
    status, out, _ = check(capsys, save_path(STORY[1]), "--format", "html", "--out", target)
    assert status == 1 and out == ""
    text = target.read_text(encoding="utf-8")
    parser = _Collect()
    parser.feed(text)
    assert "style" in parser.tags and "svg" in parser.tags and "polygon" in parser.tags
    assert parser.links == [] and "script" not in parser.tags
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_html_escapes_text_from_the_save() -> None:
    plan = {
        "phasing": "Axis",
        "turn": "<b>1939</b>",
        "pack": "x",
        "events": [
            {
                "rule": "16.1.1",
                "title": "<script>alert(1)</script>",
                "status": "fired",
                "why": [],
                "steps": [],
                "choices": [],
            }
        ],
        "violations": [],
    }
    page = render_html(plan)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<b>1939" not in page
    assert "\\<script\\>" in render_markdown(plan)


def test_undecided_is_its_own_status_naming_the_missing_fact_in_every_format() -> None:
    """Unknown is never "not due": an undecided event shows the fact it lacks, and no report says
    "Nothing is due." while something is undecided."""
    plan = {
        "phasing": "Axis",
        "turn": "1939",
        "pack": "tk",
        "violations": [],
        "undecided": True,
        "events": [
            {
                "rule": "16.1.1",
                "title": "Allied Minor Country Conquest",
                "source": "permanent",
                "status": "undecided",
                "why": [],
                "steps": [],
                "choices": [],
                "missing": [
                    {
                        "fact": "city_hexes",
                        "subject": "Poland",
                        "text": "the pack locates no City hex of Poland",
                    }
                ],
            },
            {
                "rule": "16.1.2",
                "title": "Axis Minor Country Occupation",
                "source": "permanent",
                "status": "not_due",
                "why": [],
                "steps": [],
                "choices": [],
                "missing": [],
            },
        ],
    }
    for render in (render_text, render_markdown, render_html):
        for only_due in (False, True):
            out = render(plan, only_due=only_due)
            assert "the pack locates no City hex of Poland" in out
            assert "Nothing is due." not in out
            assert "UNDECIDED" in out or "undecided" in out
    assert 'class="event status-undecided"' in render_html(plan)


def test_answer_flags_answer_a_choice_and_win_over_the_file(capsys, tmp_path: Path) -> None:
    """16.1.2: --answer ID=VALUE answers the Axis's remedy for Hungary, over --answers FILE."""
    save = save_path(STORY[3])
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"16.1.2:remedy:Hungary": "remove"}))
    _s, out, _ = check(
        capsys, save, "--json", "--answers", answers, "--answer", "16.1.2:remedy:Hungary=intern"
    )
    choice = next(
        c for e in json.loads(out)["events"] for c in e["choices"] if c["id"] == "16.1.2:remedy:Hungary"
    )
    assert choice["answered"] and choice["answer"] == "intern"
    status, _out, err = check(capsys, save, "--answer", "no-equals-sign")
    assert status == 2 and err.count("\n") == 1 and "CHOICE_ID=VALUE" in err
    status, _out, err = check(capsys, save, "--answer", "16.1.2:remedy:Hungary=sideways")
    assert status == 2 and err.count("\n") == 1 and "not a legal option" in err


def test_faction_is_matched_in_any_case_and_checked(capsys) -> None:
    save = save_path(STORY[1])  # 16.1.1 is due for the (phasing) Axis
    status, out, _ = check(capsys, save, "--faction", "axis", "--only-due")
    assert status == 1 and "16.1.1 Allied Minor Country Conquest" in out
    _status, out, _ = check(capsys, save, "--faction", "SOVIET", "--only-due")
    assert "16.1.1" not in out and "Nothing is due for Soviet." in out
    status, out, err = check(capsys, save, "--faction", "allies")
    assert status == 2 and out == "" and "Axis, Western, Soviet" in err


def test_timeline_says_at_which_step_each_event_became_due_in_every_format(capsys) -> None:
    """The story log: 16.1.1 becomes due at step 1 (Poland conquered) and stops at step 3; 16.2.1 at 4."""
    status, out, _ = check(capsys, LOG, "--timeline")
    assert status == 1
    lines = out.splitlines()
    step1 = lines.index(next(line for line in lines if line.startswith("step 1: ")))
    assert STORY[1].title in lines[step1] and "moved GE 1 Pz from w3928 to e3804" in lines[step1]
    assert lines[step1 + 1].strip() == "16.1.1 Allied Minor Country Conquest: became due"
    assert "16.1.1 Allied Minor Country Conquest: carried out" in out  # issue 37: not "no longer due"
    _status, out, _ = check(capsys, LOG, "--timeline", "--json")
    data = json.loads(out)
    assert (data["format"], data["version"], data["steps"]) == ("adjutant-timeline", 1, len(STORY) - 1)
    became = {
        c["rule"]: row["step"] for row in data["rows"] for c in row["changes"]
        if c["change"].startswith("became")
    }
    assert became["16.1.1"] == 1 and became["16.2.1"] == 4 and became["16.5.4"] == 8
    for fmt in ("markdown", "html"):
        _status, out, _ = check(capsys, LOG, "--timeline", "--format", fmt)
        assert "16.2.1 Case Yellow: became WAITING for 16.2.1:country" in out and STORY[4].title[:20] in out
    status, _out, err = check(capsys, save_path(STORY[0]), "--timeline")
    assert status == 2 and "needs a log" in err


def test_timeline_uses_the_statuses_check_shows_waiting_is_not_due(capsys) -> None:
    """Story step 8: 16.5.4 Border Defense Check asks the Soviet faction where to redeploy, and 16.5.5-16.5.7
    are checked after its answer (6.2); `check --step 8` shows them WAITING, so the timeline does too,
    never "became due" (issue 22)."""
    _status, out, _ = check(capsys, LOG, "--step", "8", "--json")
    shown = {e["rule"]: e["status"] for e in json.loads(out)["events"]}
    _status, out, _ = check(capsys, LOG, "--timeline", "--json")
    data = json.loads(out)
    row = next(r for r in data["rows"] if r["step"] == 8)
    for change in row["changes"]:
        assert change["status"] == shown[change["rule"]]
    waiting = {c["rule"]: c["change"] for c in row["changes"] if c["status"] == "waiting"}
    assert set(waiting) == {"16.5.4", "16.5.5", "16.5.6", "16.5.7"}
    assert all(text == "became WAITING for 16.5.4:redeploy" for text in waiting.values())
    _status, out, _ = check(capsys, LOG, "--timeline")
    assert "16.5.5 Russia Rises: became WAITING for 16.5.4:redeploy" in out
    assert "16.5.5 Russia Rises: became due" not in out
    assert out.rstrip().splitlines()[-1] == "at the end: 16.5.4, 16.5.5, 16.5.6, 16.5.7 waiting"


def test_step_n_is_the_position_after_n_steps_in_check_and_pieces(capsys) -> None:
    status, out, _ = check(capsys, LOG, "--step", "1", "--json")
    assert status == 1 and json.loads(out)["vassal"]["step"] == 1
    assert main(["pieces", LOG, "--module", MODULE, "--step", "1", "--json"]) == 0
    pieces = json.loads(capsys.readouterr().out)
    assert (pieces["format"], pieces["step"]) == ("adjutant-pieces", 1)
    assert pieces["module"]["name"] == "Adjutant Demo"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_continuity_lists_ghost_moves_and_agrees_with_itself(capsys, fmt: str) -> None:
    """Scene 5 does not start where scene 4 ended (it is a turn later): every moved piece is listed;
    the log's end and the last save are the same position."""
    extra = ["--json"] if fmt == "json" else []
    status = main(
        ["continuity", str(save_path(STORY[3])), str(save_path(STORY[4])), "--module", MODULE, *extra]
    )
    out = capsys.readouterr().out
    assert status == 1
    if fmt == "json":
        data = json.loads(out)
        assert data["format"] == "adjutant-continuity" and data["same"] is False
        moved = {p["name"]: (p["previous"], p["next"]) for p in data["pieces"] if p["change"] == "moved"}
        assert moved["GE 3 Inf"] == ("Europe: w3425", "Europe: w3516")
    else:
        assert "GE 3 Inf [1767225600003]: moved Europe: w3425 -> Europe: w3516" in out
        assert out.rstrip().splitlines()[-1].startswith("different: 8 piece(s) differ")
    status = main(["continuity", LOG, str(save_path(STORY[-1])), "--module", MODULE, *extra])
    out = capsys.readouterr().out
    assert status == 0 and ("same: NEXT starts where PREVIOUS ended" in out or '"same": true' in out)


def test_continuity_bad_input_is_one_line(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "x.vsav"
    bad.write_text("not a save")
    assert main(["continuity", str(bad), str(save_path(STORY[0]))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err


def test_faction_report_shows_an_event_that_moves_that_factions_counters(capsys) -> None:
    """Issue 12 item 19: 16.1.1 in the Axis turn moves the Western faction's Polish units, so the Western
    report shows it (plan `factions`), not "Nothing is due for Western"."""
    save = save_path(STORY[1])
    status, out, _ = check(capsys, save, "--faction", "western", "--only-due")
    assert status == 1 and "16.1.1 Allied Minor Country Conquest" in out
    assert "Nothing is due for Western" not in out
