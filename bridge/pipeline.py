"""One position of a VASSAL file -> the conditional-events plan: reader, mapping and engine joined.

Why a class: the daemon (`adjutant watch`) plans every save the players write, so the module and the
pack — the slow parts — are loaded once in `CheckPipeline.__init__`, and `plan_file` only reads the
save, maps it and runs the engine.  Everything a user can get wrong (a save from another module, a
step past the end of a log, a pack without a `[vassal]` table) is an `InputError`, one line.

Why over 500 lines: it is the one hall where a file becomes a plan (docs/architecture.md); the
mapping, reports and write-back wings live elsewhere, and what stays is the `CheckPipeline` with the
small helpers only it uses (answers, concealed pieces, the unmapped verdict).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bridge.mapping.game_facts import (
    apply_facts,
    ask_what_matters,
    changed_by_plan,
    fact_table,
    render_lines,
    split_answers,
)
from bridge.mapping.inset import InsetGeometry, LayoutFor, add_insets, hex_places
from bridge.mapping.mapper import MappingResult, VassalMapping
from bridge.mapping.memo import MappingMemo
from bridge.mapping.proposal import proposed_counts, proposed_lines
from bridge.mapping.sides import concealments, faction_sees, faction_sides, hidden_by_text
from bridge.mapping.slots import SlotPrototypes
from rules.engine import check_answer_ids
from rules.engine import plan as run_plan
from rules.packs import PACKS_DIR, Pack, load_pack
from rules.plan import EXIT_DUE, MissingFact
from rules.state import FACTIONS, GameState
from vassal_parser.errors import InputError
from vassal_parser.game import PositionMemo, load_game
from vassal_parser.module import Module, load_module

# Start-up warm-up of the predefined setups (CheckPipeline.warm_setups): at most this many setups,
# bytes of setup files and pieces (the memos then hold about 2 x WARM_SETUP_PIECES entries, a few
# KB each), and none started after this many seconds from the start of the warm-up (one started
# before may end a few seconds after: its file is at most WARM_SETUP_FILE_BYTES).
WARM_SETUPS = 32
WARM_SETUP_BYTES = 64 * 1024 * 1024
WARM_SETUP_FILE_BYTES = 16 * 1024 * 1024  # one setup file (the largest corpus save is 1.9 MB, 0.3 s)
WARM_SETUP_PIECES = 20_000
WARM_SETUPS_BUDGET_S = 10.0
# Start-up read of a position made of the module's own PieceSlots (CheckPipeline.warm_reader): this
# many pieces (a big first save's size), none made after this many seconds from the warm-up's start.
WARM_READER_PIECES = 5_000
WARM_READER_CHARS = 8_000_000  # and this many characters of AddPiece text (the memory it takes)
WARM_READER_BUDGET_S = 3.0
# Start-up inset cells (CheckPipeline.warm_insets): this many pack hexes at most (each with its
# neighbours: a few hundred bytes a cell).
WARM_INSET_HEXES = 5_000


@dataclass
class PlanResult:
    """What `adjutant check` prints and the daemon sends: the plan plus where it came from."""

    plan: dict[str, Any]  # JSON-able: the engine's plan + "vassal" (file, module, warnings, unmapped)
    exit_status: int
    text: str  # the plan as a player reads it
    mapping: MappingResult | None = field(repr=False, default=None)  # unmapped/concealed details

    @property
    def due(self) -> bool:
        return self.exit_status == EXIT_DUE


def load_answers(path: str | Path | None) -> dict[str, Any]:
    """The answers file of `--answers`: a JSON object of choice id -> value."""
    if path is None:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(path, "no such answers file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(path, f"not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(path, "answers must be a JSON object of choice id -> value")
    return data


class CheckPipeline:
    """Module + pack loaded once; `plan_file` for each save or log.

    Why memos (`remember=True`, the default): the daemon plans every save of one game, and
    between two saves almost every piece is unchanged, so each piece's decoding, location and
    mapping are remembered under the exact text they came from (vassal_parser.game.PositionMemo,
    bridge.mapping.mapper.MappingMemo). A plan is the same with or without them (tests/bridge/
    test_pipeline_memo.py); they belong to this pipeline's module and pack, which never change."""

    def __init__(self, module_path: str | Path, pack: str | Path | Pack,
                 extensions: Iterable[str | Path] = (), remember: bool = True) -> None:
        self.module_path = Path(module_path)
        self.module: Module = load_module(self.module_path, list(extensions))
        self.pack: Pack = pack if isinstance(pack, Pack) else load_pack(pack)
        self.mapping = pack_mapping(self.pack, self.module, self.module_path)
        self.prototypes = SlotPrototypes(self.module)  # gpid -> prototype names, read when first asked
        self.facts = fact_table(self.pack)  # the game facts no save carries (bridge/mapping/game_facts.py)
        # Pack hex id -> (map, grid location), for the map insets of due events (bridge/mapping/inset.py).
        self.hex_places = hex_places(getattr(self.pack, "hexes", None) or {}, self.mapping.hex_maps)
        # (map id, VASSAL location) -> pack hex id: where a hidden piece stands (`concealed_places`)
        self.place_hexes = {(place.map_id, place.location): hex_id
                            for hex_id, place in self.hex_places.items()}
        self.position_memo = PositionMemo(self.module) if remember else None
        self.mapping_memo = MappingMemo() if remember else None
        self.inset_geometry = InsetGeometry() if remember else None  # the insets' grid answers
        self.setup_problems: list[str] = []  # predefined setups the warm-up could not read

    def warm_up(self) -> float:
        """Do at start-up the one-time work the first save would otherwise pay for; returns seconds.

        Why: a daemon's first save should reach the overlay as fast as the next ones (issue 15).
        Built here: every map's layout for its default boards (placed in the position memo under
        the keys a save choosing those boards looks up; cells are located once so the grid code
        and its format caches are warm), and one plan of an empty position, which runs the
        mapping, the engine, the JSON form and the text rendering once; then the module's
        predefined setups, read into the memos (`warm_setups`). Nothing here depends on a save
        the players write, so the first save's plan is the same as without it."""
        from vassal_parser.layout import MapLayout

        start = time.perf_counter()
        if self.position_memo is not None:
            for map_def in self.module.maps:
                selection = MapLayout.default_selection(map_def)
                layout = MapLayout(map_def, selection, self.module.module_property)
                self.position_memo.layouts.setdefault((map_def.identifier, None), layout)
                self.position_memo.layouts.setdefault((map_def.identifier, tuple(selection)), layout)
                for placed in layout.boards:
                    layout.place_at(placed.x + 1, placed.y + 1)
        info = {"file": "<warm-up>", "kind": "save", "module_name": self.module.name,
                "module_version": self.module.version, "vassal_version": "", "extensions": [],
                "extension_versions": {}, "steps": 0, "step": None}
        # a pack that cannot plan an empty position: the first save reports it for real
        with contextlib.suppress(InputError):
            self.plan_pieces([], info)
        self.warm_insets()
        self.warm_reader(start + WARM_READER_BUDGET_S)
        if self.position_memo is not None and self.mapping_memo is not None:
            self.warm_setups(start + WARM_SETUPS_BUDGET_S)
        return time.perf_counter() - start

    def warm_insets(self) -> int:
        """Work out the inset cells of every pack hex (and of its neighbours) on each map's default
        boards, into `inset_geometry`; returns how many cells.

        Why: an inset is drawn only for a due event, and the empty position of `warm_up` has none, so
        a first save paid for all of its cells (about 5 M instructions of the demo's first save, with
        the first compile of each grid's location pattern). The layouts are the position memo's own
        (the ones a save on the default boards reads), and `InsetGeometry` keeps only answers that
        recorded no layout problem, so no plan changes. At most WARM_INSET_HEXES hexes; any failure
        is left for the first save to report."""
        if self.inset_geometry is None or self.position_memo is None:
            return 0
        by_map: dict[str, list[str]] = {}
        for place in list(self.hex_places.values())[:WARM_INSET_HEXES]:
            by_map.setdefault(place.map_id, []).append(place.location)
        done = 0
        for map_def in self.module.maps:
            layout = self.position_memo.layouts.get((map_def.identifier, None))
            if layout is None or map_def.identifier not in by_map:
                continue
            try:
                done += self.inset_geometry.warm(layout, by_map[map_def.identifier])
            except Exception:  # never stops the start-up (see the docstring)
                continue
        return done

    def warm_reader(self, deadline: float) -> int:
        """Read, locate and map a throwaway position of the module's own pieces; returns its size.

        Why: a process's first big read pays once for what later reads do not — the heap growing
        to hold a position's objects, the interpreter specializing the reader's code on real
        pieces — 20-40 ms of a 5,000-piece first save (benchmarks/latency.py, ~10% measured).
        Up to WARM_READER_PIECES copies (WARM_READER_CHARS characters) of the module's PieceSlots
        are spread over every map's default boards, written as a save, read and mapped without
        the memos, and dropped: nothing of it is reused but the shared trait tables, which are
        keyed by the exact trait texts, so no plan changes. A module the warm-up cannot use (no
        PieceSlots, no boards) is skipped, and so is any failure: the first save reports its own
        problems."""
        import tempfile

        from bridge.mapping.slots import slot_piece_objects
        from vassal_parser import commands
        from vassal_parser.layout import MapLayout
        from vassal_parser.writer import write_game_file

        try:
            slots = [piece for _slot, piece in slot_piece_objects(self.module) if piece.basic is not None]
            spots: list[tuple[str, int, int]] = []
            for map_def in self.module.maps:
                layout = MapLayout(map_def, MapLayout.default_selection(map_def), self.module.module_property)
                for placed in layout.boards:
                    width, height = placed.board.size or (1000, 1000)
                    spots.extend((map_def.identifier, placed.x + (n * 97) % max(1, width),
                                  placed.y + (n * 61) % max(1, height)) for n in range(64))
            if not slots or not spots:
                return 0
            added = []
            characters = 0
            for n in range(WARM_READER_PIECES):
                if characters > WARM_READER_CHARS or (n % 256 == 0 and time.perf_counter() > deadline):
                    break
                map_id, x, y = spots[n % len(spots)]
                slot = slots[n % len(slots)]
                moved = slot.moved_to(map_id, x + n % 7, y + n % 5)
                added.append(commands.add_piece_command(f"warm-up-{n}", slot.type_string(),
                                                        moved.state_string()))
                characters += len(added[-1].text)
            tree = commands.CommandGroup([
                commands.leaf_command("begin_save"), commands.leaf_command(""),
                commands.CommandGroup([commands.leaf_command(""), *added]), commands.leaf_command("end_save"),
            ])
            with tempfile.TemporaryDirectory(prefix="adjutant-warm-") as folder:
                path = write_game_file(Path(folder) / "warm-up.vsav", commands.encode_stream(tree),
                                       module_metadata={"name": self.module.name,
                                                        "version": self.module.version}, ensure=False)
                placed_pieces = load_game(path, self.module).position()
            self.mapping.map_pieces(placed_pieces, self.pack, self.prototypes)
            return len(placed_pieces)
        except Exception:  # never stops the start-up (see the docstring)
            return 0

    def warm_setups(self, deadline: float) -> int:
        """Read, locate and map the module's predefined setups into the memos; returns the pieces done.

        Why: a new game's first save is mostly a setup's pieces, unmoved — the same AddPiece texts,
        on the same boards — so with them in the memos it costs what a later save costs. Each setup
        is read as any save is (`load_game` with the position memo, then the mapping with its memo),
        so every entry is keyed by all its inputs and a plan is the same with or without this.
        Bounded: at most WARM_SETUPS setups, WARM_SETUP_BYTES read, WARM_SETUP_PIECES pieces, and
        no setup started after `deadline` (perf_counter seconds); a setup that cannot be read is
        skipped and named in `setup_problems` (a broken one is the module's problem, not the first
        save's)."""
        import tempfile

        from vassal_parser.module import setup_file

        assert self.position_memo is not None and self.mapping_memo is not None
        files = list(dict.fromkeys(s.file for s in self.module.predefined_setups if s.use_file and s.file
                                   and not s.is_menu))[:WARM_SETUPS]
        budget, pieces = WARM_SETUP_BYTES, 0
        with tempfile.TemporaryDirectory(prefix="adjutant-setup-") as folder:
            for name in files:
                if time.perf_counter() > deadline or budget <= 0 or pieces >= WARM_SETUP_PIECES:
                    break
                setup = next(s for s in self.module.predefined_setups if s.file == name)
                data = setup_file(self.module, setup, min(budget, WARM_SETUP_FILE_BYTES))
                if data is None:
                    continue
                budget -= len(data)
                path = Path(folder) / "setup.vsav"
                path.write_bytes(data)
                try:
                    game = load_game(path, self.module, memo=self.position_memo)
                    if game.module_name and game.module_name != self.module.name:
                        continue
                    placed = game.position()
                    if pieces + len(placed) > WARM_SETUP_PIECES:
                        break
                    pieces += len(placed)
                    # Room for every setup read so far (the memos keep `factor` positions' worth).
                    self.position_memo.fit(pieces)
                    self.mapping_memo.fit(pieces)
                    self.mapping.map_pieces(placed, self.pack, self.prototypes, memo=self.mapping_memo)
                except Exception as exc:  # a setup the reader fails on: the first save will say so
                    # Why not fail the start-up: the players' first save reports its own problems
                    # (the same reader reads it); a daemon that cannot start shows nothing at all.
                    self.setup_problems.append(f"{setup.name}: {type(exc).__name__}: {exc}")
                    continue
        return pieces

    # ---- reading --------------------------------------------------------------------------------
    def load(self, path: str | Path) -> tuple[Any, dict[str, Any]]:
        """Read a save or log once: (the replayable game, file info); refuses another module's file."""
        path = Path(path)
        game = load_game(path, self.module, memo=self.position_memo)
        if game.module_name and game.module_name != self.module.name:
            raise InputError(path, f"was saved with module {game.module_name!r}, not {self.module.name!r} "
                                   f"({self.module_path.name}); pass that module with --module")
        info: dict[str, Any] = {
            "file": str(path), "kind": game.kind, "module_name": game.module_name or self.module.name,
            "module_version": game.module_version, "vassal_version": game.vassal_version,
            "extensions": [name for name, _version in game.extensions],
            "extension_versions": dict(game.extensions), "steps": len(game.steps),
            "step": None,
        }
        return game, info

    def pieces_of(self, path: str | Path, step: int | None = None) -> tuple[list[Any], dict[str, Any]]:
        """The pieces of the position (a save's, or a log's after `step` replay steps) and file info."""
        _game, pieces, info = self._position(path, step)
        return pieces, info

    def _position(self, path: str | Path, step: int | None) -> tuple[Any, list[Any], dict[str, Any]]:
        game, info = self.load(path)
        steps = info["steps"]
        if step is not None:
            if game.kind != "log":
                raise InputError(path, "--step applies to logs (.vlog); this file is a save")
            if not 0 <= step <= steps:
                raise InputError(path, f"--step {step} is out of range: this log has {steps} replay steps")
            info["step"] = step
            return game, game.position_at(step), info
        if game.kind == "log":
            info["step"] = steps
            return game, game.position_at(steps), info
        return game, game.position(), info

    # ---- planning -------------------------------------------------------------------------------
    def plan_file(self, path: str | Path, step: int | None = None,
                  answers: Mapping[str, Any] | None = None, answers_source: str = "<answers>") -> PlanResult:
        """The plan for a save, or for a log after `step` replay steps (default: all of them)."""
        game, pieces, info = self._position(path, step)
        return self.plan_pieces(pieces, info, answers, answers_source, layout_for=game.layout)

    def plan_steps(self, path: str | Path, answers: Mapping[str, Any] | None = None,
                   answers_source: str = "<answers>") -> Iterator[tuple[int, PlanResult]]:
        """(step, plan) for every position of a log, 0 .. last, reading the file only once."""
        game, info = self.load(path)
        if game.kind != "log":
            raise InputError(path, "is a save, not a log: it has no replay steps")
        for step in range(info["steps"] + 1):
            pieces = game.position_at(step)
            yield step, self.plan_pieces(pieces, {**info, "step": step}, answers, answers_source,
                                         layout_for=game.layout)

    def file_warnings(self, info: Mapping[str, Any]) -> list[str]:
        """Where the file was made with other module material than `--module`/`--extension` give.

        Why warn (VASSAL does too, on loading such a save): pieces come from the file, but prototypes
        (`@prototype` rules) and PieceSlots come from the module and extensions we loaded."""
        warnings = []
        saved_with = info.get("module_version") or ""
        if saved_with and saved_with != self.module.version:
            warnings.append(f"the file was saved with module version {saved_with}, --module "
                            f"{self.module_path.name} is version {self.module.version}")
        loaded = set(self.module.extensions)
        warnings.extend(f"the file uses extension {name!r}, not loaded: pass it with --extension"
                        for name in info.get("extensions", []) if name not in loaded)
        return warnings

    def plan_pieces(self, pieces: Iterable[Any], info: Mapping[str, Any],
                    answers: Mapping[str, Any] | None = None,
                    answers_source: str = "<answers>", layout_for: LayoutFor | None = None) -> PlanResult:
        """Map pieces (with `info` from `load`) and run the engine: the part shared by every entry point.

        `layout_for` (the loaded game's `layout`, map id -> MapLayout) lets each due event carry a map
        inset drawn from the module's own grid; without it (pieces from elsewhere) there is none."""
        pieces = list(pieces)
        answers, given = split_answers(answers or {}, answers_source)
        check_answer_ids(answers, self.pack, answers_source)
        origins = board_origins(self.mapping, layout_for)
        mapped = self.mapping.map_pieces(pieces, self.pack, self.prototypes, memo=self.mapping_memo,
                                         board_origins=origins)
        version = info["module_version"] or self.module.version
        warnings = self.file_warnings(info)
        warnings += self.mapping.module_warnings(info["module_name"], version, info["extensions"])
        warnings += mapped.warnings
        source = f"{info['file']} (as mapped by {self.mapping.source})"
        facts = None
        if self.facts or given:
            facts = apply_facts(self.facts, given, mapped.position, answers_source, mapped.state_paths)
        state = GameState.from_json(mapped.position, source=source)
        # in place: `state` is this plan's own (from_json shares nothing with the mapping's position)
        plan = run_plan(state, self.pack, answers=dict(answers or {}), answers_source=answers_source,
                        in_place=True)
        mostly = mostly_unmapped(mapped)
        if mostly is not None:
            plan.missing.append(mostly)
        if not self.pack.events:
            # A scaffold without rules data: no event was checked, which is not "nothing is due".
            text = (f"pack {self.pack.name} lists no events, so it decides nothing "
                    "(start it with --base tk or ds)")
            plan.missing.append(MissingFact("events", None, text))
        data = plan.to_json()
        data["factions"] = list(FACTIONS)  # for the overlay: a faction in a URL is checked against these
        if facts is not None:
            ask_what_matters(facts, data)
            facts["after_plan"] = changed_by_plan(self.facts, facts, data.get("resulting_position"))
            data["game_facts"] = facts
        if state.awaw is not None and state.awaw.phasing_faction is None:
            # whose player turn it is is a game fact not yet given: the plan names no phasing faction
            data["phasing"] = None
        sides = faction_sides(self.mapping.sides, FACTIONS)
        data["vassal"] = {
            "file": info["file"],
            "kind": info["kind"],
            "module": {"name": info["module_name"], "version": info["module_version"],
                       "vassal_version": info["vassal_version"]},
            "extensions": list(info["extensions"]),
            "extension_versions": dict(info.get("extension_versions", {})),
            "step": info.get("step"),
            "steps": info["steps"],
            **mapped.report(),
            "concealed_names": concealed_names(pieces, mapped),
            "concealed_places": concealed_places(pieces, self.place_hexes,
                                                 getattr(self.pack, "hexes", None) or {}),
            "concealed_from": concealed_from(pieces, mapped, sides, self.place_hexes,
                                             getattr(self.pack, "hexes", None) or {}),
            # faction -> the VASSAL sides it plays: a player URL may name a side (the extension's
            # `faction=$PlayerSide$`), which the server and the page read as its faction
            "sides": sides,
            "warnings": warnings,  # module/version/extension warnings + the mapping's own
            # Not in `warnings`: a daemon keeps answers as play goes on, so the overlay must not
            # flag them; `check` states them (render_text), since there the player just wrote them.
            "unused_answers": unused_answers(answers or {}, plan),
            # rules and boxes `pack scaffold` inferred and no one reviewed yet (issue 38): the header says so
            "proposed": proposed_counts(self.mapping),
        }
        if layout_for is not None:
            add_insets(data, pieces, layout_for, getattr(self.pack, "hexes", None) or {}, self.hex_places,
                       mapped.piece_counters, self.inset_geometry)
        text = render_text(plan.render_text(), data["vassal"], data)
        return PlanResult(plan=data, exit_status=plan.exit_status, text=text,
                          mapping=mapped)


