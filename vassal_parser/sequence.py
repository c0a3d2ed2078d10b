"""VASSAL's SequenceEncoder / SequenceEncoder.Decoder (spec §4), reproduced quirk for quirk.

Why exact: every VASSAL string (command tree, trait chains, piece states) is nested
SequenceEncoder lists; a reader that "cleans up" backslashes or quotes differently from the Java
mis-splits names with delimiters in them and cannot write a byte-identical file back.

Hot path: saves carry 40-70 KB single commands and 200-deep trait chains, so splitting uses
`str.find` between delimiters, never a per-character Python loop.

Public API:
    encode(tokens, delim) -> str | None
    decode(text, delim, max_tokens=0) -> list[str]
    first_token(text, delim) -> str
    java_parse_int(token, bits=32) -> int | None     (Integer.parseInt / Long.parseLong rules)
    java_parse_double(token) -> float | None         (Double.parseDouble rules; may be inf/NaN)
    Decoder(text, delim): has_more(), next_token(default=...), next_int(default),
        next_long(default), next_double(default), next_bool(default), rest(), remaining()
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence

_NO_DEFAULT = object()
_BACKSLASH = "\\"


def _quote_needed(token: str) -> bool:
    # SequenceEncoder.append: a token starting with '\' or starting AND ending with "'" is quoted.
    first = token[0]
    return first == _BACKSLASH or (first == "'" and token[-1] == "'")


def encode(tokens: Iterable[str | None], delim: str) -> str | None:
    """Join tokens like SequenceEncoder.append; None when there were no tokens at all (Java quirk)."""
    escaped_delim = _BACKSLASH + delim
    out: list[str] = []
    for token in tokens:
        if not token:
            out.append("")
            continue
        quote = _quote_needed(token)
        if delim in token:
            token = token.replace(delim, escaped_delim)  # existing backslashes are NOT escaped
        out.append(f"'{token}'" if quote else token)
    if not out:
        return None
    return delim.join(out)


def _unquote(token: str) -> str:
    if len(token) > 1 and token[0] == "'" and token[-1] == "'":
        return token[1:-1]
    return token


def decode(text: str | None, delim: str, max_tokens: int = 0) -> list[str]:
    """Split like SequenceEncoder.Decoder (spec §4.2), including the backslash-merge quirk.

    Only a backslash immediately before the delimiter escapes it (and is dropped); a token that
    itself ended in a backslash therefore swallows the next delimiter, exactly as VASSAL does.
    `max_tokens` > 0 stops after that many tokens — what Java callers that read only the first
    one or two tokens see — so deep trait chains are not split to the end at every level.

    Speed: `str.find` jumps between delimiters; when every delimiter left is escaped (the
    usual case for the nested tail of a trait chain or command group) the rest is one token,
    unescaped by a single `str.replace` instead of a Python loop over each escape.
    """
    if text is None:
        return []
    if _BACKSLASH not in text and "'" not in text:
        # Nothing escaped and nothing quoted (most piece states): a plain split is the same answer
        # (tests/parser/test_sequence.py checks it against the general loop below).
        tokens = text.split(delim)
        return tokens[:max_tokens] if max_tokens > 0 else tokens
    return _decode_escaped(text, delim, max_tokens)


def _decode_escaped(text: str, delim: str, max_tokens: int = 0) -> list[str]:
    """The general case of `decode`: escaped delimiters and quoted tokens.

    A token ends at the first delimiter with no backslash right before it, which one regex split
    finds in C (the literal first, then a look back one character); each token then loses the
    backslash of every escaped delimiter in it by one `replace` (`\\;` cannot overlap itself,
    so that is each escape once), and its quotes. Why not a `find` per delimiter: a Place
    Marker's definition token holds its marker's whole chain, a few hundred escaped delimiters,
    and a Python step for each was most of reading its fields."""
    pattern = _TOKEN_ENDS.get(delim)
    if pattern is None:
        if len(delim) != 1 or delim == _BACKSLASH:
            return _decode_stepwise(text, delim, max_tokens)
        pattern = _TOKEN_ENDS[delim] = re.compile(re.escape(delim) + r"(?<!\\" + re.escape(delim) + ")")
    tokens = pattern.split(text, max_tokens)
    if max_tokens and len(tokens) > max_tokens:
        del tokens[max_tokens:]  # the rest of the text, which the Decoder was not asked to read
    escaped = _BACKSLASH + delim
    if escaped in text:
        tokens = [token.replace(escaped, delim) if escaped in token else token for token in tokens]
    if "'" in text:
        tokens = list(map(_unquote, tokens))
    return tokens


_TOKEN_ENDS: dict[str, re.Pattern[str]] = {}  # delimiter -> a delimiter not escaped (`_decode_escaped`)


def _decode_stepwise(text: str, delim: str, max_tokens: int = 0) -> list[str]:
    """`_decode_escaped` a delimiter at a time: for a delimiter no one-character pattern reads (a
    backslash itself, or more than one character)."""
    tokens: list[str] = []
    append = tokens.append
    find = text.find
    escaped = _BACKSLASH + delim
    pos = 0
    # Index of the last delimiter with no backslash before it (-1: none), found once when first
    # needed: "every delimiter left is escaped" is then one comparison, so a text with many
    # escaped delimiters decodes in linear time (counting the rest at each token was quadratic).
    last_plain = -2
    quotes = "'" in text  # else no token needs its quotes taken off
    while True:
        i = find(delim, pos)
        if i < 0:  # the last token (empty after a trailing delimiter)
            append(_unquote(text[pos:]) if quotes else text[pos:])
            return tokens
        if i and text[i - 1] == _BACKSLASH:
            if last_plain == -2:
                last_plain = _last_unescaped(text, delim)
            if i > last_plain:
                # All remaining delimiters are escaped: one last token.
                append(_unquote(text[pos:].replace(escaped, delim)))
                return tokens
            parts: list[str] = []
            start = pos
            while i >= 0 and text[i - 1] == _BACKSLASH:
                parts.append(text[start : i - 1])
                start = i
                i = find(delim, i + 1)
            if i < 0:
                parts.append(text[start:])
                append(_unquote("".join(parts)))
                return tokens
            parts.append(text[start:i])
            append(_unquote("".join(parts)))
        else:
            append(_unquote(text[pos:i]) if quotes else text[pos:i])
        if len(tokens) == max_tokens:
            return tokens
        pos = i + 1


def _last_unescaped(text: str, delim: str) -> int:
    """The index of the last `delim` not preceded by a backslash, or -1; one backward pass."""
    j = text.rfind(delim)
    while j > 0 and text[j - 1] == _BACKSLASH:
        j = text.rfind(delim, 0, j)
    return j


def first_token(text: str, delim: str) -> str:
    """The first token only, without splitting the rest (used for trait/command prefixes)."""
    i = text.find(delim)
    if i < 0 or (i > 0 and text[i - 1] == _BACKSLASH):
        return decode(text, delim)[0]
    return _unquote(text[:i])


def java_parse_int(token: str, bits: int = 32) -> int | None:
    """`Integer.parseInt`/`Long.parseLong`: optional sign, decimal digits only (no spaces, no
    underscores; any script's, as `Character.digit`), within the signed `bits` range; None where
    Java throws NumberFormatException.

    Why not `int()`: Python also accepts spaces, `1_000` and values of any size (spec §4.2).
    """
    if 0 < len(token) < 10 and token.isascii() and token.isdigit():
        return int(token)  # the usual coordinate or count: nine digits or fewer fit any range here
    digits = token[1:] if token[:1] in ("+", "-") else token
    if not digits or not digits.isdecimal():
        return None
    if not digits.isascii() and max(digits) > "\uffff":
        # Character.digit takes any decimal digit (`"١٢"` is 12, checked with JDK 17), but Java reads
        # UTF-16 units: a digit past the Basic Multilingual Plane is two units, neither a digit
        return None
    significant = digits.lstrip("0")  # leading zeros are read as Java reads them: `000…07` is 7
    if len(significant) > bits:  # far out of range (and past Python's int-from-text limit)
        return None
    value = int(significant) if significant else 0
    if token[0] == "-":
        value = -value
    limit = 1 << (bits - 1)
    return value if -limit <= value < limit else None


def java_int(token: str, default: int) -> int:
    """`Decoder.nextInt(default)` of one token already split off: Integer.parseInt, `default` where
    Java would throw.

    Why a table: a save's pieces repeat a few hundred coordinates (a never-seen 5,000-piece save:
    10,000 tokens, 175 distinct), and a lookup costs a fifth of the checks and `int()` of a parse.
    The table holds only what `java_parse_int` answered (short tokens, bounded), so every answer
    is its answer."""
    value = KNOWN_INTS.get(token)
    if value is not None:
        return value
    value = java_parse_int(token, 32)
    if value is None:
        return default
    if len(token) <= _INT_TOKEN_CHARS:
        if len(KNOWN_INTS) >= _INTS_LIMIT:
            KNOWN_INTS.clear()  # full: start again
        KNOWN_INTS[token] = value
    return value


# `java_parse_int(token, 32)` of tokens read before: only its answers, so a reader may look a token up
# here before calling `java_int` (vassal_parser.pieces does, for a piece's x and y); emptied in place.
KNOWN_INTS: dict[str, int] = {}
_INTS_LIMIT = 4096
_INT_TOKEN_CHARS = 11  # "-2147483648"


def fill_format(tokens: Sequence[str], props: Mapping[str, str | None],
                lookup: Callable[[str], str | None] | None, unanswered_as_name: bool) -> str:
    """`$name$` substitution over a format's SE('$') tokens (VASSAL's FormattedString family).

    Tokens at odd positions are property names — but only when another token follows, so an
    unclosed `abc$def` stays literal (`abcdef`). A name in `props` gives its value (None: nothing);
    any other is asked of `lookup`; one no one answers gives its own name when
    `unanswered_as_name` (a piece's name and label formats: `buffer.append(token)`), else nothing
    (location formats)."""
    out: list[str] = []
    last = len(tokens) - 1
    for index, token in enumerate(tokens):
        if not token:
            continue
        if index % 2 == 0 or index == last:
            out.append(token)
        elif token in props:
            value = props[token]
            if value is not None:
                out.append(value)
        else:
            value = lookup(token) if lookup is not None else None
            if value is not None:
                out.append(value)
            elif unanswered_as_name:
                out.append(token)
    return "".join(out)


_JAVA_DOUBLE = re.compile(
    r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|"
    r"0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?"
)
_JAVA_BLANKS = "".join(chr(code) for code in range(33))  # String.trim: every char <= ' '


def java_parse_double(token: str) -> float | None:
    """`Double.parseDouble`: trimmed of characters <= space; `NaN`, `Infinity`, decimal or hex
    floats, an optional f/d suffix; None where Java throws NumberFormatException.

    Why not `float()`: it also takes `inf`, `nan`, `1_0` and non-ASCII digits, and Java does not.
    The result may be infinite or NaN, as in Java (`1e400` is Infinity): callers that cannot use
    such a value say so (module.py's attribute readers raise InputError). An `f` suffix is read
    at double precision (Java rounds it to float first; no module writes one).
    """
    text = token.strip(_JAVA_BLANKS)
    if len(text) > 4096 or not _JAVA_DOUBLE.fullmatch(text):
        return None
    if text[-1] in "fFdD":
        text = text[:-1]
    if "x" in text or "X" in text:
        try:
            return float.fromhex(text)
        except OverflowError:  # Java: Infinity
            return float("-inf") if text.startswith("-") else float("inf")
    return float(text.replace("Infinity", "inf"))


class Decoder:
    """SequenceEncoder.Decoder with typed readers: missing tokens give defaults, bad numbers too.

    Why defaults: VASSAL appends new fields at the end of type/state strings; old files simply
    lack them, and every reader in the Java falls back to a default instead of failing.
    """

    __slots__ = ("_index", "_tokens")

    def __init__(self, text: str | None, delim: str) -> None:
        self._tokens = decode(text, delim)
        self._index = 0

    def has_more(self) -> bool:
        return self._index < len(self._tokens)

    def remaining(self) -> int:
        """How many tokens are left to read (at the start: how many the text holds)."""
        return len(self._tokens) - self._index

    def next_token(self, default: object = _NO_DEFAULT) -> str:
        if self._index >= len(self._tokens):
            if default is _NO_DEFAULT:
                raise IndexError("no more tokens")
            return default  # type: ignore[return-value]
        token = self._tokens[self._index]
        self._index += 1
        return token

    def next_int(self, default: int) -> int:
        """`nextInt`: Integer.parseInt of the next token; a bad one still consumes it (§4.2)."""
        if not self.has_more():
            return default
        return java_int(self.next_token(), default)

    def next_long(self, default: int) -> int:
        """`nextLong`: as `next_int` with Long.parseLong's 64-bit range."""
        if not self.has_more():
            return default
        value = java_parse_int(self.next_token(), 64)
        return default if value is None else value

    def next_double(self, default: float) -> float:
        if not self.has_more():
            return default
        try:
            return float(self.next_token().strip())
        except ValueError:
            return default

    def next_bool(self, default: bool) -> bool:
        if not self.has_more():
            return default
        return self.next_token() == "true"

    def rest(self) -> list[str]:
        """Remaining tokens (consumed)."""
        remaining = self._tokens[self._index :]
        self._index = len(self._tokens)
        return remaining

