"""Every example in every `--help` runs (issue 41: `adjutant plan --help` named `examples/tk-16.1.1.json`,
which does not exist, and the examples gave `--pack tk`, a pack that reads no module).

Each example line is read from the help text itself (`adjutant --help` and every command's and
action's), and run as written in a folder of its own that holds the files its names stand for:
TK.vmod and M.vmod are the demo module, my-pack a completed pack for it (the demo pack), game.vsav
a save (05, Case Yellow), session.vlog a log of 16 steps, round3/ a folder of saves, and so on; the
files the example writes (after `--out`, `-o`) are not there beforehand. The project's `examples/`
folder is there as it is. "Runs" means what a user needs: no bad input (2), no bug (70), no
traceback, and a file written where it says `--out` and exits 0. A server (`demo`, `watch`, `pack
edit`) runs until it prints its address, then gets Ctrl+C as from a terminal (the whole process
group) and must stop cleanly; it binds 127.0.0.1 on a free port (`--host 0.0.0.0` is read as
127.0.0.1: tests use loopback only).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bridge.cli.main import main
from module_patches.demo_story import load_story, save_path
from tests.cli.parsers import every_parser

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "module_patches" / "demo"
STORY = {scene.file: scene for scene in load_story()}
OUTPUT_FLAGS = ("--out", "-o", "--output")
SERVERS = ("demo", "watch", "pack edit")
URL = re.compile(r"http://127\.0\.0\.1:\d+/")


def help_examples() -> list[tuple[str, str]]:
    """(whose help, the example's command line) for every `  adjutant ...` line under `examples:`;
    what follows two or more spaces on the line is its comment."""
    examples = []
    for words, parser in every_parser():
        lines = parser.format_help().splitlines()
        if "examples:" not in lines:
            continue
        for line in lines[lines.index("examples:") + 1:]:
            if not line.strip():
                break
            command = re.split(r"\s{2,}", line.strip())[0]
            if command.startswith("adjutant "):
                examples.append((words or "adjutant", command))
    return examples


EXAMPLES = help_examples()


def test_the_examples_are_read_from_every_help() -> None:
    helps = {words for words, _command in EXAMPLES}
    assert {"adjutant", "check", "plan", "apply", "watch", "pack scaffold", "pack check",
            "pack edit"} <= helps
    assert len(EXAMPLES) >= 30


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """What is slow to make, made once: a log of 16 steps and an extension of the demo module."""
    folder = tmp_path_factory.mktemp("made")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from long_log import write_long_log

    write_long_log(folder / "session.vlog", steps=16, pieces=0)
    extension = folder / "Extra.vmdx"
    assert main(["extension", str(DEMO / "adjutant-demo.vmod"), "--out", str(extension), "-q"]) == 0
    return folder


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _world(folder: Path, made: Path, outputs: set[str], port: int) -> None:
    """The files the examples' names stand for (all but the example's outputs)."""
    saves = DEMO / "saves"
    files = {"TK.vmod": DEMO / "adjutant-demo.vmod", "M.vmod": DEMO / "adjutant-demo.vmod",
             "game.vsav": save_path(STORY["05-case-yellow"]), "session.vlog": made / "session.vlog",
             "a.vsav": save_path(STORY["02-poland-falls"]), "b.vsav": save_path(STORY["04-hungary-occupied"]),
             "c.vlog": saves / "story.vlog", "turn3-axis.vlog": saves / "story.vlog",
             "turn3-allied.vlog": made / "session.vlog",
             "last-week.vsav": save_path(STORY["08-london-liberated"]),
             "this-week.vsav": save_path(STORY["09-border-defense"]), "Extra.vmdx": made / "Extra.vmdx",
             "position.json": ROOT / "examples" / "ds" / "garrison_e5201.json",
             "answers.json": ROOT / "examples" / "ds" / "garrison_e5201.answers.json",
             "combined.json": ROOT / "examples" / "ds" / "combined_axis_turn.json"}
    for name, source in files.items():
        if name not in outputs:
            shutil.copy(source, folder / name)
    if "my-pack" not in outputs:
        shutil.copytree(DEMO / "pack", folder / "my-pack")
    (folder / "a.json").write_text(json.dumps(STORY["05-case-yellow"].answers), encoding="utf-8")
    for watched in (folder / "round3", folder / "saves", folder / "vassal" / "saves"):
        watched.mkdir(parents=True)
        for scene in ("01-opening", "04-hungary-occupied", "09-border-defense"):
            shutil.copy(save_path(STORY[scene]), watched / f"{scene}.vsav")
    (folder / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    (folder / "adjutant.toml").write_text(f'module = "TK.vmod"\npack = "my-pack"\nport = {port}\n',
                                          encoding="utf-8")


def _argv(command: str, folder: Path, server: bool, port: int) -> list[str]:
    argv = [word.replace("~/", f"{folder}/", 1) if word.startswith("~/") else word
            for word in shlex.split(command)[1:]]
    if not server:
        return argv
    argv = ["127.0.0.1" if word == "0.0.0.0" else word for word in argv]
    if "--port" in argv:
        argv[argv.index("--port") + 1] = str(port)
    elif argv[0] != "watch" or argv[1] != ".":  # `watch .` takes its port from adjutant.toml
        argv += ["--port", str(port)]
    return argv


def _outputs(argv: list[str]) -> list[str]:
    return [argv[i + 1] for i, word in enumerate(argv[:-1]) if word in OUTPUT_FLAGS]


def _serve_then_ctrl_c(argv: list[str], folder: Path) -> tuple[int, str, str]:
    """Run a server until it prints its address, then Ctrl+C it as a terminal does."""
    process = subprocess.Popen([sys.executable, "-m", "adjutant", *argv], cwd=folder, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                               env={**os.environ, "HOME": str(folder), "PYTHONPATH": str(ROOT)})
    seen = []
    deadline = time.monotonic() + 60
    try:
        assert process.stdout is not None
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            seen.append(line)
            if URL.search(line):
                time.sleep(0.5)  # a moment to serve (and, for watch, to plan the folder)
                break
        os.killpg(process.pid, signal.SIGINT)
        rest, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return process.returncode, "".join(seen) + rest, ""


@pytest.mark.parametrize(("whose", "command"), EXAMPLES, ids=[command for _w, command in EXAMPLES])
def test_every_help_example_runs(whose: str, command: str, made: Path, tmp_path: Path, capsys,
                                 monkeypatch) -> None:
    port = _free_port()
    words = shlex.split(command)[1:]
    server = words[0] in SERVERS or " ".join(words[:2]) in SERVERS
    server = server and "--no-serve" not in words and "--json" not in words
    argv = _argv(command, tmp_path, server, port)
    outputs = _outputs(argv)
    _world(tmp_path, made, set(outputs), port)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    if server:
        status, out, err = _serve_then_ctrl_c(argv, tmp_path)
        assert URL.search(out), f"{command} (from `{whose} --help`) printed no address:\n{out}"
        assert status in (0, 130), f"{command}: exit {status}\n{out}"
    else:
        try:
            status = main(argv)
        except SystemExit as stop:  # argparse refusing the example's own flags
            status = stop.code if isinstance(stop.code, int) else 2
        out, err = capsys.readouterr()
        assert status not in (2, 70), f"{command} (from `{whose} --help`): exit {status}\n{err}"
        if status == 0:
            for output in outputs:
                assert (tmp_path / output).exists(), f"{command}: exit 0 but {output} not written"
    assert "Traceback" not in out + err and "Process " not in out + err, command
