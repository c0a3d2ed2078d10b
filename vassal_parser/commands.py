"""The ESC command tree of a saved game or log (spec §3), decoded exactly like
`GameModule.decode` and encoded back byte-identically.

Why over 500 lines: decoding, encoding and the command builders are one format: the fast range decoder sits
beside the slow reference (`_decode_node_slowly`) it must match byte for byte, and the builders
(`add_piece_command`, `move_piece_command`, ...) write exactly what the decoder reads back.

Why a tree and not a list: nesting is expressed by backslash counts before ESC; splitting on raw
ESC (as pywargame does) breaks names holding delimiters. We keep every token — including empty
ones VASSAL drops — so `encode_stream(decode_stream(text)) == text` for VASSAL-written streams.
Decoding is iterative (explicit stack): Cattlesquat saves nest deep and Python's recursion
limit must never be the thing that fails.

Public API:
    ESC
    decode_stream(text) -> CommandTree
    encode_stream(tree_or_node) -> str
    iter_commands(node, unwrap_log=False) -> Iterator[Command]   (pre-order = execution order)
    split_log(tree) -> (restore: list[Command], steps: list[list[Command]])
    Command (leaf): text, kind, fields (dict, parsed lazily), inner (LOG payload tree)
    CommandGroup (composite): children
    CommandTree(CommandGroup): source
    add_piece_command(id, type, state), change_piece_command(id, new, old=None),
    move_piece_command(...), remove_piece_command(id), leaf_command(text)
    add_piece_strings(text) -> (id, type, state)   (an AddPiece's fields, no dict)
    COMMAND_KINDS
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from itertools import accumulate, chain, compress, repeat
from operator import add, getitem, ne, sub
from typing import Any

from vassal_parser import sequence

ESC = "\x1b"
_BACKSLASH = "\\"
TAB = "\t"
LOG_PREFIX = "LOG\t"

# (prefix, kind) tried in order; longer prefixes first where one is a prefix of another.
_PREFIXES: tuple[tuple[str, str], ...] = (
    ("+/", "add_piece"),
    ("-/", "remove_piece"),
    ("D/", "change_piece"),
    ("M/", "move_piece"),
    ("LOG\t", "log"),
    ("CHAT", "chat"),
    ("PLAYER\t", "player"),
    ("PYREMOVE\t", "player_remove"),
    ("UNMASK\t", "unmask"),
    ("SETUP_STACK\t", "setup_stack"),
    ("GlobalProperty\t", "global_property"),
    ("MutableProperty\t", "mutable_property"),
    ("NOTES\t", "notes"),
    ("PNOTES\t", "public_notes"),
    ("PNOTE\t", "private_note"),
    ("SNOTE\t", "secret_note"),
    ("SHOW_RESULTS\t", "show_results"),
    ("SEMAIL\t", "internet_dice"),
    ("EXT\t", "extension"),
    ("PLUGIN\t", "plugin"),
    ("Events", "events"),
    ("LOS\t", "los"),
    ("FLARE\t", "flare"),
    ("CLOCKCONTROL\t", "clock_control"),
    ("CLOCK\t", "clock"),
    ("SGKC\t", "startup_gkc"),
    ("LOCKSPOTAB\t", "scenario_tab_lock"),
    ("UNDO\t", "undo"),
    ("AUDIO\t", "audio"),
    ("CHECK\t", "version_check"),  # VASSAL 2.x ConditionalCommand encoder (old saves)
    ("TURN", "turn"),
)
_EXACT = {"": "null", "begin_save": "begin_save", "end_save": "end_save"}

COMMAND_KINDS: tuple[str, ...] = (
    *_EXACT.values(),
    *(kind for _, kind in _PREFIXES),
    "board_picker",
    "unknown",
)


_EXACT_LONGEST = max(map(len, _EXACT))
# The first four prefixes (two characters each; `_classify` tries them first and no exact command
# starts with one): a lookup of a command's first two characters gives `_classify`'s kind.
_PIECE_KINDS = dict(_PREFIXES[:4])


def _classify(text: str) -> str:
    # (the length test first: a dict lookup would hash the whole 20-70 KB text of an AddPiece)
    exact = _EXACT.get(text) if len(text) <= _EXACT_LONGEST else None
    if exact is not None:
        return exact
    for prefix, kind in _PREFIXES:
        if text.startswith(prefix):
            return kind
    head = sequence.first_token(text, TAB) if TAB in text else ""
    if head.endswith("BoardPicker"):
        return "board_picker"
    return "unknown"


def _null(value: str) -> str | None:
    return None if value == "null" else value


def _tab_fields(text: str, prefix: str) -> list[str]:
    return sequence.decode(text[len(prefix) :], TAB)


def _notes_text(encoded: str) -> str:
    # Note N (spec §3.4): lines joined by TextConfigurer.escapeNewlines as a pipe SE.
    return "\n".join(sequence.decode(encoded, "|"))


def _first_slash_tokens(text: str, start: int, count: int) -> list[str]:
    """`SequenceEncoder.Decoder(text[start:], '/')`'s first `count` tokens, without splitting the rest.

    Why: an AddPiece is `+/id/type/state` where type and state hold thousands of escaped `\\/`
    (image paths). Every escaped `\\/` is masked in one `str.replace` (to two characters that are
    not `/`, so positions stay), then the unescaped slashes are plain `str.find`s, and each token
    is unescaped by one `str.replace` — the same answer as the general decoder (a `/` after a
    backslash is escaped, that backslash dropped; `'…'` unquoted), which tests check.
    """
    tokens: list[str] = []
    masked = text.replace("\\/", "\\\\") if "\\/" in text else text
    position = start
    end = len(text)
    while len(tokens) < count:
        if position == end and tokens:
            tokens.append("")  # a trailing delimiter leaves one empty token
            break
        found = masked.find("/", position)
        stop = end if found < 0 else found
        token = text[position:stop]
        if "\\/" in token:
            token = token.replace("\\/", "/")
        if len(token) > 1 and token[0] == "'" and token[-1] == "'":
            token = token[1:-1]
        tokens.append(token)
        if found < 0:
            break
        position = stop + 1
    return tokens


def add_piece_strings(text: str) -> tuple[str | None, str, str]:
    """(id, type, state) of `+/id/type/state`: the first three tokens `_first_slash_tokens(text, 2, 3)`
    gives (missing ones empty), the id `null` read as None.

    The usual shape is found with no copy of the 20-70 KB text but the tokens themselves: the id
    ends at the first `/`, the state starts after the last unescaped `/` (a state holds few
    slashes), and the type between them is looked up by its length and ends (`_types_by_ends`),
    else split on `/` (a C pass): when every piece but the last ends in a backslash, every slash in it is
    escaped, and dropping those backslashes is its unescaping (`_without_escaped_slashes`). The
    two-character searches of `str.replace` cost several times the one-character split on these
    texts. One function, one tuple: 5,000 short AddPieces of a big save are read at a first save.

    With no backslash in the text (half the corpus's AddPieces, every one of the benchmark's
    never-seen save) nothing is escaped: the decoder's tokens are the parts of a plain split on
    `/` (the fourth part the state: anything after a further slash is a token no one reads), each
    unquoted as the decoder does; such a type is not looked up (its text is its token).

    A tuple, not `Command.fields`' dict: the replay of a file's restore reads each AddPiece's
    strings once (vassal_parser.game's `_Board._add_all`), and builds no dict for them."""
    if _BACKSLASH not in text:
        parts = text.split("/", 4)
        if len(parts) < 4:
            parts += ("", "")
        piece_id, type_token, state = parts[1], parts[2], parts[3]
        if "'" in text:
            piece_id, type_token, state = _unquote(piece_id), _unquote(type_token), _unquote(state)
        return None if piece_id == "null" else piece_id, type_token, state
    id_end = text.find("/", 2)
    if id_end > 0 and text[id_end - 1] != "\\":
        separator = text.rfind("/")
        while separator > id_end and text[separator - 1] == "\\":
            separator = text.rfind("/", id_end + 1, separator)
        if separator > id_end:
            start = id_end + 1
            key = (separator - start, text[start : min(separator, start + _TYPE_ENDS)],
                   text[max(start, separator - _TYPE_ENDS) : separator])
            known = _types_by_ends.get(key)
            if known is not None and text.startswith(known[0], start):  # as long: the same text
                type_token = known[1]
            else:
                raw_type = text[start:separator]
                type_token = _unescaped_type(raw_type)
                if type_token is not None:
                    if len(type_token) > 1 and type_token[0] == "'" and type_token[-1] == "'":
                        type_token = type_token[1:-1]
                    if known is None:  # (another type alike at the ends keeps its place)
                        _remember_type(key, raw_type, type_token)
            if type_token is not None:
                piece_id = text[2:id_end]  # up to the first slash: none escaped in it
                if piece_id[-1:] == "'" and len(piece_id) > 1 and piece_id[0] == "'":
                    piece_id = piece_id[1:-1]
                state = text[separator + 1 :]
                if "/" in state and "\\/" in state:  # the one-character search first: fast
                    state = state.replace("\\/", "/")
                if state[-1:] == "'" and len(state) > 1 and state[0] == "'":
                    state = state[1:-1]
                return None if piece_id == "null" else piece_id, type_token, state
    tokens = _first_slash_tokens(text, 2, 3)
    tokens += [""] * (3 - len(tokens))
    return _null(tokens[0]), tokens[1], tokens[2]


def _add_piece_fields(text: str) -> dict[str, Any]:
    """`Command.fields` of an AddPiece: `add_piece_strings` by name."""
    piece_id, type_token, state = add_piece_strings(text)
    return {"id": piece_id, "type": type_token, "state": state}


def _unquote(token: str) -> str:
    return token[1:-1] if len(token) > 1 and token[0] == "'" and token[-1] == "'" else token


def _without_escaped_slashes(token: str) -> str | None:
    """`token` with every `\\/` made `/`, or None when it holds an unescaped `/`."""
    if "/" not in token:
        return token
    pieces = token.split("/")
    last = pieces.pop()
    if not all(map(str.endswith, pieces, repeat(_BACKSLASH))):  # one C call per piece
        return None
    pieces = list(map(getitem, pieces, repeat(_ALL_BUT_LAST)))
    pieces.append(last)
    return "/".join(pieces)


_ALL_BUT_LAST = slice(None, -1)


def _unescaped_type(raw_type: str) -> str | None:
    """`_without_escaped_slashes` of an AddPiece's type, with the text up to its last TAB taken
    from an earlier type alike up to there (`_heads_by_ends`) and only the rest unescaped.

    Why: a big save's type chains are mostly a few outer chains around their own BasicPiece
    type (ForThePeople: 529 types, 187 texts up to the last TAB), and the split on `/` of all of
    a 10 KB type is most of reading its AddPiece. Exact: neither a TAB nor the text around it is
    part of an escape (`\\/`), so the text unescapes in two parts as it does whole."""
    cut = raw_type.rfind("\t") + 1
    if not cut:
        return _without_escaped_slashes(raw_type)
    # Looked up by the ends only (no copy or hash of all of it), compared whole on a match, in C.
    key = (cut, raw_type[: min(cut, _HEAD_ENDS)], raw_type[max(0, cut - _HEAD_ENDS) : cut])
    known = _heads_by_ends.get(key)
    if known is not None and known[0].startswith(raw_type[:cut]):
        tail = _without_escaped_slashes(raw_type[cut:])
        return None if tail is None else known[1] + tail
    type_token = _without_escaped_slashes(raw_type)
    if type_token is not None and known is None:
        head = type_token[: type_token.rfind("\t") + 1]
        _heads_by_ends[key] = (raw_type, head)
        _types_chars[0] += len(head)
    return type_token


# Why a table of AddPiece types by their text in the command: a save repeats each piece type
# (PathsOfGlory: 844 pieces, 421 distinct type chains of ~13 K characters), and unescaping one
# is a split and a join of all of it; looked up, a repeat costs a short key and one comparison, and
# every piece of a type gets the same string, whose hash the trait chain table then has at hand
# (traits.py's `_own_types`) and whose characters are kept once. Bounded like the trait tables,
# and emptied with them (`traits.forget_shared_traits`).
_TYPES_LIMIT = 4096
_TYPES_CHARS_LIMIT = 1 << 24  # characters of raw and unescaped types kept at most
# (length, a few characters on either end) of a raw type -> (that raw type, its unescaped token):
# a repeat is found without copying its text out of the command or hashing all of it (Almoravid's
# types are 8.5 K characters of 4 bytes each), and proved by one comparison in place.
_types_by_ends: dict[tuple[int, str, str], tuple[str, str]] = {}
_TYPE_ENDS = 64
_types_chars = [0]
# (where the text after a raw type's last TAB starts, a few characters on either end of the text
# before it) -> (that raw type, its text up to and including the last TAB, unescaped): see
# `_unescaped_type`. Emptied with `_types_by_ends`; the unescaped texts count in `_types_chars`.
_heads_by_ends: dict[tuple[int, str, str], tuple[str, str]] = {}
_HEAD_ENDS = 96


def _remember_type(key: tuple[int, str, str], raw_type: str, type_token: str) -> None:
    if len(_types_by_ends) >= _TYPES_LIMIT or _types_chars[0] > _TYPES_CHARS_LIMIT:
        forget_add_piece_types()
    _types_by_ends[key] = (raw_type, type_token)
    _types_chars[0] += len(raw_type) + (len(type_token) if type_token is not raw_type else 0)


def forget_add_piece_types() -> None:
    """Empty the table of AddPiece types (benchmarks time cold decodes with it)."""
    _types_by_ends.clear()
    _heads_by_ends.clear()
    _types_chars[0] = 0


def _parse_fields(kind: str, text: str) -> dict[str, Any]:
    """Fields of one leaf command, per spec §3.3/§3.4; raw strings kept (ids are opaque)."""
    if kind == "add_piece":
        return _add_piece_fields(text)
    if kind == "remove_piece":
        return {"id": text[2:]}
    if kind == "change_piece":
        tokens = sequence.Decoder(text[2:], "/")
        return {
            "id": tokens.next_token(""),
            "new_state": tokens.next_token(""),
            "old_state": tokens.next_token(None),
        }
    if kind == "move_piece":
        tokens = sequence.Decoder(text[2:], "/")
        values = [tokens.next_token(None) for _ in range(10)]
        names = ("id", "new_map", "new_x", "new_y", "new_under")
        names += ("old_map", "old_x", "old_y", "old_under", "player_id")
        result: dict[str, Any] = dict(zip(names, values, strict=True))
        for key in ("new_map", "new_under", "old_map", "old_under"):
            if result[key] is not None:
                result[key] = _null(result[key])
        for key in ("new_x", "new_y", "old_x", "old_y"):
            value = sequence.java_parse_int(result[key]) if result[key] is not None else None
            result[key] = 0 if value is None else value
        return result
    if kind == "log":
        return {"payload": text[len(LOG_PREFIX) :]}
    if kind == "chat":
        return {"message": text[4:]}
    if kind == "player":
        tokens = sequence.Decoder(text[len("PLAYER\t") :], TAB)
        keys = ("player_id", "name", "side")
        return {key: tokens.next_token("") for key in keys}
    if kind == "player_remove":
        return {"player_id": text[len("PYREMOVE\t") :]}
    if kind == "unmask":
        return {"player_ids": _tab_fields(text, "UNMASK\t")}
    if kind == "board_picker":
        tokens = sequence.decode(text, TAB)
        boards = []
        for i in range(1, len(tokens) - 2, 3):
            name_rev = sequence.decode(tokens[i], "/")
            boards.append(
                {
                    "name": name_rev[0],
                    "reversed": len(name_rev) > 1 and name_rev[1] == "rev",
                    "col": sequence.java_parse_int(tokens[i + 1]) or 0,
                    "row": sequence.java_parse_int(tokens[i + 2]) or 0,
                }
            )
        return {"map": tokens[0][: -len("BoardPicker")], "boards": boards}
    if kind == "turn":
        tokens = sequence.decode(text, TAB)
        return {"tracker_id": tokens[0][4:], "state": tokens[1] if len(tokens) > 1 else ""}
    if kind == "global_property":
        tokens = sequence.Decoder(text, ";")
        tokens.next_token()
        return {
            "name": tokens.next_token(""),
            "value": tokens.next_token(""),
            "container": tokens.next_token(""),
        }
    if kind == "mutable_property":
        tokens = sequence.Decoder(text[len("MutableProperty\t") :], TAB)
        return {
            "name": tokens.next_token(""),
            "old_value": tokens.next_token(""),
            "new_value": tokens.next_token(""),
            "container": tokens.next_token(""),
        }
    if kind in ("notes", "public_notes"):
        return {"text": _notes_text(text[text.index(TAB) + 1 :])}
    if kind == "private_note":
        tokens = sequence.Decoder(text[len("PNOTE\t") :], TAB)
        return {"owner_id": tokens.next_token(""), "text": _notes_text(tokens.next_token(""))}
    if kind == "secret_note":
        tokens = sequence.Decoder(text[len("SNOTE\t") :], TAB)
        keys = ("name", "owner_id", "hidden", "text", "date", "handle")
        values = {key: tokens.next_token("") for key in keys}
        values["hidden"] = values["hidden"] == "true"
        values["text"] = _notes_text(values["text"])
        return values
    if kind == "show_results":
        tokens = _tab_fields(text, "SHOW_RESULTS\t")
        return {"button_id": tokens[0], "results": tokens[1:]}
    if kind == "internet_dice":
        return {"address": text[len("SEMAIL\t") :]}
    if kind in ("extension", "plugin"):
        tokens = sequence.Decoder(text[text.index(TAB) + 1 :], TAB)
        return {"name": tokens.next_token(""), "version": tokens.next_token("")}
    if kind == "events":
        entries = []
        for entry in sequence.decode(text[len("Events") :], "|"):
            parts = sequence.Decoder(entry, ",")
            entries.append(
                {"time": parts.next_token(""), "user": parts.next_token(""), "action": parts.next_token("")}
            )
        return {"events": entries}
    if kind == "flare":
        tokens = sequence.Decoder(text[len("FLARE\t") :], TAB)
        return {"flare_id": tokens.next_token(""), "x": tokens.next_int(0), "y": tokens.next_int(0)}
    if kind == "undo":
        return {"begin": text[len("UNDO\t") :] == "true"}
    if kind == "audio":
        return {"clip": text[len("AUDIO\t") :]}
    if kind == "scenario_tab_lock":
        tokens = sequence.Decoder(text, TAB)
        tokens.next_token()
        keys = ("tab", "locked_by", "locked_password", "locked_date")
        return {key: tokens.next_token("") for key in keys}
    if kind in ("los", "clock", "clock_control", "startup_gkc", "version_check"):
        return {"tokens": _tab_fields(text, text[: text.index(TAB) + 1])}
    return {}


class Command:
    """One leaf command. `text` is exactly what was in the stream; fields are parsed on demand."""

    __slots__ = ("_fields", "_inner", "kind", "text")

    def __init__(self, text: str, kind: str | None = None) -> None:
        """`kind` is given only where it is known (`_classify`'s answer): `_read_flat` makes a
        group of thousands of AddPieces so (the lookup was a third of making each)."""
        self.text = text
        if kind is None:
            kind = _PIECE_KINDS.get(text[:2])  # the usual commands, at one lookup
            if kind is None:
                kind = _classify(text)
        self.kind = kind
        self._fields: dict[str, Any] | None = None
        self._inner: CommandGroup | Command | None = None

    @property
    def fields(self) -> dict[str, Any]:
        fields = self._fields
        if fields is None:
            kind = self.kind
            try:  # (an AddPiece, the usual command, without the dispatch of `_parse_fields`)
                text = self.text
                fields = _add_piece_fields(text) if kind == "add_piece" else _parse_fields(kind, text)
            except (ValueError, IndexError):
                fields = {}  # malformed known command: VASSAL would ignore it too
            self._fields = fields
        return fields

    @property
    def inner(self) -> CommandGroup | Command | None:
        """For `LOG<TAB>` commands: the logged command decoded like GameModule.decode (spec §3.5).

        `LOG<TAB>null` (unencodable sub-command) and an empty payload give None.
        """
        if self.kind != "log":
            return None
        if self._inner is None:
            payload = self.text[len(LOG_PREFIX) :]
            if payload in ("", "null"):
                return None
            self._inner = _decode_node(payload)
        return self._inner

    def encode(self) -> str:
        return self.text

    def __repr__(self) -> str:
        preview = self.text if len(self.text) <= 60 else self.text[:57] + "..."
        return f"Command({self.kind}, {preview!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Command) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


class CommandGroup:
    """A composite command: its ESC-separated tokens, each a leaf or a nested group.

    A plain class rather than a dataclass: `dataclasses` (and the `inspect` it loads) would be a
    fifth of the reader's import time, which every one-shot command pays."""

    def __init__(self, children: list[CommandGroup | Command] | None = None, quoted: bool = False) -> None:
        self.children: list[CommandGroup | Command] = [] if children is None else children
        # True when this group came from a token that was one quoted string ('…'): GameModule.decode
        # strips the quotes and decodes the inside; we keep the flag to write the quotes back.
        self.quoted = quoted

    def encode(self) -> str:
        return encode_stream(self)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.children, self.quoted) == (other.children, other.quoted)  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value: unhashable

    def __repr__(self) -> str:
        return f"{type(self).__name__}(children={self.children!r}, quoted={self.quoted!r})"


