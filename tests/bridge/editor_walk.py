"""Complete one country of a freshly scaffolded pack in the editor page, as a player would, counting actions.

Shared by tests/bridge/test_editor_country_browser.py (that it can be done, with real clicks and keys)
and benchmarks/editor_actions.py (how many actions each fact costs). The player's knowledge is what a
printed map shows: which hexes are Polish, which are Cities, the Capital, the Ceded Lands and the Border
Defense hexes; the demo module's own pack (module_patches/demo/pack) stands in for that printed map.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Poland on the demo map, as printed: (hex, what the player marks there).
POLAND = {
    "country_hexes": ["e3804", "e4102", "e3806", "e3706"],  # Krakow e3501 is Polish in the base pack already
    "cities": ["e3804"],  # Warsaw (Krakow's City comes from the base pack)
    "capital": "e3804",
    "areas": {"Polish Corridor": ["e4102"], "Eastern Poland": ["e3806", "e3706"]},
    "border_defense": {"Eastern Poland": ["e3806", "e3706"]},
}


@dataclass
class Actions:
    """A page whose user actions (clicks, keys, choices from a list, typed searches) are counted."""

    page: Any
    log: list[str] = field(default_factory=list)

    def settled(self) -> None:
        self.page.wait_for_function("document.body.dataset.busy !== 'yes'")

    def click(self, selector: str, **options: Any) -> None:
        self.page.click(selector, **options)
        self.log.append(f"click {selector}")
        self.settled()

    def key(self, key: str) -> None:
        self.page.keyboard.press(key)
        self.log.append(f"key {key}")
        self.settled()

    def choose(self, selector: str, label: str) -> None:
        self.page.select_option(selector, label=label)
        self.log.append(f"choose {label}")
        self.settled()

    def search(self, text: str) -> None:
        self.page.click("#search")
        self.page.keyboard.type(text)
        self.page.keyboard.press("Enter")
        self.log.append(f"search {text}")

    def select_hexes(self, ids: list[str]) -> None:
        """Click the first hex, Shift+click the others (bringing each into view first, as one scrolls)."""
        for n, hex_id in enumerate(ids):
            node = self.page.locator(f'polygon[data-hex="{hex_id}"]')
            node.scroll_into_view_if_needed()
            self.click(f'polygon[data-hex="{hex_id}"]', **({"modifiers": ["Shift"]} if n else {}))


def complete_poland(page: Any) -> Actions:
    """Every map fact of Poland, through the page; returns the counted actions."""
    act = Actions(page)
    act.search("Poland")  # opens Poland's group in the sidebar
    act.select_hexes(POLAND["country_hexes"])
    act.choose("#field-country", "Poland")
    act.select_hexes(POLAND["cities"])
    act.key("c")
    act.key("k")  # the Capital: counted located in full at once
    for area, ids in POLAND["areas"].items():
        act.select_hexes(ids)
        act.choose("#field-area", area)
    for area, ids in POLAND["border_defense"].items():
        act.select_hexes(ids)
        act.click(f'#border-panel label:has-text("{area}") input')
    # What remains are declarations only the player can make: "that is all of them".
    while True:
        button = page.locator('#coverage details[data-group="Poland"] button.complete')
        if not button.count():
            break
        act.click('#coverage details[data-group="Poland"] button.complete >> nth=0')
        # Every fact of Poland has something marked by now: a ✓ that asks "has none?" would be a gap in the
        # walk (issue 38: the page asks before declaring a fact empty), never answered for the player.
        assert not page.locator('#coverage details[data-group="Poland"] .ask-none').count(), act.log
    act.key("Control+s")
    page.wait_for_selector("body[data-dirty=no]", state="attached")
    return act


def poland_facts(page: Any) -> tuple[int, int]:
    """(located, total) facts of Poland's group, as the sidebar counts them."""
    text = page.locator('#coverage details[data-group="Poland"] summary .count').inner_text()
    located, _, total = text.strip().partition(" of ")  # " 5 of 7" or " 7 of 7 (1 declared none)"
    return int(located), int(total.split()[0])
