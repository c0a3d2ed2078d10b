"""The daemon's versioned JSON protocol: state, snapshots, deltas, resync history, client messages.

Why a state document with top-level deltas: the overlay needs "what is true now" (the plan, the
answers, the ticked steps, a notice about a bad file), and a page that reconnects must catch up
without replaying the world. Every change bumps one sequence number; a delta carries the
top-level keys that changed. A bounded history lets a client that missed messages resync from
its last sequence number; a client further behind gets a full snapshot instead.

Why views are projected here (server-side): the stream view is public (OBS), so pieces VASSAL
hides or masks must never reach it — the page is not trusted to filter. See `docs/protocol.md`.
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
                              "writeback")
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
        # CheckPipeline's report: counter id -> "hidden" | "masked" (bridge/mapping.py), and every
        # name those pieces go by (bridge/pipeline.py `concealed_names`).
        vassal = plan.get("vassal")
        concealed = vassal.get("concealed") if isinstance(vassal, Mapping) else None
        if isinstance(concealed, Mapping):
            names.update(str(counter) for counter in concealed if str(counter))
        concealed_names = vassal.get("concealed_names") if isinstance(vassal, Mapping) else None
        if isinstance(concealed_names, list):
            names.update(str(name) for name in concealed_names if str(name))

    def visit(value: Any) -> None:
        if _is_mapping(value):
            if is_private(value):
                names.update(value[f] for f in _NAME_FIELDS if isinstance(value.get(f), str) and value[f])
            for item in value.values():
                visit(item)
        elif isinstance(value, list):
            for item in value:
                visit(item)

    visit(plan)
    return names


def _mentions(item: Any, names: set[str]) -> bool:
    return _is_mapping(item) and any(item.get(f) in names for f in ("counter", "piece"))


def _names_private(value: Any, names: set[str]) -> bool:
    return isinstance(value, str) and any(name in value for name in names)


def _line_names_private(item: Any, names: set[str]) -> bool:
    """A list entry that is one line of text (a step, a choice, an option, an inset counter): its own
    text fields name a private piece."""
    return _is_mapping(item) and any(_names_private(item.get(key), names) for key in _LINE_FIELDS)


def _withheld(item: Any, names: set[str]) -> bool:
    return is_private(item) or _mentions(item, names) or _names_private(item, names)


def _withheld_from_list(item: Any, names: set[str]) -> bool:
    """List entries go whole: a step "move RU Secret Reserve to e3806" must not survive as a
    "(hidden)" placeholder that still tells where something moves."""
    return _withheld(item, names) or _line_names_private(item, names)


def strip_private(value: Any, names: set[str] | None = None) -> Any:
    """A deep copy of `value` without private objects and without text that names a private piece.

    Why remove whole objects and whole lines: a step "move <hidden piece> to X" or a why line
    "<hidden piece> is in Aachen" gives the piece (or where it is) away just as much as the piece
    entry itself; a redacted "a hidden piece is in Aachen" would still tell where it is.
    """
    if names is None:
        names = private_names(value)
    if _is_mapping(value):
        return {
            key: (HIDDEN_TEXT if _names_private(item, names) else None)
            if _withheld(item, names)
            else strip_private(item, names)
            for key, item in value.items()
            if key not in PRIVATE_NAME_LISTS
        }
    if isinstance(value, list):
        return [strip_private(item, names) for item in value if not _withheld_from_list(item, names)]
    return copy.deepcopy(value)


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


def project_value(key: str, value: Any, view: str, state: Mapping[str, Any] | None = None,
                  names: set[str] | None = None) -> Any:
    """The value of state key `key` as the given view may see it.

    For the stream view every key passes the filter, judged against the current plan in `state`
    (an answer or a tick arrives without the plan that says what is private): answers only to
    choices the public plan still shows and whose values name nothing private, ticks only of
    steps the public plan still shows, and any other text naming a private piece is withheld.
    `names`: `private_names` of the state's plan, when the caller projects several keys at once
    (each would walk the whole plan again).
    """
    if view != "stream":
        return value
    plan = state.get("plan") if state is not None else None
    if key == "plan":
        # the state's names serve only a plan equal to the state's (a catch-up delta may be older)
        same = names is not None and (value is plan or value == plan)
        return public_plan(value, names if same else None)
    if names is None:
        names = private_names(plan)
    if key == "replay":
        return strip_private(value, names | private_names(value))
    if key == "answers":
        if not isinstance(value, Mapping):
            return {}
        shown = _choice_ids(public_plan(plan, names))
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
        live = step_keys(public_plan(plan, names))
        return {step: done for step, done in value.items()
                if step in live and not _names_private(step, names)}
    if key == "writeback":
        return strip_private(public_writeback(value), names)
    if isinstance(value, str):  # notice, file, status: one line of text
        return HIDDEN_TEXT if _names_private(value, names) else value
    return strip_private(value, names)


def public_writeback(value: Any) -> Any:
    """The stream is public: it may say that the moves were written (file name, description), never
    where on the player's disk (no folder, no path)."""
    if not isinstance(value, Mapping):
        return value
    last = value.get("last")
    if isinstance(last, Mapping):
        last = {k: v for k, v in last.items() if k not in ("path", "folder", "save_path")}
    return {"enabled": value.get("enabled"), "last": last}



def project_state(state: Mapping[str, Any], view: str) -> dict[str, Any]:
    names = private_names(state.get("plan")) if view == "stream" else None
    return {key: project_value(key, value, view, state, names) for key, value in state.items()}


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
    """A copy of the plan where every event step carries its `key` (what a tick refers to)."""
    if not isinstance(plan, Mapping):
        return plan
    annotated = copy.deepcopy(dict(plan))
    for event_index, event in enumerate(iter_events(annotated)):
        steps = event.get("steps")
        if not isinstance(steps, list):
            continue
        for step_index, step in enumerate(steps):
            if isinstance(step, dict):
                step["key"] = step_key(event, event_index, step, step_index)
    return annotated


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


def event_is_due(event: Mapping[str, Any]) -> bool:
    """Due = fired, or waiting for an answer (plan-format `status`; a bare `fired: true` also counts)."""
    return event.get("fired") is True or event.get("status") in ("fired", "waiting")


# --- server messages -----------------------------------------------------------------------------


def encode(message: Mapping[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def snapshot_message(seq: int, state: Mapping[str, Any], view: str, run: str = "") -> dict[str, Any]:
    return {
        "type": "snapshot",
        "protocol": PROTOCOL_VERSION,
        "run": run,
        "seq": seq,
        "view": view,
        "state": project_state(state, view),
    }


def project_delta(
    delta: Mapping[str, Any], view: str, state: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A delta as `view` may see it; `state` is the current state (its plan says what is private)."""
    projected = dict(delta)
    # The state's plan is walked once for every key of the delta (stream view only).
    names = private_names(state.get("plan")) if view == "stream" and state is not None else None
    projected["set"] = {key: project_value(key, value, view, state, names)
                        for key, value in delta["set"].items()}
    return projected


def heartbeat_message(seq: int, now: float, run: str = "") -> dict[str, Any]:
    return {"type": "heartbeat", "protocol": PROTOCOL_VERSION, "run": run, "seq": seq, "time": now}


def error_message(code: str, text: str) -> dict[str, Any]:
    return {"type": "error", "protocol": PROTOCOL_VERSION, "error": code, "message": text}


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
        self.state.update(copy.deepcopy(changed))
        delta = {
            "type": "delta",
            "protocol": PROTOCOL_VERSION,
            "run": self.run,
            "seq": self.seq,
            "set": changed,
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
