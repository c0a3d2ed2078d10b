"""Trait chains (spec §5): a piece's type and state strings split into one Trait per Decorator.

Why over 500 lines: the trait classes and the chain splitter are one format: every trait's fields are
cut by the same level- and escape-aware splitter that cuts the chain, the fast splitter sits beside the
slow reference (`decode_chain_slowly`) it must match token for token, and the families share the `Trait`
base and the per-type table (`make_trait`). A split along trait families waits on issue 40, which is
reworking this file.

Why lazy and raw-preserving: a Cattlesquat save holds thousands of pieces with chains up to
~200 traits and 70 KB commands; most callers only need the BasicPiece and a few Markers/Layers.
Each Trait keeps its own raw type and raw state token, so re-encoding an unmodified chain is
byte-identical, and unknown or custom traits (VASL's `conceal;`, `turr;` ...) pass through
untouched. Chains are walked iteratively, never recursively (no recursion-limit failures).

Public API:
    decode_chain(type_string, state_string) -> list[Trait]      (outermost first, BasicPiece last)
    decode_chain_slowly(type_string, state_string)   (level-by-level reference, same result)
    encode_chain(traits) -> (type_string, state_string)
    encode_type_chain(traits) -> str, encode_state_chain(traits) -> str | None
    trait_prefix(own_type) -> str        (e.g. "piece;", "emb2;", "stack")
    Trait: prefix, type, state (raw own strings), fields (dict, lazy), properties(), with_state(state)
    Known: BasicPiece, Marker, Layer (emb2;/emb;), Label, Mask, Invisible, DynamicProperty,
        Prototype, SendToLocation, PlaceMarker, Replace, ReturnToDeck, BasicNameTrait,
        TranslatableMessage, CalculatedProperty
    TRAIT_CLASSES: dict prefix -> class
    evaluate_format(fmt, props, lookup) -> str     (a piece's `$…$` name/label formats)
    forget_shared_traits()      (equal trait texts share one Trait; this empties that table)
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Mapping
from itertools import compress, count, islice, repeat
from operator import getitem, is_, ne, not_, sub
from typing import Any, ClassVar

from vassal_parser import commands, expressions, sequence

TAB = "\t"

# The outermost piece's `getProperty`: a property name -> its value, or None when no trait, map or
# module answers it. Name and label formats are evaluated against it (spec §5.5).
Lookup = Callable[[str], "str | None"]

_JAVA_WHITESPACE = "".join(chr(code) for code in range(33))  # String.trim(): every char <= ' '


def evaluate_format(fmt: str, props: Mapping[str, str | None], lookup: Lookup | None) -> str:
    """`FormattedStringExpression.evaluate` (unlocalized) for a piece's name and label formats.

    SE('$') tokens: odd ones are property names when another token follows; `props` (the format's
    own pieceName/label) first — a None value gives nothing —, then the piece (`lookup`). A property
    no one answers gives its own name, as VASSAL's does (`buffer.append(token)`).
    """
    if "$" not in fmt:
        return fmt
    return sequence.fill_format(sequence.decode(fmt, "$"), props, lookup, unanswered_as_name=True)


def trait_prefix(own_type: str) -> str:
    """The class key: up to and including the first `;`, or the whole token (spec §5.1)."""
    semicolon = own_type.find(";")
    return own_type if semicolon < 0 else own_type[: semicolon + 1]


class Trait:
    """One Decorator (or the BasicPiece) with its own raw type and state strings.

    `state` is None when the state chain ended before this trait (VASSAL then keeps defaults).
    """

    __slots__ = ("_properties", "fields", "prefix", "state", "type")
    PREFIXES: ClassVar[tuple[str, ...]] = ()
    DESCRIPTION: ClassVar[str] = "unknown trait"
    # The parsed own type and state, made on first read (`__getattr__`): a plain slot afterwards,
    # so the many later reads cost no property call.
    fields: dict[str, Any]

    def __init__(self, type_: str, state: str | None, prefix: str | None = None) -> None:
        self.type = type_
        self.state = state
        self.prefix = trait_prefix(type_) if prefix is None else prefix  # (given: already worked out)
        self._properties: dict[str, str] | None = None

    def __getattr__(self, name: str) -> Any:
        """Only for `fields` before its first read (Python asks here when the slot is empty)."""
        if name != "fields":
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        try:
            fields = self._parse()
        except (ValueError, IndexError):
            fields = {}  # malformed configuration: VASSAL falls back to defaults too
        self.fields = fields
        return fields

    def _parse(self) -> dict[str, Any]:
        return {}

    def _type_tokens(self) -> list[str]:
        """Own type as SE(';') without the prefix token."""
        return sequence.decode(self.type, ";")[1:]

    def properties(self) -> dict[str, str]:
        """Properties this trait answers in `getProperty` (outer traits shadow inner ones).

        Worked out once per trait and shared (a trait never changes, and equal trait texts share
        one Trait across the pieces of a save): callers read it, never modify it."""
        found = self._properties
        if found is None:
            found = self._properties = self._own_properties()
        return found

    def _own_properties(self) -> dict[str, str]:
        return {}

    def name(self, inner_name: str, lookup: Lookup | None = None) -> str:
        """`getName()` given the inner piece's name; most traits pass it through. `lookup` is the
        outermost piece's getProperty, for the traits whose names are formats (Text Label)."""
        return inner_name

    def with_state(self, state: str | None) -> Trait:
        """A copy of this trait with another own state (type untouched)."""
        return type(self)(self.type, state, self.prefix)

    def __repr__(self) -> str:
        preview = self.type if len(self.type) <= 40 else self.type[:37] + "..."
        return f"{type(self).__name__}({preview!r}, state={self.state!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Trait) and (self.type, self.state) == (other.type, other.state)

    def __hash__(self) -> int:
        return hash((self.type, self.state))


def _int_token(tokens: list[str], index: int, default: int) -> int:
    """`Decoder.nextInt(default)` of token `index`: missing or not a Java int gives the default.
    (The usual coordinate or count, up to nine ASCII digits, read at once: any such fits an int.)"""
    if index >= len(tokens):
        return default
    token = tokens[index]
    if token.isdigit() and token.isascii() and len(token) < 10:
        return int(token)
    return sequence.java_int(token, default)


