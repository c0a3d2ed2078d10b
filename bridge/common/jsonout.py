"""The JSON every command prints: one header (`format`, `version`) and one shape for a module.

Why a header on every document: scripts that read `adjutant ... --json` must be able to tell which
document they hold and whether its shape is one they know (docs/json-formats.md lists them all).
"""

from __future__ import annotations

import json
from typing import Any

JSON_VERSION = 1


def header(kind: str, version: int = JSON_VERSION) -> dict[str, Any]:
    """`{"format": "adjutant-<kind>", "version": N}`: the first two keys of every JSON output."""
    return {"format": f"adjutant-{kind}", "version": version}


def module_json(name: str | None, version: str | None = None, vassal_version: str | None = None) -> dict:
    """A module, the same shape in every command's JSON: name, version, VASSAL version."""
    return {"name": name, "version": version or None, "vassal_version": vassal_version or None}


def dumps(document: Any) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False)
