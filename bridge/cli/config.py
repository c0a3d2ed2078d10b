"""`adjutant.toml`: the options a player would otherwise type on every command.

Why a file in the game folder: a PBEM player runs `adjutant check` on every save of one game, always
with the same module, extensions and pack; with `adjutant.toml` beside the saves (or `--config FILE`)
that is `adjutant check game.vsav`. Flags given on the command line win over the file.

Keys: `module`, `extensions` (a list), `pack`, `port`, `out`. Paths are relative to the file's folder.
Where it is looked for, in order: `--config FILE`; the folder of the game file (or the watched
FOLDER); the current folder. `adjutant --help` says where it looked.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

CONFIG_NAME = "adjutant.toml"
KEYS: dict[str, str] = {  # config key -> argparse attribute
    "module": "module",
    "extensions": "extension",
    "pack": "pack",
    "port": "port",
    "out": "out",
}
MAX_CONFIG_BYTES = 64 * 1024


def docs_location() -> str:
    """Where the documentation is on this machine: the checkout's docs/, else the installed copy.

    Why os.path here: this runs for `adjutant --help`, which must not pay for importing pathlib."""
    cli_dir = os.path.dirname(os.path.abspath(__file__))
    project = os.path.dirname(os.path.dirname(cli_dir))  # bridge/cli/ -> the checkout
    here = os.path.join(project, "docs")
    if os.path.isdir(here):
        return here
    installed = os.path.join(sys.prefix, "share", "doc", "adjutant")
    return installed if os.path.isdir(installed) else "docs/ in the source distribution"


def help_lines() -> str:
    """The lines of `adjutant --help` that say where the config file is looked for."""
    cwd_file = os.path.join(os.getcwd(), CONFIG_NAME)
    state = "found" if os.path.isfile(cwd_file) else "not found"
    return (
        f"\nconfiguration: {CONFIG_NAME} with keys {', '.join(KEYS)} (paths relative to the file).\n"
        f"  looked for: --config FILE if given; else {CONFIG_NAME} in the game file's folder (watch: the\n"
        f"  watched FOLDER); else {cwd_file} ({state}). Flags override the file.\n"
    )


def candidates(args: argparse.Namespace) -> list[Path]:
    """Config files to try for this command, most specific first."""
    from pathlib import Path

    explicit = getattr(args, "config", None)
    if explicit:
        return [Path(explicit)]
    found: list[Path] = []
    anchor = getattr(args, "config_anchor", None)
    if anchor:
        value = getattr(args, anchor, None)
        values = value if isinstance(value, list) else [value]
        for item in values:
            if item is None:
                continue
            path = Path(item)
            folder = path if path.is_dir() else path.parent
            found.append(folder / CONFIG_NAME)
    found.append(Path.cwd() / CONFIG_NAME)
    unique: list[Path] = []
    for path in found:
        if path.resolve() not in [p.resolve() for p in unique]:
            unique.append(path)
    return unique


def read(path: Path) -> dict[str, Any]:
    """The checked contents of one config file; anything wrong is one InputError line."""
    import tomllib

    from vassal_parser.errors import InputError

    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise InputError(path, f"config file is larger than {MAX_CONFIG_BYTES // 1024} KiB")
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(path, "config file not found") from None
    except UnicodeDecodeError:
        raise InputError(path, "config file is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, f"config file is not valid TOML: {exc}") from None
    except OSError as exc:
        raise InputError(path, f"cannot read config file: {exc.strerror}") from None
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise InputError(path, f"unknown key(s) {', '.join(unknown)}; valid keys: {', '.join(KEYS)}")
    for key in ("module", "pack", "out"):
        if key in data and not (isinstance(data[key], str) and data[key]):
            raise InputError(path, f"{key} must be a non-empty string")
    if "extensions" in data and not (
        isinstance(data["extensions"], list) and all(isinstance(e, str) and e for e in data["extensions"])
    ):
        raise InputError(path, "extensions must be a list of file names")
    if "port" in data and not (isinstance(data["port"], int) and 0 <= data["port"] <= 65535):
        raise InputError(path, "port must be a whole number 0..65535")
    return data


def apply(args: argparse.Namespace) -> Path | None:
    """Fill the options the command line left unset from the config file; the file used, if any.

    A command opts in with `parser.set_defaults(config_keys=(...), config_anchor="file")`; options it
    needs are listed in `config_required` and refused, naming the flag and the key, when still unset.
    """
    from pathlib import Path

    keys: tuple[str, ...] = getattr(args, "config_keys", ())
    if not keys and not getattr(args, "config", None):
        return None
    used = next((path for path in candidates(args) if path.is_file() or getattr(args, "config", None)), None)
    data = read(used) if used is not None else {}
    base = used.parent if used is not None else Path.cwd()
    for key in keys:
        if key not in data:
            continue
        attribute = KEYS[key]
        current = getattr(args, attribute, None)
        if current not in (None, []):
            continue  # the flag wins
        value = data[key]
        if key in ("module", "out"):
            value = _relative(base, value)
        elif key == "extensions":
            value = [_relative(base, item) for item in value]
        elif key == "pack":
            beside = base / value
            value = str(beside) if not os.path.isabs(value) and beside.is_dir() else value
        setattr(args, attribute, value)
    args.config_used = used
    for key in getattr(args, "config_required", ()):
        if getattr(args, KEYS[key], None) in (None, []):
            from vassal_parser.errors import InputError

            looked = ", ".join(str(p) for p in candidates(args))
            raise InputError(
                None,
                f"--{key} is required: give it, or put `{key} = ...` in {CONFIG_NAME} (looked for {looked})",
            )
    return used


def _relative(base: Path, value: str) -> Path:
    from pathlib import Path

    path = Path(os.path.expanduser(value))
    return path if path.is_absolute() else base / path


def opt_in(
    parser: argparse.ArgumentParser, keys: tuple[str, ...], anchor: str | None, required: tuple[str, ...] = ()
) -> None:
    """Let a command read `keys` from adjutant.toml, found beside the argument named `anchor`."""
    parser.set_defaults(config_keys=keys, config_anchor=anchor, config_required=required)