class BasicPiece(Trait):
    """`piece;cloneKey;deleteKey;image;name`; state `map;x;y;gpid;n;k1;v1;…` (spec §5.2/§5.3)."""

    __slots__ = ()
    PREFIXES = ("piece;",)
    DESCRIPTION = "Basic Piece"

    def _parse(self) -> dict[str, Any]:
        # SequenceEncoder.Decoder read in order, on plain token lists (one per piece of a save:
        # no Decoder objects): a missing token gives the default, a bad number too (§4.2).
        kinds = sequence.decode(self.type, ";")
        kinds += [""] * (5 - len(kinds))
        result: dict[str, Any] = {
            "clone_key": kinds[1],
            "delete_key": kinds[2],
            "image": kinds[3],
            "name": kinds[4],
        }
        state = sequence.decode(self.state, ";")
        size = len(state)
        result["state_field_count"] = size
        map_id = state[0] if size else "null"
        result["map"] = None if map_id == "null" else map_id
        result["x"] = _int_token(state, 1, 0)
        result["y"] = _int_token(state, 2, 0)
        result["gpid"] = state[3] if size > 3 else ""
        count = _int_token(state, 4, 0)
        persistent: dict[str, str] = {}
        index = 5
        for _ in range(count):
            if index >= size:
                break
            persistent[state[index]] = state[index + 1] if index + 1 < size else ""
            index += 2
        result["persistent"] = persistent
        return result

    @staticmethod
    def encode_state(
        map_id: str | None,
        x: int,
        y: int,
        gpid: str,
        persistent: dict[str, str],
        field_count: int = 5,
    ) -> str:
        """BasicPiece.getState; `field_count` < 5 keeps pre-3.4 short states short when possible."""
        tokens = [map_id if map_id is not None else "null", str(x), str(y)]
        if field_count > 3 or gpid or persistent:
            tokens.append(gpid)
        if field_count > 4 or persistent:
            tokens.append(str(len(persistent)))
            for key, value in persistent.items():
                tokens.extend((key, value))
        return sequence.encode(tokens, ";") or ""

    def _own_properties(self) -> dict[str, str]:
        return dict(self.fields.get("persistent", {}))

    def name(self, inner_name: str, lookup: Lookup | None = None) -> str:
        """`BasicPiece.getName`: the outermost piece's `BasicName` property (a Basic Name trait
        outside answers it), this piece's own name only where nothing outside does."""
        found = lookup("BasicName") if lookup is not None else None
        return found if found is not None else self.fields.get("name", "")


class Marker(Trait):
    """`mark;` + SE(',') names; state SE(',') values in the same order (spec §5.2)."""

    __slots__ = ()
    PREFIXES = ("mark;",)
    DESCRIPTION = "Marker"

    def _parse(self) -> dict[str, Any]:
        names_field = self.type[len("mark;") :]
        names = [] if names_field in ("", "null") else sequence.decode(names_field, ",")
        values = sequence.decode(self.state, ",") if self.state else []
        values += [""] * (len(names) - len(values))
        return {"names": names, "values": values[: len(names)]}

    def _own_properties(self) -> dict[str, str]:
        fields = self.fields
        return dict(zip(fields.get("names", []), fields.get("values", []), strict=False))


_LAYER_FIELDS = (
    "activate_command",
    "activate_modifiers",
    "activate_key",
    "up_command",
    "up_modifiers",
    "up_key",
    "down_command",
    "down_modifiers",
    "down_key",
    "reset_command",
    "reset_key",
    "reset_level",
    "draw_underneath_when_selected",
    "x_offset",
    "y_offset",
    "images",
    "level_names",
    "loop_levels",
    "layer_name",
    "random_key",
    "random_text",
    "follow_property",
    "property_name",
    "first_level_value",
    "version",
    "always_active",
    "activate_named_key",
    "increase_named_key",
    "decrease_named_key",
    "description",
    "scale",
    "only_property_name",
    "only_property_state",
)


def _strip_plus(level_name: str) -> str:
    if level_name.startswith("+"):
        return level_name[1:]
    if level_name.endswith("+"):
        return level_name[:-1]
    return level_name


class Layer(Trait):
    """Embellishment "Layer" `emb2;` with its 33 type fields (spec §5.2); state = signed level.

    Value > 0: active at level `value` (1-based); < 0: inactive, remembering |value|.
    """

    __slots__ = ()
    PREFIXES = ("emb2;", "emb;")
    DESCRIPTION = "Layer"

    def _parse(self) -> dict[str, Any]:
        tokens = self._type_tokens()
        tokens += [""] * (len(_LAYER_FIELDS) - len(tokens))
        result: dict[str, Any] = dict(zip(_LAYER_FIELDS, tokens, strict=False))
        result["images"] = sequence.decode(result["images"], ",") if result["images"] else []
        result["level_names"] = sequence.decode(result["level_names"], ",") if result["level_names"] else []
        result["always_active"] = result["always_active"] == "true"
        # Old (2.x) layers write `value;…`: Embellishment reads only the first ';' token.
        first = sequence.first_token(self.state, ";") if self.state else ""
        parsed = sequence.java_parse_int(first)
        value = 1 if parsed is None else parsed  # nextInt(1): a bad token gives the default (§4.2)
        # §5.2: the value is clamped to +-(number of images); Java's image array has at least one
        # entry (`nextStringArray(1)`), so an empty image field still allows level +-1.
        count = max(1, len(result["images"]))
        result["value"] = max(-count, min(count, value))
        return result

    @property
    def layer_name(self) -> str:
        return self.fields.get("layer_name", "")

    @property
    def value(self) -> int:
        return self.fields.get("value", 1)

    @property
    def level_count(self) -> int:
        return max(len(self.fields.get("images", [])), len(self.fields.get("level_names", [])))

    @property
    def active(self) -> bool:
        return self.value > 0 or bool(self.fields.get("always_active"))

    def _level_index(self) -> int | None:
        value = abs(self.value)
        if not self.active or value == 0:
            return None
        return value - 1

    def level_name(self) -> str:
        """Current level's name with `+` markers stripped; "" when inactive (`_Name`)."""
        index = self._level_index()
        names = self.fields.get("level_names", [])
        if index is None or index >= len(names):
            return ""
        return _strip_plus(names[index])

    def _own_properties(self) -> dict[str, str]:
        name = self.layer_name
        index = self._level_index()
        images = self.fields.get("images", [])
        return {
            f"{name}_Level": str(self.value),
            f"{name}_Name": self.level_name(),
            f"{name}_Image": images[index] if index is not None and index < len(images) else "",
            f"{name}_Active": "true" if self.active else "false",
        }

    def name(self, inner_name: str, lookup: Lookup | None = None) -> str:
        index = self._level_index()
        names = self.fields.get("level_names", [])
        if index is None or index >= len(names) or not names[index]:
            return inner_name
        # Embellishment.getName splits the level name with SequenceEncoder on '+' (spec §5.2):
        # "+ text" appends, "text +" (any non-empty first part) prepends, no '+' replaces.
        parts = sequence.decode(names[index], "+")
        if len(parts) == 1:
            return parts[0]
        return inner_name + parts[1] if not parts[0] else parts[0] + inner_name

    def with_level(self, value: int) -> Layer:
        """Same layer at another signed level (clamped to ±levels like Embellishment.setValue)."""
        count = max(1, len(self.fields.get("images", [])))  # the same clamp as on read (§5.2)
        value = max(-count, min(count, value))
        suffix = self.state[self.state.index(";") :] if self.state and ";" in self.state else ""
        return Layer(self.type, f"{value}{suffix}")