class CommandTree(CommandGroup):
    """The whole decoded stream; `source` is the text it came from."""

    def __init__(self, children: list[CommandGroup | Command] | None = None, quoted: bool = False,
                 source: str = "", root_is_leaf: bool = False) -> None:
        super().__init__(children, quoted)
        self.source = source
        self.root_is_leaf = root_is_leaf  # the whole stream was one leaf command (no ESC at top level)


Node = CommandGroup | Command


def _is_plain_leaf(text: str) -> bool:
    # Fast path for GameModule.decode's leaf test (first token == whole input): no ESC at all
    # and no quote pair that the decoder would strip.
    return ESC not in text and not (len(text) > 1 and text[0] == "'" and text[-1] == "'")


_Item = tuple["CommandGroup", int, int, int, int, int]


def _decode_node(text: str) -> Node:
    """GameModule.decode as a tree, in one pass over the ESCs of `text` and no copy of any group.

    Why no group texts: each level of GameModule.decode splits its text on ESC (SequenceEncoder:
    an ESC after a backslash is escaped, that one backslash dropped) and decodes the tokens
    again; a big save is one group holding every command, so decoding level by level copies
    the whole 14 MB text once per level (most of the time, in page faults). Here every node is
    a range of `text`: an ESC with a run of k backslashes before it is escaped at the k levels
    above and a delimiter at level k (each level drops one of the k), so inside a level-d range
    (whose ESCs all have runs of at least d) the delimiters are the ESCs with no backslash d + 1
    characters back. Leaves hold no ESC, so every command's text is a slice of `text` as it
    stands; a token '…' loses its quotes as the decoder's do. Iterative: an explicit work stack.
    `_decode_node_slowly` is the level-by-level reference (tests compare).

    Two ways to read one range, with the same answers: by its slice of the ESC positions (a
    Python step per ESC, `_read_by_positions`), or, where its ESCs are dense (a save's group of
    short AddPieces: one every 90 characters), by the string's own searches over its characters
    (`_scan_range`: a few C passes, no Python step per ESC). A range is scanned only when it has
    at most `_SCAN_CHARS_PER_ESC` characters per ESC, so the scans cost at most that many
    characters per ESC per level it is inside: linear, as the positions are, whatever the depth
    or the lengths of the commands (a big save's 70 KB AddPieces are read by positions)."""
    if _is_plain_leaf(text):
        return Command(text)
    positions: list[int] | None = None  # found when a range is first read by them
    root = CommandGroup([])
    # (group to fill, range start, range end, its ESCs positions[first:last] (-1: not known yet),
    # level); a scanned range's tokens have their ESCs counted, not found (the count of a range
    # is no dearer than its scan, and a scanned range had at most 128 characters per ESC)
    work: list[_Item] = [(root, 0, len(text), -1, -1, 0)]
    while work:
        item = work.pop()
        group, start, end, first, last, level = item
        sample = _SAMPLE
        if first >= 0:
            escs = last - first
        elif end - start <= sample:
            escs = text.count(ESC, start, end)
        elif (escs := text.count(ESC, start, start + sample)) * _SCAN_CHARS_PER_ESC < sample:
            escs = 0  # sparse from its start (a big save's long AddPieces): by positions, uncounted
        elif _read_flat(text, item):
            continue  # dense from its start, and a group of leaves: read by one split, uncounted
        else:
            escs += text.count(ESC, start + sample, end)
        if escs and end - start <= _SCAN_CHARS_PER_ESC * escs:
            _scan_range(text, item, work)
            continue
        if positions is None:
            positions = _esc_positions(text)
        if first < 0:
            first = bisect_left(positions, start)
            item = (group, start, end, first, bisect_left(positions, end, first), level)
        _read_by_positions(text, positions, item, work)
    return root


