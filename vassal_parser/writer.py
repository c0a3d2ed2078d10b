"""Write `.vsav`/`.vlog` files that VASSAL 3.7 loads (spec §1.1, §1.2, §2.1, §3.2).

Why these choices:
* `!VCSK` obfuscation, not `VOBS`/plain: every 3.x release reads it, and other tools assume it.
* Entries `savedGame`, `savedata`, `moduledata` in that order, DEFLATED — what VASSAL writes.
* Piece members before their Stack/Deck, and a `SETUP_STACK<TAB>` marker: without them VASSAL
  silently drops stack members or re-creates every at-start piece (spec §9.6, §9.7).
* Never modify a user file in place: write a temporary file in the target folder and
  `os.replace` it, so a watcher (or VASSAL) never sees a half-written zip.

Public API:
    obfuscate(text, key=None) -> bytes                 (`!VCSK` + key + hex, spec §2.1)
    metadata_xml(fields, kind) -> bytes                (kind: "savedata" | "moduledata")
    ensure_loadable(tree) -> CommandTree               (members before containers, SETUP_STACK)
    write_game_file(path, stream, *, module_metadata=None, comment=None,
                    module_version="", vassal_version=DEFAULT_VASSAL_VERSION, key=None,
                    ensure=True, plain=False) -> Path
    write_save = write_log = write_game_file
"""

from __future__ import annotations

import io
import os
import secrets
import time
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

from vassal_parser import atomic, sequence
from vassal_parser.commands import (
    Command,
    CommandGroup,
    CommandTree,
    decode_stream,
    encode_stream,
    iter_commands,
)

DEFAULT_VASSAL_VERSION = "3.7.12"
SETUP_STACK = "SETUP_STACK\t"
ENTRY_ORDER = ("savedGame", "savedata", "moduledata")


def obfuscate(text: str, key: int | None = None) -> bytes:
    """ObfuscatingOutputStream: `!VCSK`, key as two hex digits, then each UTF-8 byte XOR key."""
    if key is None:
        key = secrets.randbelow(256)
    if not 0 <= key <= 255:
        raise ValueError(f"obfuscation key must be a byte, got {key}")
    table = bytes(b ^ key for b in range(256))
    body = text.encode("utf-8").translate(table).hex()
    return f"!VCSK{key:02x}{body}".encode("ascii")