def board_origins(mapping: VassalMapping,
                  layout_for: LayoutFor | None) -> dict[tuple[str, str], tuple[int, int]]:
    """(map, board) -> the board's origin in map pixels, for the maps the pack's tracks are on.

    Why from the save's layout: a track's boxes are in the board's own pixels (as the module's zones
    are), and where a board sits in its map depends on the boards the game chose."""
    origins: dict[tuple[str, str], tuple[int, int]] = {}
    if layout_for is None or not mapping.tracks:
        return origins
    for map_name in {t.map for t in mapping.tracks.tracks}:
        layout = layout_for(map_name)
        for placed in getattr(layout, "boards", None) or []:
            origins[(map_name, placed.name)] = (placed.x, placed.y)
    return origins


def pack_mapping(pack: Pack, module: Module, module_path: Path) -> VassalMapping:
    """The pack's `[vassal]` table for this module, or one line saying why the pack cannot read it.

    Why refuse rather than warn: a pack made for another module maps almost nothing of this one's
    save, and a plan read from almost nothing says "Nothing is due" — a PBEM script would trust it."""
    if not isinstance(pack.extra.get("vassal"), dict):
        shipped = {p.name for p in PACKS_DIR.iterdir() if p.is_dir()}
        edition = pack.name if pack.name in shipped else pack.edition if pack.edition in shipped else "tk"
        raise InputError(pack.path, f"pack {pack.name} holds rules data but no [vassal] table, so it cannot "
                                    f"read this module's files; make a pack for the module that inherits it: "
                                    f"adjutant pack scaffold {module_path} --base {edition} -o my-pack")
    mapping = VassalMapping.from_pack(pack)
    if mapping.module_name and mapping.module_name != module.name:
        raise InputError(mapping.source, f"maps module {mapping.module_name!r}, not {module.name!r} "
                                         f"({module_path.name}); use a pack made for that module "
                                         f"(adjutant pack scaffold {module_path} --base tk)")
    return mapping


