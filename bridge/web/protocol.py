"""The daemon's versioned JSON protocol: state, snapshots, deltas, resync history, client messages.

Why a state document with top-level deltas: the overlay needs "what is true now" (the plan, the
answers, the ticked steps, a notice about a bad file), and a page that reconnects must catch up
without replaying the world. Every change bumps one sequence number; a delta carries the
top-level keys that changed. A bounded history lets a client that missed messages resync from
its last sequence number; a client further behind gets a full snapshot instead.

Why views are projected here (server-side): the stream view is public (OBS), so pieces VASSAL
hides or masks must never reach it — the page is not trusted to filter. See `docs/protocol.md`.

Why over 500 lines: it is the wire protocol whole, section by section as docs/protocol.md has it
(state, privacy, step keys, server and client messages, log replay); the privacy section's primitives sit
beside the messages they filter, and `bridge/web/view_filter.py` composes them into the one filter.
"""

from __future__ import annotations

import copy
import json
import secrets
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

PROTOCOL_VERSION = 1
VIEWS: tuple[str, ...] = ("player", "stream", "control")
# Views allowed to change state; the stream view is a read-only broadcast source.
ACTING_VIEWS: frozenset[str] = frozenset({"player", "control"})
MAX_CLIENT_MESSAGE_BYTES = 16 * 1024
MAX_ID_CHARS = 200
MAX_MULTIPLE_OPTIONS = 50
DEFAULT_HISTORY_LIMIT = 256

# Keys of the state document (all always present in a snapshot).
STATE_KEYS: tuple[str, ...] = ("status", "file", "plan", "replay", "answers", "ticks", "notice", "updated",
                              "writeback", "storage")
# Views that may ask the daemon to write the moves (`write_moves`): the control view only.
WRITING_VIEWS: frozenset[str] = frozenset({"control"})

# How the plan JSON marks a piece a viewer may not see (see docs/protocol.md "Hidden pieces").
_PRIVATE_FLAGS = ("hidden", "masked", "private")
_PRIVATE_OWNERS = ("hidden_by", "masked_by")


class ProtocolError(ValueError):
    """A client message that cannot be accepted; the reason is sent back as an `error` message."""


def empty_state() -> dict[str, Any]:
    """The state before any file has been planned."""
    return {
        "status": "waiting",
        "file": None,
        "plan": None,
        "replay": None,
        "answers": {},
        "ticks": {},
        "notice": None,
        "updated": None,
        # "Write the moves" (docs/protocol.md): {"enabled", "how", "last": {file, path, ...} | None, "error"}
        "writeback": None,
        # Answers that cannot be kept across a restart (the state folder full or read-only):
        # {"answers_kept": false, "error": text} for the control view, else null (bridge/daemon/watch.py).
        "storage": None,
    }


# --- privacy -------------------------------------------------------------------------------------

# Top-level plan keys the public stream view may carry; everything else (e.g. `resulting_position`,
# which lists every counter) is dropped for it.
STREAM_PLAN_KEYS = frozenset(
    {"format", "version", "pack", "phasing", "turn", "due", "events", "violations", "pending_choices"}
    | {"choices", "map", "undecided", "tables", "factions", "missing"}
)
# Plan-level lists naming pieces no public viewer may see.
PRIVATE_NAME_LISTS = ("hidden_pieces", "private_pieces")
_NAME_FIELDS = ("counter", "name", "piece", "basic_name", "piece_name", "id")
HIDDEN_TEXT = "(hidden)"
# The field holding the one line of text of a list entry: a step's text, a choice's prompt, an
# option's label, an inset counter's name. (An event is not one line: only its text is redacted.)
_LINE_FIELDS = ("text", "prompt", "label", "name")


_LEAF_TYPES = frozenset({str, int, float, bool, type(None), list, tuple})
_ATOMS = frozenset({int, float, bool, type(None)})  # never private, never naming a piece
_CONTAINER_TYPES = frozenset({dict, list})
_IMMUTABLE = _ATOMS | {str}
_NO_NAMES: frozenset[str] = frozenset()


