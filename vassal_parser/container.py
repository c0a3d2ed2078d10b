"""Open any VASSAL file — zip (.vmod .vmdx .vsav .vlog, old `savedGame`-only zips) or bare
(`buildFile`, `buildFile.xml`, `moduledata`, plain command streams) — and hand out its parts.

Why over 500 lines: it is the opener's hardening in one place: sniffing, the `savedGame` decodings and the
capped zip and XML readers, each cap checked where the bytes come in.

Why one opener: users point Adjutant at whatever file they have; it must work out what the file
is from its content (spec §1.1 sniffing) and refuse hostile or broken input with one
`InputError` line instead of a traceback or a hang (zip bombs, entity bombs, truncated zips).

The `savedGame` encoding is sniffed, never assumed (spec §2): `!VCSK` (hex + XOR key, every
VASSAL release), `VOBS` (raw key byte + XOR, VASSAL master after 3.7), XZ (pywargame), plain.
XORed bytes are decoded as UTF-8 only AFTER the XOR (spec §9.5).

Public API:
    open_container(path, hold=False) -> Container
    Container: path, kind, entry_names, read_entry(name) -> bytes, has_entry(name),
        metadata (dict[str, str]), metadata_entries (dict[str, dict[str, str]]),
        savedgame_encoding, command_text() -> str, build_xml_bytes() -> bytes, build_entry_name,
        kept_open() (one archive open for a run of reads)
    decode_savedgame(data, source) -> (text, encoding)
    safe_xml_parser(huge=False) -> lxml XMLParser     (hardened; reuse it for any VASSAL XML)
    parse_xml(data, source, huge=False) -> lxml root element (InputError on bad XML / DTDs)
    read_xml(data, source, huge=False) -> the same tree, read by expat where it can (xml_light.py)
    read_metadata_xml(data, source) -> dict[str, str]
    KINDS, ENCODINGS, MAX_ENTRY_BYTES
"""

from __future__ import annotations

import binascii
import contextlib
import lzma
import os
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from vassal_parser import xml_light
from vassal_parser.errors import InputError

if TYPE_CHECKING:  # lxml is loaded when XML is first read: a save's decode needs none
    from lxml import etree

KINDS = ("module", "extension", "save", "log", "buildfile", "moduledata", "command-stream")
ENCODINGS = ("!VCSK", "VOBS", "xz", "plain")

# Caps against decompression bombs. Per entry, counted on the bytes actually produced (the zip
# header's size is attacker-controlled and never trusted).
MAX_ENTRY_BYTES = 256 * 1024 * 1024
# A real VASSAL entry compresses at most ~20:1 (hex savedGame text); deflate can reach ~1030:1.
# Beyond this ratio AND this size an entry is treated as a bomb before reaching MAX_ENTRY_BYTES.
MAX_RATIO = 200
RATIO_CHECK_AFTER = 32 * 1024 * 1024
_CHUNK = 1024 * 1024

_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
_XZ_MAGIC = b"\xfd7zXZ\x00"
_HEX_DIGITS = b"0123456789abcdefABCDEF"
_METADATA_ENTRIES = ("moduledata", "extensiondata", "savedata")
_BUILD_ENTRIES = ("buildFile.xml", "buildFile")
_LOG_SUFFIXES = (".vlog", ".log")
_SAVE_SUFFIXES = (".vsav", ".sav")


def safe_xml_parser(huge: bool = False) -> etree.XMLParser:
    """lxml parser that never resolves entities, loads DTDs or touches the network.

    Why: build files and metadata come from strangers; billion-laughs and external-entity tricks
    must not expand. `huge=True` lifts libxml2's text-node limit for big build files (PieceSlot
    text can exceed 10 MB in large modules) — safe because entities stay unexpanded.
    """
    from lxml import etree

    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=huge,
        remove_comments=False,
    )


def parse_xml(data: bytes, source: str | Path, huge: bool = False) -> etree._Element:
    """Parse VASSAL XML with the hardened parser; any DTD is refused (VASSAL never writes one)."""
    from lxml import etree

    if not data.strip():
        raise InputError(source, "empty XML document")
    try:
        root = etree.fromstring(data, parser=safe_xml_parser(huge=huge))
    except etree.XMLSyntaxError as exc:
        raise InputError(source, f"malformed XML: {exc}") from None
    if root is None:
        raise InputError(source, "malformed XML: no root element")
    docinfo = root.getroottree().docinfo
    if docinfo.internalDTD is not None or docinfo.externalDTD is not None or docinfo.doctype:
        raise InputError(source, "XML declares a DTD/entities (possible entity bomb); refused")
    return root


