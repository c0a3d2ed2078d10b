"""Test-only writer of small but real VASSAL-format saves, and the planner the daemon tests use.

The saves are genuine VASSAL containers (zip, `savedGame` obfuscated as `!VCSK` per spec §2.1,
`savedata`, `moduledata`). The command stream carries ordinary piece commands plus one extra
top-level token, `PLAN-FIXTURE<TAB><json>`, which only `fixture_planner` understands: it lets a
test state which plan a save should produce while the daemon still has to read the real file.
"""

from __future__ import annotations

import io
import json
import os
import random
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from vassal_parser.errors import InputError

ESC = "\x1b"
FIXTURE_TOKEN = "PLAN-FIXTURE\t"
SAVEDATA = (
    '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<data version="1">\n  <version>1.0</version>\n'
    "  <extra1/>\n  <extra2/>\n  <VassalVersion>3.7.12</VassalVersion>\n"
    "  <dateSaved>1700000000000</dateSaved>\n"
    "</data>\n"
)
MODULEDATA = SAVEDATA.replace("</data>", "  <name>Fixture Module</name>\n</data>")


def obfuscate(text: str, key: int = 0x2A) -> bytes:
    return b"!VCSK" + f"{key:02x}".encode() + "".join(f"{b ^ key:02x}" for b in text.encode()).encode()


def deobfuscate(data: bytes) -> str:
    if not data.startswith(b"!VCSK"):
        return data.decode("utf-8")
    raw = bytes.fromhex(data[5:].decode("ascii"))
    return bytes(b ^ raw[0] for b in raw[1:]).decode("utf-8")


def command_stream(plan: Mapping[str, Any], pieces: int = 3, log_plans: list[Mapping[str, Any]] = ()) -> str:
    piece_tokens = [
        f"+/{1700000000000 + n}/piece;;;Unit {n}.png;Unit {n}/Main Map;{100 + n};{200 + n};;"
        for n in range(pieces)
    ]
    tokens = ["begin_save", "", *piece_tokens]
    tokens += [FIXTURE_TOKEN + json.dumps(plan), "SETUP_STACK\t", "end_save"]
    tokens += ["LOG\t" + FIXTURE_TOKEN + json.dumps(step_plan) for step_plan in log_plans]
    return ESC.join(tokens)


def save_bytes(plan: Mapping[str, Any], pieces: int = 3, log_plans: list[Mapping[str, Any]] = ()) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        text = command_stream(plan, pieces, log_plans)
        archive.writestr("savedGame", obfuscate(text, random.randrange(256)))
        archive.writestr("savedata", SAVEDATA)
        archive.writestr("moduledata", MODULEDATA)
    return buffer.getvalue()


def write_in_place(path: Path, data: bytes) -> None:
    """Like VASSAL 3.5+ (spec §8.3): truncate the target and write into it, no rename."""
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _fixture_plans(path: Path) -> list[dict]:
    try:
        with zipfile.ZipFile(path) as archive:
            text = deobfuscate(archive.read("savedGame"))
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise InputError(path, f"not a readable save ({exc})") from None
    plans = []
    for token in text.split(ESC):
        body = token.removeprefix("LOG\t")
        if body.startswith(FIXTURE_TOKEN):
            plans.append(json.loads(body[len(FIXTURE_TOKEN) :]))
    if not plans:
        raise InputError(path, "no plan fixture in this save")
    return plans


HIDDEN_PIECE = "Panzer Group Secret"


def fixture_planner(path: Path, answers: Mapping[str, Any]) -> dict:
    """The plan written into the save; an answered choice fires its event, as the engine would."""
    plan = _fixture_plans(path)[-1]
    for event in plan.get("events", []):
        for choice in event.get("choices", []):
            legal = [option["value"] for option in choice["options"]]
            given = answers.get(choice["id"])
            if given is not None and any(
                v not in legal for v in (given if choice.get("multiple") else [given])
            ):
                raise InputError("<answers>", f"answer {given!r} to {choice['id']} is not a legal option")
            if choice["id"] in answers:
                choice["answer"], choice["answered"] = answers[choice["id"]], True
                event["status"] = "fired"
                event["steps"].append(
                    {
                        "rule": event["rule"],
                        "step": "Step 2",
                        "action": "move",
                        "text": f"Axis units enter {answers[choice['id']]}",
                        "counter": None,
                    }
                )
    plan["pending_choices"] = [
        c["id"] for e in plan.get("events", []) for c in e.get("choices", []) if not c.get("answered")
    ]
    return plan