_SCAN_CHARS_PER_ESC = 128  # a range this dense in ESCs or denser is read by scans
_SAMPLE = 1 << 16  # characters of a long range whose ESCs are counted to see if it may be dense
_POSITIONS_STEP = 1 << 16  # characters of the text looked at a time to find its ESCs
_FINDS_PER_STEP = 16  # ESCs found one by one in a step before the rest of it is split


def _esc_positions(text: str) -> list[int]:
    """Where every ESC of `text` is. Step by step (64 K characters): the first ESCs of a step by
    `str.find` (a big save's sparse ESCs: one every 6 KB), and where a step has more, the rest of
    it by one split, its pieces' lengths added up (C passes over a copy of at most the step, not
    a Python step per ESC: a group of short AddPieces has one every 90 characters)."""
    positions: list[int] = []
    append = positions.append
    find = text.find
    length = len(text)
    for step_start in range(0, length, _POSITIONS_STEP):
        step_end = min(step_start + _POSITIONS_STEP, length)
        found = find(ESC, step_start, step_end)
        finds = 0
        while found >= 0 and finds < _FINDS_PER_STEP:
            append(found)
            finds += 1
            found = find(ESC, found + 1, step_end)
        if found >= 0:
            lengths = list(map(len, text[found:step_end].split(ESC)))
            lengths.pop()
            # the k-th ESC from `found` follows k + 1 pieces (the first empty) and k ESCs
            positions.extend(map(add, accumulate(lengths), range(found, found + len(lengths))))
    return positions


