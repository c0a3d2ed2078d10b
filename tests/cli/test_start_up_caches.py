"""What a command keeps between runs to start quickly (issue 27: a small check starts quickly).

vassal_parser/user_cache.py keeps the record classes' compiled methods (bridge/cli/dataclass_code.py)
and the packs' parsed TOML (rules/packs.py, `parse_toml`), each under the exact text it came from.
These tests hold that a cache changes nothing but the time: the same classes, the same pack, the same
report, whether the cache is cold, warm, corrupt, unwritable or turned off.
"""

from __future__ import annotations

import builtins
import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bridge.cli import dataclass_code
from module_patches.demo_world import DEMO_DIR
from rules import packs
from vassal_parser import user_cache

PROJECT = Path(__file__).resolve().parents[2]
MODULE = DEMO_DIR / "adjutant-demo.vmod"
SAVE = DEMO_DIR / "saves" / "05-case-yellow.vsav"
PACK = DEMO_DIR / "pack"

# A child process: install the cache as the command line does, make a record class, and say how
# many sources it compiled and what the class's methods are.
CHILD = """
import sys
from vassal_parser import user_cache
from bridge.cli import dataclass_code
user_cache.enable()
dataclass_code.install()
compiled = []
real_compile = compile
def counting(*args, **kwargs):
    compiled.append(args[0])
    return real_compile(*args, **kwargs)
dataclass_code.compile = counting
import dataclasses
@dataclasses.dataclass(frozen=True)
class Place:
    '''A record made in the child.'''
    name: str
    x: int = 0
    tags: tuple = ()
p = Place("a", 2)
assert p == Place("a", 2) and hash(p) == hash(Place("a", 2)) and p != Place("b")
try:
    p.x = 3
except dataclasses.FrozenInstanceError:
    pass
else:
    raise SystemExit("not frozen")
loaded = 'inspect' in sys.modules and hasattr(sys.modules['inspect'], 'signature')
print(len(compiled), repr(p), loaded, sep='|')
"""


def _child(cache: Path | str, code: str = CHILD) -> list[str]:
    env = {**os.environ, "ADJUTANT_CACHE_DIR": str(cache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PROJECT,
                            env=env, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().split("|")


def test_a_second_run_compiles_no_dataclass_method(tmp_path: Path) -> None:
    compiled, shown, _ = _child(tmp_path)
    assert int(compiled) >= 4  # __init__, __repr__, __eq__, __hash__, __setattr__, __delattr__
    assert list(tmp_path.glob("dataclass-code-*.marshal"))
    again, shown_again, _ = _child(tmp_path)
    assert (int(again), shown_again) == (0, shown)


def test_a_corrupt_or_unwritable_cache_is_an_empty_cache(tmp_path: Path) -> None:
    _child(tmp_path)
    for store in tmp_path.glob("*.marshal"):
        store.write_bytes(b"\x00not marshal")
    compiled, _shown, _ = _child(tmp_path)
    assert int(compiled) >= 4
    assert int(_child(tmp_path)[0]) == 0  # and it was written anew
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    assert int(_child(blocked / "cache")[0]) >= 4  # cannot be made: no cache, no error
    assert int(_child("")[0]) >= 4  # ADJUTANT_CACHE_DIR= (empty): off


def test_the_cached_methods_are_the_ones_dataclasses_compiles(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    """The same code objects (bytecode, constants, names, flags) with the cache as without it."""
    def make() -> type:
        @dataclasses.dataclass(frozen=True, order=True)
        class Hex:
            """A record made twice."""
            hex_id: str
            city: bool = False
            neighbours: tuple[str, ...] = ()
        return Hex

    monkeypatch.setattr(dataclasses, "exec", builtins.exec, raising=False)
    plain = make()
    monkeypatch.setenv("ADJUTANT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(user_cache, "_enabled", True)
    monkeypatch.setattr(user_cache, "_stores", {})
    monkeypatch.setattr(dataclasses, "exec", dataclass_code.cached_exec, raising=False)
    cached = make()
    kept = make()  # the second time from the store: fresh code objects, the same code
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__lt__"):
        assert getattr(plain, name).__code__ == getattr(cached, name).__code__ == getattr(kept, name).__code__
    assert cached("x", True) == cached("x", True) and cached("a") < cached("b")


def test_inspect_waits_until_used_and_then_is_the_real_one() -> None:
    code = ("import sys\nfrom bridge.cli import dataclass_code\ndataclass_code.install()\n"
            "import dataclasses, inspect\n"
            "print('ast' in sys.modules, inspect.signature(len), sys.modules['inspect'].signature is "
            "inspect.signature, 'ast' in sys.modules, sep='|')")
    assert _child("", code) == ["False", "(obj, /)", "True", "True"]


def test_toml_from_the_cache_is_fresh_and_equal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import tomllib

    monkeypatch.setenv("ADJUTANT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(user_cache, "_enabled", True)
    monkeypatch.setattr(user_cache, "_stores", {})
    text = (PACK / "pack.toml").read_text(encoding="utf-8")
    first = packs.parse_toml(text)
    first["changed by a caller"] = True  # a caller may change what it got (load_pack merges tables)
    assert packs.parse_toml(text) == tomllib.loads(text)
    dated = "[pack]\nwhen = 1979-05-27\n"  # marshal cannot keep a date: parsed every time, not kept
    assert packs.parse_toml(dated) == tomllib.loads(dated)
    assert user_cache.store("toml").get(dated) is None
    with pytest.raises(tomllib.TOMLDecodeError):
        packs.parse_toml("[pack\n")


def test_check_says_the_same_with_a_cold_warm_corrupt_or_no_cache(tmp_path: Path) -> None:
    def check(cache: Path | str) -> tuple[int, str]:
        env = {**os.environ, "ADJUTANT_CACHE_DIR": str(cache)}
        argv = [sys.executable, "-m", "adjutant", "check", str(SAVE), "--module", str(MODULE),
                "--pack", str(PACK)]
        result = subprocess.run(argv, capture_output=True, text=True, cwd=PROJECT, env=env, timeout=120,
                                check=False)
        return result.returncode, result.stdout + result.stderr

    cold = check(tmp_path)
    stores = sorted(p.name.split("-cpython")[0] for p in tmp_path.glob("*.marshal"))
    assert stores == ["dataclass-code", "toml"]
    assert check(tmp_path) == cold
    for store in tmp_path.glob("*.marshal"):
        store.write_bytes(store.read_bytes()[: len(store.read_bytes()) // 2])  # torn
    assert check(tmp_path) == cold
    assert check("") == cold
    assert cold[0] == 1 and "16.2.1 Case Yellow" in cold[1]  # waiting for the Axis choice (16.2.1)


@pytest.mark.skipif(not hasattr(os, "geteuid"),
                    reason="needs POSIX file owners and modes (os.geteuid: not on Windows)")
def test_a_cache_file_others_may_write_is_not_read(tmp_path: Path) -> None:
    """The store holds code the process runs: a file group- or world-writable is ignored, and the
    stores are written 0600."""
    _child(tmp_path)
    stores = list(tmp_path.glob("*.marshal"))
    assert stores and all(store.stat().st_mode & 0o777 == 0o600 for store in stores)
    assert int(_child(tmp_path)[0]) == 0
    for store in stores:
        store.chmod(0o666)
    assert int(_child(tmp_path)[0]) >= 4  # not trusted: compiled afresh (and written anew, 0600)
    assert all(store.stat().st_mode & 0o777 == 0o600 for store in tmp_path.glob("*.marshal"))
