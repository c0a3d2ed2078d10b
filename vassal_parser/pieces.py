"""Pieces, stacks and decks as VASSAL stores them in AddPiece commands (spec §5).

Why over 500 lines: Piece, Stack and Deck share one lazy decode and the per-kind profile cache
(`_ChainProfile`) that keeps a 5,000-piece save cheap; moving the containers away would part that cache
from its only users.

Why separate from traits.py: a Piece is what the game layer (`game.py`) and the rules care
about — id, name, where it is, its properties — while traits.py only knows how strings nest.
Trait chains stay undecoded until a caller asks for something that needs them; `moved_to` /
`with_state` change only the traits they must and re-encode, so untouched traits keep their
exact bytes (the writer and the demo tooling rely on that).

Public API:
    make_piece(piece_id, type_string, state_string) -> Piece | Stack | Deck
    piece_from_command(command) -> Piece | Stack | Deck        (an `add_piece` Command)
    Piece: id, type_string(), state_string(), strings(), traits, basic, basic_name, piece_name,
        map, x, y, where, gpid, persistent, properties(), hidden_by, masked_by, layers(), layer(name),
        moved_to(map, x, y) -> Piece, with_state(...) -> Piece, add_command() -> Command
    Stack: id, map, x, y, member_ids (bottom first), layer, state_string(), with_members(ids)
    Deck: id, name, map, x, y, face_down, member_ids (bottom first), state_string()
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import compress

from vassal_parser import sequence
from vassal_parser.commands import Command, add_piece_command
from vassal_parser.expressions import Unsupported
from vassal_parser.traits import (
    BasicNameTrait,
    BasicPiece,
    CalculatedProperty,
    DynamicProperty,
    Invisible,
    Label,
    Layer,
    Marker,
    Mask,
    Trait,
    TranslatableMessage,
    decode_chain,
    encode_chain,
    per_type_table,
    shared_outer,
)

# traits answering getProperty (spec §5.5)
_PROPERTY_TRAITS = (Marker, Layer, DynamicProperty, Label, BasicNameTrait, TranslatableMessage, BasicPiece)
_ANSWERING_TRAITS = frozenset(_PROPERTY_TRAITS)  # exact classes: a subclass would need its own entry
# traits a format's lookup asks as well, whose values are worked out only then (an expression)
_LOOKED_UP_TRAITS = (*_PROPERTY_TRAITS, CalculatedProperty)
_NAMING_TRAITS = frozenset((BasicPiece, Layer, Label, Mask))  # the classes whose getName() is their own
_PROFILES = per_type_table()  # type chain text -> _ChainProfile
_PROFILES_LIMIT = 4096
# the traits' classes -> their profile (emptied with the others: a cold read makes its own)
_PROFILES_BY_CLASSES: dict[tuple[type, ...], _ChainProfile] = per_type_table()
# type chain text -> {state text up to the BasicPiece's own state: (outer traits, BasicPiece own type,
# its class and prefix)}
_OUTER_CHAINS = per_type_table()
_OUTER_LIMITS = (8192, 8_000_000)  # at most this many kinds, and characters of state text in their keys
_outer_size = [0, 0]  # (of both tables)
# the outer levels of type chains alike up to their last TAB (traits.SharedOuter) -> {state text up to
# the BasicPiece's own state: the outer traits}: kinds for pieces of another type with those levels
_KINDS_BY_OUTER = per_type_table()
# `sequence.java_int`'s own table of the tokens it has read (only its answers: a stale or emptied
# table costs a call of it, never another answer). Looked up here first: a 5,000-piece first read
# reads 10,000 coordinates, and the call around the lookup was ~4.5 M instructions of it.
_KNOWN_INTS: dict[str, int] = sequence.KNOWN_INTS
_BASIC_PREFIX = BasicPiece.PREFIXES[0]  # "piece;": the own type of a BasicPiece starts so
# a format naming itself (a label's $PieceName$…) stops here, as VASSAL's RecursionLimiter stops at 50
# nested evaluations (each level here is two of VASSAL's and ~25 Python frames: kept well inside)
_NAME_DEPTH = 16
# lookups one piece's names may make in all (Calculated Properties naming others): linear, capped
_LOOKUP_BUDGET = 4096


class _ChainProfile:
    """Where the traits `properties`, `hidden_by` and `masked_by` read stand in a chain.

    Why: a trait's class follows from its own type alone, so every piece of one type chain has
    the same classes at the same places; walking 50-200 traits per piece to find the dozen that
    answer properties was most of `properties`' cost in a big save. Made from the first piece of
    a type chain, used for every piece of that chain with as many traits."""

    __slots__ = ("answering", "basic_names", "invisibles", "labels", "length", "looked_up", "masks", "namers")

    def __init__(self, traits: list[Trait]) -> None:
        self.length = len(traits)
        self.answering: list[int] = []
        self.namers: list[int] = []
        self.labels: list[int] = []
        self.basic_names: list[int] = []
        self.invisibles: list[int] = []
        self.masks: list[int] = []
        self.looked_up: list[int] = []  # instances of the property traits (`_Evaluation.lookup`)
        # Each trait's flags by its class, in C; Python looks only at the few traits with any.
        flags = list(map(_KIND_FLAGS.get, map(type, traits)))
        if None in flags:  # a class not seen before
            for index, kind in enumerate(map(type, traits)):
                if flags[index] is None:
                    flags[index] = _KIND_FLAGS[kind] = _kind_flags(kind)
        for index in compress(range(len(flags)), flags):
            found = flags[index]
            if found & _ANSWERS:
                self.answering.append(index)
            if found & _NAMES:
                self.namers.append(index)
            if found & _LABEL:
                self.labels.append(index)
            if found & _BASIC_NAME and not self.basic_names:
                self.basic_names.append(index)
            if found & _HIDES:
                self.invisibles.append(index)
            if found & _MASKS:
                self.masks.append(index)
            if found & _LOOKED_UP:
                self.looked_up.append(index)


_ANSWERS, _NAMES, _LABEL, _BASIC_NAME, _HIDES, _MASKS, _LOOKED_UP = (1 << bit for bit in range(7))
_KIND_FLAGS: dict[type, int] = {}  # trait class -> what a chain profile records of it


def _kind_flags(kind: type) -> int:
    return ((_ANSWERS if kind in _ANSWERING_TRAITS else 0) | (_NAMES if kind in _NAMING_TRAITS else 0)
            | (_LABEL if kind is Label else 0) | (_BASIC_NAME if kind is BasicNameTrait else 0)
            | (_HIDES if issubclass(kind, Invisible) else 0) | (_MASKS if issubclass(kind, Mask) else 0)
            | (_LOOKED_UP if issubclass(kind, _LOOKED_UP_TRAITS) else 0))


def _profile_of(type_string: str, traits: list[Trait]) -> _ChainProfile:
    profile = _PROFILES.get(type_string)
    if profile is None or profile.length != len(traits):
        # A profile follows from the traits' classes alone, and a save's chains have far fewer
        # sequences of classes than texts (ForThePeople: 529 chains around a few outer ones):
        # found by that sequence, a tuple of class pointers (hashed without reading any text).
        classes = tuple(map(type, traits))
        profile = _PROFILES_BY_CLASSES.get(classes)
        if profile is None:
            profile = _ChainProfile(traits)
            if len(_PROFILES_BY_CLASSES) >= _PROFILES_LIMIT:
                _PROFILES_BY_CLASSES.clear()
            _PROFILES_BY_CLASSES[classes] = profile
        if len(_PROFILES) >= _PROFILES_LIMIT:
            _PROFILES.clear()
        _PROFILES[type_string] = profile
    return profile



def _learn_kind(piece_type: str, prefix: str, kind: tuple) -> None:
    """Keep a kind found through its outer levels (`Piece._kind_by_outer`) under the piece's own
    type as well, as `_remember_kind` keeps a decoded one: a save's pieces of one new type then
    take their kind from one lookup, not the outer levels' each time (the daemon's cold plan of
    5,000 never-seen pieces: 4,834 of them were of a few such types)."""
    if not _kinds_full(len(prefix)):  # full: `_remember_kind` empties the tables when it next learns one
        _keep_kind(_OUTER_CHAINS, piece_type, prefix, kind)


def _kinds_full(characters: int) -> bool:
    """Would `characters` more of state text pass the kind tables' bounds (`_OUTER_LIMITS`)?"""
    if not _OUTER_CHAINS and not _KINDS_BY_OUTER:  # emptied with the shared trait tables
        _outer_size[0] = _outer_size[1] = 0
    return _outer_size[0] >= _OUTER_LIMITS[0] or _outer_size[1] + characters > _OUTER_LIMITS[1]