def _scan_range(text: str, item: _Item, work: list[_Item]) -> None:
    """Fill one group from its range of `text` at its level, by the string's searches: the ESCs
    with a run of more than `level` backslashes (nested deeper) are masked by a same-length
    replace, and the ESCs left are this level's delimiters, each token ending `level` characters
    before its delimiter (the backslashes that escaped it above). A group whose every ESC is a
    delimiter (thousands of plain AddPieces) is one split (`_read_flat`)."""
    if _read_flat(text, item):
        return
    group, start, end, _, _, level = item
    children = group.children
    segment = _range(text, start, end)
    masked = segment.replace(_BACKSLASH * (level + 1) + ESC, _BACKSLASH * (level + 2))
    find = masked.find
    found = find(ESC)
    group.quoted = found < 0  # GameModule.decode: a text that decodes to one token
    token_start = 0
    length = len(segment)
    while True:
        token_end = length if found < 0 else found - level
        inner_start, inner_end = token_start, token_end
        if inner_end - inner_start > 1 and segment[inner_start] == "'" and segment[inner_end - 1] == "'":
            inner_start += 1  # the decoder's unquote
            inner_end -= 1
        if segment.find(ESC, inner_start, inner_end) < 0 and not (
            inner_end - inner_start > 1 and segment[inner_start] == "'" and segment[inner_end - 1] == "'"
        ):
            children.append(Command(segment[inner_start:inner_end]))  # no ESC, not quoted: a leaf
        else:
            nested_group = CommandGroup([])
            children.append(nested_group)
            nested_start, nested_end = start + inner_start, start + inner_end
            work.append((nested_group, nested_start, nested_end, -1, -1, level + 1))
        if found < 0:
            return
        token_start = found + 1
        found = find(ESC, token_start)


