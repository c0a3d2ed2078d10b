"""Issue 38: `pack scaffold --base` proposes the counter, state, ignore and box mapping from the module
itself. Done when the demo module scaffolded over the demo geography (no hand edit of its counter, box
or state rules; only the scenario's [vassal.countries] / [vassal.turn] stated, as a player would) maps
at least 95% of the pieces of saves 02, 04, 05, 09 and gives the same plan (each event's status and
steps) as the hand-written demo pack -- and a module marked differently does the same."""

from __future__ import annotations

import json
import re
import tomllib
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from bridge.mapping.mapper import VassalMapping
from bridge.mapping.propose_boxes import propose_boxes
from bridge.mapping.propose_counters import Nations, kind_of
from rules.packs import load_pack
from tests.demo.scaffold_variants import (
    DONE_SAVES,
    SAVES_DIR,
    VARIANTS,
    base_without_vassal,
    build_variant,
    events_of,
    mapped_share,
    plan_of,
    scaffold,
)


@pytest.fixture(scope="module")
def demo_geography(tmp_path_factory) -> Path:
    return base_without_vassal(tmp_path_factory.mktemp("geo") / "base")


@pytest.fixture(scope="module")
def scaffolded(demo_geography, tmp_path_factory) -> Path:
    return scaffold(DEMO_MODULE, demo_geography, tmp_path_factory.mktemp("scaffold") / "pack")


def _assert_plans_like_the_hand_written_pack(module: Path, saves: Path, pack: Path) -> None:
    steps = 0
    for name in DONE_SAVES:
        hand = plan_of(SAVES_DIR / f"{name}.vsav", DEMO_MODULE, DEMO_PACK)
        mine = plan_of(saves / f"{name}.vsav", module, pack)
        mapped, total = mapped_share(mine, saves / f"{name}.vsav", module)
        vassal = mine["vassal"]
        assert mapped >= 0.95 * total, (name, vassal["unmapped_pieces"], vassal["unmapped_places"])
        assert events_of(mine) == events_of(hand), name
        assert mine["position"] == hand["position"], name  # every counter, country and turn field alike
        steps += sum(len(e["steps"]) for e in mine["events"] if e["status"] == "fired")
    assert steps >= 10  # plans with something in them: Poland falls, Case Yellow ...


# ---- done when ------------------------------------------------------------------------------------
def test_the_demo_scaffold_maps_the_saves_and_plans_as_the_hand_written_pack(scaffolded) -> None:
    """Issue 38 "Done when": saves 02, 04, 05, 09 (the scaffold used to map 0 of 02's 42 pieces)."""
    _assert_plans_like_the_hand_written_pack(DEMO_MODULE, SAVES_DIR, scaffolded)


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
def test_a_module_marked_differently_does_the_same(variant, demo_geography, tmp_path) -> None:
    """Other Marker names, nationalities as adjectives (in capitals) or codes, kinds as the module's own
    words or as prototype names instead of Markers: the same story, the same plans."""
    module, saves = build_variant(variant, tmp_path / "variant")
    # really marked otherwise: the hand-written pack does not read the variant's pieces
    foreign = plan_of(saves / f"{DONE_SAVES[0]}.vsav", module, DEMO_PACK)
    assert sum(foreign["vassal"]["unmapped_pieces"].values()) > 30
    pack = scaffold(module, demo_geography, tmp_path / "pack")
    text = (pack / "vassal.toml").read_text(encoding="utf-8")
    if variant.prototypes:
        assert '"@prototype" = "GE"' in text and 'set = { nationality = "Germany" }' in text
    else:
        assert 'match = { Nationality = "GERMAN" }' in text and "{UnitID}" in text
    _assert_plans_like_the_hand_written_pack(module, saves, pack)