def mostly_unmapped(mapped: MappingResult) -> MissingFact | None:
    """A plan-level missing fact when most pieces of the position were left out by the mapping.

    "Most": more than half of the pieces the mapping did not ignore are unmapped pieces or counters on
    unmapped places. Such a position is not the game, so no event can be ruled out (exit 3)."""
    left_out = sum(mapped.unmapped_pieces.values()) + sum(mapped.unmapped_places.values())
    considered = left_out + len(mapped.position.get("counters", []))
    if considered == 0 or left_out * 2 <= considered:
        return None
    return MissingFact("vassal_mapping", None,
                       f"the pack maps only {considered - left_out} of the save's {considered} pieces "
                       f"({left_out} unmapped), so the position is not the game's; complete its [vassal] "
                       "table (adjutant pack check PACK --module M --save FILE)")


def unused_answers(answers: Mapping[str, Any], plan: Any) -> list[str]:
    """The choice ids answered but never asked by this plan, so a player sees they had no effect."""
    asked = {choice.id for event in plan.events for choice in event.choices}
    return [str(choice_id) for choice_id in answers if choice_id not in asked]


def concealed_names(pieces: Iterable[Any], mapped: MappingResult,
                    seen: frozenset[str] = frozenset()) -> list[str]:
    """Every text that names a piece VASSAL hides or masks, for the public stream's filter.

    Why more than counter ids: a plan line names a piece by its counter id ("RU-RES"), its
    counter name or its VASSAL name ("RU Secret Reserve"), and the stream must drop every such
    line (docs/protocol.md, "Hidden pieces"). A masked piece's PieceName is the face everyone sees
    ("Face-down card"), so it is public and left out; so is any name a visible piece also carries
    (that name alone gives nothing away). `seen`: the ids of concealed pieces the viewer sees through
    (their own side's, `concealed_from`), counted as visible.
    """
    counter_names = {c["id"]: c.get("name") for c in mapped.position.get("counters", [])}
    secret: set[str] = set()
    public: set[str] = set()
    piece_counters = mapped.piece_counters
    add_public = public.add
    seen_kinds: set[Any] = set()  # a piece with no counter adds only what its kind shares (PieceKind)
    for piece in pieces:
        counter_id = piece_counters.get(piece.id)
        if not counter_id:
            try:  # an attribute read, not `getattr` with a default: this runs for every piece
                kind = piece.kind
            except AttributeError:  # a piece-like object without kinds
                kind = None
            if kind is not None:
                if kind in seen_kinds:
                    continue
                seen_kinds.add(kind)
        if (not getattr(piece, "hidden_by", None) and not getattr(piece, "masked_by", None)) or (
                seen and piece.id in seen):
            # a visible piece (most of them): every name it goes by is public ("" never is secret)
            add_public(piece.basic_name)
            add_public(piece.piece_name)
            if counter_id:
                add_public(counter_id)
                add_public(counter_names.get(counter_id) or "")
            continue
        names = {piece.basic_name, counter_id, counter_names.get(counter_id) if counter_id else None}
        if getattr(piece, "hidden_by", None):
            secret.update(n for n in (*names, piece.piece_name) if n)
        else:
            secret.update(n for n in names if n)
            if piece.piece_name != piece.basic_name:
                public.add(piece.piece_name)
    return sorted(secret - public)