def metadata_xml(fields: dict[str, str], kind: str) -> bytes:
    """Metadata XML in AbstractMetaData.save's element order and JDK-like layout (spec §1.2)."""
    if kind not in ("savedata", "moduledata"):
        raise ValueError(f"unknown metadata kind {kind!r}")
    lines = ['<?xml version="1.0" encoding="UTF-8" standalone="no"?>', '<data version="1">']

    def element(tag: str, value: str | None) -> None:
        lines.append(f"  <{tag}>{escape(value)}</{tag}>" if value else f"  <{tag}/>")

    element("version", fields.get("version", ""))
    element("extra1", fields.get("extra1", ""))
    element("extra2", fields.get("extra2", ""))
    element("VassalVersion", fields.get("VassalVersion", DEFAULT_VASSAL_VERSION))
    element("dateSaved", fields.get("dateSaved") or str(int(time.time() * 1000)))
    description = fields.get("description")
    if description or kind == "moduledata":
        element("description", description)
    if kind == "moduledata":
        element("name", fields.get("name", ""))
    lines.append("</data>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _container_members(command: Command) -> tuple[str | None, list[str]]:
    fields = command.fields
    type_string = fields.get("type", "")
    state = fields.get("state", "")
    if type_string == "stack":
        tokens = sequence.decode(state, ";")
        return fields.get("id"), [token for token in tokens[1:] if token and not token.startswith("@@")]
    if type_string.startswith("deck;"):
        tokens = sequence.decode(state, ";")
        ids = tokens[4] if len(tokens) > 4 else ""
        return fields.get("id"), [token for token in sequence.decode(ids, ",") if token] if ids else []
    return None, []


def _fix_member_order(group: CommandGroup) -> bool:
    """Move Stack/Deck AddPieces after their members when one precedes a member (spec §3.2)."""
    position = {}
    containers: list[tuple[int, list[str]]] = []
    for index, child in enumerate(group.children):
        if isinstance(child, Command) and child.kind == "add_piece":
            piece_id, members = _container_members(child)
            position[child.fields.get("id")] = index
            if piece_id is not None:
                containers.append((index, members))
    violated = any(
        position.get(member, -1) > index for index, members in containers for member in members
    )
    if not violated:
        return False
    container_indexes = {index for index, _ in containers}
    kept = [child for index, child in enumerate(group.children) if index not in container_indexes]
    moved = [group.children[index] for index in sorted(container_indexes)]
    group.children = kept + moved
    return True


def ensure_loadable(tree: CommandTree) -> CommandTree:
    """Fix what makes VASSAL lose pieces on load; an already-correct tree is left untouched."""
    stack: list[CommandGroup] = [tree]
    while stack:
        group = stack.pop()
        _fix_member_order(group)
        stack.extend(child for child in group.children if isinstance(child, CommandGroup))
    if not any(command.text == SETUP_STACK for command in iter_commands(tree)):
        end = next(
            (
                index
                for index, child in enumerate(tree.children)
                if isinstance(child, Command) and child.text == "end_save"
            ),
            len(tree.children),
        )
        tree.children.insert(end, Command(SETUP_STACK))
    return tree


def write_game_file(
    path: str | os.PathLike[str],
    stream: str | CommandTree,
    *,
    module_metadata: bytes | dict[str, str] | None = None,
    comment: str | None = None,
    module_version: str = "",
    vassal_version: str = DEFAULT_VASSAL_VERSION,
    key: int | None = None,
    ensure: bool = True,
    plain: bool = False,
    exclusive: bool = False,
) -> Path:
    """Write a save or log zip atomically (temp file in the same folder, then `os.replace`).

    `exclusive`: the file must be new at the instant it is written (`atomic.AlreadyExists` if not).

    `module_metadata`: the module's `moduledata` bytes to copy (as VASSAL does), or fields to
    generate it from. `ensure` applies `ensure_loadable` (skip only to copy a stream verbatim).
    `plain` writes the stream unobfuscated (VASSAL reads that too): for inputs that were plain.
    """
    target = Path(path)
    tree = stream if isinstance(stream, CommandTree) else decode_stream(stream)
    if ensure:
        tree = ensure_loadable(tree)
    text = encode_stream(tree)
    if isinstance(module_metadata, bytes):
        moduledata = module_metadata
    else:
        fields = dict(module_metadata or {})
        fields.setdefault("VassalVersion", vassal_version)
        moduledata = metadata_xml(fields, "moduledata")
    savedata = metadata_xml(
        {"version": module_version, "VassalVersion": vassal_version, "description": comment or ""}, "savedata"
    )
    saved_game = text.encode("utf-8") if plain else obfuscate(text, key)
    entries = {"savedGame": saved_game, "savedata": savedata, "moduledata": moduledata}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in ENTRY_ORDER:
            archive.writestr(name, entries[name])
    write_atomically(target, buffer.getvalue(), exclusive=exclusive)
    return target


def write_atomically(target: Path, data: bytes, *, exclusive: bool = False) -> Path:
    """Write `data` to a temp name in `target`'s folder, fsync it, then rename it over `target`.

    Why: user files are never modified in place, and a watcher (ours, or VASSAL) must never see half a
    file. On any failure the temp file is removed and `target` is untouched; a full disk, a read-only
    folder or a denied permission is `vassal_parser.atomic.DiskError` (one line, exit 2). The target's
    mode is kept. (The steps and why: vassal_parser/atomic.py.)
    """
    return atomic.write_atomically(target, data, exclusive=exclusive)


write_save = write_game_file
write_log = write_game_file
