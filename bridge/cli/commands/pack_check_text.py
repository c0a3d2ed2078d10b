"""The text and exit status of `adjutant pack check`, from its report (bridge/cli/commands/pack.py
`check_report`). Why apart: the report is data (also printed as JSON); how it reads is its own job."""

from __future__ import annotations

from typing import Any

from bridge.mapping.proposal import proposed_text
from bridge.reports.pack_report import render_countries, render_coverage


def _total(report: dict[str, Any]) -> int:
    if "module" not in report:
        return 0
    total = sum(report["unmapped_piece_slots"].values()) + len(report["unmapped_zones"])
    total += len(report["maps_without_hex_rule"]) + len(report["hex_ids"]["not_in_module"])
    if "save" in report:
        save = report["save"]
        total += sum(save["unmapped_pieces"].values()) + sum(save["unmapped_places"].values())
    return total


CHECK_LIST_LIMIT = 10  # items listed per kind in text without -v (a fresh scaffold has ~1,600 slots)


def _limited(items: list[str], verbose: bool, what: str) -> list[str]:
    """The first CHECK_LIST_LIMIT lines of a list, and how many more `-v` shows (all of them)."""
    if verbose or len(items) <= CHECK_LIST_LIMIT:
        return items
    rest = len(items) - CHECK_LIST_LIMIT
    return [*items[:CHECK_LIST_LIMIT], f"  ... and {rest} more {what} (-v lists them all)"]


def render_check(report: dict[str, Any], verbose: bool = False) -> str:
    """The text of `pack check`: counts per kind; the lists themselves in full only with `-v`."""
    coverage = render_coverage(report)
    if not verbose:
        coverage = [line for line in coverage if not line.startswith("    present: ")]
    lines = [f"pack {report['pack']}", *coverage]
    proposed = proposed_text(report.get("proposed", {}))
    if proposed:
        lines.append(f"{proposed}: review them in vassal.toml (each is marked `proposed = true`)")
    if "module" not in report:
        return "\n".join(lines)
    module = report["module"]
    lines.append(f"pack {report['pack']} against module {module['name']} {module['version']}")
    lines += [f"warning: {w}" for w in report["warnings"]]
    hex_ids = report["hex_ids"]
    lines.append(f"hex ids naming a location of the module: {hex_ids['verified']} of {hex_ids['checked']}")
    lines += _limited([f"  not in the module: {h} ({why})" for h, why in hex_ids["not_in_module"].items()]
                      + [f"  not verified: {h} ({why})" for h, why in hex_ids["unverified"].items()],
                      verbose, "hex ids")
    if "countries" in report:
        lines += render_countries(report["countries"])
    slots = report["unmapped_piece_slots"]
    lines.append(f"piece slots no rule recognises: {sum(slots.values())} of {len(slots)} kinds"
                 + ("" if verbose or not slots else " (-v lists them)"))
    if verbose:
        lines += [f"  {name} x{count}" for name, count in slots.items()]
    lines.append(f"zones not mapped to a box: {len(report['unmapped_zones'])}")
    lines += _limited([f"  {zone}" for zone in report["unmapped_zones"]], verbose, "zones")
    missing_hex_rules = report["maps_without_hex_rule"]
    lines.append(f"numbered maps without a [[vassal.places.hexes]] rule: {len(missing_hex_rules)}")
    lines += [f"  {m}" for m in report["maps_without_hex_rule"]]
    if "save" in report:
        lines += _save_lines(report["save"])
    lines.append("nothing unmapped" if _total(report) == 0 else f"{_total(report)} things unmapped")
    return "\n".join(lines)


SAVE_LIST_LIMIT = 15  # names listed per kind in text; --format json lists them all


def _save_lines(save: dict[str, Any]) -> list[str]:
    """The --save part: the most frequent unmapped names (limited), then a one-line summary."""
    pieces, places = save["unmapped_pieces"], save["unmapped_places"]
    lines = [f"in {save['file']}:"]
    for what, table in (("piece", pieces), ("place", places)):
        ranked = sorted(table.items(), key=lambda item: (-item[1], item[0]))
        lines += [f"  {what} {name} x{count}" for name, count in ranked[:SAVE_LIST_LIMIT]]
        if len(ranked) > SAVE_LIST_LIMIT:
            rest = ranked[SAVE_LIST_LIMIT:]
            lines.append(f"  ... and {len(rest)} more {what} names ({sum(c for _n, c in rest)} counters; "
                         f"--format json lists every one)")
    lines.append(f"summary of {save['file']}: {sum(pieces.values())} unmapped pieces of {len(pieces)} kinds, "
                 f"{sum(places.values())} counters on {len(places)} unmapped places")
    return lines


def check_status(report: dict[str, Any]) -> int:
    """0 only when the pack has events, none lacks a fact it needs, no rule or box is still marked
    proposed (inferred is not reviewed, issue 38) and (with --module) nothing is unmapped; else 1."""
    complete = _total(report) == 0 and report["facts_missing"] == 0 and report["events"] > 0
    complete = complete and proposed_text(report.get("proposed", {})) is None  # reviewed, not inferred
    return 0 if complete else 1