def concealed_places(pieces: Iterable[Any], place_hexes: Mapping[tuple[str, str], str],
                     known_hexes: Mapping[str, Any], seen: frozenset[str] = frozenset()) -> list[str]:
    """Where the pieces VASSAL hides stand on a map hex: its pack hex id, VASSAL location and hex name.

    Why: the public stream must not learn where a hidden unit is, neither from a line naming it nor
    from what is derived from it (an inset drawn around its hex, a label). Masked pieces are left out:
    a face-down piece is seen where it stands; only its face is secret. Boxes are left out too: a
    Force Pool holds visible counters as well, and its name says nothing of where a unit is on the map."""
    found: set[str] = set()
    for piece in pieces:
        if not getattr(piece, "hidden_by", None) or (seen and piece.id in seen):
            continue
        hex_id = place_hexes.get((getattr(piece, "map", None), getattr(piece, "location", None)))
        if hex_id is None:
            continue
        label = getattr(known_hexes.get(hex_id), "name", None)
        found.update(text for text in (hex_id, piece.location, label) if text)
    return sorted(found)


def concealed_from(pieces: Iterable[Any], mapped: MappingResult, sides: Mapping[str, list[str]],
                   place_hexes: Mapping[tuple[str, str], str], known_hexes: Mapping[str, Any]
                   ) -> dict[str, dict[str, Any]]:
    """For each faction: what of the concealed pieces its player view may not show (their names and
    places, as `concealed_names` and `concealed_places` give them for the stream) and, for each such
    name, who keeps it hidden ("the Soviet side"), so the view can say a step is withheld without
    naming the piece. Empty when nothing is concealed (most saves: one walk, no more).

    Why per faction: VASSAL shows a side its own hidden and masked pieces (bridge/mapping/sides.py);
    the player view of that side must too, and must show no other side's."""
    pieces = list(pieces)
    concealed = [(piece, concealments(piece)) for piece in pieces
                 if getattr(piece, "hidden_by", None) or getattr(piece, "masked_by", None)]
    if not concealed:
        return {}
    counters = mapped.piece_counters
    result: dict[str, dict[str, Any]] = {}
    for faction, faction_side_list in sides.items():
        seen = frozenset(piece.id for piece, found in concealed if faction_sees(found, faction_side_list))
        names = concealed_names(pieces, mapped, seen)
        secret = set(names)
        keepers: dict[str, str] = {}
        for piece, found in concealed:
            if piece.id in seen:
                continue
            own = {piece.basic_name, piece.piece_name, counters.get(piece.id), f"piece:{piece.id}"}
            for name in sorted(n for n in own if n and (n in secret or n.startswith("piece:"))):
                keepers.setdefault(name, hidden_by_text(found))
        hidden_ids = sorted(f"piece:{piece.id}" for piece, _found in concealed
                            if piece.id not in seen and not counters.get(piece.id))
        result[faction] = {"names": sorted(secret | set(hidden_ids)),
                           "places": concealed_places(pieces, place_hexes, known_hexes, seen),
                           "kept_by": dict(sorted(keepers.items()))}
    return result


