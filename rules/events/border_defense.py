"""16.5.4 Border Defense Check: Russian Ceded Land regions must be garrisoned while Russia is friendly
with Germany; if not, the Axis redeploys Russian steps — never more than necessary, never steps needed
elsewhere. DS 16.1.3 (Manchukuo Garrison) has the same shape and can reuse `Requirement` / `spare_steps`.

Pack data (`[border_defense.<area>]`): ``requirement = "border_hexes"`` (each listed hex needs ``steps``
steps) or ``"region_steps"`` (the whole region needs ``steps`` steps); both keys are required (game facts).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rules.engine import EventContext, event_impl
from rules.events.common import breakdown, gaps_of
from rules.facts import claims_complete
from rules.plan import Tally
from rules.state import Counter
from vassal_parser.errors import InputError


@dataclass
class Requirement:
    """One area's Border Defense need and what stands there, kept to name the hexes short of it."""

    area: str
    kind: str  # "border_hexes" | "region_steps"
    hexes: list[str]  # the hexes that must hold the steps (border hexes, or the whole region)
    need: int
    have: dict[str, int] = field(default_factory=dict)  # steps per hex

    @property
    def deficit(self) -> int:
        if self.kind == "border_hexes":
            return sum(max(0, self.need - self.have[h]) for h in self.hexes)
        return max(0, self.need - sum(self.have.values()))

    def hex_deficit(self, hex_id: str) -> int:
        return max(0, self.need - self.have[hex_id]) if self.kind == "border_hexes" else self.deficit

    def spare_in(self, hex_id: str) -> int:
        """Steps that may leave this hex without breaking this requirement."""
        if self.kind == "border_hexes":
            return max(0, self.have[hex_id] - self.need)
        return max(0, sum(self.have.values()) - self.need)


def _steps(ctx: EventContext, hex_id: str, nationality: str) -> int:
    """16.5.4: 'two Russian ground unit steps' — a pair of one-step units or one two-step unit alike."""
    return sum(u.steps for u in ctx.board.ground_units(hex_id) if u.nationality == nationality)


REQUIREMENT_KINDS = ("border_hexes", "region_steps")
UNMET = "Unmet Border Defense Requirements"  # 16.5.4 has no numbered Steps: its steps cite this paragraph


def check_border_defense_data(ctx: EventContext) -> None:
    """Every `[border_defense.<area>]` names its `requirement` kind and its `steps` (16.5.4: two steps in
    each border hex, four in a Region): game facts, so a pack that leaves one out is a one-line error
    naming the pack and the area, never a number from code. Checked before the position is read."""
    for area_id, spec in sorted(ctx.pack.border_defense.items()):
        where = f"pack {ctx.pack.name}: [border_defense.{area_id}]"
        if spec.get("requirement") not in REQUIREMENT_KINDS:
            raise InputError(
                ctx.pack.path, f"{where} needs requirement = {' or '.join(map(repr, REQUIREMENT_KINDS))}"
            )
        steps = spec.get("steps")
        if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
            raise InputError(ctx.pack.path, f"{where} needs steps = <whole number of steps, 1 or more>")


