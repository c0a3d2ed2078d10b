"""Issue 14, the boundary: a genuine bug is one line plus a pointer to the error log (exit 70),
never a bare traceback; bad input stays one line, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

import bridge.cli.commands.inspect as inspect_command
from bridge.cli.main import EXIT_INTERNAL_ERROR, main


def test_a_bug_is_one_line_with_the_log_path_and_the_traceback_is_in_the_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "state" / "errors.log"
    monkeypatch.setenv("ADJUTANT_ERROR_LOG", str(log))

    def broken(args: object) -> int:
        raise KeyError("a key our own code forgot")

    monkeypatch.setattr(inspect_command, "run", broken)
    assert main(["inspect", "whatever.vsav"]) == EXIT_INTERNAL_ERROR
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("adjutant: adjutant inspect: internal error (KeyError:") and str(log) in err
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and "a key our own code forgot" in text


def test_the_log_falls_back_to_the_state_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from bridge.common.errorlog import error_log_path

    monkeypatch.delenv("ADJUTANT_ERROR_LOG", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert error_log_path() == tmp_path / "adjutant" / "errors.log"


@pytest.mark.parametrize("name", ["x" * 5000, "a\u0000b"])
def test_a_pack_name_no_path_can_be_is_one_line_exit_2(
        tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Found by the fuzzer: `Path.is_dir` raised OSError (name too long) / ValueError (NUL byte).
    import json

    example = Path(__file__).resolve().parents[2] / "examples" / "tk" / "quiet-turn.position.json"
    data = json.loads(example.read_text(encoding="utf-8"))
    data["pack"] = name
    position = tmp_path / "p.json"
    position.write_text(json.dumps(data))
    assert main(["plan", str(position)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such pack" in err and len(err) < 300