def _is_mapping(value: Any) -> bool:
    """`isinstance(value, Mapping)`, without the ABC check for the JSON types a plan is made of.

    Why: the stream view's privacy filter visits every value of every plan it sends (tens of
    thousands); the abstract-class check was most of that time."""
    kind = type(value)
    return kind is dict or (kind not in _LEAF_TYPES and isinstance(value, Mapping))


def is_private(item: Any) -> bool:
    """True for a plan object describing something a public viewer must not see."""
    if not _is_mapping(item):
        return False
    if any(item.get(flag) is True for flag in _PRIVATE_FLAGS):
        return True
    return any(item.get(owner) for owner in _PRIVATE_OWNERS)


def private_names(plan: Any) -> set[str]:
    """Names of every piece the plan marks private (flags on objects, or the plan-level lists)."""
    names: set[str] = set()
    if isinstance(plan, Mapping):
        for list_key in PRIVATE_NAME_LISTS:
            names.update(str(name) for name in plan.get(list_key) or [] if str(name))
        # CheckPipeline's report: counter id -> "hidden" | "masked" (bridge/mapping/mapper.py), and every
        # name those pieces go by (bridge/pipeline.py `concealed_names`).
        vassal = plan.get("vassal")
        concealed = vassal.get("concealed") if isinstance(vassal, Mapping) else None
        if isinstance(concealed, Mapping):
            names.update(str(counter) for counter in concealed if str(counter))
        concealed_names = vassal.get("concealed_names") if isinstance(vassal, Mapping) else None
        if isinstance(concealed_names, list):
            names.update(str(name) for name in concealed_names if str(name))
    _collect_flagged(plan, names)
    return names


def _collect_flagged(value: Any, names: set[str]) -> None:
    """Add the names of every object flagged private anywhere in `value` (`private_names`' walk).

    Why written out (no helper calls per value): it visits every object of every plan the stream
    view is sent; the calls were most of its time."""
    kind = type(value)
    if kind is list or (kind not in _LEAF_TYPES and isinstance(value, list)):
        for item in value:
            if type(item) in _CONTAINER_TYPES or type(item) not in _LEAF_TYPES:
                _collect_flagged(item, names)
        return
    if not (kind is dict or (kind not in _LEAF_TYPES and isinstance(value, Mapping))):
        return
    if _hides_object(value, _NO_NAMES):  # is_private(value)
        names.update(value[f] for f in _NAME_FIELDS if isinstance(value.get(f), str) and value[f])
    for item in value.values():
        if type(item) in _CONTAINER_TYPES or type(item) not in _LEAF_TYPES:
            _collect_flagged(item, names)


def _names_private(value: Any, names: set[str]) -> bool:
    return isinstance(value, str) and any(name in value for name in names)


def strip_private(value: Any, names: set[str] | None = None) -> Any:
    """A deep copy of `value` without private objects and without text that names a private piece.

    Why remove whole objects and whole lines: a step "move <hidden piece> to X" or a why line
    "<hidden piece> is in Aachen" gives the piece (or where it is) away just as much as the piece
    entry itself; a redacted "a hidden piece is in Aachen" would still tell where it is.

    The rule: in a mapping, an object flagged private (`is_private`) or whose `counter`/`piece`
    is a private name becomes None, and a text naming a private piece becomes "(hidden)"; a list
    drops such entries, and also every object whose own line of text (`_LINE_FIELDS`) names one.
    `_strip` applies it written out, once per value, because it runs on every plan the stream is
    sent (tests/bridge/test_stream_filter.py holds it to the rule stated plainly).
    """
    if names is None:
        names = private_names(value)
    return _strip(value, names)


