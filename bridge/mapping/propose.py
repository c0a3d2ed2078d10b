"""The whole mapping `pack scaffold --base` proposes for a module (issue 38): boxes, counter rules,
state and ignore rules, and what none of them takes, checked by loading them as a real `[vassal]`
table (so a proposal that the mapping would refuse is never written).

Why here and not in the CLI: the proposal is a mapping concern (bridge/mapping); the scaffold only
writes it out, and the benchmark and tests read the same object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bridge.mapping.module_evidence import module_evidence
from bridge.mapping.proposal import Proposal
from bridge.mapping.propose_boxes import BoxProposal, propose_boxes
from bridge.mapping.propose_counters import CounterProposals, propose_counters
from bridge.mapping.propose_state import StateProposals, propose_state


@dataclass
class MappingProposal:
    boxes: BoxProposal
    counters: CounterProposals
    state: StateProposals
    pieces: int  # PieceSlots of the module
    unrecognised: list[str]  # names of the PieceSlots no proposed rule takes

    @property
    def rules(self) -> list[Proposal]:
        return [*self.counters.rules, *self.state.rules]

    def of_kind(self, kind: str) -> list[Proposal]:
        return [r for r in self.rules if r.kind == kind]

    @property
    def notes(self) -> list[str]:
        return [*self.counters.notes, *self.state.notes]

    def table(self) -> dict[str, Any]:
        """The proposal as a `[vassal]` table (places, counters, state, ignore)."""
        return {
            "places": {"boxes": dict(self.boxes.boxes), "box_patterns": dict(self.boxes.patterns),
                       "not_boxes": list(self.boxes.not_boxes), "proposed": self.boxes.proposed_names},
            "counters": [r.table() for r in self.of_kind("counters")],
            "state": [r.table() for r in self.of_kind("state")],
            "ignore": [r.table() for r in self.of_kind("ignore")],
        }


def propose_mapping(module: Any, pack: Any, zones: list[str], windows: list[str]) -> MappingProposal:
    """`zones`: the module's zone names; `windows`: its gridless map windows."""
    from bridge.mapping.mapper import VassalMapping
    from bridge.mapping.slots import slot_pieces

    slots = module_evidence(module)
    boxes = propose_boxes(zones, windows, pack.countries)
    counters = propose_counters(slots, pack)
    state = propose_state(slots, pack, boxes, counters)
    proposal = MappingProposal(boxes, counters, state, len(slots), [])
    mapping = VassalMapping.from_table(proposal.table(), "<proposed mapping>")  # refuses a bad proposal
    proposal.unrecognised = sorted(p.basic_name for p in slot_pieces(module) if not mapping.recognises(p))
    return proposal