def _read_flat(text: str, item: _Item) -> bool:
    """Fill one group by one split of its range when every ESC in it is a delimiter at its level
    and every token a leaf (not quoted); False, with nothing done, otherwise.

    Every ESC inside a level-`level` range has a run of at least `level` backslashes before it
    (those with fewer were the delimiters of the levels above: both readers cut ranges so), so
    where none has more, each is a delimiter and no token holds an ESC. The split cuts at every
    delimiter (they cannot overlap: one ESC each, at the end), so a token starts the range or
    follows a delimiter, and none is quoted where no such start is a quote.

    Why before any count of its ESCs: a 5,000-piece save is one such group of 450 K characters,
    and `str.count` of its ESCs (to choose between scans and positions) cost 8 instructions a
    character, a fifth of the decode; this test is one `str.find`, and the split is the read.
    Linear: a group of leaves is read once, and a range that is not one costs a search and a
    split no dearer than the count that follows."""
    group, start, end, _, _, level = item
    delimiter = _BACKSLASH * level + ESC
    # (a token starts the range or follows a delimiter: no quoted one is no such quote, found in C)
    if (text.find(_BACKSLASH + delimiter, start, end) >= 0 or text.startswith("'", start, end)
            or text.find(delimiter + "'", start, end) >= 0):
        return False
    tokens = _split_range(text, start, end, delimiter)
    if len(tokens) < 2:
        return False
    group.quoted = False
    # Every token an AddPiece (a save's pieces, after the null command VASSAL writes first): their
    # kind is known, found by two C passes: a text starts with "+/" exactly when "+/" <= text <
    # "+0" ("0" follows "/"). (`str.count` of delimiter + "+/" was 13 instructions a character,
    # `str.startswith` 800 a token.)
    children = group.children
    pieces = tokens[1:] if tokens[0] == "" else tokens
    if min(pieces) >= "+/" and max(pieces) < "+0":
        if pieces is not tokens:
            children.append(Command(""))
        children.extend(map(Command, pieces, repeat("add_piece")))
    else:
        children.extend(map(Command, tokens))
    return True