def requirements(ctx: EventContext, nationality: str, enemy: str) -> list[Requirement]:
    """16.5.4: every Russian Ceded Land marker's Region is checked; no Border Defense is necessary where
    the marker is not in the Ceded Lands Box or an Axis unit is in the Region."""
    out: list[Requirement] = []
    for area_id, spec in sorted(ctx.pack.border_defense.items()):
        area = ctx.pack.areas[area_id]
        if not ctx.board.ceded_area_active(area):
            ctx.why(
                f"{area.name}: its Ceded Land marker is not in the Ceded Lands Box — no Border Defense needed"
            )
            continue
        region = ctx.board.area_hexes(area_id)
        axis = [  # "an Axis unit in that Region": markers (Detachment, Logistics) are not units
            c
            for h in region
            for c in ctx.board.counters_in_hex(h)
            if c.is_unit and ctx.board.faction_of(c) == enemy
        ]
        if axis:  # one located Axis unit decides it, whatever else the pack lacks
            ctx.why(
                f"{area.name}: {enemy} unit {ctx.name(axis[0].id)} is in the Region: no Border Defense needed"
            )
            continue
        kind = spec["requirement"]
        region_gaps = gaps_of(ctx, "area_hexes", area_id)
        region_listed = not region_gaps
        all_listed = claims_complete(ctx.pack, "country_hexes", area.country)
        if region_gaps and kind == "border_hexes" and all_listed:
            # "no Axis unit in the Region": a hex the pack may have left out of it is one of its country's
            # hexes in no area; with no Axis unit in any of them, the Region's border hexes decide alone.
            doubt = [h for h, info in ctx.pack.hexes.items()
                     if info.country == area.country and info.area is None]
            if not any(c.is_unit and ctx.board.faction_of(c) == enemy
                       for h in doubt for c in ctx.board.counters_in_hex(h)):
                region_gaps = ()
        ctx.undecided(*region_gaps)
        region_known = not region_gaps
        if kind == "border_hexes":
            listed = [str(h) for h in spec.get("hexes", []) or []]
            border_gaps = gaps_of(ctx, "border_hexes", area_id)
            if border_gaps and region_listed and listed and set(region) <= set(listed):
                border_gaps = ()  # every hex of the Region (all listed) is a listed border hex already
            ctx.undecided(*border_gaps)
            if border_gaps or not listed:
                continue  # undecided for this Region: its border hexes are not located (see `missing`)
            hexes = listed
        elif not region_known or not region:
            continue  # undecided: the Region's hexes (and so its steps) are not located
        else:
            hexes = region
        if not region_known:
            continue
        have = {h: _steps(ctx, h, nationality) for h in hexes}
        out.append(Requirement(area_id, kind, hexes, spec["steps"], have))
    return out


def spare_steps(ctx: EventContext, reqs: list[Requirement], nationality: str) -> dict[str, int]:
    """Per unit: how many of its steps the Axis may redeploy without weakening any requirement.
    16.5.4 Unmet Border Defense Requirements: only non-fortress ground steps, never steps necessary
    for a Border Defense check elsewhere."""
    spare: dict[str, int] = {}
    for unit in sorted(ctx.state.counters.values(), key=lambda c: c.id):
        if unit.nationality != nationality or not unit.is_ground or unit.kind == "fortress":
            continue
        if unit.location not in ctx.pack.hexes:
            continue
        cap = unit.steps
        for req in reqs:
            if unit.location in req.hexes:
                cap = min(cap, req.spare_in(unit.location))
        if cap > 0:
            spare[unit.id] = cap
    return spare


@event_impl("border_defense")
def border_defense(ctx: EventContext) -> None:
    """16.5.4 Border Defense Check: ignored unless Russia's Posture is Entente, Rapallo or Pact; then
    each Region is checked and unmet requirements make the Axis redeploy Russian steps (no additional
    penalty when the Soviet faction has too few)."""
    russia = ctx.require_param("russia")
    postures = list(ctx.require_param("postures"))  # "Entente, Rapallo, or Pact"
    enemy = ctx.require_param("enemy")  # whose units the Border Defense faces
    check_border_defense_data(ctx)
    posture = ctx.state.country(russia).posture
    if posture not in postures:
        ctx.ignore(f"{russia}'s Posture is {posture or 'none'}, not {', '.join(postures)}")
        return
    reqs = requirements(ctx, russia, enemy)
    short = [r for r in reqs if r.deficit > 0]
    for req in reqs:
        name = ctx.pack.areas[req.area].name
        if req.deficit == 0:
            ctx.why(f"{name}: sufficient Border Defense ({_describe(ctx, req)})")
    if not short and not reqs and ctx.entry.missing:
        return  # undecided: no Region could be checked (its facts are named in `missing`)
    if not short:
        among = " the pack locates" if ctx.entry.missing else ""
        ctx.not_due(f"{russia}'s Posture is {posture}; every Region{among} checked has sufficient Border "
                    "Defense")
        return
    ctx.fire(
        f"{russia}'s Posture is {posture}; unmet Border Defense: "
        + "; ".join(
            f"{ctx.pack.areas[r.area].name} short {r.deficit} step(s) ({_describe(ctx, r)})" for r in short
        )
    )
    spare = spare_steps(ctx, reqs, russia)
    total_deficit = sum(r.deficit for r in short)
    available = sum(spare.values())
    if available == 0:
        ctx.note("the Soviet faction has no Russian steps the Axis may redeploy: no additional penalty",
                 UNMET)
        return
    need = min(total_deficit, available)
    targets = {h: r for r in short for h in r.hexes if r.hex_deficit(h) > 0 or r.kind == "region_steps"}
    options = []
    labels = {}
    amounts = {}
    for unit_id, cap in spare.items():
        for hex_id, req in targets.items():
            for k in range(
                1, min(cap, req.deficit if req.kind == "region_steps" else req.hex_deficit(hex_id)) + 1
            ):
                options.append(f"{unit_id}:{k}>{hex_id}")
                labels[options[-1]] = f"{k} step(s) of {ctx.name(unit_id)} to {ctx.place(hex_id)}"
                group = f"{ctx.name(unit_id)} to {ctx.place(hex_id)}"
                amounts[options[-1]] = (f"{unit_id}>{hex_id}", group, k)
    answer = ctx.choose(
        "redeploy",
        "Axis",
        f"Redeploy exactly {need} Russian non-fortress ground step(s) from any hex(es) on the map to "
        "meet the Border Defense Requirements; never more steps than are necessary, nor Russian ground "
        "units necessary to fulfill a Border Defense check elsewhere. The Axis faction may force the "
        "Soviet faction to break down any units it wishes.",
        options,
        labels=labels,
        multiple=True,
        tally=Tally(need, "step", amounts),  # 16.5.4: "exactly" the steps necessary
    )
    _apply(ctx, answer, reqs, spare, need)