_LABEL_FIELDS = (
    "label_key",
    "menu_command",
    "font_size",
    "text_bg",
    "text_fg",
    "vertical_pos",
    "vertical_offset",
    "horizontal_pos",
    "horizontal_offset",
    "vertical_just",
    "horizontal_just",
    "name_format",
    "font_family",
    "font_style",
    "rotate_degrees",
    "property_name",
    "description",
)


class Label(Trait):
    """Text Label `label;`; state = the label text; its name and its label are `$…$` formats.

    `Labeler`: the state is trimmed (String.trim) and `$<property name>$` removed from it; the
    label shown (and answered as the property) is that text evaluated as a format with
    `pieceName` = the inner piece's name; `getName()` is the inner name when the label is empty
    (unless `alwaysUseFormat`), else the name format with `pieceName` and `label` (a
    `$PieceName$` in the name format is read as `$pieceName$`, as VASSAL's `clean` does).
    """

    __slots__ = ()
    PREFIXES = ("label;",)
    DESCRIPTION = "Text Label"

    def _parse(self) -> dict[str, Any]:
        tokens = sequence.Decoder(self.type, ";")
        tokens.next_token("")
        result: dict[str, Any] = {}
        for key in _LABEL_FIELDS:
            # nextToken(default): the default only when the token is missing, not when it is empty
            if key == "name_format":
                value = tokens.next_token("$pieceName$ ($label$)")
                result[key] = value.replace("$PieceName$", "$pieceName$")
            elif key == "property_name":
                result[key] = tokens.next_token("TextLabel")
            else:
                result[key] = tokens.next_token("")
        result["always_use_format"] = tokens.next_token("false") == "true"
        label = (self.state or "").strip(_JAVA_WHITESPACE)
        marker = "$" + result["property_name"] + "$"
        while marker in label:  # setLabel: the label may not refer to itself
            label = label.replace(marker, "", 1)
        result["label"] = label
        return result

    @property
    def property_name(self) -> str:
        return self.fields.get("property_name", "TextLabel")

    @property
    def uses_formats(self) -> bool:
        """Whether the label or name format refers to properties beyond pieceName/label."""
        fields = self.fields
        if "$" in fields.get("label", ""):
            return True
        name_format = fields.get("name_format", "")
        if "$" not in name_format:
            return False
        tokens = sequence.decode(name_format, "$")
        return any(token not in ("", "pieceName", "label") for token in tokens[1:-1:2])

    def label_text(self, inner_name: str, lookup: Lookup | None = None) -> str:
        """`getLabel()`: the label evaluated as a format (`pieceName` = the inner piece's name)."""
        label = self.fields.get("label", "")
        return evaluate_format(label, {"pieceName": inner_name}, lookup) if "$" in label else label

    def _own_properties(self) -> dict[str, str]:
        return {self.property_name: self.label_text("")}

    def name(self, inner_name: str, lookup: Lookup | None = None) -> str:
        return self.name_given(inner_name, None, lookup)

    def name_given(self, inner_name: str, label: str | None, lookup: Lookup | None = None) -> str:
        """`name` with the label text already worked out (`label`; None: work it out)."""
        fields = self.fields
        if not fields.get("label", "") and not fields.get("always_use_format"):
            return inner_name
        if label is None:
            label = self.label_text(inner_name, lookup)
        name_format = fields.get("name_format", "$pieceName$ ($label$)")
        return evaluate_format(name_format, {"pieceName": inner_name, "label": label}, lookup)


class Mask(Trait):
    """Obscurable "Mask" `obs;`; state `obscuredBy;options` (spec §5.2)."""

    __slots__ = ()
    PREFIXES = ("obs;",)
    DESCRIPTION = "Mask"

    def _parse(self) -> dict[str, Any]:
        tokens = sequence.Decoder(self.type, ";")
        tokens.next_token("")
        keys = ("key", "mask_image", "menu_text", "display_style", "mask_name", "access", "peek_command")
        result: dict[str, Any] = {key: tokens.next_token("") for key in keys}
        if not result["mask_name"]:
            result["mask_name"] = "?"
        state = sequence.Decoder(self.state or "null", ";")
        obscured_by = state.next_token("null")
        result["obscured_by"] = None if obscured_by == "null" else obscured_by
        result["options"] = state.next_token("")
        return result

    @property
    def obscured_by(self) -> str | None:
        return self.fields.get("obscured_by")

    def name(self, inner_name: str, lookup: Lookup | None = None) -> str:
        # Masked "to you" is viewer-dependent; Adjutant has no viewer, so masked means masked.
        return self.fields.get("mask_name", "?") if self.obscured_by else inner_name


class Invisible(Trait):
    """Hideable "Invisible" `hide;`; state = hiddenBy or `null`."""

    __slots__ = ()
    PREFIXES = ("hide;",)
    DESCRIPTION = "Invisible"

    @property
    def hidden_by(self) -> str | None:
        state = self.state or "null"
        return None if state == "null" else state

    @property
    def access(self) -> str:
        """Who may see it hidden (`PieceAccessConfigurer`): `player:`, `side:` or `sides:A:B`; the type's
        fields are key, command, colour, access (an old trait without one is `player:`)."""
        tokens = self._type_tokens()
        return tokens[3] if len(tokens) > 3 else ""