def _strip(value: Any, names: set[str]) -> Any:
    kind = type(value)
    if kind in _ATOMS:  # what deepcopy would return as it is
        return value
    if kind is list or (kind not in _LEAF_TYPES and isinstance(value, list)):
        kept = []
        for item in value:
            item_kind = type(item)
            if item_kind in _ATOMS:
                kept.append(item)
            elif item_kind is str or (item_kind not in _LEAF_TYPES and isinstance(item, str)):
                for name in names:
                    if name in item:
                        break
                else:
                    kept.append(item)
            elif item_kind is dict or (item_kind not in _LEAF_TYPES and isinstance(item, Mapping)):
                if not _hides_entry(item, names):
                    kept.append(_strip(item, names))
            else:
                kept.append(_strip(item, names))
        return kept
    if kind is dict or (kind not in _LEAF_TYPES and isinstance(value, Mapping)):
        out = {}
        for key, item in value.items():
            if key in PRIVATE_NAME_LISTS:
                continue
            item_kind = type(item)
            if item_kind in _ATOMS:
                out[key] = item
            elif item_kind is str or (item_kind not in _LEAF_TYPES and isinstance(item, str)):
                out[key] = item
                for name in names:
                    if name in item:
                        out[key] = HIDDEN_TEXT
                        break
            elif item_kind is dict or (item_kind not in _LEAF_TYPES and isinstance(item, Mapping)):
                out[key] = None if _hides_object(item, names) else _strip(item, names)
            else:
                out[key] = _strip(item, names)
        return out
    return value if kind is str else copy.deepcopy(value)


def _hides_object(item: Mapping[str, Any], names: set[str] | frozenset[str]) -> bool:
    """A mapping withheld: flagged private, or its counter/piece is a private name (a value that
    is not text names nothing; a list there is filtered like any list)."""
    get = item.get
    for flag in _PRIVATE_FLAGS:
        if get(flag) is True:
            return True
    for owner in _PRIVATE_OWNERS:
        if get(owner):
            return True
    if names:
        for field in ("counter", "piece"):
            named = get(field)
            if isinstance(named, str) and named in names:
                return True
    return False


def _hides_entry(item: Mapping[str, Any], names: set[str]) -> bool:
    """A list entry withheld: `_hides_object`, or its line of text names a private piece."""
    if _hides_object(item, names):
        return True
    if names:
        get = item.get
        for field in _LINE_FIELDS:
            text = get(field)
            if isinstance(text, str):
                for name in names:
                    if name in text:
                        return True
    return False


def public_plan(plan: Any, names: set[str] | None = None) -> Any:
    """The plan as the stream view may show it: whitelisted keys, private pieces removed.

    `names`: `private_names(plan)` when the caller has it already (it walks the whole plan)."""
    if not isinstance(plan, Mapping):
        return plan
    if names is None:
        names = private_names(plan)
    return strip_private({key: value for key, value in plan.items() if key in STREAM_PLAN_KEYS}, names)


def _choice_ids(plan: Any) -> set[str]:
    ids: set[str] = set()
    if isinstance(plan, Mapping):
        candidates: list[Any] = list(plan.get("choices") or [])
        for event in iter_events(plan):
            candidates.extend(event.get("choices") or [])
        ids.update(str(c.get("id")) for c in candidates if isinstance(c, Mapping) and c.get("id") is not None)
    return ids


class StreamFilter:
    """What the stream view's filter knows of one plan: its private names and, once asked, its
    public form with the choice ids and step keys that form still shows.

    Why kept: every key of a message is judged against the state's plan (an answer or a tick
    arrives without the plan that says what is private). Made once per plan, it serves every key
    of a delta and every message until the plan changes, instead of walking the plan again for
    each (three walks of the whole plan per save before). The plan must not change while a filter
    is kept for it: `StateHistory` replaces a key's value, never edits it. What `public()` returns
    is shared by whoever asks: read it, encode it, never change it."""

    def __init__(self, plan: Any) -> None:
        self.plan = plan
        self.names = private_names(plan)
        self._public: Any = _UNSET
        self._choices: set[str] | None = None
        self._steps: set[str] | None = None

    def public(self) -> Any:
        if self._public is _UNSET:
            self._public = public_plan(self.plan, self.names)
        return self._public

    def shown_choices(self) -> set[str]:
        if self._choices is None:
            self._choices = _choice_ids(self.public())
        return self._choices

    def shown_steps(self) -> set[str]:
        if self._steps is None:
            self._steps = step_keys(self.public())
        return self._steps


_UNSET: Any = object()


def stream_filter_for(state: Mapping[str, Any] | None, kept: StreamFilter | None = None) -> StreamFilter:
    """`kept` if it was made for the state's current plan (the same object), else a new filter."""
    plan = state.get("plan") if state is not None else None
    if kept is not None and kept.plan is plan:
        return kept
    return StreamFilter(plan)


