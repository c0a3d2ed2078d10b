"""The one gate between the daemon's state and a page: every message a client is sent passes `for_view`.

Why one function: the stream view is public (an OBS scene, a URL pasted in a chat), and its privacy
used to be a rule applied key by key in several places, so a new message, a new key or a field
derived from a private one (an inset hex found from a hidden unit's move, an answer's label, the
"Moves written" line, a folder path in a notice) slipped past. Here every outgoing message — snapshot,
delta, heartbeat, pong, error — goes through one function that knows each view's rules:

* control: everything (the players' own desk; it needs the control token, bridge/web/access.py).
* player: everything about the game, but where files are stays off it: notices name files by their
  base name, and "Write the moves" tells the file, not its folder.
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


def project_key(key: str, value: Any, view: str, state: Mapping[str, Any] | None,
                stream: StreamView | None = None, folders: tuple[str, ...] = ()) -> Any:
    """One state key as `view` may see it (see the module's docstring)."""
    if view == "control":
        return value
    if key == "storage":  # the daemon's own folder: the players' desk only
        return None
    if view == "player":
        if key == "writeback":
            return _writeback_for_player(value)
        if key == "notice" and isinstance(value, str):
            return base_names_only(value, folders)
        return value
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
             stream: StreamView | None = None, folders: Iterable[str] = ()) -> dict[str, Any]:
    """The message as `view` may receive it. Every message a page is sent goes through here.

    `state`: the server's current state (its plan says what is private); `stream`: the server's kept
    `StreamView` of that plan (made afresh when it is for another plan); `folders`: the daemon's own
    folders, removed from texts in full (spaces and all) before any other path's folder part."""
    folders = tuple(str(folder) for folder in folders)
    kind = message.get("type")
    if view == "stream":
        stream = stream_view_for(state, stream, folders)
    if kind == "snapshot":
        return {**message, "view": view, "state": {
            key: project_key(key, value, view, state, stream, folders)
            for key, value in message["state"].items()}}
    if kind == "delta":
        return {**message, "set": {key: project_key(key, value, view, state, stream, folders)
                                   for key, value in message["set"].items()}}
    if kind in ("heartbeat", "pong"):
        return {key: value for key, value in message.items()
                if key in ("type", "protocol", "run", "seq", "time")}
    if view == "control":
        return dict(message)
    if kind == "error":
        text = str(message.get("message", ""))
        if view == "stream":
            names = stream.filter.names if stream is not None else set()
            text = protocol.HIDDEN_TEXT if protocol._names_private(text, names) else text
        return {**message, "message": base_names_only(text, folders)}
    # A message of a kind this gate does not know: only what the stream filter lets through.
    if view == "stream" and stream is not None:
        return _texts_base_names(protocol.strip_private(dict(message), stream.filter.names), folders)
    return dict(message)