class DynamicProperty(Trait):
    """`PROP;name;constraints;commands;description`; state = current value."""

    __slots__ = ()
    PREFIXES = ("PROP;",)
    DESCRIPTION = "Dynamic Property"

    def _parse(self) -> dict[str, Any]:
        tokens = sequence.Decoder(self.type, ";")
        tokens.next_token("")
        return {
            "name": tokens.next_token(""),
            "constraints": tokens.next_token(""),
            "commands": tokens.next_token(""),
            "description": tokens.next_token(""),
            "value": self.state or "",
        }

    def _own_properties(self) -> dict[str, str]:
        name = self.fields.get("name", "")
        return {name: self.state or ""} if name else {}


class Prototype(Trait):
    """UsePrototype `prototype;name[;parameters]` (expanded away in running games, spec §5.1)."""

    __slots__ = ()
    PREFIXES = ("prototype;",)
    DESCRIPTION = "Prototype"

    def _parse(self) -> dict[str, Any]:
        tokens = self._type_tokens()
        return {"name": tokens[0] if tokens else "", "parameters": tokens[1:]}


class SendToLocation(Trait):
    """`sendto;` — configuration only (state is trivial)."""

    __slots__ = ()
    PREFIXES = ("sendto;",)
    DESCRIPTION = "Send To Location"

    def _parse(self) -> dict[str, Any]:
        tokens = self._type_tokens()
        keys = ("command_name", "key", "map", "board", "x", "y")
        result: dict[str, Any] = dict(zip(keys, tokens + [""] * len(keys), strict=False))
        result["tokens"] = tokens
        return result


class PlaceMarker(Trait):
    """`placemark;` — command, key, marker definition (`+/null/type/state` or slot path), text, offsets."""

    __slots__ = ()
    PREFIXES = ("placemark;",)
    DESCRIPTION = "Place Marker"

    def _parse(self) -> dict[str, Any]:
        tokens = self._type_tokens()
        keys = ("command_name", "key", "marker_spec", "marker_text", "x_offset", "y_offset")
        result: dict[str, Any] = dict(zip(keys, tokens + [""] * len(keys), strict=False))
        result["tokens"] = tokens
        return result


class Replace(PlaceMarker):
    """`replace;` — a Place Marker that also deletes the original; same fields."""

    __slots__ = ()
    PREFIXES = ("replace;",)
    DESCRIPTION = "Replace With Other"


class ReturnToDeck(Trait):
    """`return;` — command, key, deck name (after the fixed/select fields)."""

    __slots__ = ()
    PREFIXES = ("return;",)
    DESCRIPTION = "Return to Deck"

    def _parse(self) -> dict[str, Any]:
        tokens = self._type_tokens()
        keys = ("command_name", "key", "deck_name", "select_prompt")
        result: dict[str, Any] = dict(zip(keys, tokens + [""] * len(keys), strict=False))
        result["tokens"] = tokens
        return result


class BasicNameTrait(Trait):
    """`basicName;name` (3.7 BasicName trait): answers the `BasicName` property for the traits
    outside it (and the piece); `getName()` passes the inner name through (`BasicName.java`)."""

    __slots__ = ()
    PREFIXES = ("basicName;",)
    DESCRIPTION = "Basic Name"

    def _parse(self) -> dict[str, Any]:
        tokens = self._type_tokens()
        return {"name": tokens[0] if tokens else ""}

    @property
    def basic_name(self) -> str:
        return self.fields.get("name", "")

    def _own_properties(self) -> dict[str, str]:
        return {"BasicName": self.basic_name}


class TranslatableMessage(Trait):
    """`locmsg;key;description;message` (VASSAL's TranslatableMessage): answers `key` with the
    message, a constant text (the translation a viewer's language picks is not read)."""

    __slots__ = ()
    PREFIXES = ("locmsg;",)
    DESCRIPTION = "Translatable Message"

    def _parse(self) -> dict[str, Any]:
        tokens = sequence.Decoder(self.type, ";")
        tokens.next_token("")
        return {"key": tokens.next_token("name"), "description": tokens.next_token(""),
                "message": tokens.next_token("")}

    def _own_properties(self) -> dict[str, str]:
        fields = self.fields
        return {fields.get("key", "name"): fields.get("message", "")}


class CalculatedProperty(Trait):
    """`calcProp;name;expression;description`: answers `name` with the expression's value, worked
    out when asked (`vassal_parser.expressions`); a name of "" answers nothing. Not in
    `properties()`: its value needs the whole piece, and is looked up only by formats."""

    __slots__ = ()
    PREFIXES = ("calcProp;",)
    DESCRIPTION = "Calculated Property"

    def _parse(self) -> dict[str, Any]:
        tokens = sequence.Decoder(self.type, ";")
        tokens.next_token("")
        return {"name": tokens.next_token(""), "expression": tokens.next_token(""),
                "description": tokens.next_token("")}

    @property
    def property_name(self) -> str:
        return self.fields.get("name", "")

    def value(self, lookup: Lookup) -> str | None:
        """The value VASSAL gives (its `tryEvaluate`: "" where the evaluation fails), or None
        where Adjutant cannot work it out (`expressions.Unsupported`). `lookup` raises
        `Unsupported` for a property whose value is unknown."""
        try:
            return expressions.evaluate(self.fields.get("expression", ""), lookup)
        except expressions.Failed:
            return ""
        except expressions.Unsupported:
            return None


TRAIT_CLASSES: dict[str, type[Trait]] = {
    prefix: cls
    for cls in (
        BasicPiece,
        Marker,
        Layer,
        Label,
        Mask,
        Invisible,
        DynamicProperty,
        Prototype,
        SendToLocation,
        PlaceMarker,
        Replace,
        ReturnToDeck,
        BasicNameTrait,
        TranslatableMessage,
        CalculatedProperty,
    )
    for prefix in cls.PREFIXES
}


