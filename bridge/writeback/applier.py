"""Write a plan back into VASSAL: a continuation log of the required moves, or a save with them made.

Why here and not in the CLI: `adjutant apply` and the daemon's "Write the moves" button do the same
thing, and both must refuse the same way (unanswered choices, a step the pack cannot place, an
existing output file) before a single byte is written. The VASSAL side (commands, stacks, Old*)
is `vassal_parser.patch`; the plan side (which piece goes where) is `bridge.writeback.translate`.

What is written (docs/writeback.md):
* `.vlog`: the game file's own tokens byte for byte (for a log, up to its step N), then one
  top-level `LOG` step per plan step — moves `M/`, Layer changes `D/`, removals `-/`, and a
  `CHAT*! Adjutant: <rule> <Step> — <text>` line. The opponent steps through it with Page Down.
* `.vsav`: the save with the moves made (only the changed pieces' and stacks' tokens differ).
* `!VCSK` with a fresh key (plain text if the input was plain), `moduledata` copied, a new
  `savedata` whose description VASSAL prints on load.

Public API:
    apply_plan(pipeline, game_path, out, answers=None, step=None, partial=False, force=False,
               answers_source="<answers>") -> Applied
    NeedsAnswers (exception: message lists the unanswered choices, as `check` words them)
"""

from __future__ import annotations

import copy
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bridge.pipeline import CheckPipeline, PlanResult, answers_hint
from bridge.writeback.translate import Targets, Translation, Writeback, translate
from vassal_parser.atomic import AlreadyExists, DiskError
from vassal_parser.commands import Command, CommandGroup, CommandTree, decode_stream, iter_commands, split_log
from vassal_parser.container import open_container
from vassal_parser.errors import InputError
from vassal_parser.patch import Table, log_step, patch_save
from vassal_parser.writer import write_game_file

SUFFIXES = (".vlog", ".vsav")
ALREADY_EXISTS = "already exists: choose another name, or pass --force to replace it"