def read_xml(data: bytes, source: str | Path, huge: bool = False) -> etree._Element | xml_light.LightElement:
    """`parse_xml`'s tree, read by expat where it can (vassal_parser/xml_light.py: the same tree,
    without lxml's import), else by lxml, whose answer or one-line refusal stands."""
    root = xml_light.parse(data)
    return root if root is not None else parse_xml(data, source, huge=huge)


def read_metadata_xml(data: bytes, source: str | Path) -> dict[str, str]:
    """`moduledata`/`savedata`/`extensiondata` (spec §1.2) as a flat dict of trimmed texts.

    Untranslated elements win; translations (`lang=`) are skipped because the pre-3.6.11 swap
    quirk makes them unreliable and nothing downstream needs them.
    """
    root = read_xml(data, source)
    result: dict[str, str] = {}
    for child in root:
        if not isinstance(child.tag, str) or child.get("lang") is not None:
            continue
        result.setdefault(child.tag, (child.text or "").strip())
    return result


def major_minor(version: str) -> tuple[int, int]:
    """`VersionUtils.truncateToMinorVersion` then numeric compare: "3.4.12" -> (3, 4); "" -> (0, 0).

    Why numeric: "3.10" is newer than "3.5", which a string comparison gets wrong.
    """
    parts: list[int] = []
    for piece in version.strip().split(".")[:2]:
        digits = ""
        for char in piece:
            if not "0" <= char <= "9":  # ASCII only: `isdigit` also takes `²`, which int() refuses
                break
            digits += char
        if not digits:
            break
        parts.append(int(digits))
    parts += [0] * (2 - len(parts))
    return parts[0], parts[1]


