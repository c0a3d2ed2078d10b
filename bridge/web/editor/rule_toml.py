"""Editing the rules of a pack's vassal.toml in place with tomlkit (the editor's Counters pane, counters.py).

Why the comments are moved by hand: a rule's evidence comment (`pack scaffold` writes it, issue 38) is the
comment block just above its `[[vassal.counters]]` header, which tomlkit keeps at the end of the body of
the table parsed *before* it (the previous rule, or the last table of another section). Deleting the rule
alone would leave its evidence standing above the next rule, as if it were that one's; so a drop removes
the block above the dropped rule, and the block the dropped rule carried at its own end (the next rule's,
or a section comment) is given to the table before. A changed `match`/`set` is written as the file writes
its inline tables (`{ a = 1 }`), a sub-table stays one; everything else keeps its bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions
from tomlkit.items import AoT, Comment, InlineTable, Table, Whitespace


def file_with_vassal(pack_dir: Path) -> Path | None:
    for path in sorted(pack_dir.glob("*.toml")):
        try:
            if "vassal" in tomlkit.parse(path.read_text(encoding="utf-8")):
                return path
        except (tomlkit.exceptions.ParseError, UnicodeDecodeError):  # load_pack refused it already
            continue
    return None


def plain(value: Any) -> Any:
    """tomlkit items as plain Python values."""
    if hasattr(value, "unwrap"):
        return value.unwrap()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value






def replace_table(table: Any, key: str, values: dict[str, Any]) -> None:
    """`match` / `set` given new values: an inline table stays inline (keys in their old order, new
    ones after), a `[vassal.counters.match]` sub-table is changed key by key (its comments kept)."""
    existing = table.get(key)
    if isinstance(existing, Table):
        for old in [k for k in existing if k not in values]:
            del existing[old]
        for name, value in values.items():
            if existing.get(name) != value:
                existing[name] = value
        return
    order = [k for k in (existing or {}) if k in values] + [k for k in values if k not in (existing or {})]
    # Written as the file writes inline tables (`{ a = 1 }` or `{a = 1}`), parsed back as one item:
    # tomlkit's own inline table is always unspaced, and editing one in place leaves stray commas.
    spaced = not isinstance(existing, InlineTable) or existing.as_string().startswith("{ ")
    inner = ", ".join(f"{tomlkit.key(k).as_string()} = {tomlkit.item(values[k]).as_string()}" for k in order)
    table[key] = tomlkit.parse(f"x = {{ {inner} }}" if spaced else f"x = {{{inner}}}")["x"]


def _last_table(item: Any) -> Any:
    """The table whose body ends last in the text of `item` (where tomlkit keeps the comment lines
    written above the next table header)."""
    if isinstance(item, AoT):
        return _last_table(item[-1]) if len(item) else None
    if isinstance(item, Table):
        for _key, value in reversed(item.value.body):
            if isinstance(value, Table | AoT) and not (isinstance(value, Table) and value.is_super_table()
                                                        and not value.value.body):
                found = _last_table(value)
                if found is not None:
                    return found
            elif value is not None and not isinstance(value, Whitespace | Comment):
                break
        return item
    return None


def _preceding_table(vassal: Any, kind: str, index: int, entries: Any) -> Any:
    """The table tomlkit parsed just before rule `index` of `kind` (None: it is the file's first)."""
    if index > 0:
        return _last_table(entries[index - 1])
    if not isinstance(vassal, Table):
        return None
    body = vassal.value.body
    position = next((n for n, (k, _v) in enumerate(body) if k is not None and k.key == kind), None)
    if position is None:
        return None
    for _key, value in reversed(body[:position]):
        if isinstance(value, Table | AoT):
            found = _last_table(value)
            if found is not None:
                return found
    return None  # the vassal table's own keys or the document's head come before: not touched


def _comment_block(body: list[tuple[Any, Any]]) -> int:
    """Where the comment lines just above the next header start at the end of `body` (len: none)."""
    start = len(body)
    while start > 0 and body[start - 1][0] is None and isinstance(body[start - 1][1], Comment):
        start -= 1
    return start


def evidence_of(vassal: Any, kind: str, index: int, entries: Any) -> list[str]:
    """The comment lines just above a rule's header: its evidence, as `pack scaffold` writes it."""
    if not isinstance(entries, AoT):
        return []
    before = _preceding_table(vassal, kind, index, entries)
    if before is None:
        return []
    body = before.value.body
    lines = [str(item.as_string()).strip() for _k, item in body[_comment_block(body):]]
    return [line.lstrip("#").strip() for line in lines if line.startswith("#")]


def drop_rule(vassal: Any, kind: str, position: int) -> None:
    entries = vassal[kind]
    if not isinstance(entries, AoT):
        del entries[position]
        return
    before = _preceding_table(vassal, kind, position, entries)
    carried: list[Any] = []
    if before is not None:
        tail = _last_table(entries[position]).value.body
        carried = [item for _k, item in tail[_trailing_comments(tail):]]
        body = before.value.body
        cut = _comment_block(body)
        while cut > 0 and body[cut - 1][0] is None and isinstance(body[cut - 1][1], Whitespace):
            cut -= 1
        del body[cut:]
    del entries[position]
    if before is not None:
        for item in carried:
            before.value.body.append((None, item))
    if not len(entries):
        del vassal[kind]


def _trailing_comments(body: list[Any]) -> int:
    """Where the comment and blank lines at the end of a table's body begin: tomlkit keeps the comment
    written above the next table at the end of this one, so it must travel with that next table."""
    start = len(body)
    while start > 0 and body[start - 1][0] is None and isinstance(body[start - 1][1], Comment | Whitespace):
        start -= 1
    return start


def append_rule(vassal: Any, kind: str, match: dict[str, Any], values: dict[str, Any]) -> None:
    """A rule added in the editor, after the last rule of its kind. The comment block the last rule
    carried at its end (the next section's, e.g. "# Who is who") moves to the new rule's end, so it
    stays above the table it was written for."""
    entries = vassal.get(kind)
    table = tomlkit.table()
    table["match"] = _inline(match)
    if values or kind != "ignore":
        table["set"] = _inline(values)
    if entries is None:
        entries = tomlkit.aot()
        entries.append(table)
        vassal[kind] = entries
        return
    if not isinstance(entries, AoT):
        entries.append(_inline({"match": match, **({"set": values} if values or kind != "ignore" else {})}))
        return
    carried: list[Any] = []
    if len(entries):
        body = _last_table(entries[-1]).value.body
        start = _trailing_comments(body)
        carried = [item for _k, item in body[start:]]
        del body[start:]
        body.append((None, Whitespace("\n")))
    entries.append(table)
    for item in carried:
        table.value.body.append((None, item))


def _inline(values: dict[str, Any]) -> Any:
    """`{ a = 1, b = "x" }` as one item ending its line."""
    inner = ", ".join(f"{tomlkit.key(k).as_string()} = {tomlkit.item(v).as_string()}"
                      for k, v in values.items())
    return tomlkit.parse(f"x = {{ {inner} }}\n" if inner else "x = {}\n")["x"]