class NeedsAnswers(Exception):
    """The plan waits on choices: nothing written. `lines` say which and how to answer."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        super().__init__("\n".join(lines))


class PlanUndecided(NeedsAnswers):
    """An event is undecided (a map fact the pack lacks): nothing written, `lines` name the facts."""


class NothingToWrite(InputError):
    """The plan has no step to write (nothing is due, or --partial stopped before the first)."""


@dataclass
class Applied:
    out: Path
    kind: str  # "log" | "save"
    description: str
    steps: int  # Adjutant steps written
    operations: int
    stopped: str | None
    translation: Translation = field(repr=False)
    plan: PlanResult = field(repr=False)
    warnings: list[str] = field(default_factory=list)


def check_output(game_path: Path, out: Path, force: bool) -> None:
    """Always a new file: never the input, never an existing file unless --force. The output's disk
    saying no (a name too long, a folder one may not read) is one line naming it (DiskError), exit 2."""
    try:
        _check_output(game_path, out, force)
    except DiskError:
        raise
    except OSError as exc:
        raise DiskError(out, exc) from None


def _check_output(game_path: Path, out: Path, force: bool) -> None:
    if out.suffix.lower() not in SUFFIXES:
        raise InputError(out, "the output must end in .vlog (continuation log) or .vsav (save with the moves "
                               "made)")
    if out.exists() and game_path.exists() and os.path.samefile(out, game_path):
        raise InputError(out, "is the game file itself: Adjutant never writes over the players' file")
    if out.exists() and not force:
        raise InputError(out, ALREADY_EXISTS)
    if not out.parent.is_dir():
        raise InputError(out, f"folder {out.parent} does not exist")


def apply_plan(pipeline: CheckPipeline, game_path: str | Path, out: str | Path,
               answers: Mapping[str, Any] | None = None, step: int | None = None, partial: bool = False,
               force: bool = False, answers_source: str = "<answers>") -> Applied:
    game_path, out = Path(game_path), Path(out)
    check_output(game_path, out, force)
    game, pieces, info = pipeline._position(game_path, step)
    result = pipeline.plan_pieces(pieces, info, answers, answers_source, layout_for=game.layout)
    plan = result.plan
    if plan.get("missing"):
        # The position as a whole is not the game's (most pieces unmapped, or a pack without events):
        # no move can be trusted, not even with --partial (docs/plan-format.md, plan-level `missing`).
        raise PlanUndecided([f"{game_path}: nothing was written: " + "; ".join(
            m.get("text", "") for m in plan["missing"])])
    undecided = [e for e in plan.get("events", []) if e.get("status") == "undecided" or e.get("missing")]
    if undecided and not partial:
        lines = [f"{game_path}: the plan is undecided for {len(undecided)} event(s) (the pack lacks a map "
                 "fact); nothing was written (or pass --partial to write the steps before the first of them)"]
        lines += [f"  {e['rule']} {e.get('title', '')}: "
                  + "; ".join(m.get("text", "") for m in e.get("missing", [])) for e in undecided]
        raise PlanUndecided(lines)
    if plan.get("pending_choices") and not partial:
        raise NeedsAnswers([f"{game_path}: the plan waits on {len(plan['pending_choices'])} unanswered "
                            "choice(s); nothing was written (or pass --partial to write the steps before "
                            "the first of them)", *answers_hint(plan)])
    writeback = Writeback.from_pack(pipeline.pack)
    targets = Targets(game, pipeline.module, pipeline.mapping, writeback, pipeline.pack)
    counters = {c["id"]: c for c in result.mapping.position.get("counters", [])} if result.mapping else {}
    translation = translate(plan, pieces, result.mapping.piece_counters if result.mapping else {}, counters,
                            targets, writeback, partial=partial)
    if not translation.steps:
        if translation.stopped:
            raise NothingToWrite(game_path, f"no step comes before {translation.stopped}: nothing was "
                                            "written")
        raise NothingToWrite(game_path, "the plan has no steps to write: nothing is due")
    container = open_container(game_path)
    tree = decode_stream(container.command_text())
    table = Table.from_placed(pieces, _stacking(pipeline.module), _locator(game, pipeline.module))
    restore = [c for c in iter_commands(tree) if c.kind == "add_piece"]
    table.learn_layers(restore)
    table.reserve_ids(c.fields.get("id") or "" for c in restore)
    logged = [log_step([cmd for op in s.ops for cmd in table.apply(op)], s.chat) for s in translation.steps]
    warnings: list[str] = []
    kind = "log" if out.suffix.lower() == ".vlog" else "save"
    if game.kind == "log":  # the save is written, or (for a .vlog) read back below, never both
        saved, save_warnings = _save_from_log(tree, table, info)
        warnings = save_warnings if kind == "save" else []
    else:
        saved = patch_save(tree, table)
    written = _continuation(tree, info, logged) if kind == "log" else saved
    description = describe(plan, translation, pipeline.pack)
    savedata = container.metadata_entries.get("savedata", {})
    vassal_version = savedata.get("VassalVersion") or game.vassal_version or "3.7.12"
    if container.has_entry("moduledata"):
        moduledata: bytes | dict[str, str] = container.read_entry("moduledata")
        module_version = savedata.get("version", game.module_version)
    else:  # a VASSAL 2.x save or a predefined setup: VASSAL writes its running module's own data
        moduledata = module_metadata(pipeline.module, vassal_version)
        module_version = pipeline.module.version
    metadata = {"module_metadata": moduledata, "comment": description, "module_version": module_version,
                "vassal_version": vassal_version, "ensure": False,
                "plain": container.savedgame_encoding == "plain"}
    # Stopped early (--partial), the plan's resulting position also holds the events after the stop.
    if plan.get("resulting_position") is not None and not (partial and translation.stopped):
        _check_read_back(pipeline, saved, metadata, plan["resulting_position"], writeback.source, out,
                         answers, answers_source)
    try:  # without --force the name is claimed at the instant of writing, not by the check above alone
        write_game_file(out, written, **metadata, exclusive=not force)
    except AlreadyExists:
        raise InputError(out, ALREADY_EXISTS) from None
    return Applied(out, kind, description, len(translation.steps), translation.operation_count,
                   translation.stopped, translation, result, warnings)


def _check_read_back(pipeline: CheckPipeline, saved: CommandTree, metadata: Mapping[str, Any],
                     resulting: Mapping[str, Any], source: str, out: Path,
                     answers: Mapping[str, Any] | None = None, answers_source: str = "<answers>") -> None:
    """The save with the moves made must read back, through the pack, as the plan's resulting position
    (bridge.writeback.roundtrip): a state no piece carries is refused, naming the pack fact, never left
    out."""
    from bridge.writeback.roundtrip import differences, normalised, read_back

    try:
        with tempfile.TemporaryDirectory(prefix="adjutant-apply-") as folder:
            probe = write_game_file(Path(folder) / "read-back.vsav", saved, **metadata)  # `saved` unchanged
            got = read_back(pipeline, probe, answers, answers_source)
    except DiskError as exc:  # the probe's disk: the user is told about the file they asked for
        raise DiskError(out, OSError(exc.errno, exc.strerror)) from None
    expected = normalised(resulting)
    if not got.get("countries"):
        # The pack maps no country state from pieces (rule 60: the engine derives the powers from the awaw
        # section and the game facts): there is nothing a written piece could carry, so nothing to compare.
        expected["countries"] = {}
    lines = differences(expected, got)
    if lines:
        raise InputError(source, "the written file would not read back as the plan's position, nothing was "
                                 "written: " + "; ".join(lines))


def module_metadata(module: Any, vassal_version: str) -> bytes | dict[str, str]:
    """The `moduledata` VASSAL puts in every save it writes (`AbstractMetaData.copyModuleMetadata`):
    the running module's own entry byte for byte, or, for a module without one, a fresh one from the
    module's name, version and description (`new ModuleMetaData(GameModule)`). Without it VASSAL
    reads the save's module name as '' and asks "Save Game Mismatch … Are you sure?" on load."""
    container = open_container(module.path)
    if container.has_entry("moduledata"):
        return container.read_entry("moduledata")
    return {"name": module.name, "version": module.version, "description": module.description,
            "VassalVersion": vassal_version}