def _xor_utf8(data: bytes, key: int, start: int, source: str | Path) -> str:
    """XOR every byte from `start` with `key`, then decode UTF-8 (spec §9.5: after the XOR)."""
    xored = data.translate(bytes(b ^ key for b in range(256)))
    try:
        return str(memoryview(xored)[start:], "utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(source, f"savedGame is not valid UTF-8 (byte {exc.start + start})") from None


_HEX_CHUNK = 1 << 20  # hex digits per step of `_unhex_xor` (even)


def _unhex_xor(hex_body: memoryview) -> memoryview:
    """!VCSK body -> the bytes after the key (the first byte), XORed with it, in 1 MB steps.

    Why in steps: unhexlify-then-translate of a whole 28 MB body holds the hex, the raw bytes and
    the XORed copy at once; here only the result and one step's temporaries exist besides the hex
    (a fresh process reading the largest corpus save stays under 100 MB RSS). A body of one step
    (a 5,000-piece save: 0.9 MB) is unhexlified and translated as it is: no result buffer to zero
    and fill. Strict like `binascii.unhexlify`: a non-hex digit or an odd count raises
    binascii.Error.
    """
    if len(hex_body) % 2:
        raise binascii.Error("odd-length string")
    if len(hex_body) <= _HEX_CHUNK:
        raw = binascii.unhexlify(hex_body)
        if not raw:
            return memoryview(raw)
        # (the key's own byte is XORed too, to 0, and left out)
        return memoryview(raw.translate(bytes(b ^ raw[0] for b in range(256))))[1:]
    out = bytearray(len(hex_body) // 2 - 1)
    first = binascii.unhexlify(hex_body[:2])
    table = bytes(b ^ first[0] for b in range(256))
    position = 0
    for start in range(2, len(hex_body), _HEX_CHUNK):
        chunk = binascii.unhexlify(hex_body[start : start + _HEX_CHUNK]).translate(table)
        out[position : position + len(chunk)] = chunk
        position += len(chunk)
    return memoryview(out)


def _utf8(data: bytes, source: str | Path, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(source, f"{what} is not valid UTF-8 (byte {exc.start})") from None


def decode_savedgame(data: bytes, source: str | Path) -> tuple[str, str]:
    """Decode a `savedGame` entry (or bare stream): returns (text, encoding); spec §2."""
    if data.startswith(b"!VCSK"):
        if len(data) < 7:
            raise InputError(source, "savedGame !VCSK header has no key")
        # unhexlify on a memoryview: no copy of the (often 20-30 MB) hex body; strict, so any
        # non-hex character (whitespace included) or an odd digit count is an error.
        try:
            raw = _unhex_xor(memoryview(data)[5:])
        except binascii.Error:
            body = memoryview(data)[5:]
            if len(body) % 2 and not bytes(body).translate(None, _HEX_DIGITS):
                raise InputError(source, "savedGame !VCSK body has an odd number of hex digits") from None
            raise InputError(source, "savedGame !VCSK body has a non-hex character") from None
        del data  # the hex body is twice the size of the stream: let it go before the text is made
        try:
            return str(raw, "utf-8"), "!VCSK"
        except UnicodeDecodeError as exc:
            raise InputError(source, f"savedGame is not valid UTF-8 (byte {exc.start + 1})") from None
    if data.startswith(b"VOBS"):
        if len(data) < 5:
            raise InputError(source, "savedGame VOBS header has no key byte")
        return _xor_utf8(data, data[4], 5, source), "VOBS"
    if data.startswith(_XZ_MAGIC):
        decompressor = lzma.LZMADecompressor()
        try:
            inner = decompressor.decompress(data, max_length=MAX_ENTRY_BYTES)
        except lzma.LZMAError as exc:
            raise InputError(source, f"savedGame XZ stream is corrupt: {exc}") from None
        if not decompressor.eof:
            if decompressor.needs_input:
                raise InputError(source, "savedGame XZ stream is truncated")
            raise InputError(source, f"savedGame XZ stream expands beyond {MAX_ENTRY_BYTES} bytes")
        if inner.startswith((b"!VCSK", b"VOBS", _XZ_MAGIC)):
            text, _ = decode_savedgame(inner, source)
            return text, "xz"
        return _utf8(inner, source, "savedGame"), "xz"
    return _utf8(data, source, "savedGame"), "plain"


class Container:
    """One VASSAL file opened read-only; entries are read on demand (never all at once)."""

    def __init__(self, path: Path, kind: str, entries: dict[str, bytes] | None,
                 names: list[str] | None = None) -> None:
        self.path = path
        self.kind = kind
        self._bare = entries  # None for zips: read lazily from the archive
        self._names = names  # a zip's entry names, as read when it was opened
        self._archive: zipfile.ZipFile | None = None  # held open only inside `kept_open`
        self._held = False  # `_archive` was left open by `open_container(hold=True)` for `kept_open`
        self._cache: dict[str, bytes] = {}
        self._command_text: str | None = None
        self._encoding: str | None = None

    # -- entries ---------------------------------------------------------------------------
    @property
    def is_zip(self) -> bool:
        return self._bare is None

    @property
    def entry_names(self) -> list[str]:
        if self._bare is not None:
            return list(self._bare)
        if self._names is None:
            with self._zip() as archive:
                self._names = archive.namelist()
        return list(self._names)

    @contextlib.contextmanager
    def kept_open(self) -> Iterator[None]:
        """The archive opened once for a run of reads (a module's build file, metadata and board
        images; a save's stream and metadata), and closed at the end.

        Why: each read used to open the archive and parse its directory afresh — 14 times for the
        demo module and save together (issue 27). Why not open for the container's life: the
        watched save must not stay open (VASSAL replaces it; Windows refuses to while it is open).
        """
        if self._bare is not None or (self._archive is not None and not self._held):
            yield
            return
        if self._archive is None:
            self._archive = _open_zip(self.path)
        self._held = False
        try:
            yield
        finally:
            archive, self._archive = self._archive, None
            archive.close()

    def _zip(self) -> contextlib.AbstractContextManager[zipfile.ZipFile]:
        if self._archive is not None:
            return contextlib.nullcontext(self._archive)
        return _open_zip(self.path)

    def has_entry(self, name: str) -> bool:
        return name in self.entry_names

    def read_entry(self, name: str) -> bytes:
        """An entry's bytes, capped against bombs; InputError when missing or corrupt."""
        if name in self._cache:
            return self._cache[name]
        if self._bare is not None:
            if name not in self._bare:
                raise InputError(self.path, f"has no entry {name!r}")
            return self._bare[name]
        with self._zip() as archive:
            data = _read_zip_entry(archive, name, self.path)
        if name in _METADATA_ENTRIES:  # small; savedGame is decoded once and not kept
            self._cache[name] = data
        return data

    # -- metadata --------------------------------------------------------------------------
    @property
    def metadata_entries(self) -> dict[str, dict[str, str]]:
        """Each metadata entry present (`moduledata`, `extensiondata`, `savedata`) parsed."""
        names = self.entry_names
        return {
            name: read_metadata_xml(self.read_entry(name), f"{self.path}!{name}")
            for name in _METADATA_ENTRIES
            if name in names
        }

    @property
    def metadata(self) -> dict[str, str]:
        """Merged view: module fields, then extension/save fields on top (they wrote the file).

        Keys as in the XML (`name`, `version`, `VassalVersion`, `description`, `dateSaved`...).
        For a save, `moduleVersion` keeps moduledata's version and `version` is savedata's.
        Without metadata, a module's build-file root attributes are used (spec §1.2 fallback).
        """
        entries = self.metadata_entries
        merged: dict[str, str] = {}
        module = entries.get("moduledata", {})
        merged.update(module)
        if module.get("version") is not None:
            merged["moduleVersion"] = module["version"]
        for name in ("extensiondata", "savedata"):
            merged.update(entries.get(name, {}))
        if "name" in module:
            merged["name"] = module["name"]
        if not entries and self.kind in ("module", "extension", "buildfile"):
            merged.update(self._build_root_attributes())
        return merged

    def _build_root_attributes(self) -> dict[str, str]:
        root = read_xml(self.build_xml_bytes(), self.path, huge=True)
        attributes = dict(root.attrib)
        result = {key: attributes[key] for key in ("name", "version", "description") if key in attributes}
        vassal = attributes.get("VassalVersion") or attributes.get("vassalVersion")
        if vassal:
            result["VassalVersion"] = vassal
        return result

    # -- savedGame -------------------------------------------------------------------------
    def _decode_savedgame(self) -> None:
        if self._command_text is None:
            if self.kind not in ("save", "log", "command-stream"):
                raise InputError(self.path, f"is a {self.kind}, not a saved game or log")
            text, encoding = decode_savedgame(self.read_entry("savedGame"), self.path)
            self._command_text, self._encoding = text, encoding

    @property
    def savedgame_encoding(self) -> str | None:
        """`!VCSK`, `VOBS`, `xz` or `plain`; None when the file has no saved game."""
        if self.kind not in ("save", "log", "command-stream"):
            return None
        self._decode_savedgame()
        return self._encoding

    def command_text(self) -> str:
        """The decoded command stream (spec §3) exactly as VASSAL would read it."""
        self._decode_savedgame()
        assert self._command_text is not None
        return self._command_text

    # -- build file ------------------------------------------------------------------------
    @property
    def build_entry_name(self) -> str | None:
        """The build-file entry VASSAL would open (spec §1.1).

        With both entries present, `GameModule.build`/`ModuleExtension.build` choose by the
        metadata's `VassalVersion` (major.minor < 3.5, or missing = 0.0 -> legacy `buildFile`).
        With only one present we read it whatever the version (VASSAL would fail; we are lenient).
        """
        names = self.entry_names
        present = [name for name in _BUILD_ENTRIES if name in names]
        if len(present) < 2:
            return present[0] if present else None
        metadata_entry = "extensiondata" if self.kind == "extension" else "moduledata"
        version = ""
        if metadata_entry in names:
            data = self.read_entry(metadata_entry)
            version = read_metadata_xml(data, f"{self.path}!{metadata_entry}").get("VassalVersion", "")
        return "buildFile" if major_minor(version) < (3, 5) else "buildFile.xml"

    def build_xml_bytes(self) -> bytes:
        """`buildFile.xml`, else legacy `buildFile` (spec §1.1 reader advice)."""
        name = self.build_entry_name
        if name is None:
            raise InputError(self.path, "has no buildFile.xml or buildFile entry")
        return self.read_entry(name)

    def __repr__(self) -> str:
        return f"Container({str(self.path)!r}, kind={self.kind!r})"


# What Python's zipfile raises for a broken archive besides BadZipFile: a name flagged UTF-8 that
# is not (UnicodeDecodeError), an unsupported zip version or method (NotImplementedError), an
# encrypted entry (RuntimeError), a corrupt LZMA/deflate stream, short or inconsistent headers.
_ZIP_ERRORS = (
    zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError, RuntimeError,
    UnicodeDecodeError, ValueError, struct.error, OverflowError,
)


def _open_zip(path: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except _ZIP_ERRORS as exc:
        raise InputError(path, f"truncated or corrupt zip archive ({_short(exc)})") from None
    except OSError as exc:
        raise InputError(path, f"cannot read file: {exc.strerror or exc}") from None


def _short(exc: BaseException) -> str:
    """An exception as a few words for a one-line message (some carry kilobytes of bytes)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."


def _read_zip_entry(archive: zipfile.ZipFile, name: str, path: Path) -> bytes:
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise InputError(path, f"has no entry {name!r}") from None
    if info.flag_bits & 0x1:
        raise InputError(path, f"entry {name!r} is encrypted")
    chunks: list[bytes] = []
    total = 0
    ratio_limit = MAX_RATIO * max(info.compress_size, 1)
    try:
        with archive.open(info) as stream:
            while True:
                chunk = stream.read(_CHUNK)
                if not chunk:
                    break
                total += len(chunk)
                if total > MAX_ENTRY_BYTES:
                    raise InputError(
                        path, f"entry {name!r} expands beyond {MAX_ENTRY_BYTES} bytes (zip bomb?)"
                    )
                if total > RATIO_CHECK_AFTER and total > ratio_limit:
                    raise InputError(
                        path, f"entry {name!r} expands more than {MAX_RATIO}:1 past {total} bytes (zip bomb?)"
                    )
                chunks.append(chunk)
    except _ZIP_ERRORS as exc:
        raise InputError(path, f"entry {name!r} is truncated or corrupt ({_short(exc)})") from None
    except OSError as exc:
        raise InputError(path, f"cannot read entry {name!r}: {exc.strerror or exc}") from None
    return b"".join(chunks)


def _kind_of_zip(path: Path, archive: zipfile.ZipFile) -> str:
    names = set(archive.namelist())
    if "savedGame" in names:
        suffix = path.suffix.lower()
        if suffix in _LOG_SUFFIXES:
            return "log"
        if suffix in _SAVE_SUFFIXES:
            return "save"
        return "save?"  # decided from the content (LOG steps after end_save)
    if not names & set(_BUILD_ENTRIES):
        raise InputError(path, "zip archive has no savedGame, buildFile.xml or buildFile: not a VASSAL file")
    if "extensiondata" in names:
        return "extension"
    if "moduledata" in names:
        return "module"
    build = next(name for name in _BUILD_ENTRIES if name in names)
    head = _read_zip_entry(archive, build, path)[:4096]
    return "extension" if b"VASSAL.build.module.ModuleExtension" in head else "module"


def _looks_like_log(text: str) -> bool:
    end = text.find("end_save")
    return end >= 0 and text.find("LOG\t", end) >= 0


def _bare_kind(path: Path, data: bytes) -> tuple[str, dict[str, bytes]]:
    head = data.lstrip()[:4096]
    if head.startswith(b"<"):
        if b"<data" in head and path.name in _METADATA_ENTRIES:
            return "moduledata", {path.name: data}
        if b"<data" in head and b"VASSAL.build" not in head:
            return "moduledata", {"moduledata": data}
        if b"VASSAL.build" in head or b"VASSAL.launch" in head:
            entry = "buildFile.xml" if path.name == "buildFile.xml" else "buildFile"
            return "buildfile", {entry: data}
        raise InputError(path, "XML file is neither a VASSAL build file nor VASSAL metadata")
    if data.startswith((b"!VCSK", b"VOBS", _XZ_MAGIC, b"begin_save")):
        return "command-stream", {"savedGame": data}
    raise InputError(path, "not a VASSAL file (not a zip, VASSAL XML or command stream)")


def open_container(path: str | os.PathLike[str], hold: bool = False) -> Container:
    """Open a VASSAL file of any kind; InputError (one line) when it is not one or is broken.

    `hold=True`: a zip's archive stays open for the caller's `with container.kept_open():`, which
    follows at once and closes it (so its directory is read once, not twice)."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a directory, not a VASSAL file")
    try:
        with path.open("rb") as handle:
            head = handle.read(8)
    except OSError as exc:
        raise InputError(path, f"cannot read file: {exc.strerror or exc}") from None
    if not head:
        raise InputError(path, "empty file")
    if head.startswith(_ZIP_MAGICS):
        archive = _open_zip(path)
        try:
            kind = _kind_of_zip(path, archive)
            names = archive.namelist()
        except BaseException:
            archive.close()
            raise
        container = Container(path, kind, None, names)
        if hold:
            container._archive, container._held = archive, True
        else:
            archive.close()
        if kind == "save?":
            container.kind = "save"
            container.kind = "log" if _looks_like_log(container.command_text()) else "save"
        return container
    if path.suffix.lower() in (".vmod", ".vmdx", ".mdx", ".zip"):
        raise InputError(path, "not a zip archive")
    if path.stat().st_size > MAX_ENTRY_BYTES:
        raise InputError(path, f"file is larger than {MAX_ENTRY_BYTES} bytes")
    data = path.read_bytes()
    kind, entries = _bare_kind(path, data)
    container = Container(path, kind, entries)
    if kind == "command-stream":
        container.command_text()  # validate now: a broken stream is reported on open
    return container
