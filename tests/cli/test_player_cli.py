"""The command line as a new player meets it (issue 24): `apply --answer`, no abbreviated options, an
answer given by its label, `check --out` naming what it wrote, `pack edit --help`, a short `pack check`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import tomlkit

from bridge.cli.main import main
from module_patches.demo_story import load_story, save_path
from module_patches.demo_world import DEMO_DIR

PROJECT = Path(__file__).resolve().parents[2]
MODULE = DEMO_DIR / "adjutant-demo.vmod"
PACK = DEMO_DIR / "pack"
STORY = {scene.file: scene for scene in load_story()}
CASE_YELLOW = save_path(STORY["05-case-yellow"])


def test_apply_takes_answer_flags(tmp_path, capsys) -> None:
    """16.2.1 Case Yellow waits on the Axis's country and Influence choices: `apply --answer` gives them."""
    out = tmp_path / "next.vlog"
    status = main(["apply", str(CASE_YELLOW), "--module", str(MODULE), "--pack", str(PACK), "--out", str(out),
                   "--answer", "16.2.1:country=France", "--answer", "16.2.1:influence=none"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert out.exists() and "no such answers file" not in captured.err


def test_no_option_is_taken_by_its_prefix(capsys) -> None:
    """`--answer` was read as `--answers` by argparse's prefix matching; no prefix is accepted now."""
    with pytest.raises(SystemExit) as stopped:
        main(["check", str(CASE_YELLOW), "--modul", str(MODULE), "--pack", str(PACK)])
    assert stopped.value.code == 2
    assert "unrecognized arguments: --modul" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["pack", "check", str(PACK), "--form", "json"])
    assert "unrecognized arguments: --form" in capsys.readouterr().err


def test_an_answer_may_be_given_by_its_label(capsys) -> None:
    """15.19 Influence in 16.2.1: the page shows "no Influence", the value is "none"; both are taken."""
    status = main(["check", str(CASE_YELLOW), "--module", str(MODULE), "--pack", str(PACK), "--json",
                   "--answer", "16.2.1:country=France", "--answer", "16.2.1:influence=No influence"])
    plan = json.loads(capsys.readouterr().out)
    assert status == 1
    event = next(e for e in plan["events"] if e["rule"] == "16.2.1")
    influence = next(c for c in event["choices"] if c["id"] == "16.2.1:influence")
    assert influence["answered"] and influence["answer"] == "none"
    assert influence["answer_label"] == "no Influence"


def test_check_out_names_the_written_file_on_stderr(tmp_path, capsys) -> None:
    target = tmp_path / "report.html"
    status = main(["check", str(CASE_YELLOW), "--module", str(MODULE), "--pack", str(PACK),
                   "--format", "html", "--out", str(target)])
    captured = capsys.readouterr()
    assert status in (0, 1) and target.exists()
    assert captured.err.strip() == f"wrote {target}"
    assert captured.out == ""


def test_pack_edit_help_has_examples_and_explains_extension(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["pack", "edit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "examples:" in text and "adjutant pack edit my-pack --module TK.vmod" in text
    assert "--extension VMDX a module extension (.vmdx)" in text
    assert "exit status:" in text


def _drop_proposals(path) -> None:  # type: ignore[no-untyped-def]
    """The scaffold without what it proposed (issue 38): every piece and zone left to map by hand."""
    document = tomlkit.parse(path.read_text(encoding="utf-8"))
    vassal = document["vassal"]
    for kind in ("counters", "state", "ignore"):
        vassal.pop(kind, None)
    places = vassal["places"]
    for key in ("boxes", "box_patterns", "proposed", "not_boxes"):
        places.pop(key, None)
    path.write_text(tomlkit.dumps(document), encoding="utf-8")


def test_pack_check_of_a_fresh_scaffold_is_a_summary_with_details_under_v(tmp_path, capsys) -> None:
    pack = tmp_path / "pack"
    assert main(["pack", "scaffold", str(MODULE), "--base", "tk", "-o", str(pack)]) == 0
    capsys.readouterr()
    _drop_proposals(pack / "vassal.toml")  # as for a module whose pieces say nothing the proposer reads
    assert main(["pack", "check", str(pack), "--module", str(MODULE)]) == 1
    short = capsys.readouterr().out.splitlines()
    assert main(["-v", "pack", "check", str(pack), "--module", str(MODULE)]) == 1
    full = capsys.readouterr().out.splitlines()
    slots = next(line for line in short if line.startswith("piece slots no rule recognises: "))
    listed = [line for line in full
              if line.startswith("  ") and " x" in line and line.split(" x")[-1].isdigit()]
    assert slots == f"piece slots no rule recognises: {len(listed)} of {len(listed)} kinds (-v lists them)"
    assert not any(line.startswith("    present: ") for line in short)
    assert any(re.fullmatch(r"  \.\.\. and \d+ more zones \(-v lists them all\)", line) for line in short)
    assert len(short) < 150 < len(full)
    assert "  RU 1 Inf x1" in full and "  RU 1 Inf x1" not in short
    assert any(line.startswith("    present: ") for line in full)


def test_readme_says_what_skips_mean_and_how_to_run_with_the_corpus() -> None:
    text = " ".join((PROJECT / "README.md").read_text(encoding="utf-8").split())
    assert "What the test skips mean" in text
    assert "ADJUTANT_SHARED=/path/to/shared .venv/bin/python -m pytest -q" in text
    assert "`../shared`" in text and "pytest -q -rs" in text