def _keep_kind(table: dict, key: object, prefix: str, value: object) -> None:
    """`table[key][prefix] = value` unless already there, counted against `_OUTER_LIMITS`."""
    kinds = table.get(key)
    if kinds is None:
        kinds = table[key] = {}
    if prefix not in kinds:
        kinds[prefix] = value
        _outer_size[0] += 1
        _outer_size[1] += len(prefix)

class Piece:
    """A game piece: an id plus a trait chain (outermost first, BasicPiece last)."""

    __slots__ = ("_kind_of", "_state", "_traits", "_type", "_unplaced", "_where", "id")

    def __init__(self, piece_id: str | None, type_string: str, state_string: str | None) -> None:
        self.id = piece_id
        self._type = type_string
        self._state = state_string
        self._traits: list[Trait] | None = None
        self._where: tuple[str | None, int, int] | None = None
        self._unplaced: tuple | None = None  # set with _where (`_read_basic`)
        # A piece of a kind decoded before (`_known_kind_where`): that kind's outer traits, until
        # its chain is first asked for (most pieces of a big save never are).
        self._kind_of: tuple | None = None

    @classmethod
    def from_traits(cls, piece_id: str | None, traits: list[Trait]) -> Piece:
        type_string, state_string = encode_chain(traits)
        piece = cls(piece_id, type_string, state_string)
        piece._traits = list(traits)
        return piece

    # -- raw strings -----------------------------------------------------------------------
    def type_string(self) -> str:
        return self._type

    def state_string(self) -> str:
        return self._state or ""

    def strings(self) -> tuple[str | None, str, str | None]:
        """(id, type, state) exactly as given — a missing state stays None, unlike `state_string()`:
        everything the piece's traits and properties are computed from (the game memo's key)."""
        return self.id, self._type, self._state

    def add_command(self) -> Command:
        """The `+/id/type/state` command that recreates this piece."""
        return add_piece_command(self.id, self._type, self.state_string())

    # -- traits ----------------------------------------------------------------------------
    @property
    def traits(self) -> list[Trait]:
        traits = self._traits
        if traits is None:
            traits = self._known_kind_chain()
            if traits is None:
                traits = self._traits = decode_chain(self._type, self._state)
        return traits

    def _known_kind_where(self) -> bool:
        """`where` and `unplaced_key` of a piece whose kind was decoded before (`_remember_kind`),
        without a decode; False when this piece is not of a known kind.

        Why it is the decode's answer: the state is (text up to and including its last TAB) + a
        BasicPiece state holding no TAB, backslash or quote. Such a tail changes nothing in how the
        levels outside it split (it holds no separator, no escape, no quote to take off), so every
        outer trait's own state comes from the text before it alone, and the tail is the innermost
        state, whole, as `Decorator.setState` hands it over — provided the earlier piece this kind
        was learnt from had every TAB of its state separating two levels (`_read_basic`: as many
        TABs as levels below the first, its full decode ending in its non-empty tail), so that the
        innermost token starts after the last TAB and runs to the end. This piece's outer traits
        are that piece's, and its BasicPiece is its own tail's (`_known_kind_chain`, when asked).
        A big save's pieces of one kind differ only there (where they stand), so most of a first
        read's pieces cost one table lookup and the split of their tail, not a chain."""
        state = self._state
        if state is None:
            return False
        kinds = _OUTER_CHAINS.get(self._type)
        by_outer = None
        if kinds is None:
            # a type not seen before: kinds of other types with its outer levels, if any (looked
            # up before the state's text is cut and hashed)
            by_outer = _KINDS_BY_OUTER.get(shared_outer(self._type)) if _KINDS_BY_OUTER else None
            if by_outer is None:
                return False
        cut = state.rfind("\t") + 1
        prefix = state[:cut]
        if kinds is not None:
            known = kinds.get(prefix)
        else:
            known = self._kind_by_outer(by_outer, prefix)  # type: ignore[arg-type]
            if known is not None:
                _learn_kind(self._type, prefix, known)  # the next piece of this type: one lookup
        if known is None:
            return False
        tail = state[cut:]
        if "\\" in tail or "'" in tail:
            return False
        self._kind_of = known
        self._where_from(tail, self._type, prefix)  # its hash is known now
        return True

    def _kind_by_outer(self, kinds: dict[str, list[Trait]], prefix: str) -> tuple | None:
        """The kind of a piece whose type is another's but after its last TAB: a piece learnt with
        the same outer levels (`traits.shared_outer`: `kinds` are theirs) and state text up to its
        last TAB.

        Why it is the decode's answer: this type's own types are those outer levels and the whole
        text after its last TAB, so its outer traits are those of the same own types and states —
        the other piece's, whose state up to its last TAB is this one's (see `_known_kind_where`:
        as many levels, so that text splits the same) — and its innermost is its own tail type,
        read as a BasicPiece when it is one. ForThePeople: 599 pieces of 529 types, 328 kinds of
        outer levels and state text."""
        traits = kinds.get(prefix)
        if traits is None:
            return None
        basic_type = self._type[self._type.rfind("\t") + 1 :]
        if not basic_type.startswith(_BASIC_PREFIX):
            return None
        return (traits, basic_type, BasicPiece, _BASIC_PREFIX)

    def _known_kind_chain(self) -> list[Trait] | None:
        """The chain of a piece of a known kind (`_known_kind_where`): the kind's outer traits and
        a BasicPiece of this piece's own tail (made, not looked up: a BasicPiece state is where the
        piece stands, rarely another's)."""
        if self._kind_of is None and not self._known_kind_where():
            return None
        outer, basic_type, basic_class, basic_prefix = self._kind_of  # type: ignore[misc]
        state: str = self._state  # type: ignore[assignment]
        chain = outer.copy()
        chain.append(basic_class(basic_type, state[state.rfind("\t") + 1:], basic_prefix))
        self._traits = chain
        return chain

    def _remember_kind(self, traits: list[Trait], prefix: str) -> None:
        """Keep this piece's outer traits for later pieces of its kind (see `_known_kind_chain`):
        called once its BasicPiece state is proved to be its state's whole plain tail after `prefix`
        (see `_read_basic`)."""
        if prefix in _OUTER_CHAINS.get(self._type, ()):
            return
        if _kinds_full(2 * len(prefix)):
            _OUTER_CHAINS.clear()
            _KINDS_BY_OUTER.clear()
            _outer_size[0] = _outer_size[1] = 0
        basic = traits[-1]
        outer_traits = traits[:-1]
        _keep_kind(_OUTER_CHAINS, self._type, prefix, (outer_traits, basic.type, type(basic), basic.prefix))
        outer = shared_outer(self._type)
        if outer is not None:  # for pieces of other types with these outer levels
            _keep_kind(_KINDS_BY_OUTER, outer, prefix, outer_traits)

    @property
    def basic(self) -> BasicPiece | None:
        last = self.traits[-1]
        return last if isinstance(last, BasicPiece) else None

    def _basic_field(self, key: str, default: object) -> object:
        basic = self.basic
        return basic.fields.get(key, default) if basic is not None else default

    @property
    def basic_name(self) -> str:
        return str(self._basic_field("name", ""))

    @property
    def map(self) -> str | None:
        value = self._basic_field("map", None)
        return value if isinstance(value, str) else None

    @property
    def x(self) -> int:
        return int(self._basic_field("x", 0))  # type: ignore[arg-type]

    @property
    def y(self) -> int:
        return int(self._basic_field("y", 0))  # type: ignore[arg-type]

    @property
    def where(self) -> tuple[str | None, int, int]:
        """(map, x, y) of the BasicPiece state, worked out once: replay asks for it many times.

        Why not through `fields`: parsing the whole BasicPiece (its type and every state token)
        for three tokens was the largest per-piece cost of a first read; a state without escapes
        or quotes splits on `;` as the SequenceEncoder does (`sequence.decode`'s own shortcut)."""
        where = self._where
        if where is None:
            if self._traits is not None or self._kind_of is not None or not self._known_kind_where():
                self._read_basic()
            where = self._where
        return where  # type: ignore[return-value]

    def unplaced_key(self) -> tuple | None:
        """Everything `properties(ids=False)`, `hidden_by` and `masked_by` are computed from, except
        the BasicPiece's map and x, y: pieces of one type differing only in where they stand share
        it. None when there is no such key (the BasicPiece's state is not a plain tail of the state
        string). Pieces whose names read the map (`uses_formats`) share the key but not the names:
        the caller checks that.

        Why the key is the text: the chain's traits are decoded from (type, state); the BasicPiece's
        own state is the innermost level, taken raw, and when it holds no TAB, backslash or quote it
        changes nothing in how the levels outside it split, so equal (type, state before it) give
        equal outer traits. Its tokens after x, y (gpid, persistent properties) are in the key too."""
        if self._where is None:
            self._read_basic()
        return self._unplaced

    def _read_basic(self) -> None:
        """`where` and `unplaced_key` from one look at the BasicPiece's own state."""
        traits = self._traits
        if traits is None:
            if self._kind_of is None and self._known_kind_where():
                return  # a piece of a known kind: its chain waits until asked for
            traits = self.traits
        basic = traits[-1]
        own = basic.state if isinstance(basic, BasicPiece) else None
        self._unplaced = None
        if own is None or "\\" in own or "'" in own:
            self._where = (self.map, self.x, self.y)
            return
        state = self._state
        if type(basic) is BasicPiece and state is not None and "\t" not in own and state.endswith(own):
            prefix = state[: len(state) - len(own)]
            self._where_from(own, self._type, prefix)
            # The BasicPiece state is the text after the last TAB, whole, when every TAB of the state
            # separates two levels (as many TABs as levels below the first): a TAB inside a token
            # or one that ends token 1 early ("x\tabc\tabc": "abc" twice) makes it no proof; an
            # empty BasicPiece state is left out as well.
            if own and state.count("\t") == len(traits) - 1:
                self._remember_kind(traits, prefix)
        else:
            self._where_from(own, None, "")

    def _where_from(self, own: str, type_string: str | None, prefix: str) -> None:
        """`_where` from a BasicPiece state holding no backslash or quote (then `;` splits it as the
        SequenceEncoder does), and `_unplaced` when it is the plain tail of the state after `prefix`
        (`type_string` given)."""
        tokens = own.split(";", 3)
        map_id = tokens[0]
        count = len(tokens)
        if count > 2:
            # the usual x and y: read before (a save repeats a few thousand at most), one lookup
            x = _KNOWN_INTS.get(tokens[1])
            if x is None:
                x = sequence.java_int(tokens[1], 0)
            y = _KNOWN_INTS.get(tokens[2])
            if y is None:
                y = sequence.java_int(tokens[2], 0)
        else:
            x, y = sequence.java_int(tokens[1], 0) if count > 1 else 0, 0
        self._where = (None if map_id == "null" else map_id, x, y)
        self._unplaced = None if type_string is None else (
            type_string, prefix, count, tokens[3] if count > 3 else "")

    def uses_formats(self) -> bool:
        """Whether a Text Label's name or label reads properties beyond its own (then the names
        depend on where the piece is: `$LocationName$`...)."""
        traits = self.traits
        return any(traits[index].uses_formats for index in _profile_of(self._type, traits).labels)  # type: ignore[attr-defined]

    @property
    def gpid(self) -> str:
        return str(self._basic_field("gpid", ""))

    @property
    def persistent(self) -> dict[str, str]:
        return dict(self._basic_field("persistent", {}))  # type: ignore[call-overload]

    @property
    def basic_name_property(self) -> str:
        """The `BasicName` property: the outermost Basic Name trait's name, else the BasicPiece's."""
        for trait in self.traits:
            if type(trait) is BasicNameTrait:
                return trait.basic_name
        return self.basic_name

    @property
    def piece_name(self) -> str:
        """`PieceName` (spec §5.5): the outermost trait's getName(), built from the inside out;
        name formats that need the map (`$LocationName$`…) need `name_in(context)`."""
        return self.name_in(None)

    def name_in(self, context: Callable[[str], str | None] | None) -> str:
        """`PieceName` with `context` answering what the piece's traits do not (map, zone, module)."""
        traits = self.traits
        profile = _profile_of(self._type, traits)
        if self.uses_formats():
            return _Evaluation(traits, context, profile.looked_up).name_of(0)
        return _chain_name([traits[index] for index in profile.namers], self.basic_name_property)

    def properties(self, context: Callable[[str], str | None] | None = None,
                   ids: bool = True) -> dict[str, str]:
        """VASSAL-derived properties (spec §5.5); like getProperty, outer traits shadow inner ones.

        Includes BasicName (a Basic Name trait's, else the BasicPiece's), PieceName, Marker values,
        Layer `_Level/_Name/_Image/_Active`, DynamicProperty values, Text Label properties (the
        label evaluated as a format) and persistent BasicPiece properties (OldLocationName,
        UniqueID…). Map-derived ones (CurrentZone, LocationName) need the module: the game layer
        passes them as `context`, which name and label formats may refer to.

        The chain is 50-200 traits deep in big modules: the traits that answer properties, the
        ones that change the name and the first Basic Name trait are found by the chain's
        profile (`_ChainProfile`), not by a walk. `ids=False` leaves out PieceUID/UniqueID (the
        piece's id), for a table shared by pieces of one type.
        """
        traits = self.traits
        profile = _profile_of(self._type, traits)
        formats = any(traits[index].uses_formats for index in profile.labels)  # type: ignore[attr-defined]
        return self._properties_of(traits, profile, formats, context, ids)

    def kind_facts(self) -> tuple[dict[str, str], str | None, str | None] | None:
        """(`properties(ids=False)`, `hidden_by`, `masked_by`), or None when the names read where
        the piece stands (`uses_formats`): what every piece of its `unplaced_key` shares.

        Why one call: the game layer asks this once for each kind of a save (Almoravid: 484 kinds
        of 589 pieces), and the four separate calls looked up the chain and its profile five times."""
        traits = self.traits
        profile = _profile_of(self._type, traits)
        if any(traits[index].uses_formats for index in profile.labels):  # type: ignore[attr-defined]
            return None
        hidden = next((traits[index].hidden_by for index in profile.invisibles  # type: ignore[attr-defined]
                       if traits[index].hidden_by), None)  # type: ignore[attr-defined]
        masked = next((traits[index].obscured_by for index in profile.masks  # type: ignore[attr-defined]
                       if traits[index].obscured_by), None)  # type: ignore[attr-defined]
        return self._properties_of(traits, profile, False, None, False), hidden, masked

    def _properties_of(self, traits: list[Trait], profile: _ChainProfile, formats: bool,
                       context: Callable[[str], str | None] | None, ids: bool) -> dict[str, str]:
        """`properties` of this piece's chain and its profile (`formats`: `uses_formats`)."""
        answering = [traits[index] for index in profile.answering]
        namers = [traits[index] for index in profile.namers]
        basic_name = traits[profile.basic_names[0]].basic_name if profile.basic_names else None  # type: ignore[attr-defined]
        result: dict[str, str] = {}
        if formats:
            evaluation = _Evaluation(traits, context, profile.looked_up)
            for index in profile.answering:  # the traits of an exact _ANSWERING_TRAITS class, in order
                trait = traits[index]
                if type(trait) is Label:
                    result.setdefault(trait.property_name, evaluation.label_of(index))
                else:
                    for key, value in trait.properties().items():
                        result.setdefault(key, value)
            piece_name = evaluation.name_of(0)
        else:
            # outer traits shadow inner ones: merged from the innermost out, one C update each
            for trait in reversed(answering):
                result.update(trait.properties())
            piece_name = _chain_name(namers, basic_name if basic_name is not None else self.basic_name)
        result["BasicName"] = basic_name if basic_name is not None else self.basic_name
        result["PieceName"] = piece_name
        if ids and self.id is not None:
            result.setdefault("PieceUID", self.id)
            result.setdefault("UniqueID", self.id)
        return result

    @property
    def hidden_by(self) -> str | None:
        traits = self.traits
        found = (traits[index] for index in _profile_of(self._type, traits).invisibles)
        return next((trait.hidden_by for trait in found if trait.hidden_by), None)  # type: ignore[attr-defined]

    @property
    def masked_by(self) -> str | None:
        traits = self.traits
        found = (traits[index] for index in _profile_of(self._type, traits).masks)
        return next((trait.obscured_by for trait in found if trait.obscured_by), None)  # type: ignore[attr-defined]

    def layers(self) -> list[Layer]:
        return [trait for trait in self.traits if isinstance(trait, Layer)]

    def layer(self, layer_name: str) -> Layer | None:
        return next((layer for layer in self.layers() if layer.layer_name == layer_name), None)

    # -- changing state ----------------------------------------------------------------------
    def with_state(
        self,
        *,
        map: str | object | None = ...,
        x: int | None = None,
        y: int | None = None,
        persistent: Mapping[str, str] | None = None,
        layer_levels: Mapping[str, int] | None = None,
        markers: Mapping[str, str] | None = None,
        dynamic: Mapping[str, str] | None = None,
    ) -> Piece:
        """A new Piece with some state changed; untouched traits keep their exact strings.

        `map=None` means "not on a map" (written `null`); leave `map` out to keep it.
        `persistent` entries are merged into the BasicPiece's persistent properties.
        """
        traits = list(self.traits)
        for index, trait in enumerate(traits):
            if layer_levels and isinstance(trait, Layer) and trait.layer_name in layer_levels:
                traits[index] = trait.with_level(layer_levels[trait.layer_name])
            elif markers and isinstance(trait, Marker):
                names, values = trait.fields["names"], list(trait.fields["values"])
                if any(name in markers for name in names):
                    values = [markers.get(name, value) for name, value in zip(names, values, strict=True)]
                    traits[index] = trait.with_state(sequence.encode(values, ",") or "")
            elif dynamic and isinstance(trait, DynamicProperty) and trait.fields.get("name") in dynamic:
                traits[index] = trait.with_state(dynamic[trait.fields["name"]])
        basic = traits[-1]
        if isinstance(basic, BasicPiece) and (map is not ... or x is not None or y is not None or persistent):
            fields = basic.fields
            merged = dict(fields["persistent"])
            if persistent:
                merged.update(persistent)
            new_state = BasicPiece.encode_state(
                fields["map"] if map is ... else map,  # type: ignore[arg-type]
                fields["x"] if x is None else x,
                fields["y"] if y is None else y,
                fields["gpid"],
                merged,
                fields["state_field_count"],
            )
            traits[-1] = basic.with_state(new_state)
        return Piece.from_traits(self.id, traits)

    def moved_to(self, map_id: str | None, x: int, y: int) -> Piece:
        return self.with_state(map=map_id, x=x, y=y)

    def __repr__(self) -> str:
        return f"Piece({self.id!r}, {self.basic_name!r})"


