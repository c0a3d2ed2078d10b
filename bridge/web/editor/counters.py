"""The editor's Counters pane (issue 38): the pack's counter, state and ignore rules, the module's pieces
each one matches, accept / change / drop, and the pieces no rule matches; saved into vassal.toml in place.

Why a pane on the module's own pieces: `pack scaffold` proposes rules from the module's evidence
(`proposed = true`, the evidence as the comment lines above the rule), and a person must see what a
rule takes — the counters themselves, with their images — before vouching for it. What is inferred
stays labelled until a person accepts it (or changes it: a rule a person rewrote is theirs).

Why tomlkit: the rules are written in place (rule_toml.py), a dropped rule's evidence comment with it,
and every other byte of vassal.toml is kept.

Why its own module: the editor's session (model.py) is shared with the map and facts panes; this one
keeps to this file, counters.js/counters.css, and small hooks in model.py and server.py.
"""

from __future__ import annotations

import copy
import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit

from bridge.mapping.pack_rules import COUNTER_FIELDS, Rule, _rules
from bridge.mapping.slots import SlotPiece, slot_piece_objects, slot_pieces
from bridge.web.editor.rule_toml import (
    append_rule,
    drop_rule,
    evidence_of,
    file_with_vassal,
    plain,
    replace_table,
)
from vassal_parser.errors import InputError

KINDS = ("counters", "state", "ignore")
LABELS = {"counters": "Counter rule", "state": "State rule", "ignore": "Ignore rule"}
MAX_ENTRIES = 40  # conditions or fields one rule may be given in the page
MAX_TEXT = 1000  # characters of one key or value


class RuleEditError(ValueError):
    """A rule edit the page must not make (sent back as one line)."""


@dataclass
class _Static:
    """What the pane shows of a rule but never edits."""

    kind: str
    evidence: list[str]
    note: str | None
    others: dict[str, Any]  # steps_delta, types, unlocated: kept for the checks, written as they were


def piece_images(module: Any) -> list[str | None]:
    """Per PieceSlot (in `slot_pieces` order): the image VASSAL shows for it as the palette holds it —
    the outermost Layer's image at its current level where it has one, else the BasicPiece's image."""
    from bridge.mapping.slots import _expand
    from vassal_parser.traits import BasicPiece, Layer

    out: list[str | None] = []
    for _slot, piece in slot_piece_objects(module):
        traits, _names = _expand(piece.traits, module)
        # the outermost active Layer whose current level has an image is the face VASSAL draws on top
        image = next((t._own_properties()[f"{t.layer_name}_Image"] for t in traits
                      if isinstance(t, Layer) and t._own_properties()[f"{t.layer_name}_Image"]), None)
        if image is None:
            basic = next((t for t in piece.traits if isinstance(t, BasicPiece)), None)
            image = (basic.fields.get("image") or None) if basic is not None else None
        out.append(str(image) if image else None)
    return out


def _variables(piece: SlotPiece) -> dict[str, str]:
    """A PieceSlot's variables as the mapping reads them (VassalMapping._variables, on no map)."""
    variables = dict(piece.properties)
    variables.update({"BasicName": piece.basic_name, "PieceName": piece.piece_name, "location": "",
                      "map": "", "zone": "", "board": "", "piece_id": piece.id,
                      "prototypes": "\n".join(piece.prototypes)})
    return variables