# Why shared: a save repeats the same few trait texts thousands of times (PathsOfGlory: 54,002
# traits, 3,262 distinct (type, state) pairs; 844 pieces, 421 distinct type chains). Traits are
# never changed in place (`with_state` makes a new one), so equal texts can share one Trait and
# its parsed fields, and equal type chains one split. Bounded: emptied when full.
_TRAIT_CACHE_LIMIT = 1 << 16
_CHAIN_CACHE_LIMIT = 4096
_CHAIN_CHARS_LIMIT = 1 << 25  # 32 M characters of chain texts kept at most (they are the keys)
# own type -> own state -> Trait: one table per own type, so a chain looks its traits up with
# `map(dict.get, tables, states)` (no (type, state) tuple made or hashed per trait)
_traits_by_type: defaultdict[str, dict[str | None, Trait]] = defaultdict(dict)
_trait_count = [0]
# type chain text -> (own types, the trait table of each, its SharedOuter or None)
_type_chains: dict[str, tuple[list[str], list[dict[str | None, Trait]], SharedOuter | None]] = {}
# (where the text after a chain's last TAB starts, a few characters on either end of the text before
# it) -> (that chain, the own types and tables of every level but its innermost), kept from a chain
# proved to end in a level that is the whole text after its last TAB (see `_own_types`). A chain
# found here shares the levels when its text before the TAB is the same. Emptied with `_type_chains`,
# whose keys the chains kept here are.
_OUTER_ENDS = 96  # characters of each end of the text before the last TAB in an `_outer_levels` key


class SharedOuter:
    """The levels but the innermost of type chains alike up to their last TAB (`_own_types`): the
    chain they were split from, their own types and trait tables. One object names them: pieces.py
    keeps the outer traits of pieces by it, for pieces of other types with the same outer levels."""

    __slots__ = ("chain", "own_types", "tables")

    def __init__(self, chain: str, own_types: list[str], tables: list[dict[str | None, Trait]]) -> None:
        self.chain = chain
        self.own_types = own_types
        self.tables = tables


_outer_levels: dict[tuple[int, str, str], SharedOuter] = {}
_chain_chars = [0]


_per_type_tables: list[dict[str, Any]] = []  # other modules' tables keyed by type chain


def per_type_table() -> dict[Any, Any]:
    """A table keyed by type chain text (or what follows from it) that `forget_shared_traits`
    empties with the chain table (what one chain's traits are for, computed once: pieces.py's
    property profile)."""
    table: dict[Any, Any] = {}
    _per_type_tables.append(table)
    return table


def forget_shared_traits() -> None:
    """Empty the shared trait and chain tables, and commands.py's table of AddPiece types
    (benchmarks time cold decodes with it), and the compiled Calculated Property expressions."""
    commands.forget_add_piece_types()
    expressions.forget_compiled()
    _traits_by_type.clear()
    _trait_count[0] = 0
    _type_chains.clear()
    _outer_levels.clear()
    _chain_chars[0] = 0
    for table in _per_type_tables:
        table.clear()


def _new_trait(table: dict[str | None, Trait], own_type: str, own_state: str | None) -> Trait:
    if _trait_count[0] >= _TRAIT_CACHE_LIMIT:  # full: start again (chains hold the old tables)
        forget_shared_traits()
    prefix = trait_prefix(own_type)
    trait = TRAIT_CLASSES.get(prefix, Trait)(own_type, own_state, prefix)
    table[own_state] = trait
    _trait_count[0] += 1
    return trait


def make_trait(own_type: str, own_state: str | None) -> Trait:
    """The Trait for one own type and state (shared between equal texts, see `_traits_by_type`)."""
    table = _traits_by_type[own_type]
    trait = table.get(own_state)
    return trait if trait is not None else _new_trait(table, own_type, own_state)


def shared_outer(type_string: str) -> SharedOuter | None:
    """The outer levels a type chain shares with the chains alike up to its last TAB: its own types
    are theirs and the whole text after that TAB (`_own_types`). None when that is not proved."""
    return _own_types(type_string)[2]


def _own_types(type_string: str) -> tuple[list[str], list[dict[str | None, Trait]], SharedOuter | None]:
    """The own type of every trait of a chain, outermost first, and each one's trait table (one
    split per distinct chain, and none for a chain that differs from an earlier one only after
    its last TAB).

    Why the second: a big save's type chains are mostly one of a few outer chains around their
    own BasicPiece type (ForThePeople: 529 chains, 187 texts up to the last TAB). The split of a
    chain depends on the text after its last TAB only where that text is its innermost level,
    whole (`_split_levels_and_tail` proves it): the backslash runs deciding every level are
    before it, and a token not starting with a quote is read as it is. So another chain with the
    same text up to that TAB and such a tail has the earlier one's outer levels and its own tail."""
    found = _type_chains.get(type_string)
    if found is None:
        if len(_type_chains) >= _CHAIN_CACHE_LIMIT or _chain_chars[0] > _CHAIN_CHARS_LIMIT:
            _type_chains.clear()
            _outer_levels.clear()
            _chain_chars[0] = 0
        cut = type_string.rfind(TAB) + 1
        key = tail = None
        if cut and type_string[cut : cut + 1] != "'":
            # Looked up by the ends only (no copy or hash of the whole text before the TAB), the
            # text itself compared on a match, in C.
            key = (cut, type_string[: min(cut, _OUTER_ENDS)], type_string[max(0, cut - _OUTER_ENDS) : cut])
        outer = _outer_levels.get(key) if key is not None else None  # type: ignore[arg-type]
        if outer is not None and outer.chain.startswith(type_string[:cut]):
            tail = type_string[cut:]
            own_types = [*outer.own_types, tail]
            tables = [*outer.tables, _traits_by_type[tail]]
        else:
            split, whole_tail = _split_levels_and_tail(type_string, None, False)
            own_types = split if split is not None else _split_levels_slowly(type_string, None, False)
            # each own type's table, made where new (the defaultdict's lookup, in C)
            tables = list(map(_traits_by_type.__getitem__, own_types))
            if whole_tail and key is not None and outer is None:
                outer = _outer_levels[key] = SharedOuter(type_string, own_types[:-1], tables[:-1])
            else:
                outer = None  # not proved, or another chain's (alike at the ends only)
        found = _type_chains[type_string] = (own_types, tables, outer)
        _chain_chars[0] += len(type_string)
    return found


def _unquote(token: str) -> str:
    return token[1:-1] if len(token) > 1 and token[0] == "'" and token[-1] == "'" else token


def _strip_escapes(segment: str, count: int) -> str:
    """`segment` (text before a TAB) with up to `count` of the backslashes ending it removed:
    one TAB-unescaping level per removal, for one TAB."""
    if count <= 0 or not segment.endswith("\\"):
        return segment
    if segment.endswith("\\" * count):
        return segment[:-count]
    return segment.rstrip("\\")


