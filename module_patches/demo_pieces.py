"""Trait chains of the demo counters, shared by the module's PieceSlots and the story's saves.

Why one place: a save holds each piece *expanded* (prototypes replaced by their traits, spec §5.1),
while the module's PieceSlot holds the `prototype;` reference.  Building both from the same list of
(type, state) pairs keeps the demo saves exactly what VASSAL would write for those slots.
"""

from __future__ import annotations

from module_patches.demo_world import CounterSpec, World
from vassal_parser.sequence import encode

MARKER_NAMES = ("Nation", "Kind", "Counter", "Steps", "Code", "Stripe", "Tag", "Area", "Colonial", "Card")
CARD_BACK = "card-back.svg"

Trait = tuple[str, str]  # (own type, own state)


def chain(parts: list[str]) -> str:
    """SE(TAB) nesting of a trait chain, outermost first (spec §5.1)."""
    if len(parts) == 1:
        return parts[0]
    return encode([parts[0], chain(parts[1:])], "\t") or ""


def _layer_type(name: str, images: list[str], levels: list[str], key: str) -> str:
    # The 33 Embellishment fields of spec §5.2, in order; always active, cycled with Ctrl+key.
    fields = ["", "128", "", "Next", "130", key, "", "130", "", "", "", "1", "false", "0", "0",
              encode(images, ",") or "", encode(levels, ",") or "", "true", name, "", "", "false", "",
              "1", "1", "true", "", f"{ord(key)},130", "", "", "1.0", "", "true"]
    return "emb2;" + (encode(fields, ";") or "")


def layer_trait(counter: CounterSpec, world: World) -> Trait | None:
    """The counter's Layer: a reduced side, the war state, or the posture (level = state, 1-based)."""
    if counter.layer == "none":
        return None
    levels = world.layers[counter.layer]
    if counter.layer == "strength":
        images = ["", f"{counter.id.lower()}-reduced.svg"]
        names = ["", "+ (reduced)"]
        return _layer_type("Strength", images, names, "F"), "1"
    images = [f"{counter.layer}-{index}.svg" for index in range(len(levels))]
    title = counter.layer.capitalize()
    return _layer_type(title, images, levels, "L"), "1"


def marker_values(counter: CounterSpec) -> list[str]:
    return [counter.nation, counter.kind, counter.id, str(counter.steps), counter.code,
            "yes" if counter.stripe else "no", counter.tag, counter.area, counter.colonial, counter.card]


def mask_trait() -> Trait:
    """Cards are masked (face down) to other players: spec §5.2 Obscurable, side-based access."""
    type_ = "obs;" + (encode(["70,130", CARD_BACK, "Flip", "G" + CARD_BACK, "Face-down card",
                              "side:", "Peek", "", "false", "", ""], ";") or "")
    return type_, "null"


# Hideable.myGetType appends the float transparency as a double (`0.3f` -> 0.30000001192092896), then
# the description and "disable auto report move": what VASSAL 3.7 writes back for this trait.
HIDE_TRANSPARENCY = "0.30000001192092896"


def hide_trait() -> Trait:
    """Invisible (`hide;` key;command;colour;access;transparency;description;no-report): its side may
    hide it from the others."""
    fields = ["73,130", "Hide", "", "side:", HIDE_TRANSPARENCY, "", "false"]
    return "hide;" + (encode(fields, ";") or ""), "null"


def mask_state(side: str) -> str:
    """Obscurable.myGetState: `null;` face up, else the side and ObscurableOptions (`Axis;false|0`)."""
    return encode([side, "false|0"] if side else ["null", ""], ";") or ""


def marker_trait(counter: CounterSpec) -> Trait:
    return "mark;" + (encode(list(MARKER_NAMES), ",") or ""), encode(marker_values(counter), ",") or ""


def basic_type(counter: CounterSpec) -> str:
    return f"piece;;;{counter.image};{counter.name}"


def prototype_traits(counter: CounterSpec, world: World) -> list[Trait]:
    """What the prototype named `counter.prototype` contributes (the same for every counter using it)."""
    class_marker: Trait = ("mark;Class", counter.prototype)
    return [class_marker]


def own_traits(counter: CounterSpec, world: World) -> list[Trait]:
    """The counter's own traits, outermost first: the part a PieceSlot and a placed piece share."""
    traits: list[Trait] = []
    if counter.hide:
        traits.append(hide_trait())
    if counter.mask:
        traits.append(mask_trait())
    layer = layer_trait(counter, world)
    if layer:
        traits.append(layer)
    traits.append(marker_trait(counter))
    return traits


def expanded_traits(counter: CounterSpec, world: World) -> list[Trait]:
    """Outermost first, BasicPiece excluded: the chain VASSAL keeps for a piece in play."""
    return own_traits(counter, world) + prototype_traits(counter, world)


def slot_traits(counter: CounterSpec, world: World) -> list[Trait]:
    """The PieceSlot's chain: own traits plus a `prototype;` reference (expanded when placed)."""
    return [*own_traits(counter, world), (f"prototype;{counter.prototype}", "")]


def basic_state(map_id: str | None, x: int, y: int, gpid: str,
                properties: dict[str, str] | None = None) -> str:
    """BasicPiece state `<map>;<x>;<y>;<gpid>;<n>;k;v...` (spec §5.3)."""
    props = properties or {}
    fields = [map_id or "null", str(x), str(y), gpid, str(len(props))]
    for key, value in props.items():
        fields += [key, value]
    return encode(fields, ";") or ""


def type_and_state(traits: list[Trait], basic_type_: str, basic_state_: str) -> tuple[str, str]:
    types = [t for t, _ in traits] + [basic_type_]
    states = [s for _, s in traits] + [basic_state_]
    return chain(types), chain(states)
