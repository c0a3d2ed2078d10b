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


def proposed_counts(mapping: Any) -> dict[str, int]:
    """How many rules and boxes of a loaded mapping are still marked proposed (issue 38 item 3)."""
    rules = mapping.proposed_rules
    return {"counter_rules": sum(1 for r in rules if r.kind == "counters"),
            "state_rules": sum(1 for r in rules if r.kind == "state"),
            "ignore_rules": sum(1 for r in rules if r.kind == "ignore"),
            "boxes": len(mapping.proposed_places)}


def proposed_lines(vassal: Any) -> list[str]:
    """The plan header's line for a position read through proposed rules (inferred, not accepted)."""
    text = proposed_text(vassal.get("proposed") or {}) if isinstance(vassal, dict) else None
    return [f"proposed mapping: {text}; this position is read through them"] if text else []


def proposed_text(counts: dict[str, int]) -> str | None:
    """"14 counter rules proposed from the module, not yet reviewed (and ...)", None when none is."""
    if not any(counts.values()):
        return None
    counters = counts.get("counter_rules", 0)
    rest = [(counts.get("state_rules", 0), "state rule"), (counts.get("ignore_rules", 0), "ignore rule"),
            (counts.get("boxes", 0), "box")]
    others = [f"{n} {word}{'es' if word == 'box' and n != 1 else 's' if n != 1 else ''}"
              for n, word in rest if n]
    head = f"{counters} counter rule{'' if counters == 1 else 's'} proposed from the module, not yet reviewed"
    return head + (f" (and {', '.join(others)})" if others else "")
