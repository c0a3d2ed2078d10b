"""Partial executions of a fired event as VASSAL files (issue 37): a continuation log cut after its
first N steps, and a save of the position a log shows after N steps.

Both are written with the project's own writers from what `adjutant apply` wrote (the demo's 16.1.1:
six moves, six log steps), so what the daemon reads is what a player who stopped after N of the moves
would send: the log's tokens kept byte for byte up to step N (as `apply --step` keeps a log's), or a
save with the pieces where they stand after step N.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bridge.writeback.applier import _continuation, _locator, _save_from_log, _stacking, apply_plan
from vassal_parser.commands import decode_stream
from vassal_parser.container import open_container
from vassal_parser.patch import Table
from vassal_parser.writer import write_game_file


def _write(source: Path, target: Path, tree: Any) -> Path:
    container = open_container(source)
    savedata = container.metadata_entries.get("savedata", {})
    return write_game_file(target, tree, module_metadata=container.read_entry("moduledata"),
                           comment=savedata.get("description", ""),
                           module_version=savedata.get("version", ""),
                           vassal_version=savedata.get("VassalVersion") or "3.7.12", ensure=False,
                           plain=container.savedgame_encoding == "plain")


def applied_log(pipeline: Any, save: Path, out: Path) -> Path:
    """`adjutant apply SAVE --out OUT.vlog`: the plan's moves as log steps (one step a move)."""
    apply_plan(pipeline, save, out)
    return out


def cut_log(log: Path, target: Path, keep: int) -> Path:
    """`log` with only its first `keep` steps (the rest of the moves never made)."""
    tree = decode_stream(open_container(log).command_text())
    return _write(log, target, _continuation(tree, {"step": keep, "steps": 10**9}, []))


def save_after(pipeline: Any, log: Path, target: Path, keep: int) -> Path:
    """A save of the position `log` shows after `keep` steps (what VASSAL saves after stepping)."""
    game, pieces, info = pipeline._position(log, keep)
    tree = decode_stream(open_container(log).command_text())
    table = Table.from_placed(pieces, _stacking(pipeline.module), _locator(game, pipeline.module))
    saved, _warnings = _save_from_log(tree, table, info)
    return _write(log, target, saved)


class _Misplacing:
    """A pipeline whose plan puts one counter elsewhere than the rules do (its step's words unchanged):
    `adjutant apply` through it writes what a player who moved that counter to the wrong box sends."""

    def __init__(self, pipeline: Any, counter: str, place: str) -> None:
        self._pipeline, self._counter, self._place = pipeline, counter, place

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pipeline, name)

    def plan_pieces(self, *args: Any, **kwargs: Any) -> Any:
        result = self._pipeline.plan_pieces(*args, **kwargs)
        for event in result.plan.get("events", []):
            for step in event.get("steps", []):
                if step.get("counter") == self._counter:
                    step["to"] = self._place
        result.plan["resulting_position"] = None  # (no read-back: the position is not the plan's)
        return result


def misplaced_log(pipeline: Any, save: Path, out: Path, counter: str, place: str) -> Path:
    """`applied_log`, with `counter` moved to `place` instead (e.g. PO 2 Inf to the Delay Box)."""
    apply_plan(_Misplacing(pipeline, counter, place), save, out)
    return out
