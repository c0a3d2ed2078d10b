"""`adjutant watch` on a folder holding the corpus A3R/AWAW save (issue 25): it serves the plan, a game
fact given in the control view is kept in the daemon's state folder with who gave it and the map's game
turn, and survives a restart."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from websockets.asyncio.client import connect

from tests.awaw.vassal_situation import FOLDER, MODULE, SAVE, season_save
from tests.cli.test_watch_cli import PROJECT, _read_until, _snapshot, _stop


def _start(folder: Path, state: Path, module: Path) -> tuple[subprocess.Popen[str], list[str]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "adjutant", "watch", str(folder), "--module", str(module), "--pack", "awaw",
         "--port", "0", "--state-dir", str(state), "--debounce", "0.05"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=PROJECT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    return process, []


def _control_ws(lines: list[str]) -> str:
    url = next(re.search(r"(http://\S+)", line).group(1) for line in lines if "control (" in line)
    token = re.search(r"[?&]token=([^&\s]+)", url).group(1)  # the control token the daemon printed
    return url.split("?")[0].replace("http://", "ws://") + f"ws?view=control&token={token}"


async def _give(url: str, name: str, value: str) -> None:
    async with connect(url) as ws:
        await ws.recv()
        await ws.send(json.dumps({"type": "answer", "choice": f"fact:{name}", "option": value}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 30))
            plan = (message.get("set") or {}).get("plan")
            if plan and any(g["name"] == name for g in plan.get("game_facts", {}).get("given", [])):
                return


def _event(plan: dict, rule: str) -> dict:
    return next(e for e in plan["events"] if e["rule"] == rule)


def test_watch_serves_the_awaw_plan_and_keeps_facts_across_a_restart(corpus_dir: Path,
                                                                     tmp_path: Path) -> None:
    folder, state = tmp_path / "saves", tmp_path / "state"
    folder.mkdir()
    shutil.copy(corpus_dir / FOLDER / SAVE, folder / "game.vsav")
    module = corpus_dir / FOLDER / MODULE
    process, lines = _start(folder, state, module)
    try:
        _read_until(process, lines, "control (OBS dock / table)")
        _read_until(process, lines, "game.vsav: planned")
        url = _control_ws(lines)
        plan = asyncio.run(_snapshot(url))["plan"]
        assert _event(plan, "60.1")["status"] == "undecided"  # whose player turn: a question
        asyncio.run(_give(url, "player_turn", "Axis"))
        asyncio.run(_give(url, "phase", "end_of_player_turn"))
    finally:
        _stop(process)
    saved = json.loads(next(state.glob("answers-*.json")).read_text())["answers"]
    assert saved["fact:player_turn"] == {"value": "Axis", "by": "control view", "turn": "Fall"}

    process, lines = _start(folder, state, module)
    try:
        _read_until(process, lines, "game.vsav: planned")
        plan = asyncio.run(_snapshot(_control_ws(lines)))["plan"]
        given = {g["name"]: g for g in plan["game_facts"]["given"]}
        assert given["player_turn"]["by"] == "control view" and given["player_turn"]["value"] == "Axis"
        rule = _event(plan, "60.1")
        assert rule["status"] == "not_due"
        assert any("only at the end of an Allied player turn" in w for w in rule["why"])
        # A new game turn: the Season marker moved to the Winter box -> the turn facts are asked again.
        season_save(corpus_dir, tmp_path / "winter.vsav")
        (folder / "game.vsav").write_bytes((tmp_path / "winter.vsav").read_bytes())
        _read_until(process, lines, "game.vsav: planned")
        plan = asyncio.run(_snapshot(_control_ws(lines)))["plan"]
        assert plan["game_facts"]["turn"] == "Winter"
        again = {q["name"]: q for q in plan["game_facts"]["questions"]}
        assert "given for Fall (control view)" in again["player_turn"]["again"]
        assert _event(plan, "60.1")["status"] == "undecided"
    finally:
        _stop(process)
