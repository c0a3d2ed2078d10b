"""Small VASSAL XML read with the standard library's expat, as the same tree the lxml reader gives.

Why a second reader: importing lxml costs about 15 ms and 70 M instructions — more than reading a
small module's whole build file, and a tenth of a small `check` (issue 27). For the XML a check
meets first (a save's and a module's metadata, a small build file, an SVG board's size) expat,
which the interpreter already carries, reads the same tree faster than lxml can be loaded. Big
build files still go to lxml (`module.py` chooses), which builds its tree faster than expat's
Python callbacks can.

Why it can never disagree with lxml: it is only a fast path. Whatever expat refuses — bad XML, an
encoding it lacks, a DOCTYPE — is read again by `container.parse_xml`, whose answer (a tree, or the
one line naming the file) is final; and `tests/parser/test_xml_light.py` holds that on every corpus
build file and metadata entry the two trees, and the modules built from them, are equal.

What the tree keeps is what the readers use of lxml's: `tag`, `attrib` (in document order), `get`,
`text` (the character data before the first child node: element, comment or processing instruction,
as lxml's `.text`), and the child elements in order (comments and processing instructions are not
children here; every caller skips them in lxml's tree too, by their non-string tag).
"""

from __future__ import annotations

import pyexpat
from collections.abc import Iterator


class LightElement:
    """One element: lxml's `_Element` as far as the readers use it."""

    __slots__ = ("_text", "attrib", "children", "tag")

    def __init__(self, tag: str, attrib: dict[str, str]) -> None:
        self.tag = tag
        self.attrib = attrib
        self._text: list[str] | None = None
        self.children: list[LightElement] = []

    @property
    def text(self) -> str | None:
        return "".join(self._text) if self._text else None

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.attrib.get(key, default)

    def __iter__(self) -> Iterator[LightElement]:
        return iter(self.children)

    def __reversed__(self) -> Iterator[LightElement]:
        return reversed(self.children)

    def __len__(self) -> int:
        return len(self.children)


class _Refused(Exception):
    """What expat should not read here (a DOCTYPE): the caller falls back to lxml."""


def parse(data: bytes) -> LightElement | None:
    """The tree of `data`, or None where expat cannot read it as lxml would (then use lxml).

    A DOCTYPE is never read here (lxml's reader refuses it with its own message), so no entity is
    ever defined, let alone expanded; external entities are never fetched.
    """
    parser = pyexpat.ParserCreate()
    parser.buffer_text = True
    stack: list[LightElement] = []
    open_text: list[bool] = []  # per open element: is its `text` still being gathered?
    roots: list[LightElement] = []

    def start(tag: str, attrib: dict[str, str]) -> None:
        if ":" in tag or any(":" in key for key in attrib):
            raise _Refused  # a prefixed name, which lxml reads as a namespace: lxml decides
        element = LightElement(tag, attrib)
        if stack:
            stack[-1].children.append(element)
            open_text[-1] = False
        else:
            roots.append(element)
        stack.append(element)
        open_text.append(True)

    def end(_tag: str) -> None:
        stack.pop()
        open_text.pop()

    def characters(text: str) -> None:
        if stack and open_text[-1]:
            element = stack[-1]
            if element._text is None:
                element._text = [text]
            else:
                element._text.append(text)

    def other_node(*_args: object) -> None:  # a comment or a processing instruction ends `text`
        if open_text:
            open_text[-1] = False

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    parser.CommentHandler = other_node
    parser.ProcessingInstructionHandler = other_node
    if not _read_whole(parser, data):
        return None
    return roots[0] if len(roots) == 1 else None


def root_attributes(data: bytes) -> dict[str, str] | None:
    """The root element's attributes of a well-formed document (an SVG's size), or None.

    Why the whole document is still read: lxml's reader refused a broken SVG, and a board whose
    image VASSAL cannot draw has no size from it. A document with a DOCTYPE (some SVG editors write
    one, with entities) gives None, as does anything else expat cannot read: the caller then asks
    lxml, whose reading of entities is the one that counts. Only unprefixed attributes are asked
    for (`width`, `height`, `viewBox`), which namespaces do not change.
    """
    parser = pyexpat.ParserCreate()
    found: list[dict[str, str]] = []

    def start(_tag: str, attrib: dict[str, str]) -> None:
        found.append(attrib)
        parser.StartElementHandler = None

    parser.StartElementHandler = start
    if not _read_whole(parser, data):
        return None
    return found[0] if found else None


def _refuse_doctype(*_args: object) -> None:
    raise _Refused


def _read_whole(parser: pyexpat.XMLParserType, data: bytes) -> bool:
    """Feed `data` to `parser`, a DOCTYPE refused: False for anything expat does not read (bad XML,
    an encoding it lacks, a DOCTYPE, a prefixed name), which the caller then hands to lxml."""
    parser.StartDoctypeDeclHandler = _refuse_doctype
    try:
        parser.Parse(data, True)
    except (pyexpat.ExpatError, _Refused, ValueError, LookupError, RecursionError):
        return False
    return True