class CounterPane:
    """The working copy of the pack's rules (one entry per rule, keyed `kind:n` stable over saves)."""

    def __init__(self, pack_dir: Path, mapping: Any, module: Any,
                 boxes_now: Callable[[], dict[str, str]] | None = None) -> None:
        self.pack_dir = pack_dir
        # The session's working copy of [vassal.places.boxes] (the map's zone editor changes it too).
        self._boxes_now = boxes_now or (lambda: dict(self.box_saved))
        self.box_saved: dict[str, str] = dict(mapping.boxes) if mapping is not None else {}
        self.pattern_saved: dict[str, str] = ({p.pattern: t for p, t in mapping.box_patterns}
                                              if mapping is not None else {})
        # `[vassal.places] proposed`: name -> {proposed, dropped} (dropped: a box pattern removed here)
        self.places: dict[str, dict[str, bool]] = {
            n: {"proposed": True, "dropped": False} for n in (mapping.proposed_places if mapping else ())}
        self.places_saved = copy.deepcopy(self.places)
        self.pieces = slot_pieces(module)
        self.images = piece_images(module)
        self._variables = [_variables(p) for p in self.pieces]
        self.path: Path | None = None
        self.reason: str | None = None
        self.order: dict[str, list[str]] = {k: [] for k in KINDS}  # ids in file order
        self.static: dict[str, _Static] = {}
        self.rules: dict[str, dict[str, Any]] = {}  # id -> {match, set, proposed, dropped}
        self.saved: dict[str, dict[str, Any]] = {}
        self._cache: dict[str, Any] | None = None
        self.version = 0
        self._added = 0  # rules added in this session (their ids: `counters:+1`, ...)
        if mapping is None:
            self.reason = "the pack has no [vassal] table: there are no rules to review"
            return
        self._load(mapping)

    # ---- loading ------------------------------------------------------------------------------
    def _load(self, mapping: Any) -> None:
        path = file_with_vassal(self.pack_dir)
        if path is None:
            self.reason = "the pack's [vassal] table is not in a file of its own folder"
            return
        vassal = tomlkit.parse(path.read_text(encoding="utf-8"))["vassal"]
        loaded = {"counters": mapping.counters, "state": mapping.state, "ignore": mapping.ignore}
        for kind in KINDS:
            entries = vassal.get(kind, []) if hasattr(vassal, "get") else []
            rules: list[Rule] = loaded[kind]
            if len(entries) != len(rules):
                self.reason = (f"{path.name}: its [[vassal.{kind}]] list is not the one the pack reads "
                               "(written in another file?): the rules are shown, not edited")
            for index, rule in enumerate(rules):
                rule_id = f"{kind}:{index}"
                entry = entries[index] if index < len(entries) else {}
                self.order[kind].append(rule_id)
                note = entry.get("note") if hasattr(entry, "get") else None
                others = {k: copy.deepcopy(plain(entry[k])) for k in ("steps_delta", "types", "unlocated")
                          if hasattr(entry, "get") and k in entry}
                self.static[rule_id] = _Static(kind, evidence_of(vassal, kind, index, entries),
                                               str(note) if note is not None else None, others)
                self.rules[rule_id] = {"match": dict(rule.match), "set": plain(rule.values),
                                       "proposed": rule.proposed, "dropped": False}
        self.path = path
        self.saved = copy.deepcopy(self.rules)

    @property
    def editable(self) -> bool:
        return self.path is not None and self.reason is None

    # ---- what the page shows ------------------------------------------------------------------
    def pieces_model(self) -> list[dict[str, Any]]:
        """The module's pieces, once per page (model.json): name, image route, properties for a title."""
        return [{"n": n, "name": p.basic_name or p.piece_name or "?",
                 "image": f"/piece/{n}" if self.images[n] else None,
                 "properties": {k: v for k, v in p.properties.items()
                                if v and k not in ("BasicName", "PieceName")},
                 "prototypes": list(p.prototypes)}
                for n, p in enumerate(self.pieces)]

    def model(self) -> dict[str, Any]:
        """Every rule with the pieces it matches, and the pieces no rule matches (cached per version)."""
        if self._cache is None:
            self._cache = self._rules_model()
        return {**self._cache, "places": self.places_model(), "version": self.full_version()}

    def _rules_model(self) -> dict[str, Any]:
        rules = []
        taken: set[int] = set()
        numbers = {kind: 0 for kind in KINDS}
        for kind in KINDS:
            for rule_id in self.order[kind]:
                state = self.rules[rule_id]
                static = self.static[rule_id]
                matched = [] if state["dropped"] else self._matches(rule_id)
                taken.update(matched)
                numbers[kind] += 1
                before = self.saved.get(rule_id)
                rules.append({
                    "id": rule_id, "kind": kind, "label": f"{LABELS[kind]} #{numbers[kind]}",
                    "proposed": state["proposed"], "dropped": state["dropped"],
                    "changed": before is not None and (state["match"], state["set"]) != (before["match"],
                                                                                         before["set"]),
                    "accepted": before is not None and before["proposed"] and not state["proposed"],
                    "new": before is None,
                    "evidence": static.evidence, "note": static.note,
                    "match": state["match"], "set": {k: _shown(v) for k, v in state["set"].items()},
                    "steps_delta": static.others.get("steps_delta", 0),
                    "pieces": matched})
        return {
            "editable": self.editable, "reason": self.reason,
            "file": self.path.name if self.path else None,
            "rules": rules,
            "unmatched": [n for n in range(len(self.pieces)) if n not in taken],
            "proposed": sum(1 for r in rules if r["proposed"] and not r["dropped"]),
            "counter_fields": sorted(COUNTER_FIELDS),
        }

    # ---- proposed boxes ---------------------------------------------------------------------------
    def places_model(self) -> list[dict[str, Any]]:
        """Each box or box pattern `pack scaffold` proposed: still proposed, accepted, changed in the
        zone editor (a person's choice: reviewed), or dropped."""
        boxes = self._boxes_now()
        out = []
        for name, state in self.places.items():
            pattern = name in self.pattern_saved
            now = self.pattern_saved[name] if pattern else boxes.get(name)
            dropped = state["dropped"] if pattern else now is None
            edited = not pattern and not dropped and now != self.box_saved.get(name)
            out.append({"name": name, "pattern": pattern, "box": now, "dropped": dropped, "edited": edited,
                        "proposed": state["proposed"] and not dropped and not edited,
                        "accepted": not state["proposed"] and not dropped})
        return out

    def still_proposed(self) -> list[str]:
        return [p["name"] for p in self.places_model() if p["proposed"]]

    def full_version(self) -> str:
        """Changes with every rule edit and with every change of a proposed zone's box (the zone
        editor's): the page redraws the pane when it moves."""
        boxes = self._boxes_now()
        marks = "".join("1" if p["proposed"] else "0" for p in self.places_model())
        seen = zlib.crc32(json.dumps([boxes.get(n) for n in self.places], ensure_ascii=False).encode("utf-8"))
        return f"{self.version}.{marks}.{seen:x}"

    def apply_place(self, message: dict[str, Any]) -> None:
        """`{type: "place", name, action: accept | drop | restore}`; a zone's box is dropped or changed
        with the zone editor's own `box` edit, so only a box pattern is dropped here."""
        if self.path is None:
            raise RuleEditError(self.reason or "the boxes cannot be edited here")
        name, action = message.get("name"), message.get("action")
        if not isinstance(name, str) or name not in self.places:
            raise RuleEditError(f"{str(name)[:60]!r} is not a box the pack lists as proposed")
        state = self.places[name]
        if action == "accept":
            state["proposed"] = False
        elif action in ("drop", "restore"):
            if name not in self.pattern_saved:
                raise RuleEditError(f"{name!r} is a zone: choose its box (or none) in the zone editor")
            state["dropped"] = action == "drop"
        else:
            raise RuleEditError(f"unknown box action {str(action)[:40]!r}")
        self._changed()

    def read_place(self, name: str) -> Any:
        return copy.deepcopy(self.places.get(name))

    def write_place(self, name: str, value: Any) -> None:
        if value is not None and name in self.places:
            self.places[name] = copy.deepcopy(value)
            self._changed()

    def _matches(self, rule_id: str) -> list[int]:
        state = self.rules[rule_id]
        try:
            rule = Rule(kind=self.static[rule_id].kind, index=0, match=state["match"], values=state["set"])
        except (InputError, ValueError, TypeError):  # the checks refused it before: nothing to show
            return []
        return [n for n, piece in enumerate(self.pieces)
                if rule.test(piece, self._variables[n], placed=False) is not None]

    def image_entry(self, n: int) -> str | None:
        return self.images[n] if 0 <= n < len(self.images) else None

    # ---- edits --------------------------------------------------------------------------------
    def read(self, rule_id: str) -> Any:
        return copy.deepcopy(self.rules.get(rule_id))

    def write(self, rule_id: str, value: Any) -> None:
        """Undo / redo: a rule's whole working state put back (None: a rule added here taken away)."""
        static = self.static.get(rule_id)
        if static is None:
            return
        if value is None:  # the undo of an add
            if rule_id in self.saved:  # saved since: the file has it, so taking it away is a drop
                self.rules[rule_id] = {**copy.deepcopy(self.saved[rule_id]), "dropped": True}
            elif rule_id in self.rules:
                del self.rules[rule_id]
                self.order[static.kind].remove(rule_id)
            self._changed()
            return
        if rule_id not in self.rules:
            self.order[static.kind].append(rule_id)
        self.rules[rule_id] = copy.deepcopy(value)
        self._changed()

    def next_id(self, kind: Any) -> str:
        """The id the next added rule of `kind` gets (the history needs it before the edit runs)."""
        return f"{kind}:+{self._added + 1}"

    def unsaved(self) -> dict[tuple[str, str], Any]:
        """Each rule's working state as an entry of the editor's unsaved count (copies: the session
        keeps the saved entries to compare with)."""
        return {**{("rule", i): copy.deepcopy(s) for i, s in self.rules.items()},
                **{("place", n): copy.deepcopy(s) for n, s in self.places.items()}}

    def dirty(self) -> bool:
        return self.rules != self.saved or self.places != self.places_saved

    def needs_write(self) -> bool:
        """Whether Save must touch vassal.toml for the pane: a rule edit, or a proposed box accepted,
        dropped, or changed in the zone editor (its name leaves `[vassal.places] proposed`)."""
        return self.rules != self.saved or self.still_proposed() != list(self.places_saved)

    def apply(self, message: dict[str, Any]) -> None:
        """`{type: "rule", rule: "counters:0", action: accept | change | drop, match?, set?}`."""
        if not self.editable:
            raise RuleEditError(self.reason or "the rules cannot be edited here")
        if message.get("action") == "add":
            self._add(message)
            return
        rule_id, action = message.get("rule"), message.get("action")
        if not isinstance(rule_id, str) or rule_id not in self.rules:
            raise RuleEditError(f"{str(rule_id)[:60]!r} is not a rule of the pack")
        state = self.rules[rule_id]
        if state["dropped"] and action != "restore":
            raise RuleEditError("that rule is dropped: undo brings it back")
        if action == "accept":
            state["proposed"] = False
        elif action == "drop":
            state["dropped"] = True
        elif action == "restore":
            state["dropped"] = False
        elif action == "change":
            match = _text_table(message.get("match"), "match")
            values = self._checked_values(rule_id, message.get("set"))
            kind = self.static[rule_id].kind
            entry = {"match": match, "set": values, **self.static[rule_id].others}
            try:
                _rules([entry], kind, "the page")
            except InputError as exc:
                text = exc.one_line() if hasattr(exc, "one_line") else str(exc)
                raise RuleEditError(text.replace(f"[[vassal.{kind}]] #1", LABELS[kind].lower())) from None
            state["match"], state["set"] = match, values
            state["proposed"] = False  # a person wrote these values: the rule is theirs now
        else:
            raise RuleEditError(f"unknown rule action {str(action)[:40]!r}")
        self._changed()

    def _add(self, message: dict[str, Any]) -> None:
        """`{action: "add", kind, match, set}`: a new rule, written by a person (never proposed), appended
        to its list — for the pieces no rule matches yet."""
        kind = message.get("kind")
        if kind not in KINDS:
            raise RuleEditError(f"{str(kind)[:40]!r} is not a kind of rule (one of {', '.join(KINDS)})")
        match = _text_table(message.get("match"), "match")
        values = _text_table(message.get("set"), "set", allow_empty=True) if kind != "ignore" else {}
        try:
            _rules([{"match": match, "set": values}], kind, "the page")
        except InputError as exc:
            text = exc.one_line() if hasattr(exc, "one_line") else str(exc)
            raise RuleEditError(text.replace(f"[[vassal.{kind}]] #1",
                                             f"the new {LABELS[kind].lower()}")) from None
        rule_id = self.next_id(kind)
        self._added += 1
        self.static[rule_id] = _Static(kind, [], None, {})
        self.rules[rule_id] = {"match": match, "set": values, "proposed": False, "dropped": False}
        self.order[kind].append(rule_id)
        self._changed()

    def _checked_values(self, rule_id: str, raw: Any) -> dict[str, Any]:
        """`set` as the page sent it (all text): a value that was true/false or a number in the file
        stays one where the text still reads as one."""
        values = _text_table(raw, "set", allow_empty=True)
        before = self.rules[rule_id]["set"]
        out: dict[str, Any] = {}
        for key, text in values.items():
            old = before.get(key)
            if isinstance(old, bool) and text.lower() in ("true", "false"):
                out[key] = text.lower() == "true"
            elif isinstance(old, int) and not isinstance(old, bool) and text.lstrip("-").isdigit():
                out[key] = int(text)
            elif isinstance(old, list):
                out[key] = [part.strip() for part in text.split(",") if part.strip()]
            else:
                out[key] = text
        return out

    def _changed(self) -> None:
        self._cache = None
        self.version += 1

    # ---- saving ---------------------------------------------------------------------------------
    def write_into(self, document: Any) -> None:
        """The edits into the parsed vassal.toml (tomlkit): accepted and changed rules in place, dropped
        ones removed with their evidence comment."""
        vassal = document["vassal"]
        for kind in KINDS:
            ids = [i for i in self.order[kind] if i in self.saved]  # as the file has them, in order
            added = [i for i in self.order[kind] if i not in self.saved and not self.rules[i]["dropped"]]
            if not added and not any(self.rules[i] != self.saved[i] for i in ids):
                continue
            entries = vassal.get(kind)
            for position, rule_id in enumerate(ids):
                state, before = self.rules[rule_id], self.saved[rule_id]
                if state == before or state["dropped"]:
                    continue
                table = entries[position]
                if state["proposed"] != before["proposed"]:
                    if state["proposed"]:
                        table["proposed"] = True
                    elif "proposed" in table:
                        del table["proposed"]
                for key in ("match", "set"):
                    if state[key] != before[key]:
                        replace_table(table, key, state[key])
            for position in reversed(range(len(ids))):
                if self.rules[ids[position]]["dropped"]:
                    drop_rule(vassal, kind, position)
            for rule_id in added:
                append_rule(vassal, kind, self.rules[rule_id]["match"], self.rules[rule_id]["set"])
        self._write_places(vassal)

    def _write_places(self, vassal: Any) -> None:
        """`[vassal.places] proposed` without the names reviewed or gone; dropped patterns removed."""
        places = vassal.get("places")
        if places is None:
            return
        patterns = places.get("box_patterns")
        for name, state in self.places.items():
            if state["dropped"] and patterns is not None and name in patterns:
                del patterns[name]
        kept = self.still_proposed()
        if "proposed" in places and kept != list(self.places_saved):
            if kept:
                places["proposed"] = kept
            else:
                del places["proposed"]

    def after_save(self) -> set[tuple[str, str]]:
        """The saved state is the working copy now; dropped rules and reviewed boxes leave it (their
        history keys are returned, so the history forgets the steps that touched them: the file no
        longer has them to put back)."""
        gone = {i for i, s in self.rules.items() if s["dropped"]}
        for kind in KINDS:
            self.order[kind] = [i for i in self.order[kind] if i not in gone]
        for rule_id in gone:
            self.rules.pop(rule_id)
            self.static.pop(rule_id)
        self.saved = copy.deepcopy(self.rules)
        kept = self.still_proposed()
        left = {("place", n) for n in self.places if n not in kept}
        for name, state in self.places.items():
            if state["dropped"]:
                self.pattern_saved.pop(name, None)
        self.places = {n: {"proposed": True, "dropped": False} for n in kept}
        self.places_saved = copy.deepcopy(self.places)
        self.box_saved = dict(self._boxes_now())
        self._changed()
        return {("rule", i) for i in gone} | left

def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)

def _text_table(raw: Any, what: str, allow_empty: bool = False) -> dict[str, str]:
    if not isinstance(raw, dict) or len(raw) > MAX_ENTRIES:
        raise RuleEditError(f"{what} is an object of at most {MAX_ENTRIES} entries")
    out: dict[str, str] = {}
    for key, value in raw.items():
        if not isinstance(key, str) or not key.strip() or not isinstance(value, str):
            raise RuleEditError(f"{what}: every entry is a name and a text")
        if len(key) > MAX_TEXT or len(value) > MAX_TEXT:
            raise RuleEditError(f"{what}: a name or text of at most {MAX_TEXT} characters")
        out[key.strip()] = value
    if not out and not allow_empty:
        raise RuleEditError(f"a rule's {what} is never empty (it would take every piece)")
    return out
