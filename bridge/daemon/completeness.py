"""Is a save or log whole yet? The checks a file passes before its plan is shown.

Why all the care (docs/protocol.md, spec §8.3): VASSAL 3.5+ rewrites a save IN PLACE, so a
watcher sees an empty or half-written zip; older versions write `tmp*.zip` and rename; a log is
written once, at the end. A file is used only when it is *complete*: its size and mtime did not
change while it was read, the zip's central directory opens, the `savedGame` entry inflates with a
good CRC, and its obfuscation layer decodes to the start of a command stream (the reader judges
the rest: a file it refuses gets a notice, never a plan). Anything else is retried by the folder
watcher (bridge/daemon/folder.py), with a bounded number of attempts.
"""

from __future__ import annotations

import binascii
import lzma
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

WATCHED_SUFFIXES = (".vsav", ".vlog")
MAX_SAVEDGAME_BYTES = 256 * 1024 * 1024  # inflated size cap: refuse zip bombs, not big games
_STREAM_START = b"begin_save"
_HEX_HEAD_DIGITS = 2 * (1 + len(_STREAM_START))  # the key byte, then the stream's first word
_CHECK_CHUNK_BYTES = 64 * 1024  # inflated a step at a time: no copy of the whole entry is kept
INLINE_CHECK_BYTES = 1024 * 1024  # files up to this size get `check_structure` on the event loop
class IncompleteFile(Exception):
    """The file is not (yet) a complete, stable VASSAL archive; worth retrying."""


class CheckBug(Exception):
    """The check of a file failed in a way nobody foresaw (its cause is the exception): on its way
    from the verification through the planning round to the watcher, which reports it as a check."""


@dataclass(frozen=True)
class FileStamp:
    size: int
    mtime_ns: int


def is_watched_name(path: Path) -> bool:
    """Saves and logs only; VASSAL's `tmp*.zip`, `*.bak`, editor/OS temp files never match.

    Why also skip names starting with `.`/`~`: editors and sync tools park partial copies there.
    """
    name = path.name.lower()
    return not name.startswith((".", "~")) and name.endswith(WATCHED_SUFFIXES)


def _stamp(path: Path) -> FileStamp:
    try:
        stat = path.stat()
    except OSError as exc:
        raise IncompleteFile(f"cannot stat ({exc.strerror or exc})") from None
    return FileStamp(stat.st_size, stat.st_mtime_ns)


def _decodes(head: bytes) -> bool:
    """Does a `savedGame` payload starting with `head` decode to a command stream (spec §2: `!VCSK`,
    `VOBS`, plain)? Only the first bytes are needed: every form starts with `begin_save`.

    Why only the head: the entry is known to be complete once it inflated with a good CRC (the
    writer streams the entry, then writes its CRC, then the central directory). Decoding the whole
    body belongs to the reader, which is stricter than this check (a non-hex character or an odd
    digit count anywhere is an InputError there, so such a file is refused, with its reason,
    and never planned); here it only cost a second copy of a multi-megabyte body per save."""
    if head.startswith(b"!VCSK"):
        body = head[5:].lstrip()[:_HEX_HEAD_DIGITS]
        if len(body) < _HEX_HEAD_DIGITS:
            return False
        try:
            raw = binascii.unhexlify(body)
        except (binascii.Error, ValueError):
            return False
        key, payload = raw[0], raw[1:]
        decoded = bytes(b ^ key for b in payload)
    elif head.startswith(b"VOBS"):
        if len(head) < 6:
            return False
        key = head[4]
        decoded = bytes(b ^ key for b in head[5:15])
    else:
        decoded = head[:10]
    return decoded.startswith(_STREAM_START)


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."


def check_complete(path: Path) -> FileStamp:
    """Return the file's stamp if it is a complete, stable save/log; else raise IncompleteFile."""
    return _check_archive(path, whole=True)


def check_structure(path: Path) -> FileStamp:
    """`check_complete` short of inflating the whole `savedGame` entry to prove its CRC: the zip's
    directory is there (VASSAL writes it last, §8.3), the entry is listed, its first bytes decode,
    and the file did not change meanwhile. What the daemon checks before it sends a save to the
    planner; `check_complete` then runs alongside the plan, and the plan is published only once
    that says the file is whole (`FolderWatcher._verification`)."""
    return _check_archive(path, whole=False)


def is_small_archive(path: Path) -> bool:
    """Small enough for `check_structure` on the event loop itself: its zip directory is read
    whole, and one of a file this size is at most a few thousand entries (a few ms at worst; a
    save's is three). Why: the thread for it was ~0.8 ms of a save's way to the overlay."""
    try:
        return path.stat().st_size <= INLINE_CHECK_BYTES
    except OSError:
        return False  # the check on its thread says what is wrong


def _check_archive(path: Path, whole: bool) -> FileStamp:
    before = _stamp(path)
    if before.size == 0:
        raise IncompleteFile("empty (being written?)")
    try:
        with zipfile.ZipFile(path) as archive:
            try:
                info = archive.getinfo("savedGame")
            except KeyError:
                raise IncompleteFile("no savedGame entry") from None
            if info.file_size > MAX_SAVEDGAME_BYTES:
                raise IncompleteFile(f"savedGame larger than {MAX_SAVEDGAME_BYTES} bytes")
            # Inflated in steps and dropped: the CRC (checked by zipfile at the entry's end) is
            # what proves the entry whole, and only its first bytes are decoded here.
            with archive.open(info) as entry:
                head = entry.read(len(_STREAM_START) + 64)
                while whole and entry.read(_CHECK_CHUNK_BYTES):
                    pass
    except zipfile.BadZipFile as exc:
        raise IncompleteFile(f"not a complete zip ({_short(exc)})") from None
    except (OSError, EOFError, ValueError, NotImplementedError, RuntimeError, lzma.LZMAError, zlib.error,
            struct.error, OverflowError) as exc:
        # RuntimeError: an entry flagged encrypted; UnicodeDecodeError (a ValueError): a name
        # flagged UTF-8 that is not; NotImplementedError: a zip version or method Python lacks.
        raise IncompleteFile(f"unreadable ({_short(exc)})") from None
    if not _decodes(head):
        raise IncompleteFile("savedGame does not decode to a VASSAL command stream")
    after = _stamp(path)
    if after != before:
        raise IncompleteFile("changed while being read")
    return after