def _join_region(segments: list[str], first: int, last: int, end_trim: int, removals: int) -> str:
    """Text of segments[first..last] (TAB-joined), `removals` escape levels taken off each inner TAB,
    and `end_trim` characters (the backslashes of a TAB outside the region) off the end."""
    tail = segments[last]
    if end_trim:
        tail = tail[: len(tail) - end_trim]
    if first == last:
        return tail
    parts = [_strip_escapes(segments[index], removals) for index in range(first, last)]
    parts.append(tail)
    return "\t".join(parts)


# A TAB and the backslashes after it, in a reversed chain text: the run that escapes that TAB.
_TAB_RUN_REVERSED = re.compile(r"\t\\*")
# TAB k of a usual chain is escaped by exactly k backslashes: the suffix each segment must end
# with and the slice that cuts it off (tables; longer chains build theirs).
_RUN_TABLE = 512
_RUNS = ["\\" * level for level in range(_RUN_TABLE + 1)]
_CUTS = [slice(None, -level or None) for level in range(_RUN_TABLE + 1)]


def _usual_levels(text: str, segments: list[str]) -> list[str] | None:
    """The own tokens when `segments` (`text` split on TAB) are a usual chain — segment k ends in
    exactly k backslashes, which escape TAB k — else None. The caller has ruled out quotes.

    Why `removesuffix`: one cheap C call per level (`endswith` parses its arguments the slow way)
    both cuts segment k's k backslashes off and tests that it ends in them: a segment that does
    not comes back whole, and the lengths no longer add up. A run longer than k leaves its token
    ending in a backslash before its TAB, looked for in the tokens joined. Both proofs are O(n)
    and in C. Beyond the tables the suffixes are built only when the segments hold enough
    characters for them (linear, even for a hostile file of a million plain TABs)."""
    tabs = len(segments) - 1
    if tabs <= _RUN_TABLE:
        runs = _RUNS
    else:
        if len(text) - tabs < tabs * (tabs - 1) // 2:
            return None
        runs = ["\\" * level for level in range(tabs + 1)]
    # The last TAB first, O(1): a chain with TABs inside own tokens has more TABs than levels, so
    # that TAB's run is short of its index (every walked chain of the corpus), and is rejected
    # before anything is cut or tested per level.
    if not segments[tabs - 1].endswith(runs[tabs - 1]) or segments[tabs - 1].endswith(runs[tabs]):
        return None
    own = list(map(str.removesuffix, segments, runs[:tabs]))
    own.append(segments[tabs])  # innermost: no TAB after it, nothing to cut
    inner = TAB.join(own)
    if len(inner) + tabs * (tabs - 1) // 2 != len(text) or "\\\t" in inner:
        return None
    return own


def _split_levels(text: str, max_levels: int | None, raw_innermost: bool) -> list[str] | None:
    """`_split_levels_and_tail`'s own tokens."""
    return _split_levels_and_tail(text, max_levels, raw_innermost)[0]


_QUOTE_LOOKS = 16  # quotes looked at one by one; after that many, the rest of the text is searched


def _quote_starts_a_token(text: str) -> bool:
    """Whether a token starts with a quote: the text does, or a quote follows a TAB.

    Why quote by quote: a chain holds few quotes (Almoravid: at most 9 a chain, 757 in 286),
    each found by the one-character search, the fastest; the two-character search for TAB and
    quote reads every character several times slower (5 instructions each), and a `startswith`
    per segment costs more still. Bounded: past a few quotes the rest is searched whole."""
    at = text.find("'")
    for _ in range(_QUOTE_LOOKS):
        if at <= 0:
            return at == 0
        if text[at - 1] == TAB:
            return True
        at = text.find("'", at + 1)
    return at >= 0 and text.find("\t'", at - 1) >= 0


def _split_levels_and_tail(text: str, max_levels: int | None,
                           raw_innermost: bool) -> tuple[list[str] | None, bool]:
    """All own tokens of a TAB chain in one pass (O(n)), or None when a quote pair makes the
    level-by-level Java decode differ from this shortcut (then the caller decodes slowly).

    Level k of the chain is `text` with k backslashes removed before every TAB; its separator is
    the first TAB whose backslash run is exactly k; a TAB with a shorter run ends the chain
    (Java ignores tokens after the second). `raw_innermost`: the last level is taken as-is
    (Decorator.setState hands it over undecoded) instead of as decoded token 0.

    Speed: one split on TAB (a C pass); the usual chain is then proved and cut with no Python
    work per level (`_usual_levels`). Any other unquoted one is walked TAB by TAB, each judged
    against its level by one cut (`_walk_unquoted`); a quoted one has every TAB's backslash run
    read by one regex pass in C and is walked (`_walk_levels`), plain stretches at a time.

    With them, whether the innermost token is the text after the last TAB, whole, for any such
    text not starting with a quote (what `_own_types` shares outer levels by): a usual chain's
    always is, as its levels are proved from the segments before it; a walked unquoted chain's is
    when its last level starts after the last TAB (`_walk_unquoted`), the levels being decided by
    the backslash runs alone. False where it is not known (quoted chains).
    """
    segments = text.split("\t")
    quoted = _quote_starts_a_token(text)
    count = len(segments)
    if count > 1 and not quoted and (max_levels is None or count <= max_levels):
        # The usual chain: no own token holds a TAB or starts with a quote, so level k's
        # separator is TAB k; the innermost segment is then the whole last level, raw or decoded.
        own = _usual_levels(text, segments)
        if own is not None:
            return own, True
    if not quoted and raw_innermost == (max_levels is not None):  # a type chain, or a state chain
        return _walk_unquoted(segments, max_levels)
    # Every TAB's backslash run, read from the reversed text, where each run starts with its TAB:
    # a literal the regex engine finds with a fast search, so this is one C pass.
    runs = _TAB_RUN_REVERSED.findall(text[::-1])
    runs.reverse()
    backslashes = list(map(sub, map(len, runs), repeat(1)))  # before TAB i, which ends segments[i]
    return _walk_levels(segments, backslashes, max_levels, raw_innermost, quoted), False


class _DeepRuns(dict[int, str]):
    """Runs of backslashes by length, built when asked and not kept: the runs of a chain deeper
    than the tables (each as long as the input it must match, so no more than linear work)."""

    def __missing__(self, level: int) -> str:
        return "\\" * level


_DEEP_RUNS = _DeepRuns()


