"""The DS pack against the rules text: every printed hex id is in the pack, every erratum is honest."""

from __future__ import annotations

import re

import pytest

from rules.events.ds.common import reading
from rules.packs import load_pack
from tests.ds.helpers import DS
from vassal_parser.errors import InputError

HEX_ID = re.compile(r"\b[ew]\d{4}\b")
NAMED_HEX = re.compile(r"((?:[A-Z][A-Za-z'-]+ )*[A-Z][A-Za-z'-]+) \(([ew]\d{4})\)")


def _text(rules_text_dir) -> str:
    return (rules_text_dir / "ds-16-conditional-events.txt").read_text(encoding="utf-8")


def test_every_hex_id_in_the_ds_text_is_in_the_pack(rules_text_dir):
    """Rule 16 (all sections): no hex the text prints is missing from the pack."""
    printed = set(HEX_ID.findall(_text(rules_text_dir)))
    assert len(printed) >= 38
    assert sorted(printed - set(DS.hexes)) == []


def test_every_named_hex_carries_its_name_or_an_erratum(rules_text_dir):
    """A hex printed with a name has that name in the pack, unless an erratum covers the conflict."""
    errata_hexes = {"w5821", "w5226"}
    named = NAMED_HEX.findall(_text(rules_text_dir))
    assert len(named) > len(errata_hexes)  # the scan found the text's named hexes: the loop checks some
    for name, hex_id in named:
        name = name.strip()
        if hex_id in errata_hexes:
            continue
        assert DS.hex(hex_id).name == name, f"{hex_id}: text says {name}, pack says {DS.hex(hex_id).name}"


def test_text_conflicts_found_by_scanning_are_all_recorded_as_errata(rules_text_dir):
    """One name with two ids, or one id with two names, must each have an errata entry."""
    by_name: dict[str, set[str]] = {}
    by_hex: dict[str, set[str]] = {}
    for name, hex_id in NAMED_HEX.findall(_text(rules_text_dir)):
        by_name.setdefault(name.strip(), set()).add(hex_id)
        by_hex.setdefault(hex_id, set()).add(name.strip())
    conflicts = {n for n, ids in by_name.items() if len(ids) > 1} | \
                {n for ids in by_hex.values() if len(ids) > 1 for n in ids}
    assert conflicts == {"Irkutsk", "Mukden", "Tsitsihar"}
    errata_text = " ".join(e["text"] for e in DS.extra["errata"].values())
    for name in conflicts:
        assert name in errata_text


@pytest.mark.parametrize("key", sorted(DS.extra["errata"]) + sorted(DS.extra["readings"]))
def test_every_erratum_names_both_readings_and_uses_one_of_them(key):
    entry = DS.extra["errata"].get(key) or DS.extra["readings"][key]
    assert len(entry["readings"]) >= 2, f"{key} must name both readings"
    assert entry["used"] in entry["readings"]
    assert entry["rules"] and entry["text"] and entry["why"]
    assert reading(DS, key) == entry["used"]


def test_eniwetok_palau_truk_listed_twice_is_recorded(rules_text_dir):
    """16.2.6 Step 4 lists Eniwetok, Palau and Truk under Britain and under the US."""
    text = _text(rules_text_dir)
    concessions = text[text.index("16.2.6 Japanese Concessions"):text.index("16.3 Western")]
    for island in ("Eniwetok (e3612)", "Palau (e3402)", "Truk (e3408)"):
        assert concessions.count(island) == 2
    assert "Eniwetok" in DS.extra["errata"]["concessions_mandates"]["text"]


def test_an_option_chooses_the_other_reading(tmp_path):
    """errata.irkutsk can be switched to 16.6.2's w5821 by a pack option."""
    for source in DS.path.glob("*.toml"):
        text = source.read_text(encoding="utf-8")
        if source.name == "errata.toml":
            text = text.replace("[options]\n", '[options]\nirkutsk = "w5821"\n')
        (tmp_path / source.name).write_text(text, encoding="utf-8")
    assert reading(load_pack(tmp_path), "irkutsk") == "w5821"


def test_an_option_naming_no_reading_is_one_line_input_error(tmp_path):
    for source in DS.path.glob("*.toml"):
        text = source.read_text(encoding="utf-8")
        if source.name == "errata.toml":
            text = text.replace("[options]\n", '[options]\nirkutsk = "w9999"\n')
        (tmp_path / source.name).write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="not one of its readings") as caught:
        reading(load_pack(tmp_path), "irkutsk")
    assert "\n" not in str(caught.value)


HEADING = re.compile(r"^[△©* ]*(16\.[1-6]\.\d+) (.+)$", re.MULTILINE)
PERMANENT = {"16.1": "Axis", "16.3": "Western", "16.5": "Soviet"}


def test_every_event_of_the_ds_text_is_in_the_pack_with_its_title(rules_text_dir):
    """Rule 16: each numbered event is a pack event, titled as the text titles it."""
    headings = dict(HEADING.findall(_text(rules_text_dir)))
    assert len(headings) == 37  # 6 + 5 (no 16.2.3 in the text) + 11 + 5 + 8 + 2
    assert sorted(set(headings) - set(DS.events)) == []
    for rule, title in headings.items():
        assert DS.event(rule).title.replace(" (*)", "") == title.strip(), rule


def test_permanent_events_in_text_order_and_option_events_on_cards(rules_text_dir):
    """6.2 Step 1: permanent events in the order listed; Step 2: option events come from a card."""
    rules = [r for r, _ in HEADING.findall(_text(rules_text_dir))]
    assert rules and PERMANENT
    for section, faction in PERMANENT.items():
        assert list(DS.order[faction]) == [r for r in rules if r.startswith(section + ".")]
    on_cards = {rule for card in DS.cards.values() for rule in card.events}
    for rule in rules:
        if rule[:4] in ("16.2", "16.4", "16.6"):
            assert rule in on_cards, rule