def answers_hint(plan: Mapping[str, Any]) -> list[str]:
    """How to answer the plan's open choices: each id, who decides, and the values to write, by
    `--answer ID=VALUE` or in an answers file (every report and `apply`'s refusal say the same).

    Why: the plan shows option labels ("Intern all units causing Occupation (16.7) ..."), but an
    answer takes option values ("intern"); a PBEM player reading the text must not need JSON."""
    open_ids = set(plan.get("pending_choices", []))
    choices = [c for e in plan.get("events", []) for c in e.get("choices", []) if c.get("id") in open_ids]
    if not choices:
        return []
    lines = ["to answer, pass --answer ID=VALUE (repeatable), or put these choice ids in a JSON object "
             "and pass it with --answers FILE.json:"]
    for choice in choices:
        values = [json.dumps(o["value"], ensure_ascii=False) for o in choice.get("options", [])]
        listed = ", ".join(values[:-1]) + f" or {values[-1]}" if len(values) > 1 else "".join(values)
        if choice.get("multiple"):
            listed = f"a list of {', '.join(values)}"
        lines.append(f'  "{choice["id"]}" ({choice.get("decider")}): {listed or "no option"}')
    return lines


def render_text(plan_text: str, vassal: Mapping[str, Any], plan: Mapping[str, Any] | None = None) -> str:
    """The plan with a header saying which file, module and extensions it was read from, and (given
    the plan JSON) how to answer its open choices."""
    module = vassal["module"]
    versions = vassal.get("extension_versions", {})
    extensions = ", ".join(f"{name} {versions.get(name, '')}".rstrip() for name in vassal["extensions"])
    lines = [f"{vassal['file']}: module {module['name']} {module['version']}".rstrip()
             + (f", extensions: {extensions}" if extensions else ", no extensions")]
    if vassal.get("step") is not None:
        lines.append(f"log position after step {vassal['step']} of {vassal['steps']}")
    lines += proposed_lines(vassal)
    lines.extend(f"warning: {w}" for w in vassal["warnings"])
    lines.extend(f"warning: answer to {choice_id} was not used: this plan does not ask that choice"
                 for choice_id in vassal.get("unused_answers", []))
    if vassal["unmapped_pieces"]:
        total = sum(vassal["unmapped_pieces"].values())
        lines.append(f"unmapped pieces ({total}, not in the position): "
                     + ", ".join(f"{name} x{count}" for name, count in vassal["unmapped_pieces"].items()))
    if vassal["unmapped_places"]:
        total = sum(vassal["unmapped_places"].values())
        lines.append(f"unmapped places ({total} counter{'' if total == 1 else 's'} left out): "
                     + ", ".join(f"{name} x{count}" for name, count in vassal["unmapped_places"].items()))
    lines.append(plan_text)
    lines.extend(render_lines((plan or {}).get("game_facts") or {}))
    lines.extend(answers_hint(plan or {}))
    return "\n".join(lines)