def _walk_unquoted(segments: list[str], max_levels: int | None) -> tuple[list[str], bool]:
    """`_walk_levels` for a chain with no token starting with a quote: a type chain (`max_levels`
    None) or a state chain (its innermost level raw). Also says whether the last level is the
    last segment alone, as it stands (not raw: then taken as it is; see `_split_levels_and_tail`).

    Why apart: with no quotes to take off, the separators follow from the runs alone — level k's
    is the first TAB after level k-1's whose run is exactly k, and the first TAB whose run is
    shorter ends the chain — and each own token is one slice, or, when TABs lie inside it (their
    runs longer than k), its segments joined and k + 1 backslashes taken off before each of those
    TABs by one `replace` (every such TAB carries at least k + 1, so the pattern matches once per
    TAB, at its end).

    Why TAB by TAB, and no run counted: each TAB is judged against the level only, by cutting
    the level's run off the segment before it (`removesuffix`, a cheap C call): not cut, the run
    is shorter (the chain ends); cut and still ending in a backslash, longer (a TAB inside the
    level's own token); else it is the separator, and the cut segment the own token when no TAB
    lies inside it. Counting every run instead reads every backslash, a quarter of a deep chain's
    text (Almoravid: 445 K of 1.8 M characters; by regex, reversed text and per-run strings, 49 M
    instructions of the 127 M its 161 walked chains cost). Cutting plain stretches in C instead
    (a window at a time, or the rest of the chain proved at once) did not pay: the cut, a copy,
    is most of a step's cost either way."""
    last_level = -1 if max_levels is None else max_levels - 1
    own: list[str] = []
    append = own.append
    tabs = end_seg = len(segments) - 1  # the last level's text ends in this segment, `end_trim` chars early
    end_trim = 0
    level = 0
    first = 0  # the level's text starts at segments[first]
    suffix = ""  # the level's run
    runs = _RUNS if tabs < len(_RUNS) else _DEEP_RUNS  # (a level is at most the TABs before it)
    if last_level:
        for index in range(tabs):
            segment = segments[index]
            cut = segment.removesuffix(suffix)
            if level and len(cut) == len(segment):  # a shorter run (not cut): the chain ends
                end_seg, end_trim = index, len(segment) - len(segment.rstrip("\\"))
                break
            if cut and cut[-1] == "\\":  # a longer run: a TAB inside this level's own token
                continue
            if first != index:  # TABs inside: the segments joined, level + 1 backslashes off each
                parts = segments[first:index]
                parts.append(cut)
                cut = TAB.join(parts).replace(suffix + "\\\t", TAB)
            append(cut)
            level += 1
            first = index + 1
            if level == last_level:
                break
            suffix = runs[level]
    raw = level == last_level
    if raw:  # Decorator.setState hands the innermost token 1 of the level above, whole: it ends
        # at the first TAB with a shorter run than the level's, a segment not ending in that run
        suffix = "\\" * level
        shorter = next(compress(count(first), map(not_, map(
            str.endswith, islice(segments, first, end_seg), repeat(suffix)))), None)
        if shorter is not None:
            end_seg = shorter
            end_trim = len(segments[shorter]) - len(segments[shorter].rstrip("\\"))
    token = segments[end_seg] if first == end_seg else TAB.join(segments[first : end_seg + 1])
    if end_trim:
        token = token[: len(token) - end_trim]
    removals = level if raw else level + 1
    if first != end_seg and removals:
        token = token.replace("\\" * removals + TAB, TAB)
    append(token if raw else _unquote(token))
    return own, not raw and first == end_seg == len(segments) - 1


def _walk_levels(segments: list[str], backslashes: list[int], max_levels: int | None,
                 raw_innermost: bool, quoted: bool) -> list[str] | None:
    """`_split_levels` for a chain that is not the usual one: some own token holds a TAB, or
    (`quoted`) a token starts with a quote. None where a quote pair shifts the levels (the
    caller then decodes level by level).

    Why stretches: chains with TABs inside a few tokens (a trigger's or a global key command's
    lists, level 9 of a 200-deep chain) are usual everywhere else. Runs of plain levels — TAB
    `index + j` carrying exactly `level + j` backslashes — last up to the next TAB whose run is
    not its predecessor's plus one (those TABs found once, in C; a stretch is one bisection) and
    are cut in one C pass each; only the levels holding TABs take the TAB-by-TAB walk. With
    quotes every level is walked, as each may need its quotes taken off."""
    own: list[str] = []
    append = own.append
    found = len(backslashes)
    end_seg = found  # the level's text ends in this segment, `end_trim` chars early
    end_trim = 0
    index = 0  # the next TAB to look at; the level's text starts at segments[index]
    level = 0
    last_level = -1 if max_levels is None else max_levels - 1
    # Where the runs stop counting up by one (TAB j's run is not TAB j-1's plus one), in C: a
    # plain stretch from TAB `index` lasts up to the next such TAB.
    breaks = [] if quoted else list(compress(range(1, found), map(
        ne, map(sub, islice(backslashes, 1, None), backslashes), repeat(1))))
    while True:
        room = end_seg - index if last_level < 0 else min(end_seg - index, last_level - level)
        stretch = 0
        if room > 0 and not quoted and backslashes[index] == level:
            following = bisect_right(breaks, index)
            stretch = min(room, (breaks[following] if following < len(breaks) else found) - index)
        if stretch:
            own.extend(map(getitem, segments[index : index + stretch], _cuts(level, stretch)))
            index += stretch
            level += stretch
        first = index
        if raw_innermost and level == last_level:
            # Decorator.setState hands the innermost trait token 1 of the level above, whole: it
            # ends only at a TAB unescaped at an outer level (fewer backslashes than this level)
            while index < end_seg:
                run = backslashes[index]
                index += 1
                if run < level:
                    end_seg, end_trim = index - 1, run
                    break
            append(_join_region(segments, first, end_seg, end_trim, level))
            return own
        separator = -1
        while index < end_seg:
            run = backslashes[index]
            index += 1
            if run > level:
                continue  # a TAB inside this level's own token
            if run == level:
                separator = index - 1
                break
            # a TAB escaped fewer times: unescaped at an outer level, the chain ends here
            end_seg = index - 1
            end_trim = run
            break
        if separator < 0 or level == last_level:
            append(_unquote(_join_region(segments, first, end_seg, end_trim, level + 1)))
            return own
        if separator == first:  # no TAB inside the own token: one slice
            token = segments[separator]
            if level:
                token = token[: len(token) - level]
        else:
            token = _join_region(segments, first, separator, level, level + 1)
        append(_unquote(token) if quoted else token)
        index = separator + 1
        # token 1 of this level is the rest, up to the next TAB unescaped here (a run of at most
        # `level`); Java unquotes it when it is '…' — rare, and it shifts every inner level, so
        # that case is left to the level-by-level decode.
        if quoted and segments[index][:1] == "'":
            stop = next((tab for tab in range(index, end_seg) if backslashes[tab] <= level), end_seg)
            rest = _join_region(segments, index, stop, backslashes[stop] if stop < end_seg else end_trim, 0)
            if len(rest) > 1 and rest[-1] == "'":
                return None
        level += 1