class Stack:
    """`stack` AddPiece; state `map;x;y;id1;…;idN;@@layer`, members bottom first (spec §5.4)."""

    __slots__ = ("_state", "id", "layer", "map", "member_ids", "x", "y")
    type_string_value = "stack"

    def __init__(self, piece_id: str | None, state_string: str) -> None:
        self.id = piece_id
        self._state = state_string
        tokens = sequence.decode(state_string, ";")
        map_id = tokens[0] if tokens else "null"
        self.map = None if map_id == "null" else map_id
        rest = tokens[1:]
        self.x = self.y = 0
        if self.map is not None:
            # Stack.setState reads x;y only when the map is known; with `null` they are read as ids.
            self.x = _int(rest[0]) if rest else 0
            self.y = _int(rest[1]) if len(rest) > 1 else 0
            rest = rest[2:]
        self.layer: int | None = None
        self.member_ids: list[str] = []
        for token in rest:
            if token.startswith("@@"):
                self.layer = _int(token[2:])
            elif token:
                self.member_ids.append(token)

    def type_string(self) -> str:
        return "stack"

    def state_string(self) -> str:
        return self._state

    def with_members(self, member_ids: list[str], map_id: str | None = None, x: int = 0, y: int = 0) -> Stack:
        tokens = [map_id or "null", str(x), str(y), *member_ids]
        if self.layer is not None:
            tokens.append(f"@@{self.layer}")
        return Stack(self.id, sequence.encode(tokens, ";") or "")

    def add_command(self) -> Command:
        return add_piece_command(self.id, "stack", self._state)

    def __repr__(self) -> str:
        return f"Stack({self.id!r}, map={self.map!r}, members={len(self.member_ids)})"


