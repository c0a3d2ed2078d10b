"""A seeded mutation fuzzer for Adjutant's file readers: the engine behind `tests/test_fuzz.py`
and `scripts/fuzz.py`.

Why mutations of real files: hostile or broken input looks like a real save with something
wrong inside (a flipped bit, a truncated zip, a huge column number, a run of escapes, a grid
attribute `1e400`), so cases start from the corpus and demo files and change a little.

Every case is a (seed file, case number) pair: the mutated bytes are a pure function of it, so
any failure is reproduced with `scripts/fuzz.py --repro SEED_INDEX:CASE`. Cases run in a worker
process with a memory limit; the parent gives each a hard time bound and kills a worker that
overruns (counted as a case over the bound, then a fresh worker continues). A case passes when
the reader either succeeds or raises `InputError`; anything else is recorded with its traceback.
"""

from __future__ import annotations

import contextlib
import copy
import io
import multiprocessing
import os
import random
import re
import shutil
import struct
import tempfile
import time
import traceback
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEMO_DIR = PROJECT_ROOT / "module_patches" / "demo"
DEMO_MODULE = DEMO_DIR / "adjutant-demo.vmod"
DEMO_PACK = DEMO_DIR / "pack"
GAME_SUFFIXES = (".vsav", ".vlog", ".sav", ".log")
MAX_SEED_BYTES = 120_000  # bigger corpus files take seconds unmutated on a loaded machine
MEMORY_LIMIT = 3 * 1024**3

HOSTILE_NUMBERS = (
    "99999999999", "100000000", "2147483647", "-2147483648", "1e400", "-1e400", "NaN", "Infinity",
    "0", "-0", "0.0", "1e-320", "-1", "4e9", "0x10", "1_0", "\u00b2", "9" * 5000, "",
)
HOSTILE_SNIPPETS = (
    "\\" * 3000, "\\;" * 2000, "\\\t" * 2000, "\\/" * 1500, "'" * 500, "\t" * 2000, ";" * 3000,
    "$" * 2000, "\\\\\\\t" * 800, "\x1b" * 500, "\ufffd" * 100,
)


@dataclass(frozen=True)
class Seed:
    kind: str  # "game" | "module"
    path: str
    demo: bool  # a demo file: planned with the demo module and pack too


@dataclass
class Outcome:
    case: str
    status: str  # "ok" | "input" | "exception" | "timeout"
    seconds: float
    detail: str = ""


@dataclass
class Report:
    cases: int = 0
    ok: int = 0
    input_errors: int = 0
    exceptions: list[Outcome] = field(default_factory=list)
    over_bound: list[Outcome] = field(default_factory=list)
    max_seconds: float = 0.0
    slowest: str = ""
    wall_seconds: float = 0.0

    def add(self, outcome: Outcome) -> None:
        self.cases += 1
        if outcome.seconds > self.max_seconds:
            self.max_seconds, self.slowest = outcome.seconds, outcome.case
        if outcome.status == "ok":
            self.ok += 1
        elif outcome.status == "input":
            self.input_errors += 1
        elif outcome.status == "timeout":
            self.over_bound.append(outcome)
        else:
            self.exceptions.append(outcome)

    def summary(self, bound: float) -> str:
        lines = [
            f"fuzz: {self.cases} cases in {self.wall_seconds:.0f} s: {self.ok} read, {self.input_errors} "
            f"refused with InputError, {len(self.exceptions)} other exceptions, {len(self.over_bound)} "
            f"over the {bound:g} s bound; max {self.max_seconds:.2f} s per case ({self.slowest})"
        ]
        for outcome in (self.exceptions + self.over_bound)[:20]:
            lines.append(f"  {outcome.case}: {outcome.status} {outcome.detail}")
        return "\n".join(lines)


# --- seeds ---------------------------------------------------------------------------------------


