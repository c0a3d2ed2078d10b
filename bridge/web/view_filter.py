"""The one gate between the daemon's state and a page: every message a client is sent passes `for_view`.

Why one function: the stream view is public (an OBS scene, a URL pasted in a chat), and its privacy
used to be a rule applied key by key in several places, so a new message, a new key or a field
derived from a private one (an inset hex found from a hidden unit's move, an answer's label, the
"Moves written" line, a folder path in a notice) slipped past. Here every outgoing message — snapshot,
delta, heartbeat, pong, error — goes through one function that knows each view's rules:

* control: everything (the players' own desk; it needs the control token, bridge/web/access.py).
* player (one per faction: `?view=player&faction=Axis`): everything about the game but the pieces
  VASSAL conceals from that faction's sides (`vassal.concealed_from`, bridge/mapping/sides.py): its
  own hidden and masked pieces are shown, another side's are withheld as from the stream (names,
  places, insets, answers), a step or choice about one is replaced by a line saying whose piece it is
  ("A step for a piece the Soviet side keeps hidden"). A player view with no (known) faction is an
  observer's: it shows no concealed piece. The concealment report itself (`vassal.concealed*`) is the
  control view's. Where files are stays off it too: notices name files by their base name, and
  "Write the moves" tells the file, not its folder.
* stream: `protocol.project_value` (hidden and masked pieces, docs/protocol.md "Hidden pieces"), then the
  fields derived from what was withheld are worked out again from what is left: an inset loses the
  hexes where hidden pieces stand (and the neighbours and counters drawn around them), an answer's
  label is made from the options still shown, an owed event's step counts from the steps still
  shown; "Write the moves" is not the stream's business at all
  (null); every text names files by their base name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from bridge.web import protocol

# An absolute folder part of a path in free text: POSIX (`/home/alice/…/`) or Windows (`C:\Users\…\`).
# Segments stop at whitespace, quotes and brackets, so the text around a path is left alone; the
# daemon's own folders (watched, --out, state) are removed first as whole prefixes, spaces and all.
_FOLDER_PART = re.compile(r"(?:(?<![\w.])[A-Za-z]:|(?<![\w.~]))[\\/](?:[^\\/\s'\"()<>\[\]]+[\\/])+")


def base_names_only(text: str, folders: Iterable[str] = ()) -> str:
    """`text` with every absolute folder part of a path removed: `/home/a/x.vsav: bad` -> `x.vsav: bad`."""
    if "/" not in text and "\\" not in text:
        return text
    for folder in sorted(folders, key=len, reverse=True):
        if folder and folder in text:
            text = text.replace(folder.rstrip("/\\") + "/", "").replace(folder.rstrip("/\\") + "\\", "")
            text = text.replace(folder, "")
    return _FOLDER_PART.sub("", text)


def _texts_base_names(value: Any, folders: tuple[str, ...]) -> Any:
    """`base_names_only` on every string of a JSON value, IN PLACE (the value must be the caller's own
    copy: the stream's projections are). Why in place: it runs on every plan the stream is sent, and
    almost no string of a plan holds a path; rebuilding every dict and list was most of its time."""
    if isinstance(value, str):
        return base_names_only(value, folders)
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, str):
                if "/" in item or "\\" in item:
                    value[index] = base_names_only(item, folders)
            elif isinstance(item, (list, dict)):
                _texts_base_names(item, folders)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                if "/" in item or "\\" in item:
                    value[key] = base_names_only(item, folders)
            elif isinstance(item, (list, dict)):
                _texts_base_names(item, folders)
    return value


def _writeback_for_player(value: Any) -> Any:
    """The file written and its description, never the folder it went to."""
    if not isinstance(value, Mapping):
        return value
    last = value.get("last")
    if isinstance(last, Mapping):
        last = {k: v for k, v in last.items() if k not in ("path", "folder", "save_path")}
    return {**value, "last": last}


# --- the stream's derived fields ------------------------------------------------------------------


def _private_places(stream_filter: protocol.StreamFilter) -> set[str]:
    """Where hidden pieces stand (pack hex ids, VASSAL locations, hex names: `vassal.concealed_places`)."""
    plan = stream_filter.plan
    vassal = plan.get("vassal") if isinstance(plan, Mapping) else None
    places = vassal.get("concealed_places") if isinstance(vassal, Mapping) else None
    return {str(place) for place in places or [] if str(place)} if isinstance(places, list) else set()


def _public_inset(inset: Any, names: set[str]) -> Any:
    """An inset without the hexes named by a private place, their neighbours and the counters in them."""
    if not isinstance(inset, Mapping):
        return inset
    hexes = [entry for entry in inset.get("hexes") or [] if isinstance(entry, Mapping)]
    dropped = {str(entry.get("name")) for entry in hexes
               if protocol._names_private(str(entry.get("name")), names)
               or protocol._names_private(str(entry.get("label") or ""), names)
               or protocol._names_private(str(entry.get("hex") or ""), names)}
    # (`strip_private` has already dropped a hex named by a private place and made its neighbours'
    # `near` "(hidden)"; both forms are judged here, so the rule holds on a plan not stripped before.)
    kept = [entry for entry in hexes if str(entry.get("name")) not in dropped
            and not _near_withheld(entry.get("near"), dropped, names)]
    if any(entry.get("focus") for entry in hexes) and not any(entry.get("focus") for entry in kept):
        return None  # nothing the event names is left: no inset rather than a map of neighbours
    counters = [counter for counter in inset.get("counters") or []
                if isinstance(counter, Mapping) and not _near_withheld(counter.get("hex"), dropped, names)]
    return {**inset, "hexes": kept, "counters": counters}


def _near_withheld(near: Any, dropped: set[str], names: set[str]) -> bool:
    return isinstance(near, str) and (near in dropped or near == protocol.HIDDEN_TEXT
                                      or protocol._names_private(near, names))


def _public_answer(choice: dict[str, Any]) -> None:
    """The answer and its label as the stream may see them: the values of options it is still shown."""
    if "answer" not in choice and "answer_label" not in choice:
        return
    labels = {json.dumps(option.get("value"), sort_keys=True): option.get("label", option.get("value"))
              for option in choice.get("options") or [] if isinstance(option, Mapping)}
    answer = choice.get("answer")
    if isinstance(answer, list):
        kept = [value for value in answer if json.dumps(value, sort_keys=True) in labels]
        choice["answer"] = kept
        words = ", ".join(str(labels[json.dumps(value, sort_keys=True)]) for value in kept)
        label = words or None
    elif answer is not None and json.dumps(answer, sort_keys=True) in labels:
        label = str(labels[json.dumps(answer, sort_keys=True)])
    else:
        choice["answer"] = None
        label = None
    if "answer_label" in choice:
        choice["answer_label"] = label if choice.get("answered") else None


# An owed event's why lines that count its steps (rules/owed.py `mark_owed`): counted again on the stream.
_COUNTING = re.compile(r"\b\d+ of \d+ steps? made|\bstep\(s\) cannot be seen|\(\d+ of \d+\)")


def _public_owed(event: dict[str, Any]) -> None:
    """An owed event as the stream may see it: its why lines that count steps say the count of the
    steps the stream is shown (a hidden piece's step withheld must not show as "2 of 6"), in place."""
    steps = [step for step in event.get("steps") or [] if isinstance(step, Mapping)]
    made = sum(1 for step in steps if step.get("made") is True)
    why = event.get("why")
    if isinstance(why, list):
        kept = [line for line in why if not (isinstance(line, str) and _COUNTING.search(line))]
        event["why"] = [f"fired earlier: {made} of {len(steps)} steps made; the rest are owed "
                        "(6.2: a fired event is carried out in full)", *kept]


def _derived_fields(plan: Any, names: set[str]) -> Any:
    """Work the derived fields of the stream's plan out again from what it is shown (in place)."""
    if not isinstance(plan, dict):
        return plan
    holders: list[Any] = [plan, *(event for event in plan.get("events") or [] if isinstance(event, dict))]
    shown = {str(choice.get("id")) for holder in holders for choice in holder.get("choices") or []
             if isinstance(choice, Mapping)}
    for holder, key in ((plan, "pending_choices"), *((event, "waiting_for") for event in holders[1:])):
        if isinstance(holder.get(key), list):  # only choices the stream is shown are waited for
            holder[key] = [item for item in holder[key] if not isinstance(item, str) or item in shown]
    for event in holders[1:]:
        if event.get("status") == protocol.OWED:
            _public_owed(event)
    for holder in holders:
        if "map" in holder and holder["map"] is not None:
            inset = _public_inset(holder["map"], names)
            if inset is None:
                del holder["map"]
            else:
                holder["map"] = inset
        for choice in holder.get("choices") or []:
            if isinstance(choice, dict):
                _public_answer(choice)
    return plan


class StreamView:
    """The stream's filter of one plan (`protocol.StreamFilter`, with the hidden pieces' places among
    its names) and its public plan with the derived fields redone, both kept until the plan changes."""

    def __init__(self, plan: Any, folders: tuple[str, ...] = ()) -> None:
        self.filter = protocol.StreamFilter(plan)
        self.filter.names = self.filter.names | _private_places(self.filter)
        self.folders = folders
        self._plan: Any = _UNSET

    @property
    def plan(self) -> Any:
        return self.filter.plan

    def public_plan(self) -> Any:
        if self._plan is _UNSET:
            self._plan = _texts_base_names(_derived_fields(self.filter.public(), self.filter.names),
                                           self.folders)
        return self._plan


_UNSET: Any = object()


def stream_view_for(state: Mapping[str, Any] | None, kept: StreamView | None = None,
                    folders: tuple[str, ...] = ()) -> StreamView:
    """`kept` if it was made for the state's current plan (the same object), else a new one."""
    plan = state.get("plan") if state is not None else None
    if kept is not None and kept.plan is plan:
        return kept
    return StreamView(plan, folders)


# --- a player view: what one faction's sides see ----------------------------------------------------

# The plan's concealment report (bridge/pipeline.py): who hides what, the control view's alone.
CONCEALMENT_KEYS = ("concealed", "concealed_names", "concealed_places", "concealed_from")
WITHHELD_STEP = "A step for a piece {keeper} keeps hidden"
WITHHELD_CHOICE = "A choice about a piece {keeper} keeps hidden"


def faction_concealment(plan: Any, faction: str | None) -> tuple[set[str], dict[str, str]]:
    """(every text naming what `faction` may not see, who keeps each hidden) for one plan.

    Why the stream's names where the plan does not say it per faction (an older plan, a plan from
    elsewhere, no faction): not knowing whose a piece is, no player is shown it."""
    vassal = plan.get("vassal") if isinstance(plan, Mapping) else None
    by_faction = vassal.get("concealed_from") if isinstance(vassal, Mapping) else None
    flagged: set[str] = set()  # objects the plan flags private, lists of private pieces: no side named
    protocol._collect_flagged(plan, flagged)
    if isinstance(plan, Mapping):
        for list_key in protocol.PRIVATE_NAME_LISTS:
            flagged.update(str(name) for name in plan.get(list_key) or [] if str(name))
    entry = by_faction.get(faction) if isinstance(by_faction, Mapping) and faction else None
    if isinstance(by_faction, Mapping) and isinstance(entry, Mapping):
        names = {str(name) for name in entry.get("names") or [] if str(name)}
        names |= {str(place) for place in entry.get("places") or [] if str(place)}
        kept = entry.get("kept_by")
        kept_by = {str(k): str(v) for k, v in kept.items()} if isinstance(kept, Mapping) else {}
        return names | flagged, kept_by
    if isinstance(by_faction, Mapping) and not by_faction:
        return flagged, {}  # nothing is concealed in this position
    stream = protocol.StreamFilter(plan)
    names = stream.names | _private_places(stream) | flagged
    for other in (by_faction.values() if isinstance(by_faction, Mapping) else ()):  # hidden from anyone
        if isinstance(other, Mapping):
            names |= {str(name) for key in ("names", "places") for name in other.get(key) or [] if str(name)}
    return names, {}


def _keeper(item: Mapping[str, Any], names: set[str], kept_by: Mapping[str, str]) -> str:
    texts = [str(value) for value in item.values() if isinstance(value, str)]
    for name in sorted(names, key=len, reverse=True):
        if name in kept_by and any(name in text for text in texts):
            return kept_by[name]
    return "another side"


def _withheld_step(step: Mapping[str, Any], names: set[str], kept_by: Mapping[str, str]) -> dict[str, Any]:
    """The line a player sees for a step about a piece they may not see: whose it is, not which."""
    keeper = _keeper(step, names, kept_by)
    line: dict[str, Any] = {"text": WITHHELD_STEP.format(keeper=keeper), "withheld": True}
    for field in ("key", "rule"):  # a tick still finds it; the rule number is public
        if isinstance(step.get(field), str) and not protocol._names_private(step[field], names):
            line[field] = step[field]
    return line


def _withheld_choice(choice: Mapping[str, Any], names: set[str],
                     kept_by: Mapping[str, str]) -> dict[str, Any]:
    line: dict[str, Any] = {"prompt": WITHHELD_CHOICE.format(keeper=_keeper(choice, names, kept_by)),
                            "options": [], "withheld": True}
    for field in ("id", "decider", "rule"):
        if isinstance(choice.get(field), str) and not protocol._names_private(choice[field], names):
            line[field] = choice[field]
    return line


def _with_withheld_lines(plan: dict[str, Any], names: set[str], kept_by: Mapping[str, str]) -> dict[str, Any]:
    """`plan` (a shallow copy) whose steps and choices about withheld pieces are replaced by their lines."""
    def withheld(item: Any) -> bool:
        return isinstance(item, Mapping) and protocol._hides_entry(item, names)

    def choices(items: Any) -> Any:
        if not isinstance(items, list):
            return items
        return [_withheld_choice(item, names, kept_by) if withheld(item) else item for item in items]

    events = []
    for event in plan.get("events") or []:
        if isinstance(event, dict):
            event = dict(event)
            if isinstance(event.get("steps"), list):
                event["steps"] = [_withheld_step(step, names, kept_by) if withheld(step) else step
                                  for step in event["steps"]]
            if "choices" in event:
                event["choices"] = choices(event["choices"])
        events.append(event)
    if isinstance(plan.get("events"), list):
        plan["events"] = events
    if "choices" in plan:
        plan["choices"] = choices(plan["choices"])
    return plan


def player_plan(plan: Any, names: set[str], kept_by: Mapping[str, str]) -> Any:
    """The plan as a player view of one faction may show it (see the module's docstring)."""
    if not isinstance(plan, Mapping):
        return plan
    shown = dict(plan)
    vassal = shown.get("vassal")
    if isinstance(vassal, Mapping):
        shown["vassal"] = {key: value for key, value in vassal.items() if key not in CONCEALMENT_KEYS}
    if not names:
        return shown
    shown = protocol.strip_private(_with_withheld_lines(shown, names, kept_by), names)
    _drop_named_keys(shown, names)
    resulting = shown.get("resulting_position")
    if isinstance(resulting, dict) and isinstance(resulting.get("counters"), list):
        # (a counter of the position is named by its id, which is not one of a line's fields)
        resulting["counters"] = [counter for counter in resulting["counters"]
                                 if not (isinstance(counter, Mapping) and str(counter.get("id")) in names)]
    return _derived_fields(shown, names)


def _drop_named_keys(value: Any, names: set[str]) -> None:
    """Remove, IN PLACE, every mapping entry whose key names a withheld piece (`vassal.unmapped_pieces`
    counts pieces by name, a position may list counters by id). Why here and not in the stream's filter:
    the stream is sent only whitelisted keys, whose keys name no piece; a player view gets the whole plan."""
    if isinstance(value, dict):
        for key in [key for key in value if isinstance(key, str) and protocol._names_private(key, names)]:
            del value[key]
        for item in value.values():
            if isinstance(item, (dict, list)):
                _drop_named_keys(item, names)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                _drop_named_keys(item, names)


class _SideFilter(protocol.StreamFilter):
    """`protocol.StreamFilter` for one faction: its names, and the player plan as its public form (so
    answers and ticks are judged against what that player is shown)."""

    def __init__(self, plan: Any, faction: str | None) -> None:
        super().__init__(None)
        self.plan = plan
        self.names, self.kept_by = faction_concealment(plan, faction)

    def public(self) -> Any:
        if self._public is protocol._UNSET:
            self._public = player_plan(self.plan, self.names, self.kept_by)
        return self._public


class SideView:
    """A player view's filter of one plan for one faction, kept until the plan changes."""

    def __init__(self, plan: Any, faction: str | None, folders: tuple[str, ...] = ()) -> None:
        self.faction = faction
        self.filter = _SideFilter(plan, faction)
        self.folders = folders

    @property
    def plan(self) -> Any:
        return self.filter.plan

    def public_plan(self) -> Any:
        return self.filter.public()


def side_view_for(state: Mapping[str, Any] | None, faction: str | None, kept: SideView | None = None,
                  folders: tuple[str, ...] = ()) -> SideView:
    """`kept` if it was made for the state's current plan and this faction, else a new one."""
    plan = state.get("plan") if state is not None else None
    if kept is not None and kept.plan is plan and kept.faction == faction:
        return kept
    return SideView(plan, faction, folders)


def _project_player(key: str, value: Any, state: Mapping[str, Any] | None, side: SideView,
                    folders: tuple[str, ...]) -> Any:
    names = side.filter.names
    if key == "plan":  # an older plan (a catch-up's delta) is judged by itself
        same = value is side.plan or value == side.plan
        return (side if same else SideView(value, side.faction, folders)).public_plan()
    if key == "writeback":
        return protocol.strip_private(_writeback_for_player(value), names) if names else \
            _writeback_for_player(value)
    if key == "notice" and isinstance(value, str):
        text = base_names_only(value, folders)
        return protocol.HIDDEN_TEXT if protocol._names_private(text, names) else text
    if not names:
        return value
    return protocol.project_value(key, value, "stream", state, stream_filter=side.filter)


def project_key(key: str, value: Any, view: str, state: Mapping[str, Any] | None,
                stream: StreamView | None = None, folders: tuple[str, ...] = (),
                side: SideView | None = None, faction: str | None = None) -> Any:
    """One state key as `view` may see it (see the module's docstring); `side`: the server's kept
    `SideView` of a player view (made afresh for `faction` when it is for another plan)."""
    if view == "control":
        return value
    if key == "storage":  # the daemon's own folder: the players' desk only
        return None
    if view == "player":
        return _project_player(key, value, state, side_view_for(state, faction, side, folders), folders)
    if view != "stream":
        raise ValueError(f"unknown view {view!r}")
    stream = stream_view_for(state, stream, folders)
    if key == "writeback":
        return None
    if key == "plan":  # an older plan (a catch-up's delta) is judged by itself
        same = value is stream.plan or value == stream.plan
        return (stream if same else StreamView(value, folders)).public_plan()
    projected = protocol.project_value(key, value, "stream", state, stream_filter=stream.filter)
    return _texts_base_names(projected, folders)


def for_view(message: Mapping[str, Any], view: str, state: Mapping[str, Any] | None = None,
             stream: StreamView | None = None, folders: Iterable[str] = (), *,
             faction: str | None = None, side: SideView | None = None) -> dict[str, Any]:
    """The message as `view` may receive it. Every message a page is sent goes through here.

    `state`: the server's current state (its plan says what is private); `stream`: the server's kept
    `StreamView` of that plan (made afresh when it is for another plan); `folders`: the daemon's own
    folders, removed from texts in full (spaces and all) before any other path's folder part;
    `faction` (a player view's, None for an observer's) and `side`, the server's kept `SideView` of it."""
    folders = tuple(str(folder) for folder in folders)
    kind = message.get("type")
    if view == "stream":
        stream = stream_view_for(state, stream, folders)
    if view == "player":
        side = side_view_for(state, faction, side, folders)
    if kind == "snapshot":
        return {**message, "view": view, "state": {
            key: project_key(key, value, view, state, stream, folders, side, faction)
            for key, value in message["state"].items()}}
    if kind == "delta":
        return {**message, "set": {key: project_key(key, value, view, state, stream, folders, side, faction)
                                   for key, value in message["set"].items()}}
    if kind in ("heartbeat", "pong"):
        return {key: value for key, value in message.items()
                if key in ("type", "protocol", "run", "seq", "time")}
    if view == "control":
        return dict(message)
    if kind == "error":
        text = str(message.get("message", ""))
        names = stream.filter.names if view == "stream" and stream is not None else \
            side.filter.names if view == "player" and side is not None else set()
        text = protocol.HIDDEN_TEXT if protocol._names_private(text, names) else text
        return {**message, "message": base_names_only(text, folders)}
    # A message of a kind this gate does not know: only what the view's filter lets through.
    if view == "stream" and stream is not None:
        return _texts_base_names(protocol.strip_private(dict(message), stream.filter.names), folders)
    if view == "player" and side is not None and side.filter.names:
        return protocol.strip_private(dict(message), side.filter.names)
    return dict(message)
