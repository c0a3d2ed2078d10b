"""The demo story (`demo/story.toml`) turned into VASSAL saves, one per scene.

Why a script and checked-in saves: the saves are what `adjutant demo` walks through and what the
end-to-end tests read, so they must be real VASSAL files written by the project's own writer —
and reproducible: the piece ids, the obfuscation key and `dateSaved` are fixed, so running the
script again gives the same bytes (a test checks the checked-in files against it).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from module_patches.demo_module import slot_gpids
from module_patches.demo_pieces import (
    basic_state,
    basic_type,
    expanded_traits,
    mask_state,
    type_and_state,
)
from module_patches.demo_world import DEMO_DIR, MAIN_MAP, WORLD, World
from vassal_parser import commands
from vassal_parser.sequence import encode

STORY_FILE = DEMO_DIR / "story.toml"
SAVES_DIR = DEMO_DIR / "saves"
FIRST_PIECE_ID = 1767225600001  # VASSAL ids are millisecond-style numbers; fixed for reproducibility
FIXED_KEY = 0x5A
PLAYERS = (("demo-axis", "Axis player", "Axis"), ("demo-west", "Western player", "Western"),
           ("demo-soviet", "Soviet player", "Soviet"))


@dataclass
class Scene:
    file: str
    title: str
    turn: int
    phasing: str
    expect: list[str]
    place: dict[str, str] = field(default_factory=dict)
    level: dict[str, int] = field(default_factory=dict)
    mask: dict[str, str] = field(default_factory=dict)
    hide: dict[str, str] = field(default_factory=dict)
    remove: list[str] = field(default_factory=list)
    answers: dict[str, Any] = field(default_factory=dict)


@dataclass
class Table:
    """Where every counter is after a scene: the running state the story edits scene by scene."""

    places: dict[str, str] = field(default_factory=dict)
    levels: dict[str, int] = field(default_factory=dict)
    masks: dict[str, str] = field(default_factory=dict)
    hidden: dict[str, str] = field(default_factory=dict)

    def apply(self, scene: Scene, world: World) -> None:
        self.places.update(scene.place)
        self.levels.update(scene.level)
        self.masks.update(scene.mask)
        self.hidden.update(scene.hide)
        for counter_id in scene.remove:
            self.places.pop(counter_id, None)
        turn_box = next(b.name for b in world.boxes if b.name.startswith(f"Turn {scene.turn} "))
        self.places["TURN"] = turn_box
        self.levels["TURN"] = world.layers["phasing"].index(scene.phasing) + 1


def load_story(path: Path = STORY_FILE) -> list[Scene]:
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    scenes = []
    for entry in raw["scenes"]:
        entry = dict(entry)
        remove = entry.pop("remove", {}).get("ids", [])
        scenes.append(Scene(remove=remove, **entry))
    return scenes


def _layer_state(counter_layer: str, level: int) -> str:
    return str(level)


def save_stream(table: Table, world: World) -> str:
    """The de-obfuscated command stream of a save holding `table` (spec §3.2 layout)."""
    gpids = slot_gpids(world)
    ids = {c.id: str(FIRST_PIECE_ID + index) for index, c in enumerate(world.counters)}
    pieces: list[commands.Command] = []
    stacks: dict[tuple[str, int, int], list[str]] = {}
    for counter in world.counters:  # world order = stable, deterministic
        if counter.id not in table.places:
            continue
        map_id, x, y = world.place_point(table.places[counter.id])
        traits = expanded_traits(counter, world)
        states = []
        for type_, state in traits:
            if type_.startswith("emb2;"):
                state = _layer_state(counter.layer, table.levels.get(counter.id, 1))
            elif type_.startswith("hide;"):
                state = table.hidden.get(counter.id, "") or "null"
            elif type_.startswith("obs;"):
                state = mask_state(table.masks.get(counter.id, ""))
            states.append((type_, state))
        # UniqueID = the piece id: what BasicPiece.setId gives every piece on load, so VASSAL's own save
        # of this file writes it (the persistent-property count is then 1).
        basic = basic_state(map_id, x, y, gpids[counter.id], {"UniqueID": ids[counter.id]})
        type_string, state_string = type_and_state(states, basic_type(counter), basic)
        pieces.append(commands.add_piece_command(ids[counter.id], type_string, state_string))
        stacks.setdefault((map_id, x, y), []).append(ids[counter.id])
    stack_id = FIRST_PIECE_ID + 1000
    for (map_id, x, y), members in stacks.items():
        state = encode([map_id, str(x), str(y), *members, "@@0"], ";") or ""
        pieces.append(commands.add_piece_command(str(stack_id), "stack", state))
        stack_id += 1
    piece_group = commands.CommandGroup([commands.leaf_command(""), *pieces])
    roster = [commands.leaf_command("PLAYER\t" + (encode(list(p), "\t") or "")) for p in PLAYERS]
    pickers = []
    for map_name, boards in ((MAIN_MAP, [(b.name, b.column) for b in world.boards]),
                             (world.boxes_window, [(world.boxes_window, 0)])):
        tokens = [f"{map_name}BoardPicker"]
        for name, column in boards:
            tokens += [name, str(column), "0"]
        pickers.append(commands.leaf_command(encode(tokens, "\t") or ""))
    tree = commands.CommandGroup([
        commands.leaf_command("begin_save"),
        commands.leaf_command(""),
        piece_group,
        # No `UNMASK` and no `SETUP_STACK`: this module has no component that encodes them (VASSAL 3.7
        # ignores both here and never writes them for it), and no at-start stacks to guard.
        commands.CommandGroup(roster),
        *pickers,
        commands.leaf_command("end_save"),
    ])
    return commands.encode_stream(tree)


def scene_streams(world: World | None = None, story: list[Scene] | None = None) -> list[tuple[Scene, str]]:
    world = world or WORLD()
    table = Table()
    result = []
    for scene in story or load_story():
        table.apply(scene, world)
        result.append((scene, save_stream(table, world)))
    return result


def save_path(scene: Scene, folder: Path = SAVES_DIR) -> Path:
    return folder / f"{scene.file}.vsav"


def write_saves(folder: Path = SAVES_DIR, world: World | None = None) -> list[Path]:
    """Write every scene's save with the project's writer (fixed key; module metadata copied)."""
    from module_patches.demo_module import moduledata_xml
    from vassal_parser.writer import write_save

    world = world or WORLD()
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for scene, stream in scene_streams(world):
        path = write_save(save_path(scene, folder), stream, module_metadata=moduledata_xml(world),
                          comment=scene.title, module_version=world.module["version"],
                          vassal_version=world.module["vassal_version"], key=FIXED_KEY, ensure=False)
        written.append(path)
    return written


# --- the story as one VASSAL log (.vlog) --------------------------------------------------------------

LOG_FILE = "story.vlog"


def _pieces_of(stream: str) -> dict[str, Any]:
    """Piece id -> piece of a save's restore commands (stacks left out: the replay stacks by point)."""
    from vassal_parser.pieces import Piece, make_piece

    restore, _steps = commands.split_log(commands.decode_stream(stream))
    found = {}
    for command in restore:
        if command.kind == "add_piece":
            piece = make_piece(command.fields["id"], command.fields["type"], command.fields["state"])
            if isinstance(piece, Piece):
                found[piece.id] = piece
    return found