def _range(text: str, start: int, end: int) -> str:
    return text if start == 0 and end == len(text) else text[start:end]


_SPLIT_STEP = 1 << 20  # characters of a range copied at a time by `_split_range`


def _split_range(text: str, start: int, end: int, delimiter: str) -> list[str]:
    """`text[start:end].split(delimiter)`, copying at most about a megabyte of it at a time:
    each step ends just before a delimiter, and a delimiter (backslashes, then an ESC) cannot
    overlap another, so the steps' splits are the whole range's."""
    if end - start <= _SPLIT_STEP:
        return _range(text, start, end).split(delimiter)
    tokens: list[str] = []
    position = start
    while True:
        cut = position + _SPLIT_STEP
        found = text.find(delimiter, cut, end) if cut < end else -1
        if found < 0:
            tokens += text[position:end].split(delimiter)
            return tokens
        tokens += text[position:found].split(delimiter)
        position = found + len(delimiter)


def _read_by_positions(text: str, positions: list[int], item: _Item, work: list[_Item]) -> None:
    """Fill one group by its slice of the ESC positions: its ESCs are looked at once per level
    they are inside, which their runs of backslashes pay for."""
    group, start, end, first, last, level = item
    inside = positions[first:last]
    # the character before each ESC's last `level` backslashes: a delimiter where it is none
    befores = list(map(getitem, repeat(text), map(sub, inside, repeat(level + 1))))
    if inside and inside[0] <= level:  # an ESC at the very start of the text
        befores[0] = ESC
    delimiters = list(compress(range(first, last), map(ne, befores, repeat(_BACKSLASH))))
    group.quoted = not delimiters  # GameModule.decode: a text that decodes to one token
    children = group.children
    if len(delimiters) == len(inside):
        # Every ESC here a delimiter (a group of plain commands): the tokens are the stretches
        # between them, cut in one pass; leaves unless one is quoted.
        starts = chain((start,), map(add, inside, repeat(1)))
        ends = chain(map(sub, inside, repeat(level)), (end,))
        tokens = list(map(text.__getitem__, map(slice, starts, ends)))
        if not any(map(str.startswith, tokens, repeat("'"))):
            children.extend(map(Command, tokens))
            return
    token_start, token_first = start, first
    for index in (*delimiters, last):
        token_end = end if index == last else positions[index] - level
        if token_end - token_start > 1 and text[token_start] == "'" and text[token_end - 1] == "'":
            token_start += 1  # the decoder's unquote
            token_end -= 1
        if token_first == index and not (
            token_end - token_start > 1 and text[token_start] == "'" and text[token_end - 1] == "'"
        ):
            children.append(Command(text[token_start:token_end]))  # no ESC, not quoted: a leaf
        else:
            nested = CommandGroup([])
            children.append(nested)
            work.append((nested, token_start, token_end, token_first, index, level + 1))
        if index != last:
            token_start, token_first = positions[index] + 1, index + 1


