"""What a module says about its own pieces, gathered once for `pack scaffold`'s proposals (issue 38):
each PieceSlot's name, Marker/Dynamic properties, prototypes, image and Layers, and the words of
`vocabulary.toml` the proposers compare them with.

Why apart from the proposers: the counter, state and box proposals all read the same evidence,
and a word list belongs in data (vocabulary.toml), not in the code that reads it.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter as Tally
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from bridge.mapping.slots import _expand, slot_piece_objects

VOCABULARY_FILE = Path(__file__).with_name("vocabulary.toml")
# Properties every piece has or that VASSAL derives (not the module author's marking).
DERIVED = ("BasicName", "PieceName", "PieceUID", "UniqueID", "LocationName", "CurrentMap", "CurrentBoard",
           "CurrentZone", "CurrentX", "CurrentY", "DeckName", "OldLocationName", "OldMap", "OldZone")
LAYER_SUFFIXES = ("_Level", "_Name", "_Image", "_Active")


@cache
def vocabulary() -> dict[str, Any]:
    with VOCABULARY_FILE.open("rb") as handle:
        return tomllib.load(handle)


def words(text: str) -> str:
    """"DelayStripe" / "delay_stripe" / "Delay-Stripe" -> "delay stripe": how names are compared."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", str(text))
    return " ".join(re.sub(r"[_\-]+", " ", spaced).lower().split())


@cache
def word_table(section: str) -> dict[str, str]:
    """vocabulary `[section]` (target -> [words]) as word -> target."""
    table: dict[str, str] = {}
    for target, listed in vocabulary()[section].items():
        for word in listed:
            table.setdefault(words(word), target)
    return table


@dataclass
class LayerEvidence:
    name: str
    level_names: list[str]
    images: list[str]


@dataclass
class SlotEvidence:
    """One PieceSlot as the module defines it (prototypes expanded)."""

    gpid: str
    name: str
    properties: dict[str, str]  # the module author's properties (Marker, Dynamic), not VASSAL's own
    prototypes: tuple[str, ...]
    image: str
    layers: list[LayerEvidence] = field(default_factory=list)


def module_evidence(module: Any) -> list[SlotEvidence]:
    """Every PieceSlot of the module (palettes and at-start stacks) as evidence."""
    from vassal_parser.pieces import Piece
    from vassal_parser.traits import Layer

    found = []
    for slot, piece in slot_piece_objects(module):
        traits, prototypes = _expand(piece.traits, module)
        expanded = Piece.from_traits(None, traits)
        layers = [LayerEvidence(t.layer_name, list(t.fields.get("level_names", [])),
                                list(t.fields.get("images", [])))
                  for t in traits if isinstance(t, Layer) and t.layer_name]
        layer_keys = {layer.name + suffix for layer in layers for suffix in LAYER_SUFFIXES}
        properties = {}
        for key, value in expanded.properties().items():
            key = str(key)
            if key in DERIVED or key in layer_keys:
                continue
            properties[key] = str(value)
        basic = traits[-1] if traits else None
        image = str(basic.fields.get("image", "")) if basic is not None and hasattr(basic, "fields") else ""
        found.append(SlotEvidence(str(slot.gpid), expanded.basic_name_property, properties,
                                  tuple(prototypes), image, layers))
    return found


def property_values(slots: list[SlotEvidence]) -> dict[str, Tally[str]]:
    """Property name -> how many pieces carry each value."""
    table: dict[str, Tally[str]] = {}
    for slot in slots:
        for key, value in slot.properties.items():
            table.setdefault(key, Tally())[value] += 1
    return table