# ---- the proposals as written ---------------------------------------------------------------------
def test_every_proposed_rule_has_its_evidence_and_is_marked(scaffolded) -> None:
    text = (scaffolded / "vassal.toml").read_text(encoding="utf-8")
    lines = text.splitlines()
    head = re.compile(r"\[\[vassal\.(counters|state|ignore)\]\]")
    heads = [i for i, line in enumerate(lines) if head.fullmatch(line)]
    assert len(heads) >= 10
    for at in heads:
        assert lines[at - 1].startswith("# proposed from the module: "), lines[at]  # its evidence
        block = lines[at:at + 6]
        assert "proposed = true" in block[:block.index("") if "" in block else None], block
    assert ("Nation: 11 values, 10 of them countries of the pack (as names: 10 countries); 40 of 42 pieces; "
            "no country for Neutral") in text
    assert "id: Counter is unique on each of the 32 counters" in text
    assert '"(.+) Posture Box" = "posture:{0}"   # proposed: 6 zones, each a country of the pack' in text
    assert '"Axis Force Pool" = "force_pool:Axis"   # proposed' in text
    table = tomllib.loads(text)["vassal"]
    assert "Delay Box" in table["places"]["proposed"] and "(.+) Posture Box" in table["places"]["proposed"]
    kinds = ("counters", "state", "ignore")
    assert all(rule.get("proposed") is True for kind in kinds for rule in table[kind])
    fired = {r["set"]["turn.fired+"] for r in table["state"] if "turn.fired+" in r["set"]}
    assert fired == {"16.2.1", "16.3.3", "16.3.4"}  # once-per-game events only (16.3.5 is not)
    pack_toml = (scaffolded / "pack.toml").read_text(encoding="utf-8")
    assert "counter rules proposed from the module, not yet reviewed" in pack_toml


def test_the_scaffold_says_what_it_proposed(demo_geography, tmp_path, capsys) -> None:
    target = str(tmp_path / "p")
    assert main(["pack", "scaffold", str(DEMO_MODULE), "--base", str(demo_geography), "-o", target]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert re.fullmatch(r"\d+ counter rules proposed from the module, not yet reviewed \(and \d+ state "
                        r"rules, \d+ ignore rules, 13 boxes\); they take 42 of the module's 42 pieces .*",
                        last)


def test_a_scaffold_without_base_proposes_nothing(tmp_path, capsys) -> None:
    """No base pack, no countries to match: the scaffold lists the module as before, proposes nothing."""
    assert main(["pack", "scaffold", str(DEMO_MODULE), "-o", str(tmp_path / "p"), "-q"]) == 0
    text = (tmp_path / "p" / "vassal.toml").read_text(encoding="utf-8")
    assert "proposed = true" not in text and '# "Delay Box" = ""' in text


# ---- honest about it (item 3) ---------------------------------------------------------------------
def test_the_plan_header_and_pack_check_say_the_rules_are_proposed(scaffolded, tmp_path, capsys) -> None:
    save = str(SAVES_DIR / "02-poland-falls.vsav")
    main(["check", save, "--module", str(DEMO_MODULE), "--pack", str(scaffolded)])
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("proposed mapping: "))
    counters = len(tomllib.loads((scaffolded / "vassal.toml").read_text())["vassal"]["counters"])
    assert header.startswith(f"proposed mapping: {counters} counter rules proposed from the module, "
                             "not yet reviewed (and ")
    for form in ("markdown", "html"):  # every report format's header says it too
        main(["check", save, "--module", str(DEMO_MODULE), "--pack", str(scaffolded), "--format", form])
        assert "proposed mapping: " in capsys.readouterr().out
    main(["check", save, "--module", str(DEMO_MODULE), "--pack", str(scaffolded), "--json"])
    plan = json.loads(capsys.readouterr().out)
    assert plan["vassal"]["proposed"]["counter_rules"] == counters
    assert plan["vassal"]["proposed"]["boxes"] == 13
    status = main(["pack", "check", str(scaffolded), "--module", str(DEMO_MODULE), "--save", save])
    out = capsys.readouterr().out
    assert f"{counters} counter rules proposed from the module, not yet reviewed" in out
    assert "nothing unmapped" in out and status == 1  # mapped, but not reviewed: not done
    # A person reviews them: the marks go, and so do the header line and the count.
    reviewed = tmp_path / "reviewed"
    reviewed.mkdir()
    text = (scaffolded / "vassal.toml").read_text(encoding="utf-8").replace("proposed = true\n", "")
    (reviewed / "vassal.toml").write_text(re.sub(r"\nproposed = \[.*\]\n", "\n", text), encoding="utf-8")
    _rebase(scaffolded, reviewed)
    main(["check", save, "--module", str(DEMO_MODULE), "--pack", str(reviewed)])
    assert "proposed mapping" not in capsys.readouterr().out
    main(["pack", "check", str(reviewed), "--module", str(DEMO_MODULE)])
    assert "review them in vassal.toml" not in capsys.readouterr().out