def _decode_node_slowly(text: str) -> Node:
    """GameModule.decode level by level with the SequenceEncoder (reference for `_decode_node`)."""
    if _is_plain_leaf(text):
        return Command(text)
    tokens = sequence.decode(text, ESC)
    if tokens[0] == text:
        return Command(text)
    root = CommandGroup([None] * len(tokens), quoted=len(tokens) == 1)  # type: ignore[list-item]
    work: list[tuple[str, CommandGroup, int]] = [(tok, root, i) for i, tok in enumerate(tokens)]
    while work:
        token, parent, index = work.pop()
        if _is_plain_leaf(token):
            parent.children[index] = Command(token)
            continue
        sub_tokens = sequence.decode(token, ESC)
        if sub_tokens[0] == token:
            parent.children[index] = Command(token)
            continue
        group = CommandGroup([None] * len(sub_tokens), quoted=len(sub_tokens) == 1)  # type: ignore[list-item]
        parent.children[index] = group
        work.extend((tok, group, i) for i, tok in enumerate(sub_tokens))
    return root


def decode_stream(text: str) -> CommandTree:
    """Decode a whole command stream. The root is always a group (a bare leaf becomes one child)."""
    node = _decode_node(text)
    if isinstance(node, Command):
        return CommandTree(children=[node], source=text, root_is_leaf=True)
    return CommandTree(children=node.children, quoted=node.quoted, source=text)


