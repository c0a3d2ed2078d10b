"""Plan tables as text (a table summed line by line: AWAW 60.11), and the plan-level list of readings.

Why apart from rules/plan.py: the same shapes are rendered by the overlay; this module only turns the
plan's JSON shapes (docs/plan-format.md, `tables`) into the lines `Plan.render_text` prints.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def _figure(value: Any) -> str:
    if value is None:
        return "?"
    return f"{value:+d}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def table_lines(table: dict[str, Any]) -> list[str]:
    """`{title, rule, rows: [{label, figure, rule}], total, threshold, note}` as indented text lines."""
    lines = [f"    table: {table.get('title', '')} ({table.get('rule', '')})"]
    for row in table.get("rows", []):
        detail = f" — {row['detail']}" if row.get("detail") else ""
        lines.append(
            f"      {_figure(row.get('figure')):>4}  {row.get('label', '')} [{row.get('rule', '')}]{detail}"
        )
    total = table.get("total")
    threshold = table.get("threshold")
    lines.append(
        f"      {_figure(total):>4}  total"
        + (f" (threshold: {threshold} or less)" if threshold is not None else "")
    )
    if table.get("note"):
        lines.append(f"      note: {table['note']}")
    return lines


def unique_readings(events: Iterable[Any]) -> list[dict[str, Any]]:
    """Plan-level `readings`: every erratum / open reading the plan's events applied, once per key
    (the `errata` notes of rules.errata, as each event lists them)."""
    seen: dict[str, dict[str, Any]] = {}
    for entry in events:
        for note in getattr(entry, "errata", []):
            seen.setdefault(note.key, note.to_json())
    return list(seen.values())