def _rebase(scaffolded: Path, reviewed: Path) -> None:
    """pack.toml names its base relative to itself: point the reviewed copy at the same base."""
    text = (scaffolded / "pack.toml").read_text(encoding="utf-8")
    base = re.search(r'^base = "(.+)"$', text, re.M).group(1)  # type: ignore[union-attr]
    absolute = (scaffolded / base).resolve()
    (reviewed / "pack.toml").write_text(text.replace(f'base = "{base}"', f'base = "{absolute}"'),
                                        encoding="utf-8")


# ---- nothing unmatched is guessed -------------------------------------------------------------------
def _renamed_zones(tmp_path: Path, renames: dict[str, str]) -> Path:
    target = tmp_path / "zones.vmod"
    with zipfile.ZipFile(DEMO_MODULE) as source, zipfile.ZipFile(target, "w") as out:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "buildFile.xml":
                for old, new in renames.items():
                    assert f'name="{old}"'.encode() in data
                    data = data.replace(f'name="{old}"'.encode(), f'name="{new}"'.encode())
            out.writestr(info, data)
    return target


def test_zones_of_no_faction_or_country_are_listed_not_guessed(demo_geography, tmp_path) -> None:
    module = _renamed_zones(tmp_path, {"Soviet Force Pool": "Comintern Force Pool",
                                       "Syria Posture Box": "Atlantis Posture Box"})
    pack = tmp_path / "pack"
    assert main(["pack", "scaffold", str(module), "--base", str(demo_geography), "-o", str(pack), "-q"]) == 0
    text = (pack / "vassal.toml").read_text(encoding="utf-8")
    table = tomllib.loads(text)["vassal"]["places"]
    assert "Comintern Force Pool" not in table["boxes"] and "Atlantis Posture Box" not in table["boxes"]
    # no pattern that would also take Atlantis: each country's Posture Box is proposed by name instead
    assert table["box_patterns"] == {} and table["boxes"]["Poland Posture Box"] == "posture:Poland"
    assert "# Zones no box id was matched to (2)" in text
    assert '# "Atlantis Posture Box" = ""' in text and '# "Comintern Force Pool" = ""' in text
    assert "#   Comintern Force Pool: looks like force_pool, but 'Comintern' is no faction" in text


def test_box_names_match_in_any_case_and_only_the_rules_factions() -> None:
    found = propose_boxes(["axis force pool", "Allied Force Pool", "DELAY", "Russia Posture",
                           "Turn 3 Jan-Feb 1940", "War State Box"], ["Soviet Force Pool"],
                          {"Russia": None})
    assert found.boxes == {"axis force pool": "force_pool:Axis", "DELAY": "delay",
                           "Soviet Force Pool: offboard": "force_pool:Soviet"}
    assert found.patterns == {"(.+) Posture": "posture:{0}"}
    assert found.unmatched == ["Allied Force Pool"]
    assert found.evidence["Allied Force Pool"] == "looks like force_pool, but 'Allied' is no faction"
    assert found.not_boxes == ["re:Turn [0-9]+ (?P<date>.+)", "War State Box"]


def _pack(countries: dict[str, str | None], codes: dict[str, str] | None = None) -> SimpleNamespace:
    infos = {name: SimpleNamespace(adjective=adjective) for name, adjective in countries.items()}
    return SimpleNamespace(countries=infos, extra={"codes": codes} if codes else {})