def _cuts(level: int, count: int) -> list[slice]:
    """The slices cutting level, level + 1, … backslashes off `count` segments' ends."""
    end = level + count
    return _CUTS[level:end] if end <= len(_CUTS) else [slice(None, -cut or None) for cut in range(level, end)]


def _split_levels_slowly(text: str, max_levels: int | None, raw_innermost: bool) -> list[str]:
    own: list[str] = []
    rest = text
    while True:
        if max_levels is not None and len(own) == max_levels - 1 and raw_innermost:
            own.append(rest)
            return own
        tokens = sequence.decode(rest, TAB, 2)
        if len(tokens) < 2:
            own.append(tokens[0])
            return own
        own.append(tokens[0])
        rest = tokens[1]


def decode_chain(type_string: str, state_string: str | None) -> list[Trait]:
    """Split a piece's type/state into traits exactly like BasicCommandEncoder.createPiece and
    Decorator.setState: token 0 is this trait's own part, token 1 the whole inner chain, further
    tokens ignored. The innermost state is passed through undecoded (as VASSAL does).

    One linear pass per string (see `_split_levels`): decoding level by level costs
    O(length x depth), which is seconds for a Cattlesquat save's 200-deep, 70 KB pieces.
    """
    own_types, tables, _ = _own_types(type_string)
    count = len(own_types)
    if state_string is None:
        return _shared_chain(own_types, tables, [None] * count)
    own_states: list[str | None] = _split_levels(state_string, count, True)  # type: ignore[assignment]
    if own_states is None:
        own_states = _split_levels_slowly(state_string, count, True)  # type: ignore[assignment]
    if len(own_states) < count:
        own_states += [None] * (count - len(own_states))
    return _shared_chain(own_types, tables, own_states)


def _shared_chain(own_types: list[str], tables: list[dict[str | None, Trait]],
                  own_states: list[str | None]) -> list[Trait]:
    """The Trait of every (own type, own state): one lookup pass in C, a new Trait for the rest
    (in a big save most traits of a chain are already in the tables)."""
    chain = list(map(dict.get, tables, own_states))
    for index in list(compress(range(len(chain)), map(is_, chain, repeat(None)))):  # misses, in C
        chain[index] = _new_trait(tables[index], own_types[index], own_states[index])
    return chain  # type: ignore[return-value]


def decode_chain_slowly(type_string: str, state_string: str | None) -> list[Trait]:
    """Reference decode, literally level by level with the SequenceEncoder (tests compare)."""
    own_types: list[str] = []
    rest = type_string
    while True:
        tokens = sequence.decode(rest, TAB, 2)
        own_types.append(tokens[0])
        if len(tokens) < 2:
            break
        rest = tokens[1]
    own_states: list[str | None] = []
    rest_state = state_string
    last = len(own_types) - 1
    for index in range(len(own_types)):
        if rest_state is None:
            own_states.append(None)
            continue
        if index == last:
            own_states.append(rest_state)
            break
        tokens = sequence.decode(rest_state, TAB, 2)
        own_states.append(tokens[0])
        rest_state = tokens[1] if len(tokens) > 1 else None
    return [make_trait(own, state) for own, state in zip(own_types, own_states, strict=True)]


def _needs_slow_encode(tokens: list[str | None]) -> bool:
    return any(token is None or token[:1] in ("\\", "'") for token in tokens)


def _fold_fast(tokens: list[str]) -> str:
    """Decorator.getType/getState in one pass: the own token at depth k is escaped k+1 times
    (the innermost k times) and the separator after depth k carries k backslashes.

    Equivalent to folding SequenceEncoders from the inside out, without re-escaping the whole
    accumulated string at every level (O(length x depth) for deep chains).
    """
    last = len(tokens) - 1
    parts: list[str] = []
    for depth, token in enumerate(tokens):
        escapes = depth + 1 if depth < last else depth
        if escapes and TAB in token:
            token = token.replace(TAB, "\\" * escapes + TAB)
        parts.append(token)
        if depth < last:
            parts.append("\\" * depth + TAB)
    return "".join(parts)


def encode_type_chain(traits: list[Trait]) -> str:
    """Decorator.getType folded from the innermost outwards (iteratively)."""
    if not traits:
        return ""
    tokens = [trait.type for trait in traits]
    outer_quoted = tokens[0][:1] == "'" and tokens[0][-1:] == "'"
    if not _needs_slow_encode(tokens[1:]) and not tokens[0].startswith("\\") and not outer_quoted:
        return _fold_fast(tokens)
    encoded = traits[-1].type
    for trait in reversed(traits[:-1]):
        encoded = sequence.encode([trait.type, encoded], TAB) or ""
    return encoded


def encode_state_chain(traits: list[Trait]) -> str | None:
    """Decorator.getState folded from the innermost outwards; None if no trait has a state."""
    if not traits:
        return None
    states = [trait.state for trait in traits]
    if not _needs_slow_encode(states):
        return _fold_fast(states)  # type: ignore[arg-type]
    encoded = traits[-1].state
    for trait in reversed(traits[:-1]):
        if encoded is None:
            encoded = None if trait.state is None else sequence.encode([trait.state], TAB)
        else:
            encoded = sequence.encode([trait.state, encoded], TAB)
    return encoded


def encode_chain(traits: list[Trait]) -> tuple[str, str | None]:
    return encode_type_chain(traits), encode_state_chain(traits)


def never_stacks(trait: Trait) -> bool:
    """`Immobilized` ("Does not stack", `immob;select;move;stacking;description`): Properties.NO_STACK
    unless the stacking option starts with `L` (stack normally); a missing option means never stack.

    Why here: the reader (where VASSAL's merge puts a moved piece) and the writer (how it rebuilds stacks)
    must agree on it."""
    if trait.prefix != "immob;":
        return False
    tokens = sequence.decode(trait.type, ";")
    stacking = tokens[3] if len(tokens) > 3 else "R"
    return not stacking.startswith("L")