def _trait_states(piece: Any) -> list[str | None]:
    return [trait.state for trait in piece.traits if trait.prefix != "piece;"]


def step_commands(before: dict[str, Any], after: dict[str, Any], scene: Scene) -> list[str]:
    """What a player does in VASSAL between two scenes, as the commands VASSAL logs (spec §3.3, §3.5):
    a chat line naming the scene, then `M/` for each move, `D/` for each changed trait, `-/` and `+/`."""
    speaker = next(name for _id, name, faction in PLAYERS if faction == scene.phasing)
    texts = [f"CHAT<{speaker}> - {scene.title}"]
    player_id = next(pid for pid, _name, faction in PLAYERS if faction == scene.phasing)
    for piece_id, new in after.items():
        old = before.get(piece_id)
        if old is None:
            texts.append(commands.add_piece_command(piece_id, new.type_string(), new.state_string()).text)
            continue
        if (old.map, old.x, old.y) != (new.map, new.x, new.y):
            texts.append(commands.move_piece_command(piece_id, new.map, new.x, new.y, old.map, old.x, old.y,
                                                     player_id=player_id).text)
        if _trait_states(old) != _trait_states(new):
            texts.append(commands.change_piece_command(piece_id, new.state_string(), old.state_string()).text)
    texts += [commands.remove_piece_command(piece_id).text for piece_id in before if piece_id not in after]
    return texts


def log_stream(world: World | None = None) -> str:
    """The whole story as a log: the first scene's save as the restore, one replay step per later
    scene, so step N of the log is the position of save N+1 (`adjutant check story.vlog --step N`)."""
    streams = scene_streams(world)
    tree = commands.decode_stream(streams[0][1])
    previous = _pieces_of(streams[0][1])
    for scene, stream in streams[1:]:
        current = _pieces_of(stream)
        logged = [commands.leaf_command("LOG\t" + text) for text in step_commands(previous, current, scene)]
        tree.children.append(commands.CommandGroup(logged))
        previous = current
    return commands.encode_stream(tree)


def write_log(folder: Path = SAVES_DIR, world: World | None = None) -> Path:
    """Write `story.vlog` with the project's writer (same fixed key and module metadata as the saves)."""
    from module_patches.demo_module import moduledata_xml
    from vassal_parser.writer import write_game_file

    world = world or WORLD()
    return write_game_file(folder / LOG_FILE, log_stream(world), module_metadata=moduledata_xml(world),
                           comment="The demo story as one VASSAL log: one replay step per scene",
                           module_version=world.module["version"],
                           vassal_version=world.module["vassal_version"], key=FIXED_KEY,
                           ensure=False)  # the saves' own restore, as written (see write_saves)