def describe(plan: Mapping[str, Any], translation: Translation, pack: Any) -> str:
    """The savedata description VASSAL prints on load ("Loaded …: <description>")."""
    count = translation.operation_count
    edition = str(getattr(pack, "edition", "") or getattr(pack, "name", "")).upper()
    rules = ", ".join(translation.rules)
    text = (f"Adjutant: Conditional Events of {plan.get('turn')}, {plan.get('phasing')} — "
            f"{count} move{'' if count == 1 else 's'}, {edition} {rules}".rstrip())
    return text + (" (stopped before an unanswered choice)" if translation.stopped else "")


def _stacking(module: Any):
    def stacking(map_id: str | None) -> bool:
        map_def = module.map_by_id(map_id) if map_id is not None else None
        return map_def.stacking_enabled if map_def is not None else True

    return stacking


def _locator(game: Any, module: Any):
    """(map id, x, y) -> what `Decorator.putOldProperties` records: map name, board, zone, location."""
    def locate(map_id: str | None, x: int, y: int) -> tuple[str, str, str, str]:
        layout = game.layout(map_id)
        map_def = module.map_by_id(map_id)
        name = map_def.name if map_def is not None else (map_id or "")
        if layout is None:
            return name, "", "", "offboard"
        board, zone, location = layout.place_at(x, y)
        return name, board.name if board else "", zone.name if zone else "", location

    return locate


def _end_index(tree: CommandTree) -> int:
    for index, child in enumerate(tree.children):
        if isinstance(child, Command) and child.text == "end_save":
            return index
    raise InputError(tree.source[:40] or "<game>", "the game stream has no end_save")


def _is_step(node: Any) -> bool:
    first = node
    while isinstance(first, CommandGroup) and first.children:
        first = first.children[0]
    return isinstance(first, Command) and first.kind == "log"


def _is_piece_token(node: Any) -> bool:
    """A piece or stack AddPiece; decks are kept as the log's start wrote them (docs/writeback.md)."""
    return (isinstance(node, Command) and node.kind == "add_piece"
            and not str(node.fields.get("type", "")).startswith("deck;"))


