"""One rule `pack scaffold` proposes, with the evidence it was proposed on, written as the TOML a
person reviews (issue 38: "each proposed rule is written with a comment giving its evidence and is
marked proposed"). The format is the pack's own (docs/vassal-mapping.md), plus `proposed = true`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else toml_value(key)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)


def inline_table(table: dict[str, Any]) -> str:
    return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in table.items()) + " }"


@dataclass
class Proposal:
    """A `[[vassal.counters]]` / `[[vassal.state]]` / `[[vassal.ignore]]` rule and why it is proposed."""

    kind: str  # "counters" | "state" | "ignore"
    match: dict[str, str]
    values: dict[str, Any] = field(default_factory=dict)
    evidence: list[str] = field(default_factory=list)
    note: str = ""
    steps_delta: int = 0

    def table(self) -> dict[str, Any]:
        """The rule as `VassalMapping.from_table` reads it."""
        entry: dict[str, Any] = {"match": dict(self.match), "set": dict(self.values), "proposed": True}
        if self.note:
            entry["note"] = self.note
        if self.steps_delta:
            entry["steps_delta"] = self.steps_delta
        return entry

    def toml_lines(self) -> list[str]:
        lines = [f"# proposed from the module: {' '.join(str(e).split())}" for e in self.evidence]
        lines.append(f"[[vassal.{self.kind}]]")
        if self.note:
            lines.append(f"note = {toml_value(self.note)}")
        lines.append(f"match = {inline_table(self.match)}")
        if self.values or self.kind != "ignore":
            lines.append(f"set = {inline_table(self.values)}")
        if self.steps_delta:
            lines.append(f"steps_delta = {self.steps_delta}")
        lines += ["proposed = true", ""]
        return lines
