"""`adjutant check` never reads "Nothing is due" from a save it cannot read (issue 9, section 1).

A pack made for another module is refused in one line (exit 2); a rules-only pack (`tk`) says how to
start a pack for the module; a save whose pieces the pack mostly does not map is undecided (exit 3)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from module_patches.demo_story import load_story, save_path

STORY = load_story()


def copy_demo_pack(tmp_path: Path) -> Path:
    target = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, target)
    return target


def check(capsys, save: Path, pack: Path | str, *extra: str) -> tuple[int, str, str]:
    status = main(["check", str(save), "--module", str(DEMO_MODULE), "--pack", str(pack), *extra])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_pack_for_another_module_is_refused_in_one_line(tmp_path, capsys) -> None:
    pack = copy_demo_pack(tmp_path)
    vassal = pack / "vassal.toml"
    vassal.write_text(vassal.read_text().replace('name = "Adjutant Demo"', 'name = "Totaler Krieg"'))
    status, out, err = check(capsys, save_path(STORY[0]), pack)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "maps module 'Totaler Krieg', not 'Adjutant Demo'" in err
    assert "Nothing is due" not in out + err


def test_a_rules_only_pack_points_at_scaffold_with_base(capsys) -> None:
    status, out, err = check(capsys, save_path(STORY[0]), "tk")
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "pack tk holds rules data but no [vassal] table" in err
    assert f"adjutant pack scaffold {DEMO_MODULE} --base tk" in err


def test_a_mostly_unmapped_save_is_undecided_never_nothing_due(tmp_path, capsys) -> None:
    """Only the demo's markers are mapped: the units (most pieces) are left out, so the plan cannot
    rule out any event. The same save with the full pack is "Nothing is due." with exit 0."""
    status, out, _ = check(capsys, save_path(STORY[0]), DEMO_PACK)
    assert status == 0 and "Nothing is due." in out
    pack = copy_demo_pack(tmp_path)
    vassal = pack / "vassal.toml"
    text = vassal.read_text()
    assert 'match = { Kind = "re:ground|air|naval|ceded_land|marker" }' in text
    vassal.write_text(text.replace('match = { Kind = "re:ground|air|naval|ceded_land|marker" }',
                                   'match = { Kind = "marker" }'))
    status, out, _ = check(capsys, save_path(STORY[0]), pack)
    assert status == 3, out
    assert "Nothing is due." not in out
    assert "missing: the pack maps only" in out
    assert "Nothing is decided:" in out
    status, out, _ = check(capsys, save_path(STORY[0]), pack, "--format", "json")
    plan = json.loads(out)
    assert status == 3 and plan["undecided"] is True and plan["due"] is False
    assert [m["fact"] for m in plan["missing"]] == ["vassal_mapping"]
    unmapped = sum(plan["vassal"]["unmapped_pieces"].values())
    assert f"({unmapped} unmapped)" in plan["missing"][0]["text"]


def test_a_pack_without_events_decides_nothing(tmp_path, capsys) -> None:
    """A scaffold without `--base` maps the save but has no rules data: undecided, not "Nothing is due"."""
    pack = copy_demo_pack(tmp_path)
    text = (pack / "pack.toml").read_text()
    (pack / "pack.toml").write_text(text.replace('base = "tk"\n', ""))
    status, out, err = check(capsys, save_path(STORY[0]), pack)
    assert status == 3, out + err
    assert "pack demo lists no events, so it decides nothing" in out
    assert "Nothing is due." not in out


def test_apply_writes_nothing_from_a_mostly_unmapped_save(tmp_path, capsys) -> None:
    """`adjutant apply` reads the same plan: with most pieces unmapped no move is written, even with
    --partial (exit 3, as `check`)."""
    pack = copy_demo_pack(tmp_path)
    vassal = pack / "vassal.toml"
    vassal.write_text(vassal.read_text().replace('match = { Kind = "re:ground|air|naval|ceded_land|marker" }',
                                                 'match = { Kind = "marker" }'))
    out = tmp_path / "moves.vlog"
    for extra in ([], ["--partial"]):
        status = main(["apply", str(save_path(STORY[1])), "--module", str(DEMO_MODULE), "--pack", str(pack),
                       *extra, "--out", str(out)])
        err = capsys.readouterr().err
        assert status == 3 and not out.exists()
        assert "nothing was written: the pack maps only" in err