class Deck:
    """`deck;…` AddPiece: name is type field 13; state `map;x;y;faceDown;ids` (spec §5.4)."""

    __slots__ = ("_state", "_type", "face_down", "id", "map", "member_ids", "name", "x", "y")

    def __init__(self, piece_id: str | None, type_string: str, state_string: str) -> None:
        self.id = piece_id
        self._type = type_string
        self._state = state_string
        type_tokens = sequence.decode(type_string, ";")
        self.name = type_tokens[13] if len(type_tokens) > 13 else ""
        tokens = sequence.Decoder(state_string, ";")
        map_id = tokens.next_token("null")
        self.map = None if map_id == "null" else map_id
        self.x = tokens.next_int(0)
        self.y = tokens.next_int(0)
        self.face_down = tokens.next_token("false") == "true"
        ids_field = tokens.next_token("")
        self.member_ids = [token for token in sequence.decode(ids_field, ",") if token] if ids_field else []

    def type_string(self) -> str:
        return self._type

    def state_string(self) -> str:
        return self._state

    def add_command(self) -> Command:
        return add_piece_command(self.id, self._type, self._state)

    def __repr__(self) -> str:
        return f"Deck({self.id!r}, {self.name!r}, members={len(self.member_ids)})"


class _Evaluation:
    """One piece's `getProperty`/`getName` while its name or label formats are evaluated.

    Why a class: a Text Label's format may ask for any property of the outermost piece, including
    another label, a Calculated Property (whose expression asks for more) or `PieceName` itself;
    names of the inner chains and the properties asked are worked out once per evaluation (the
    piece does not change meanwhile), so the work is linear in the properties named. A
    self-reference stops at `_NAME_DEPTH` (VASSAL's RecursionLimiter reports an infinite loop
    there; we answer ""), and one evaluation makes at most `_LOOKUP_BUDGET` lookups.
    `unknown` holds the names whose value Adjutant cannot work out (an expression it does not
    read): a format leaves them as VASSAL leaves a name no one answers, and an expression naming
    one is unknown too.
    """

    __slots__ = ("answers", "budget", "context", "depth", "labels", "looked_up", "names", "table", "traits",
                 "unknown")

    def __init__(self, traits: list[Trait], context: Callable[[str], str | None] | None,
                 looked_up: list[int]) -> None:
        self.traits = traits
        self.looked_up = looked_up  # the indexes of the traits `lookup` asks (its chain's profile)
        self.context = context
        self.depth = 0
        self.budget = _LOOKUP_BUDGET
        self.names: dict[int, str] = {}
        self.labels: dict[int, str] = {}  # `label_of`
        self.answers: dict[str, str | None] = {}
        self.table: dict[str, tuple[int, str | None]] | None = None  # `_answer_table`, made when first asked
        self.unknown: set[str] = set()

    def name_of(self, index: int) -> str:
        """getName() of the chain from trait `index` inwards ("" below the BasicPiece)."""
        if index in self.names:
            return self.names[index]
        if self.depth > _NAME_DEPTH:
            return ""
        self.depth += 1
        try:
            name = ""
            traits = self.traits
            for position in range(len(traits) - 1, index - 1, -1):
                known = self.names.get(position)
                if known is not None:
                    name = known
                    continue
                trait = traits[position]
                if type(trait) is Label:  # its label text, once per evaluation (`label_of`)
                    self.names[position + 1] = name
                    name = trait.name_given(name, self.label_of(position), self.lookup)  # type: ignore[attr-defined]
                else:
                    name = trait.name(name, self.lookup)
            self.names[index] = name
            return name
        finally:
            self.depth -= 1

    def label_of(self, index: int) -> str:
        """The label text of the Text Label at `index` (its `pieceName` the name inside it)."""
        found = self.labels.get(index)
        if found is None:
            trait = self.traits[index]
            found = self.labels[index] = trait.label_text(self.name_of(index + 1), self.lookup)  # type: ignore[attr-defined]
        return found

    def lookup(self, key: str) -> str | None:
        """The outermost piece's getProperty(key): traits outside in, then BasicPiece, then context."""
        answers = self.answers
        if key in answers:
            return answers[key]
        if self.depth > _NAME_DEPTH or self.budget <= 0:
            self.unknown.add(key)  # VASSAL's own cap is deeper (RecursionLimiter: 50): not known here
            return None
        self.depth += 1
        self.budget -= 1
        try:
            value = self._answer(key)
        finally:
            self.depth -= 1
        answers[key] = value
        return value

    def _answer(self, key: str) -> str | None:
        table = self.table
        if table is None:
            table = self.table = self._answer_table()
        found = table.get(key)
        if found is not None:
            index, value = found
            if index < 0:  # a plain trait's property (a Marker value...)
                return value
            trait = self.traits[index]
            if type(trait) is Label:
                return self.label_of(index)
            value = trait.value(self.known)  # type: ignore[attr-defined]  # a Calculated Property
            if value is None:
                self.unknown.add(key)
            return value
        if key == "PieceName":
            return self.name_of(0)
        if key == "BasicName":
            basic = self.traits[-1]
            return basic.fields.get("name", "") if isinstance(basic, BasicPiece) else ""
        return self.context(key) if self.context is not None else None

    def _answer_table(self) -> dict[str, tuple[int, str | None]]:
        """Which trait answers each name, the outermost one: (-1, value) for a plain property, (its
        index, None) for a Text Label or Calculated Property (worked out when asked). Why: a
        piece of 200 traits asked for dozens of names would walk them all for each."""
        table: dict[str, tuple[int, str | None]] = {}
        traits = self.traits
        for index in reversed(self.looked_up):  # innermost first: outer ones overwrite
            trait = traits[index]
            kind = type(trait)
            if kind is Label or kind is CalculatedProperty:
                name = trait.property_name  # type: ignore[attr-defined]
                if name:
                    table[name] = (index, None)
            else:
                for name, value in trait.properties().items():
                    table[name] = (-1, value)
        return table

    def known(self, key: str) -> str | None:
        """`lookup` for an expression: a name whose value is unknown makes the expression unknown."""
        value = self.lookup(key)
        if value is None and key in self.unknown:
            raise Unsupported(f"the value of {key} is unknown")
        return value


