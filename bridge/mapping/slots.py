"""A module's PieceSlots seen as pieces on no map yet: what `pack check` and `pack scaffold` test the
pack's rules on, and the prototypes the pipeline names a new piece's kind by.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any


def _gpid(piece: Any) -> str:
    traits = getattr(piece, "traits", None) or []
    if traits:
        return str(traits[-1].fields.get("gpid", "") if hasattr(traits[-1], "fields") else "")
    return ""


@dataclass
class SlotPiece:
    """A module PieceSlot seen as a piece that is on no map yet (what `pack check` tests rules on)."""

    id: str
    basic_name: str
    piece_name: str
    properties: dict[str, str]
    prototypes: tuple[str, ...] = ()
    map: str | None = None
    board: str | None = None
    zone: str | None = None
    location: str = ""
    hidden_by: str | None = None
    masked_by: str | None = None


def _expand(traits: list[Any], module: Any, depth: int = 0) -> tuple[list[Any], list[str]]:
    """Replace `prototype;` traits by the prototype's traits, as VASSAL does when a piece is placed."""
    from vassal_parser.commands import leaf_command
    from vassal_parser.pieces import Piece, piece_from_command
    from vassal_parser.traits import Prototype

    expanded: list[Any] = []
    names: list[str] = []
    for trait in traits:
        if not isinstance(trait, Prototype) or depth > 20:
            expanded.append(trait)
            continue
        name = trait.fields.get("name", "")
        names.append(name)
        text = module.prototypes.get(name)
        if not text:
            continue
        try:
            proto = piece_from_command(leaf_command(text.strip()))
        except (ValueError, KeyError, IndexError):
            continue
        if isinstance(proto, Piece) and proto.traits:
            inner, inner_names = _expand(proto.traits[:-1], module, depth + 1)
            expanded.extend(inner)
            names.extend(inner_names)
    return expanded, names


def slot_piece_objects(module: Any) -> list[tuple[Any, Any]]:
    from vassal_parser.commands import leaf_command
    from vassal_parser.pieces import Piece, piece_from_command

    result = []
    slots = list(getattr(module, "piece_slots", []))
    for map_def in getattr(module, "maps", []):
        for stack in getattr(map_def, "setup_stacks", []):
            slots.extend(stack.pieces)
    for slot in slots:
        try:
            piece = piece_from_command(leaf_command(slot.text.strip()))
        except (ValueError, KeyError, IndexError):
            continue
        if isinstance(piece, Piece):
            result.append((slot, piece))
    return result


def slot_prototypes(module: Any) -> dict[str, tuple[str, ...]]:
    """gpid -> names of the prototypes its PieceSlot uses (saves keep the gpid, not the prototypes)."""
    result: dict[str, tuple[str, ...]] = {}
    for slot, piece in slot_piece_objects(module):
        _traits, names = _expand(piece.traits, module)
        result[str(slot.gpid)] = tuple(names)
    return result


class SlotPrototypes(Mapping[str, tuple[str, ...]]):
    """`slot_prototypes(module)`, worked out the first time it is read.

    Why: it decodes every PieceSlot of the module and expands its prototypes — a tenth of the
    demo module's load, far more for a real module of thousands of slots — and a pack whose rules
    never read prototypes never asks it (issue 27: a small check)."""

    def __init__(self, module: Any) -> None:
        self._module = module
        self._table: dict[str, tuple[str, ...]] | None = None

    def _loaded(self) -> dict[str, tuple[str, ...]]:
        if self._table is None:
            self._table = slot_prototypes(self._module)
        return self._table

    def __getitem__(self, gpid: str) -> tuple[str, ...]:
        return self._loaded()[gpid]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())


def slot_pieces(module: Any) -> list[SlotPiece]:
    """Every PieceSlot (palette and at-start stacks) with prototypes expanded, as a piece."""
    from vassal_parser.pieces import Piece

    pieces = []
    for index, (slot, piece) in enumerate(slot_piece_objects(module)):
        traits, names = _expand(piece.traits, module)
        expanded = Piece.from_traits(None, traits)
        properties = {str(k): str(v) for k, v in expanded.properties().items()}
        pieces.append(SlotPiece(id=f"slot:{slot.gpid or index}", basic_name=expanded.basic_name_property,
                                piece_name=expanded.piece_name, properties=properties,
                                prototypes=tuple(names)))
    return pieces