def project_value(key: str, value: Any, view: str, state: Mapping[str, Any] | None = None,
                  names: set[str] | None = None, *, stream_filter: StreamFilter | None = None) -> Any:
    """The value of state key `key` as the given view may see it.

    For the stream view every key passes the filter, judged against the current plan in `state`
    (an answer or a tick arrives without the plan that says what is private): answers only to
    choices the public plan still shows and whose values name nothing private, ticks only of
    steps the public plan still shows, and any other text naming a private piece is withheld.
    `names`: `private_names` of the state's plan, when the caller projects several keys at once
    (each would walk the whole plan again); `stream_filter`: a `StreamFilter` of the state's plan,
    which also keeps its public form (`stream_filter_for`). A filter made for another plan is not used.
    """
    if view != "stream":
        return value
    plan = state.get("plan") if state is not None else None
    if stream_filter is not None and stream_filter.plan is not plan:
        stream_filter = None
    if stream_filter is None:
        stream_filter = StreamFilter(plan) if names is None else _given_names(plan, names)
    names = stream_filter.names
    if key == "plan":
        # the state's filter serves only a plan equal to the state's (a catch-up delta may be older)
        if value is plan or value == plan:
            return stream_filter.public()
        return public_plan(value)
    if key == "replay":
        return strip_private(value, names | private_names(value))
    if key == "answers":
        if not isinstance(value, Mapping):
            return {}
        shown = stream_filter.shown_choices() if value else set()
        return {
            choice: copy.deepcopy(answer)
            for choice, answer in value.items()
            if str(choice) in shown
            and not _names_private(str(choice), names)
            and not _names_private(json.dumps(answer, ensure_ascii=False), names)
        }
    if key == "ticks":
        if not isinstance(value, Mapping):
            return {}
        live = stream_filter.shown_steps() if value else set()
        return {step: done for step, done in value.items()
                if step in live and not _names_private(step, names)}
    if key == "writeback":
        return strip_private(public_writeback(value), names)
    if isinstance(value, str):  # notice, file, status: one line of text
        return HIDDEN_TEXT if _names_private(value, names) else value
    return strip_private(value, names)


def _given_names(plan: Any, names: set[str]) -> StreamFilter:
    """A filter of `plan` with the names the caller already has (no walk for them)."""
    made = StreamFilter.__new__(StreamFilter)
    made.plan, made.names = plan, names
    made._public, made._choices, made._steps = _UNSET, None, None
    return made


def public_writeback(value: Any) -> Any:
    """The stream is public: it may say that the moves were written (file name, description), never
    where on the player's disk (no folder, no path)."""
    if not isinstance(value, Mapping):
        return value
    last = value.get("last")
    if isinstance(last, Mapping):
        last = {k: v for k, v in last.items() if k not in ("path", "folder", "save_path")}
    return {"enabled": value.get("enabled"), "last": last}



def project_state(
    state: Mapping[str, Any], view: str, stream_filter: StreamFilter | None = None
) -> dict[str, Any]:
    kept = stream_filter_for(state, stream_filter) if view == "stream" else None
    return {key: project_value(key, value, view, state, stream_filter=kept) for key, value in state.items()}


# --- step keys -----------------------------------------------------------------------------------


def step_key(event: Mapping[str, Any], event_index: int, step: Mapping[str, Any], step_index: int) -> str:
    """A stable name for one step of one event, used to tick it off.

    Why derived from rule numbers rather than list positions alone: a re-plan after an answer
    keeps the same event and step, so its tick survives; positions are only the fallback.
    """
    event_part = str(event.get("id") or event.get("rule") or f"event{event_index}")
    step_part = str(step.get("id") or step.get("step") or step.get("rule") or "")
    return f"{event_part}/{step_part}#{step_index}"