def _continuation(tree: CommandTree, info: Mapping[str, Any], steps: list[CommandGroup]) -> CommandTree:
    """The game's tokens kept byte for byte (a log's up to step N), Adjutant's steps after them."""
    result = CommandTree(children=list(tree.children), quoted=tree.quoted, source=tree.source)
    chosen = info.get("step")
    if chosen is not None and chosen < info.get("steps", 0):
        end = _end_index(result)
        kept, seen = result.children[: end + 1], 0
        for child in result.children[end + 1:]:
            if _is_step(child):
                if seen == chosen:
                    break
                seen += 1
            kept.append(child)
        result.children = kept
    result.children.extend(steps)
    return result


def _save_from_log(tree: CommandTree, table: Table, info: Mapping[str, Any]) -> tuple[CommandTree, list[str]]:
    """A save from a log: its start-of-log restore, with the pieces as they stand after step N and
    Adjutant's moves. Components the steps changed (turn tracker, global properties...) keep their
    start-of-log state — said in a warning, since VASSAL's own save after stepping would have them."""
    end = _end_index(tree)
    restore = CommandTree(children=copy.deepcopy(tree.children[: end + 1]), source=tree.source)
    _restore, steps = split_log(tree)
    other = sorted({c.kind for s in steps[: info.get("step") or len(steps)] for c in s
                    if c.kind not in ("add_piece", "remove_piece", "change_piece", "move_piece", "chat",
                                      "null", "undo")})
    warnings = []
    if other:
        warnings.append("the log's steps also change " + ", ".join(other) + "; the save keeps their state at "
                        "the start of the log (step through the .vlog in VASSAL for the full state)")
    from vassal_parser.commands import add_piece_command, leaf_command
    from vassal_parser.patch import _stack_state, basic_state_with, with_basic_state

    # Drop every piece token, then write the table's pieces (members first) where the first one stood.
    holder: CommandGroup | None = None
    work: list[CommandGroup] = [restore]
    while work:
        group = work.pop()
        if holder is None and any(_is_piece_token(c) for c in group.children):
            holder = group
        group.children = [c for c in group.children if not _is_piece_token(c)]
        work.extend(c for c in group.children if isinstance(c, CommandGroup))
    pieces = []
    for piece_id in table.pieces:
        piece = table.saved_piece(piece_id)
        point = table.position_of(piece_id)
        if piece.where != point:  # a member of a stack the log moved: VASSAL writes the stack's point
            piece = with_basic_state(piece, basic_state_with(piece, point, {}))
        pieces.append(add_piece_command(piece_id, piece.type_string(), piece.state_string()))
    stacks = [add_piece_command(s.id, "stack", _stack_state(s, s.layer)) for s in table.stacks.values()
              if not s.deck and not s.id.startswith("deck:") and "#" not in s.id]
    synthetic = [s for s in table.stacks.values() if not s.deck and "#" in s.id]
    for stack in synthetic:  # stacks the replay formed (no id in the file): a fresh id, as VASSAL would
        stack.id = table._new_id()
        stacks.append(add_piece_command(stack.id, "stack", _stack_state(stack, stack.layer)))
    if holder is None:
        holder = CommandGroup([leaf_command("")])
        restore.children.insert(2 if len(restore.children) > 2 else 1, holder)
    holder.children.extend([*pieces, *stacks])
    return restore, warnings


def writeback_gap(pipeline: Any, path: str | Path, step: int | None = None,
                  answers: Mapping[str, Any] | None = None) -> str | None:
    """Why `apply` would refuse the plan of `path` as answered (None: it writes it, or there is nothing
    to write yet — a plan waiting on a choice, undecided, or with no steps is not a gap of the pack).

    Here, beside `apply_plan`, not in roundtrip.py, which this module imports (issue 39: no circle)."""
    with tempfile.TemporaryDirectory(prefix="adjutant-check-") as folder:
        try:
            apply_plan(pipeline, path, Path(folder) / "roundtrip.vsav", answers, step=step)
        except (NeedsAnswers, NothingToWrite):  # also PlanUndecided: `check` says those itself
            return None
        except InputError as problem:
            return problem.message
    return None
