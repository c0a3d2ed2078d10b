"""The mapping `pack scaffold --base` proposes (bridge/mapping/propose.py, issue 38), written into the
scaffold's vassal.toml and pack.toml: the proposed boxes, patterns and not_boxes, then every proposed
rule with its evidence, then what no rule takes.

Why apart from pack.py: the scaffold's own text (maps, zones, pieces) and this part change for
different reasons, and pack.py holds the `check` text too.
"""

from __future__ import annotations

from bridge.mapping.hexnaming import grid_summary
from bridge.mapping.proposal import proposed_text, toml_value
from bridge.mapping.propose import MappingProposal, propose_mapping
from bridge.mapping.propose_counters import listed
from rules.packs import Pack
from vassal_parser.module import Module


def _flat(text: str) -> str:
    return " ".join(str(text).split())


def proposal_for(module: Module, pack: Pack) -> MappingProposal:
    zones = [z for m in module.maps for b in m.boards for z in grid_summary(b.grid)[2]]
    windows = [m.identifier for m in module.maps if m.boards and all(b.grid is None for b in m.boards)]
    return propose_mapping(module, pack, zones, windows)


def places_lines(proposal: MappingProposal) -> list[str]:
    """`[vassal.places]`: the zones read by state rules, and which boxes below are proposed (issue 38)."""
    boxes = proposal.boxes
    lines = ["# PROPOSED from the module's zone names (issue 38): each box and pattern below, and these",
             "# zones whose markers only give state. Review them; drop a name from `proposed` once it is",
             "# right.",
             "[vassal.places]"]
    lines += [f"# {_flat(z)}: {_flat(boxes.evidence.get(z, ''))}" for z in boxes.not_boxes]
    lines.append("not_boxes = [" + ", ".join(toml_value(z) for z in boxes.not_boxes) + "]")
    lines.append("proposed = [" + ", ".join(toml_value(n) for n in boxes.proposed_names) + "]")
    return [*lines, ""]


def box_lines(table: dict[str, str], evidence: dict[str, str]) -> list[str]:
    return [f"{toml_value(k)} = {toml_value(v)}   # proposed: {_flat(evidence.get(k, ''))}"
            for k, v in table.items()]


def boxes_section(proposal: MappingProposal, unmatched_zones: list[str]) -> list[str]:
    """The rest of `[vassal.places.boxes]` (after its heading), the box patterns, then every rule."""
    lines = box_lines(proposal.boxes.boxes, proposal.boxes.evidence)
    if unmatched_zones:
        lines.append(f"# Zones no box id was matched to ({len(unmatched_zones)}): map them, or list them "
                     "in not_boxes")
        why = proposal.boxes.evidence
        lines += [f"#   {_flat(key)}: {_flat(why[key])}" for key in proposal.boxes.unmatched if key in why]
    lines += [*unmatched_zones, "", "[vassal.places.box_patterns]"]
    if proposal.boxes.patterns:
        lines += box_lines(proposal.boxes.patterns, proposal.boxes.evidence)
    else:
        lines.append("# \"(.+) Posture Box\" = \"posture:{0}\"")
    return [*lines, "", *rule_lines(proposal)]


def rule_lines(proposal: MappingProposal) -> list[str]:
    """The counter, ignore and state rules proposed from the module's pieces, each with its evidence."""
    counters = proposal.of_kind("counters")
    lines = [f"# PROPOSED from the module's own pieces (issue 38): {len(counters)} counter rules, "
             f"{len(proposal.of_kind('state'))} state rules, {len(proposal.of_kind('ignore'))} ignore rules,",
             "# each with the evidence it was proposed on and `proposed = true` until a person has",
             "# reviewed it (`adjutant pack check` counts them; a plan made with them says so).", ""]
    for kind in ("ignore", "counters", "state"):
        for rule in proposal.of_kind(kind):
            lines += rule.toml_lines()
    lines += [f"# not proposed: {_flat(note)}" for note in proposal.notes]
    taken = proposal.pieces - len(proposal.unrecognised)
    lines.append(f"# The proposed rules take {taken} of the module's {proposal.pieces} pieces.")
    if proposal.unrecognised:
        names = sorted(set(proposal.unrecognised))
        lines.append(f"# No proposed rule takes ({len(proposal.unrecognised)}): {_flat(listed(names, 40))}"
                     + (" (`adjutant pack check -v` lists them all)" if len(names) > 40 else ""))
    return [*lines, ""]


def incomplete_text(proposal: MappingProposal | None) -> str:
    if proposal is None or not proposal.rules:
        return ("vassal.toml: the module's counters and boxes are not mapped yet "
                "(adjutant pack check PACK --module M)")
    counts = {"counter_rules": len(proposal.of_kind("counters")),
              "state_rules": len(proposal.of_kind("state")),
              "ignore_rules": len(proposal.of_kind("ignore")), "boxes": len(proposal.boxes.proposed_names)}
    return f"vassal.toml: {proposed_text(counts)} (adjutant pack check PACK --module M)"


def summary_line(vassal_text: str) -> str:
    """What `pack scaffold` prints about the proposal: its counts, read back from the written table."""
    import tomllib

    from bridge.mapping.mapper import VassalMapping
    from bridge.mapping.proposal import proposed_counts

    table = tomllib.loads(vassal_text).get("vassal", {})
    text = proposed_text(proposed_counts(VassalMapping.from_table(table, "vassal.toml")))
    lines = vassal_text.splitlines()
    taken = next((line[2:] for line in lines if line.startswith("# The proposed rules take")), "")
    if text is None:
        return "proposed from the module: nothing (no piece, zone or Layer matched the base pack's words)"
    return f"{text}; they {taken[len('The proposed rules '):].rstrip('.')} (vassal.toml, `proposed = true`)"


def policy_lines(pack: Pack) -> list[str]:
    """The base's Policy markers: `[pack]` is not inherited, and without them a Policy marker would read as
    no Posture at all (16.5.5; docs/position-format.md "Posture and Policy / Truce markers")."""
    listed = pack.meta.get("policy_markers")
    if not listed:
        return []
    return ["policy_markers = [" + ", ".join(toml_value(str(p)) for p in listed) + "]   # the base's"]