def _describe(ctx: EventContext, req: Requirement) -> str:
    if req.kind == "border_hexes":
        return ", ".join(f"{ctx.place(h)}: {req.have[h]}/{req.need}" for h in req.hexes)
    return f"{sum(req.have.values())}/{req.need} steps in the Region"


def _apply(
    ctx: EventContext, answer: list[str], reqs: list[Requirement], spare: dict[str, int], need: int
) -> None:
    """16.5.4 Unmet Border Defense Requirements: the Axis answer may not redeploy more steps than are
    necessary nor steps needed elsewhere; it may force breakdowns."""
    taken: dict[str, list[tuple[str, int]]] = {}
    into: dict[str, int] = {}
    for item in answer:
        unit_id, rest = item.split(":", 1)
        k, hex_id = rest.split(">", 1)
        taken.setdefault(unit_id, []).append((hex_id, int(k)))
        into[hex_id] = into.get(hex_id, 0) + int(k)
    src = ctx.answers_source
    total = sum(into.values())
    if total != need:
        raise InputError(
            src, f"answer to {ctx.rule}:redeploy moves {total} step(s); exactly {need} are necessary"
        )
    for unit_id, moves in taken.items():
        if sum(k for _, k in moves) > spare[unit_id]:
            raise InputError(
                src,
                f"answer to {ctx.rule}:redeploy takes more than {spare[unit_id]} spare step(s) "
                f"from {unit_id}",
            )
    for req in reqs:
        if req.kind == "border_hexes":
            for h in req.hexes:
                if into.get(h, 0) > req.hex_deficit(h):
                    raise InputError(
                        src, f"answer to {ctx.rule}:redeploy puts more steps in {h} than necessary"
                    )
        elif sum(into.get(h, 0) for h in req.hexes) > req.deficit:
            raise InputError(
                src, f"answer to {ctx.rule}:redeploy puts more steps in {req.area} than necessary"
            )
        # Steps leaving a requirement's hexes must not break it (a region shares its spare).
        leaving = sum(
            sum(k for _, k in taken.get(c.id, [])) for h in req.hexes for c in ctx.board.ground_units(h)
        )
        if req.kind == "region_steps" and req.hexes and leaving > req.spare_in(req.hexes[0]):
            raise InputError(src, f"answer to {ctx.rule}:redeploy takes steps needed in {req.area}")
    for unit_id, moves in sorted(taken.items()):
        unit: Counter = ctx.state.counters[unit_id]
        moved = sum(k for _, k in moves)
        if moved == unit.steps and len(moves) == 1:
            ctx.move(unit, moves[0][0], UNMET, why="Border Defense redeployment by the Axis")
        else:
            stay = unit.steps - moved
            placements = [*moves, *([(unit.location, stay)] if stay else [])]
            breakdown(ctx, unit, placements, UNMET, subject=unit.nationality)