def iter_events(plan: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    if not isinstance(plan, Mapping):
        return []
    events = plan.get("events")
    return [event for event in events if isinstance(event, Mapping)] if isinstance(events, list) else []


def annotate_step_keys(plan: Mapping[str, Any] | None) -> Any:
    """A copy of the plan where every event step carries its `key` (what a tick refers to).

    Copied: the plan, its event list, each event and step list and each step; everything else
    is shared with `plan`, which is left as it was. Why not a deep copy: it was a tenth of the
    daemon's own time per save, and the state keeps its own copy anyway (`StateHistory.update`)."""
    if not isinstance(plan, Mapping):
        return plan
    annotated = dict(plan)
    events = annotated.get("events")
    if not isinstance(events, list):
        return annotated
    annotated["events"] = events = [dict(event) if isinstance(event, Mapping) else event for event in events]
    for event_index, event in enumerate(iter_events(annotated)):
        steps = event.get("steps")
        if not isinstance(steps, list):
            continue
        event["steps"] = steps = [dict(step) if isinstance(step, dict) else step for step in steps]
        owed = event.get("status") == OWED
        for step_index, step in enumerate(steps):
            if isinstance(step, dict):
                if owed:
                    _judged(event, step)
                step["key"] = step_key(event, event_index, step, step_index)
    return annotated


def _judged(event: Mapping[str, Any], step: dict[str, Any]) -> None:
    """An owed event's step as the position judged it (rules/owed.py): `made` (the position shows
    it: the views tick it by themselves), and where its counter stands elsewhere, its `deviation`."""
    plain = {k: v for k, v in step.items() if k not in _STEP_VIEW_KEYS}
    step["made"] = any(isinstance(done, Mapping) and dict(done) == plain for done in event.get("done") or [])
    for wrong in event.get("deviation_details") or []:
        if isinstance(wrong, Mapping) and wrong.get("step") == plain:
            step["deviation"] = str(wrong.get("text") or "")
            break


def made_step_keys(plan: Mapping[str, Any] | None) -> set[str]:
    """Keys of the owed events' steps the position shows made (`annotate_step_keys`' `made`)."""
    return {str(step["key"]) for event in iter_events(plan) for step in event.get("steps") or []
            if isinstance(step, Mapping) and step.get("made") is True and isinstance(step.get("key"), str)}


def judged_step_keys(plan: Mapping[str, Any] | None) -> set[str]:
    """Keys of every step of an owed event: each is ticked as the position judges it, unless a person
    ticked or unticked it for this file (bridge/daemon/watch.py `PlanCoordinator.set_tick`)."""
    return {str(step["key"]) for event in iter_events(plan) if event.get("status") == OWED
            for step in event.get("steps") or []
            if isinstance(step, Mapping) and isinstance(step.get("key"), str)}


def step_keys(plan: Mapping[str, Any] | None) -> set[str]:
    keys: set[str] = set()
    for event in iter_events(plan):
        for step in event.get("steps") or []:
            if isinstance(step, Mapping) and isinstance(step.get("key"), str):
                keys.add(step["key"])
    return keys


def find_choice(plan: Mapping[str, Any] | None, choice_id: str) -> Mapping[str, Any] | None:
    """The choice with this id, wherever the plan lists it (top level or inside an event)."""
    if not isinstance(plan, Mapping):
        return None
    candidates: list[Any] = list(plan.get("choices") or [])
    for event in iter_events(plan):
        candidates.extend(event.get("choices") or [])
    for choice in candidates:
        if isinstance(choice, Mapping) and str(choice.get("id")) == choice_id:
            return choice
    return None


def option_values(choice: Mapping[str, Any]) -> list[Any]:
    """The answer values a choice accepts: plain options, or objects' `value` (plan-format) / `id`."""
    values: list[Any] = []
    for option in choice.get("options") or []:
        if isinstance(option, Mapping):
            values.append(option.get("value", option.get("id", option.get("label"))))
        else:
            values.append(option)
    return values


def match_option(choice: Mapping[str, Any], option: str) -> Any:
    """The choice's own option value that the client's string names (values may be numbers)."""
    for value in option_values(choice):
        if value == option or (not isinstance(value, str) and json.dumps(value) == option):
            return value
    raise ProtocolError(f"{option!r} is not an option of choice {choice.get('id')!r}")


_STEP_VIEW_KEYS = ("key", "made", "deviation")  # what `annotate_step_keys` adds to a step
# An event that fired in an earlier position and whose steps this one does not all show (rules/owed.py).
OWED = "owed"


def event_is_owed(event: Mapping[str, Any]) -> bool:
    return event.get("status") == OWED


def event_is_due(event: Mapping[str, Any]) -> bool:
    """Due = fired, or waiting for an answer (plan-format `status`; a bare `fired: true` also counts)."""
    return event.get("fired") is True or event.get("status") in ("fired", "waiting")


# --- server messages -----------------------------------------------------------------------------


def encode(message: Mapping[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def snapshot_message(seq: int, state: Mapping[str, Any], view: str, run: str = "",
                     stream_filter: StreamFilter | None = None) -> dict[str, Any]:
    return {
        "type": "snapshot",
        "protocol": PROTOCOL_VERSION,
        "run": run,
        "seq": seq,
        "view": view,
        "state": project_state(state, view, stream_filter),
    }


def project_delta(
    delta: Mapping[str, Any], view: str, state: Mapping[str, Any] | None = None,
    stream_filter: StreamFilter | None = None,
) -> dict[str, Any]:
    """A delta as `view` may see it; `state` is the current state (its plan says what is private).

    `stream_filter`: the caller's `StreamFilter` of the state's plan, kept between messages (one
    for another plan is replaced); without it the state's plan is walked once for the delta."""
    projected = dict(delta)
    kept = stream_filter_for(state, stream_filter) if view == "stream" else None
    projected["set"] = {key: project_value(key, value, view, state, stream_filter=kept)
                        for key, value in delta["set"].items()}
    return projected


def heartbeat_message(seq: int, now: float, run: str = "") -> dict[str, Any]:
    return {"type": "heartbeat", "protocol": PROTOCOL_VERSION, "run": run, "seq": seq, "time": now}


def error_message(code: str, text: str) -> dict[str, Any]:
    return {"type": "error", "protocol": PROTOCOL_VERSION, "error": code, "message": text}


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, text, numbers); other types go to `copy.deepcopy`.

    Why not `copy.deepcopy` for all of it: its memo of every object copied made it several times
    slower on a plan, which is a tree (nothing in it shared, no cycles)."""
    kind = type(value)
    if kind is str or kind in _ATOMS:
        return value
    if kind is dict:
        return {key: item if type(item) in _IMMUTABLE else json_copy(item) for key, item in value.items()}
    if kind is list:
        return [item if type(item) in _IMMUTABLE else json_copy(item) for item in value]
    return copy.deepcopy(value)


class StateHistory:
    """The current state, its sequence number, and the last `limit` deltas (for resync).

    `run` names this server run: sequence numbers restart with the daemon, so a client's `since`
    only means something together with the run it came from.
    """

    def __init__(self, limit: int = DEFAULT_HISTORY_LIMIT) -> None:
        self.limit = limit
        self.run = secrets.token_hex(6)
        self.seq = 0
        self.state: dict[str, Any] = empty_state()
        self._deltas: deque[dict[str, Any]] = deque(maxlen=limit)

    def update(self, changes: Mapping[str, Any]) -> dict[str, Any] | None:
        """Apply changed top-level keys; return the delta (unprojected), or None if nothing changed."""
        unknown = set(changes) - set(STATE_KEYS)
        if unknown:
            raise KeyError(f"unknown state keys: {sorted(unknown)}")
        changed = {key: value for key, value in changes.items() if self.state.get(key) != value}
        if not changed:
            return None
        self.seq += 1
        # One copy, kept by the state and the delta alike: what the caller changes afterwards
        # reaches neither. A value is replaced by the next change of its key, never edited, so
        # the state's plan stays the object its `StreamFilter` was made for.
        copied = {key: json_copy(value) for key, value in changed.items()}
        self.state.update(copied)
        delta = {
            "type": "delta",
            "protocol": PROTOCOL_VERSION,
            "run": self.run,
            "seq": self.seq,
            "set": copied,
        }
        self._deltas.append(delta)
        return delta

    def deltas_since(self, last_seq: int, run: str | None = None) -> list[dict[str, Any]] | None:
        """Deltas after `last_seq`, oldest first; None when the history no longer reaches back."""
        if (run is not None and run != self.run) or last_seq > self.seq or last_seq < 0:
            return None  # a client from another server run: it needs a snapshot
        if last_seq == self.seq:
            return []
        if not self._deltas or self._deltas[0]["seq"] > last_seq + 1:
            return None
        return [delta for delta in self._deltas if delta["seq"] > last_seq]


# --- client messages -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ClientMessage:
    """One validated message from a page: `kind` plus its fields."""

    kind: str
    choice: str | None = None
    option: str | tuple[str, ...] | None = None
    step: str | None = None
    done: bool = False
    since: int | None = None
    run: str | None = None


def _short_id(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_ID_CHARS:
        raise ProtocolError(f"'{field}' must be a non-empty string of at most {MAX_ID_CHARS} characters")
    return value


def parse_client_message(raw: str | bytes) -> ClientMessage:
    """Validate one client message; anything unexpected raises ProtocolError (never crashes the server)."""
    if isinstance(raw, bytes):
        raise ProtocolError("binary messages are not part of the protocol; send JSON text")
    if len(raw.encode("utf-8", "surrogatepass")) > MAX_CLIENT_MESSAGE_BYTES:
        raise ProtocolError(f"message larger than {MAX_CLIENT_MESSAGE_BYTES} bytes")
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ProtocolError(f"not JSON: {str(exc)[:120]}") from None
    except RecursionError:  # `[[[[…]]]]` fits in 16 KiB yet exhausts the parser's recursion limit
        raise ProtocolError("not JSON this server accepts: nested too deeply") from None
    if not isinstance(data, dict):
        raise ProtocolError("a message must be a JSON object")
    kind = data.get("type")
    if kind == "resync":
        since = data.get("since")
        if not isinstance(since, int) or isinstance(since, bool) or since < 0:
            raise ProtocolError("'since' must be a non-negative integer sequence number")
        run = data.get("run")
        if run is not None and not isinstance(run, str):
            raise ProtocolError("'run' must be the run id string from a snapshot")
        return ClientMessage(kind="resync", since=since, run=run)
    if kind == "answer":
        option = data.get("option")
        if isinstance(option, list):  # a `multiple` choice: every option picked
            if len(option) > MAX_MULTIPLE_OPTIONS:
                raise ProtocolError(f"at most {MAX_MULTIPLE_OPTIONS} options in one answer")
            option = tuple(_short_id(item, "option") for item in option)
        elif option is not None:
            option = _short_id(option, "option")
        return ClientMessage(kind="answer", choice=_short_id(data.get("choice"), "choice"), option=option)
    if kind == "tick":
        done = data.get("done")
        if not isinstance(done, bool):
            raise ProtocolError("'done' must be true or false")
        return ClientMessage(kind="tick", step=_short_id(data.get("step"), "step"), done=done)
    if kind == "ping":
        return ClientMessage(kind="ping")
    if kind == "write_moves":
        return ClientMessage(kind="write_moves")
    raise ProtocolError(f"unknown message type {kind!r}; expected resync, answer, tick, write_moves or ping")


# --- log replay ----------------------------------------------------------------------------------


def event_identity(event: Mapping[str, Any]) -> str:
    return str(event.get("id") or event.get("rule") or event.get("title") or "?")


def replay_timeline(step_plans: Iterable[tuple[int, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """For a replayed log: at which step each event became due (due after not being due).

    An event due already at step 0 (the position when logging began) is reported at step 0. An
    event that stops being due and becomes due again is reported at every step it (re)became due.
    """
    was_due: dict[str, bool] = {}
    timeline: dict[str, dict[str, Any]] = {}
    for step, plan in step_plans:
        for event in iter_events(plan):
            identity = event_identity(event)
            due = event_is_due(event)
            if due and not was_due.get(identity, False):
                entry = timeline.setdefault(
                    identity,
                    {"event": identity, "rule": event.get("rule"), "title": event.get("title"), "steps": []},
                )
                entry["steps"].append(step)
                if is_private(event):
                    entry["hidden"] = True
            was_due[identity] = due
    return sorted(timeline.values(), key=lambda entry: (entry["steps"][0], str(entry["rule"])))
