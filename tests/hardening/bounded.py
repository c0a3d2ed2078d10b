"""Run a piece of reader code in a fresh process under a hard time bound (issue 14 hang tests).

Why a subprocess: a regression of a hang class must fail the test, not hang the suite. The bound
is generous (the fixed code takes milliseconds; the old code took tens of seconds to hours), so
it is no timing assertion, just a stop.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.conftest import PROJECT_ROOT

HANG_BOUND_S = 20.0


def outcome(code: str, bound: float = HANG_BOUND_S) -> str:
    """What the snippet prints (its last line), run under `bound` seconds; a hang fails the test.

    The snippet has `InputError` imported and should print `ok ...` or `InputError: ...`."""
    program = "from vassal_parser.errors import InputError\n" + textwrap.dedent(code)
    try:
        done = subprocess.run([sys.executable, "-c", program], cwd=PROJECT_ROOT, capture_output=True,
                              text=True, timeout=bound)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {bound:g} s: the hang is back")
    if done.returncode != 0:
        pytest.fail(f"exit {done.returncode}:\n{done.stderr[-3000:]}")
    return done.stdout.strip().splitlines()[-1]