def find_seeds(corpus: Path | None, max_corpus: int = 40) -> list[Seed]:
    """Demo saves and module, then small corpus saves, logs and modules (sorted: stable indexes)."""
    seeds = [Seed("game", str(p), True) for p in sorted((DEMO_DIR / "saves").glob("*.vsav"))]
    seeds.append(Seed("module", str(DEMO_MODULE), True))
    for path in sorted((PROJECT_ROOT / "examples").glob("*/*.json")):
        if not path.name.endswith(".answers.json"):
            seeds.append(Seed("position", str(path), True))
    if corpus is not None and corpus.is_dir():
        found: list[Seed] = []
        for path in sorted(corpus.rglob("*")):
            if not path.is_file() or path.stat().st_size > MAX_SEED_BYTES:
                continue
            suffix = path.suffix.lower()
            if suffix in GAME_SUFFIXES:
                found.append(Seed("game", str(path), False))
            elif suffix in (".vmod", ".vmdx"):
                found.append(Seed("module", str(path), False))
        step = max(1, len(found) // max_corpus)
        seeds += found[::step][:max_corpus]
    return seeds


# --- mutations -----------------------------------------------------------------------------------


def _bytes_mutation(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    choice = rng.randrange(6)
    if not buf:
        return bytes(rng.randbytes(rng.randrange(1, 64)))
    if choice == 0:  # bit flips
        for _ in range(rng.randrange(1, 8)):
            i = rng.randrange(len(buf))
            buf[i] ^= 1 << rng.randrange(8)
    elif choice == 1:  # truncation
        del buf[rng.randrange(len(buf)) :]
    elif choice == 2:  # random bytes overwritten
        i = rng.randrange(len(buf))
        buf[i : i + 8] = rng.randbytes(8)
    elif choice == 3:  # a chunk duplicated
        i = rng.randrange(len(buf))
        j = min(len(buf), i + rng.randrange(1, 4096))
        buf[i:i] = buf[i:j] * rng.randrange(1, 4)
    elif choice == 4:  # a chunk deleted
        i = rng.randrange(len(buf))
        del buf[i : i + rng.randrange(1, 512)]
    else:  # interesting bytes
        i = rng.randrange(len(buf))
        buf[i : i + 1] = rng.choice([b"\x00", b"\xff", b"\\", b"\t", b";", b"'", b"\x1b", b"\x80", b"<"])
    return bytes(buf)


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _text_mutation(text: str, rng: random.Random) -> str:
    if not text:
        return rng.choice(HOSTILE_SNIPPETS)
    choice = rng.randrange(7)
    i = rng.randrange(len(text))
    if choice == 0:
        numbers = list(_NUMBER.finditer(text))
        if numbers:
            for match in rng.sample(numbers, min(len(numbers), rng.randrange(1, 4))):
                text = text[: match.start()] + rng.choice(HOSTILE_NUMBERS) + text[match.end() :]
                break
        return text
    if choice == 1:
        return text[:i] + rng.choice(HOSTILE_SNIPPETS) + text[i:]
    if choice == 2:
        j = min(len(text), i + rng.randrange(1, 2000))
        return text[:i] + text[i:j] * rng.randrange(2, 6) + text[j:]
    if choice == 3:
        return text[:i] + text[i + rng.randrange(1, 400) :]
    if choice == 4:  # a BoardPicker with a hostile cell, or any command with a hostile field
        map_name = rng.choice(["Main Map", "Map0", "Europe", "x"])
        board = f"{map_name}BoardPicker\t{rng.choice(['Europe', 'Board', 'Main'])}\t" \
                f"{rng.choice(HOSTILE_NUMBERS)}\t{rng.choice(HOSTILE_NUMBERS)}"
        return text[:i] + "\x1b" + board + "\x1b" + text[i:]
    if choice == 5:
        return text[:i] + chr(rng.choice([0, 0x7F, 0xFFFD, 0x1F600, 0x5C, 0x09, 0x27])) + text[i:]
    return text[:i] + rng.choice(["\\", "\t", ";", "/", "'", ",", "$"]) * rng.randrange(1, 50) + text[i:]


_ATTRIBUTE = re.compile(rb'(\s[A-Za-z0-9_]+=")([^"]*)(")')


def _xml_mutation(data: bytes, rng: random.Random) -> bytes:
    choice = rng.randrange(4)
    attributes = list(_ATTRIBUTE.finditer(data))
    if choice <= 1 and attributes:  # hostile attribute values (numbers most of all)
        out = data
        for match in sorted(rng.sample(attributes, min(len(attributes), rng.randrange(1, 6))),
                            key=lambda m: -m.start()):
            value = rng.choice(HOSTILE_NUMBERS) if choice == 0 else rng.choice(HOSTILE_SNIPPETS)[:300]
            escaped = value.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
            out = out[: match.start(2)] + escaped.encode("utf-8") + out[match.end(2) :]
        return out
    if choice == 2:  # deeply nested maps (or any element) inside the root
        depth = rng.choice([50, 200, 1000, 2000])
        tag = rng.choice([b"VASSAL.build.module.Map", b"VASSAL.build.module.map.BoardPicker", b"x"])
        nested = b"".join(b"<" + tag + b' mapName="M%d">' % k for k in range(depth))
        nested += b"".join(b"</" + tag + b">" for _ in range(depth))
        end = data.rfind(b"</")
        return data[:end] + nested + data[end:] if end > 0 else data
    return _bytes_mutation(data, rng)


def _zip_entries(data: bytes) -> list[tuple[zipfile.ZipInfo, bytes]] | None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return [(info, archive.read(info)) for info in archive.infolist()]
    except Exception:
        return None


def _rezip(entries: list[tuple[zipfile.ZipInfo, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, body in entries:
            archive.writestr(info.filename, body)
    return out.getvalue()


def _header_mutation(data: bytes, rng: random.Random) -> bytes:
    """Local/central header fields: encrypted flag, UTF-8 flag with bad name bytes, method, version."""
    buf = bytearray(data)
    offsets = [m.start() for m in re.finditer(rb"PK\x01\x02|PK\x03\x04", data)]
    if not offsets:
        return data
    at = rng.choice(offsets)
    central = data[at : at + 4] == b"PK\x01\x02"
    flag_at = at + (8 if central else 6)
    method_at = flag_at + 2
    choice = rng.randrange(5)
    if choice == 0:
        struct.pack_into("<H", buf, flag_at, struct.unpack_from("<H", buf, flag_at)[0] | 0x1)
    elif choice == 1:
        struct.pack_into("<H", buf, flag_at, struct.unpack_from("<H", buf, flag_at)[0] | 0x800)
        name_at = at + (46 if central else 30)
        if name_at < len(buf):
            buf[name_at] = 0xFF
    elif choice == 2:
        struct.pack_into("<H", buf, method_at, rng.choice([14, 12, 99, 1, 9]))
    elif choice == 3:
        version_at = at + (6 if central else 4)
        struct.pack_into("<H", buf, version_at, rng.choice([63, 99, 0xFFFF]))
    else:
        size_at = at + (24 if central else 22)
        struct.pack_into("<I", buf, size_at, rng.choice([0, 0xFFFFFFFF, 1 << 30]))
    return bytes(buf)


HOSTILE_JSON: tuple[Any, ...] = (
    None, True, -1, 0, 1e308, -(10**30), "", "x" * 5000, [], {}, [[[[[]]]]], {"": None}, "NaN", 3.5,
    "Axis", "16.1.1", ["Axis", None],
)


def _json_mutation(data: bytes, rng: random.Random) -> bytes:
    """A value somewhere in the JSON replaced, a key dropped or a list entry copied."""
    import json

    try:
        document = json.loads(data)
    except ValueError:
        return _bytes_mutation(data, rng)
    containers: list[Any] = []
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)) and node:
            containers.append(node)
            stack.extend(node.values() if isinstance(node, dict) else node)
    for _ in range(rng.randrange(1, 4)):
        if not containers:
            break
        node = rng.choice(containers)
        if not node:  # emptied by an earlier edit of this case
            continue
        key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
        action = rng.randrange(4)
        if action == 0 and isinstance(node, dict):
            del node[key]
        elif action == 1 and isinstance(node, list):
            node.append(copy.deepcopy(node[key]))
        else:
            node[key] = copy.deepcopy(rng.choice(HOSTILE_JSON))
    return json.dumps(document).encode("utf-8")


def mutate(seed: Seed, data: bytes, case: int) -> bytes:
    """The bytes of case `case` of `seed` (deterministic)."""
    rng = random.Random(f"{seed.path}#{case}")
    choice = rng.randrange(10)
    if seed.kind == "position":
        return _bytes_mutation(data, rng) if choice <= 1 else _json_mutation(data, rng)
    entries = _zip_entries(data) if data.startswith(b"PK") else None
    if choice <= 1 or entries is None:
        return _bytes_mutation(data, rng)
    if choice == 2:
        return _header_mutation(data, rng)
    names = [info.filename for info, _ in entries]
    if seed.kind == "game" and "savedGame" in names:
        from vassal_parser.container import decode_savedgame
        from vassal_parser.writer import obfuscate

        index = names.index("savedGame")
        try:
            text, _ = decode_savedgame(entries[index][1], seed.path)
        except Exception:
            return _bytes_mutation(data, rng)
        for _ in range(rng.randrange(1, 3)):
            text = _text_mutation(text, rng)
        plain = text.encode("utf-8", "surrogatepass")
        body = obfuscate(text, rng.randrange(256)) if rng.randrange(4) else plain
        entries[index] = (entries[index][0], body)
        return _rezip(entries)
    build = next((n for n in ("buildFile.xml", "buildFile") if n in names), None)
    if build is not None and choice >= 4:
        index = names.index(build)
        entries[index] = (entries[index][0], _xml_mutation(entries[index][1], rng))
        return _rezip(entries)
    # another entry (metadata, an image) changed
    index = rng.randrange(len(entries))
    entries[index] = (entries[index][0], _bytes_mutation(entries[index][1], rng))
    return _rezip(entries)


# --- the worker ----------------------------------------------------------------------------------


class _Reader:
    """What one case exercises: the documented entry points a user's file reaches."""

    def __init__(self) -> None:
        from bridge.pipeline import CheckPipeline
        from vassal_parser.module import load_module

        self.demo_module = load_module(DEMO_MODULE)
        self.pipeline = CheckPipeline(DEMO_MODULE, DEMO_PACK, remember=False)
        self.demo_save = sorted((DEMO_DIR / "saves").glob("*.vsav"))[-1]

    def read(self, seed: Seed, path: Path) -> None:
        from vassal_parser.container import open_container
        from vassal_parser.game import load_game
        from vassal_parser.layout import MapLayout
        from vassal_parser.module import load_module

        if seed.kind == "position":  # `adjutant plan POSITION.json --json`, its handler called directly
            from bridge.cli.main import build_parser

            args = build_parser().parse_args(["plan", str(path), "--json"])
            with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
                args.handler(args)
            return
        container = open_container(path)
        _ = container.metadata, container.entry_names
        if seed.kind == "game":
            game = load_game(path, self.demo_module if seed.demo else None)
            game.position()
            if game.steps:
                game.position_at(-1)
            game.problems()
            if seed.demo:
                self.pipeline.plan_file(path)
            return
        module = load_module(path)
        for map_def in module.maps[:5]:
            layout = MapLayout(map_def, None, module.module_property)
            for x, y in ((0, 0), (100, 100), (1000, 700), (-5, 3)):
                layout.place_at(x, y)
                layout.snap(x, y)
                layout.cell_polygon(x, y)
            for stack in map_def.setup_stacks[:20]:
                layout.setup_stack_position(stack)
            layout.point_for("A1")
        if seed.demo:
            load_game(self.demo_save, module).position()


def _limit_memory() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, resource.getrlimit(resource.RLIMIT_AS)[1]))
    except (ImportError, ValueError, OSError):
        pass


def _worker(conn: Any, seeds: list[Seed], folder: Path) -> None:
    _limit_memory()
    from vassal_parser.errors import InputError

    reader = _Reader()
    originals: dict[int, bytes] = {}
    conn.send("ready")
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message is None:
            return
        seed_index, case = message
        seed = seeds[seed_index]
        if seed_index not in originals:
            originals[seed_index] = Path(seed.path).read_bytes()
        data = mutate(seed, originals[seed_index], case)
        target = folder / f"case{Path(seed.path).suffix}"
        target.write_bytes(data)
        started = time.perf_counter()
        try:
            reader.read(seed, target)
            status, detail = "ok", ""
        except InputError as exc:
            status, detail = "input", exc.one_line()[:200]
        except BaseException as exc:
            status = "exception"
            detail = f"{type(exc).__name__}: {str(exc)[:200]}\n" + "".join(traceback.format_exc()[-3000:])
        conn.send((status, time.perf_counter() - started, detail))


class _Slot:
    def __init__(self, seeds: list[Seed]) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, theirs = context.Pipe()
        # Made and removed here, not in the worker: a worker past its bound is killed, and
        # would leave its case files behind in the system's temporary folder.
        self.folder = Path(tempfile.mkdtemp(prefix="adjutant-fuzz-"))
        self.process = context.Process(target=_worker, args=(theirs, seeds, self.folder), daemon=True)
        self.process.start()
        theirs.close()
        if not self.conn.poll(120):
            self.stop()
            raise RuntimeError("fuzz worker did not start")
        self.conn.recv()
        self.case: tuple[int, int] | None = None
        self.started = 0.0

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def run(seeds: list[Seed], cases: int, *, bound: float = 10.0, workers: int = 2,
        budget: float | None = None, first_case: int = 0,
        progress: Callable[[Report], None] | None = None) -> Report:
    """Run `cases` cases (round-robin over the seeds), each under a hard `bound` in seconds.

    `budget` (seconds) stops early: CI runs as many cases as fit, and says how many it ran."""
    report = Report()
    started = time.monotonic()
    queue = [(i % len(seeds), first_case + i // len(seeds)) for i in range(cases)]
    queue.reverse()
    slots = [_Slot(seeds) for _ in range(max(1, workers))]
    reported = 0
    try:
        while queue or any(slot.case is not None for slot in slots):
            out_of_time = budget is not None and time.monotonic() - started > budget
            for index, slot in enumerate(slots):
                if slot.case is None:
                    if queue and not out_of_time:
                        slot.case = queue.pop()
                        slot.started = time.monotonic()
                        slot.conn.send(slot.case)
                    continue
                name = f"{slot.case[0]}:{slot.case[1]} {Path(seeds[slot.case[0]].path).name}"
                if slot.conn.poll(0.01):
                    try:
                        status, seconds, detail = slot.conn.recv()
                    except EOFError:  # the worker died (e.g. killed by the OS)
                        status, seconds, detail = "exception", time.monotonic() - slot.started, "worker died"
                        report.add(Outcome(name, status, seconds, detail))
                        slot.stop()
                        slots[index] = _Slot(seeds)
                        continue
                    report.add(Outcome(name, status, seconds, detail))
                    slot.case = None
                elif time.monotonic() - slot.started > bound:
                    spent = time.monotonic() - slot.started
                    report.add(Outcome(name, "timeout", spent, f"killed after {bound} s"))
                    slot.stop()
                    slots[index] = _Slot(seeds)
            if out_of_time:
                queue.clear()
            if progress is not None and report.cases >= reported + 1000:
                reported = report.cases
                progress(report)
    finally:
        for slot in slots:
            slot.stop()
    report.wall_seconds = time.monotonic() - started
    return report


def reproduce(seeds: list[Seed], seed_index: int, case: int, out: Path) -> Path:
    """Write case `seed_index:case` to `out` (keeping the seed's suffix) to run it by hand."""
    seed = seeds[seed_index]
    target = out.with_suffix(Path(seed.path).suffix)
    target.write_bytes(mutate(seed, Path(seed.path).read_bytes(), case))
    return target