def _chain_name(namers: list[Trait], basic_name: str) -> str:
    """getName() of the outermost trait, from the inside out. The BasicPiece's own getName() is
    the outermost piece's `BasicName` property (`BasicPiece.getName`), so a Basic Name trait names
    the piece even though the BasicPiece's own name field is empty (VASSAL 3.7 modules)."""
    name = ""
    for trait in reversed(namers):
        name = basic_name if type(trait) is BasicPiece else trait.name(name)
    return name


def _int(text: str) -> int:
    """Integer.parseInt of a trimmed token, 0 where Java would throw (also for out-of-range).

    Read through `java_int`, whose table keeps short answers: a big save's stacks repeat a few
    hundred coordinates and `@@-1` layers (Almoravid: 1,502 stacks, where the sign made every
    `@@-1` take the parse's slow path)."""
    return sequence.java_int(text.strip(), 0)


def make_piece(piece_id: str | None, type_string: str, state_string: str | None) -> Piece | Stack | Deck:
    """The right object for an AddPiece's type (`stack`, `deck;…`, else a trait chain)."""
    if type_string == "stack":
        return Stack(piece_id, state_string or "")
    if type_string.startswith("deck;"):
        return Deck(piece_id, type_string, state_string or "")
    return Piece(piece_id, type_string, state_string)


def piece_from_command(command: Command) -> Piece | Stack | Deck:
    if command.kind != "add_piece":
        raise ValueError(f"not an AddPiece command: {command!r}")
    fields = command.fields
    return make_piece(fields["id"], fields["type"], fields["state"])