def encode_stream(node: Node) -> str:
    """Encode a tree back (GameModule.encode, spec §3.1); post-order with an explicit stack."""
    if isinstance(node, Command):
        return node.text
    if isinstance(node, CommandTree) and node.root_is_leaf and len(node.children) == 1:
        only = node.children[0]
        if isinstance(only, Command):
            return only.text
    encoded: dict[int, str] = {}
    stack: list[tuple[CommandGroup, bool]] = [(node, False)]
    while stack:
        group, children_done = stack.pop()
        if children_done:
            parts = [
                child.text if isinstance(child, Command) else encoded.pop(id(child))
                for child in group.children
            ]
            if group.quoted and len(parts) == 1:
                encoded[id(group)] = "'" + parts[0].replace(ESC, "\\" + ESC) + "'"
            else:
                encoded[id(group)] = sequence.encode(parts, ESC) or ""
            continue
        stack.append((group, True))
        stack.extend((child, False) for child in group.children if isinstance(child, CommandGroup))
    return encoded[id(node)]


def iter_commands(node: Node, unwrap_log: bool = False) -> Iterator[Command]:
    """Leaf commands in pre-order (= VASSAL's execution order).

    With `unwrap_log`, each `LOG<TAB>` leaf is replaced by the leaves of its decoded payload
    (and `LOG<TAB>null`/empty payloads vanish), i.e. what replaying the step executes.
    """
    stack: list[Node] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Command):
            if unwrap_log and current.kind == "log":
                inner = current.inner
                if inner is not None:
                    stack.append(inner)
                continue
            yield current
        else:
            stack.extend(reversed(current.children))


def _is_end_save(node: Node) -> bool:
    return isinstance(node, Command) and node.text == "end_save"


def split_log(tree: CommandGroup) -> tuple[list[Command], list[list[Command]]]:
    """(commands run on load, replay steps) for a `.vlog` (spec §3.5); a save has no steps.

    Every top-level token after `end_save` that is a LOG command (or a group starting with one)
    is one step, as VASSAL queues one step per top-level LogCommand. Steps hold the unwrapped
    logged commands; `LOG<TAB>null` and empty `LOG<TAB>` contribute nothing but keep their step.
    Top-level tokens after `end_save` that are not LOG commands run on load like the restore.
    """
    children = tree.children
    end_index = next((i for i, child in enumerate(children) if _is_end_save(child)), len(children) - 1)
    restore: list[Command] = []
    for child in children[: end_index + 1]:
        if type(child) is CommandGroup and all(map(isinstance, child.children, repeat(Command))):
            restore.extend(child.children)  # a group of leaves (a save's pieces): in order as they are
        else:
            restore.extend(iter_commands(child))
    steps: list[list[Command]] = []
    for child in children[end_index + 1 :]:
        first = child
        while isinstance(first, CommandGroup) and first.children:
            first = first.children[0]
        if isinstance(first, Command) and first.kind == "log":
            steps.append(list(iter_commands(child, unwrap_log=True)))
        else:
            restore.extend(iter_commands(child))
    return restore, steps


# -- building new commands (writer, demo tooling) ------------------------------------------------
def leaf_command(text: str) -> Command:
    return Command(text)


def add_piece_command(piece_id: str | None, type_string: str, state_string: str) -> Command:
    """`+/id/type/state` (spec §3.3); `None` id is written as `null` like VASSAL."""
    body = sequence.encode([piece_id if piece_id is not None else "null", type_string, state_string], "/")
    return Command("+/" + (body or ""))


def remove_piece_command(piece_id: str) -> Command:
    return Command("-/" + piece_id)


def change_piece_command(piece_id: str, new_state: str, old_state: str | None = None) -> Command:
    tokens = [piece_id, new_state] + ([old_state] if old_state is not None else [])
    return Command("D/" + (sequence.encode(tokens, "/") or ""))


def move_piece_command(
    piece_id: str,
    new_map: str | None,
    new_x: int,
    new_y: int,
    old_map: str | None,
    old_x: int,
    old_y: int,
    new_under: str | None = None,
    old_under: str | None = None,
    player_id: str | None = None,
) -> Command:
    """`M/…` in BasicCommandEncoder's field order (spec §3.3)."""
    tokens = [
        piece_id,
        new_map or "null",
        str(new_x),
        str(new_y),
        new_under or "null",
        old_map or "null",
        str(old_x),
        str(old_y),
        old_under or "null",
    ]
    if player_id is not None:
        tokens.append(player_id)
    return Command("M/" + (sequence.encode(tokens, "/") or ""))