def test_nationalities_by_name_adjective_or_code_and_never_an_ambiguous_code() -> None:
    nations = Nations(_pack({"Germany": "German", "Russia": "Russian", "Rumania": "Rumanian",
                             "Belgium-Holland": "Belgian-Dutch"}))
    assert nations.country("GERMANY") == ("Germany", "name")
    assert nations.country("german") == ("Germany", "adjective")
    assert nations.country("Belgian_Dutch") == ("Belgium-Holland", "adjective")
    assert nations.country("GE") == ("Germany", "code")
    assert nations.country("BH") == ("Belgium-Holland", "code")
    assert nations.country("RU") is None  # Russia or Rumania: not guessed
    assert nations.country("Neutral") is None
    assert nations.country("Ge") is None  # a word, not a code in capitals
    coded = Nations(_pack({"Russia": None, "Rumania": None}, codes={"Russia": "SU"}))
    assert coded.country("SU") == ("Russia", "code")  # a pack's own [codes] table


def test_kind_words_come_from_the_vocabulary() -> None:
    assert kind_of("Infantry") == ("ground", "word")
    assert kind_of("ARMOR_CORPS") == ("ground", "word")
    assert kind_of("Fighter") == ("air", "word")
    assert kind_of("Option Card") == ("card", "word")
    assert kind_of("Status Marker") == ("state", "word")
    assert kind_of("Unit") is None  # a word of no one kind
    assert kind_of("Fighter Infantry") is None  # two kinds: not guessed


def test_the_proposed_table_loads_as_a_mapping_and_takes_every_demo_piece(scaffolded) -> None:
    pack = load_pack(scaffolded)
    mapping = VassalMapping.from_pack(pack)
    assert mapping.proposed_rules and len(mapping.proposed_places) == 13
    text = (scaffolded / "vassal.toml").read_text(encoding="utf-8")
    assert "# The proposed rules take 42 of the module's 42 pieces." in text


def test_a_policy_marker_is_read_in_its_posture_box_not_as_a_fired_event(demo_geography) -> None:
    """16.2.2 Ostland Accord is a once-per-game event and the pack's Policy marker (16.5.5): a marker of
    that name says where it stands (`countries.<country>.markers`), never "its event has fired"."""
    from bridge.mapping.module_evidence import SlotEvidence
    from bridge.mapping.propose_counters import propose_counters
    from bridge.mapping.propose_state import propose_state

    pack = load_pack(demo_geography)
    slots = [SlotEvidence("1", "Ostland Accord", {"Kind": "state"}, (), "oa.svg"),
             SlotEvidence("2", "Case Yellow", {"Kind": "state"}, (), "cy.svg")]
    boxes = propose_boxes(["Russia Posture Box", "Axis Conditional Events Box"], [], pack.countries)
    found = propose_state(slots, pack, boxes, propose_counters(slots, pack))
    tables = [(r.kind, r.match, r.values) for r in found.rules]
    assert ("state", {"@name": "Ostland Accord", "@location": "re:(?P<country>.+) Posture Box"},
            {"countries.{country}.markers+": "Ostland Accord"}) in tables
    fired = [values["turn.fired+"] for _kind, _match, values in tables if "turn.fired+" in values]
    assert fired == ["16.2.1"]  # Case Yellow by its name; not 16.2.2


def test_the_scaffold_keeps_the_base_packs_policy_markers(tmp_path) -> None:
    """`[pack]` is not inherited: without `policy_markers` an Ostland Accord marker would be no Policy."""
    assert main(["pack", "scaffold", str(DEMO_MODULE), "--base", "tk", "-o", str(tmp_path / "p"), "-q"]) == 0
    assert load_pack(tmp_path / "p").meta["policy_markers"] == ["Ostland Accord"]


def test_the_proposed_counts_read_as_the_overlay_writes_them() -> None:
    """bridge/web/overlay/overlay.js `proposedText` says the same (tests/bridge/test_overlay_browser.py)."""
    from bridge.mapping.proposal import proposed_text

    assert proposed_text({"counter_rules": 14, "state_rules": 9, "ignore_rules": 1, "boxes": 13}) == (
        "14 counter rules proposed from the module, not yet reviewed "
        "(and 9 state rules, 1 ignore rule, 13 boxes)")
    assert proposed_text({"counter_rules": 1}) == "1 counter rule proposed from the module, not yet reviewed"
    assert proposed_text({"counter_rules": 0, "boxes": 0}) is None
