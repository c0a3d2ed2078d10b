"""Run one rule-16 event of a pack alone, on a bare position, to see which game facts it asks for.

Why shared: the TK and DS pack-parameter tests (tests/rules/test_tk_pack_params.py,
tests/ds/test_pack_params.py) probe their packs the same way; only the bare position and the
cards that hold an event differ per edition.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import pytest

from rules.engine import EventContext, plan
from rules.packs import Pack
from rules.state import GameState

BarePosition = Callable[[str, "str | None"], GameState]


def faction_and_card(
    pack: Pack, rule: str, card_for: Mapping[str, str] | None = None
) -> tuple[str, str | None]:
    """The faction whose Conditional Events list holds `rule`, else the card carrying it (and its faction)."""
    for faction, rules in pack.order.items():
        if rule in rules:
            return faction, None
    card = (card_for or {}).get(rule) or next(cid for cid, c in pack.cards.items() if rule in c.events)
    return pack.cards[card].faction, card


def only_event(pack: Pack, rule: str, bare_position: BarePosition, card_for: Mapping[str, str] | None = None,
               **changed: Any) -> tuple[Pack, GameState]:
    """A pack that checks just `rule` (its params changed: None removes one) and a bare position."""
    spec = pack.event(rule)
    params = {k: v for k, v in {**spec.params, **changed}.items() if v is not None}
    faction, card = faction_and_card(pack, rule, card_for)
    order = {faction: () if card else (rule,)}
    only = replace(pack, order=order, events={**pack.events, rule: replace(spec, params=params)})
    return only, bare_position(faction, card)


def params_asked(only: tuple[Pack, GameState], monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The names the event reads with `ctx.require_param` while planning the position."""
    asked: set[str] = set()
    original = EventContext.require_param

    def recording(self: EventContext, name: str) -> Any:
        asked.add(name)
        return original(self, name)

    monkeypatch.setattr(EventContext, "require_param", recording)
    pack, state = only
    plan(state, pack, {}, "test-answers")
    return asked