def fixture_replayer(path: Path, answers: Mapping[str, Any]) -> Iterator[tuple[int, dict]]:
    yield from enumerate(_fixture_plans(path))


def _hexagon(cx: float, cy: float, radius: float = 40) -> list[list[float]]:
    """A flat-topped hex's corners, as the plan's map inset gives them (map pixels)."""
    half = radius / 2
    height = radius * 0.866
    return [
        [cx - radius, cy],
        [cx - half, cy - height],
        [cx + half, cy - height],
        [cx + radius, cy],
        [cx + half, cy + height],
        [cx - half, cy + height],
    ]


def sample_plan(
    title: str = "Case Yellow",
    status: str = "fired",
    turn: str = "Spring 1940",
    countries: tuple[str, ...] = ("Belgium-Holland", "Luxembourg"),
    multiple: bool = False,
) -> dict:
    """A plan in the shape of `rules.plan.Plan.to_json()`, with a hidden piece among its steps."""
    return {
        "format": "adjutant-plan",
        "version": 1,
        "pack": "tk",
        "phasing": "Axis",
        "turn": turn,
        "due": True,
        "violations": [{"rule": "6.1", "action_index": 0, "text": "Italy may not declare war this turn"}],
        "events": [
            {
                "rule": "16.2.1",
                "title": title,
                "source": "card:22a",
                "status": status,
                "why": ["Germany is at war with France (16.2.1)", f"{HIDDEN_PIECE} is in Aachen"],
                "steps": [
                    {
                        "rule": "16.2.1",
                        "step": "Step 1",
                        "action": "move",
                        "counter": "GE 4-4-3 Inf",
                        "to": "Liege",
                        "from": "Aachen",
                        "text": "Move GE 4-4-3 Inf from Aachen to Liege",
                    },
                    {
                        "rule": "16.2.1",
                        "step": "Step 1",
                        "action": "move",
                        "counter": HIDDEN_PIECE,
                        "to": "Liege",
                        "from": "Aachen",
                        "text": f"Move {HIDDEN_PIECE} to Liege",
                        "hidden": True,
                    },
                ],
                "choices": [
                    {
                        "id": "16.2.1:country",
                        "rule": "16.2.1",
                        "decider": "Axis",
                        "prompt": "Which Low Country does Germany invade?",
                        "options": [{"value": country, "label": country} for country in countries],
                        "multiple": multiple,
                        "answer": None,
                        "answered": False,
                        "affects_position": True,
                    },
                ],
                "waiting_for": [],
                "map": {
                    "hexes": [
                        {"name": "Aachen", "points": _hexagon(100, 100)},
                        {"name": "Liege", "points": _hexagon(160, 135)},
                    ],
                    "counters": [
                        {"name": "GE 4-4-3 Inf", "x": 100, "y": 100},
                        {"name": HIDDEN_PIECE, "x": 104, "y": 96, "masked_by": "Western"},
                    ],
                },
            },
            {
                "rule": "16.1.1",
                "title": "Allied Minor Country Conquest",
                "source": "permanent",
                "status": "not_due",
                "why": ["no Allied minor country was conquered"],
                "steps": [],
                "choices": [],
            },
        ],
        "pending_choices": ["16.2.1:country"],
        "vassal": {"warnings": ["save written by module 0.9"], "unmapped_pieces": {"Spare marker": 3}},
        "resulting_position": {
            "counters": {HIDDEN_PIECE: {"hex": "Liege"}, "GE 4-4-3 Inf": {"hex": "Liege"}}
        },
    }
