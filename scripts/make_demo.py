"""Rebuild the demo module, saves and story log from module_patches/demo/world.toml and story.toml.

Run from the project root: `.venv/bin/python scripts/make_demo.py`.  The output is checked in;
tests/demo/test_demo_files.py proves the checked-in files are what this script makes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from module_patches.demo_module import build_module
from module_patches.demo_story import write_log, write_saves


def main() -> int:
    print(build_module())
    for path in write_saves():
        print(path)
    print(write_log())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
