"""The demo module scaffolded over the demo geography, as a new user would (issue 38 "Done when"),
and demo modules marked differently, built with the demo's own builder: shared by
tests/demo/test_scaffold_proposals.py and benchmarks/scaffold_shares.py.

A variant changes only how the counters are marked (Marker property names, nationalities as
adjectives or codes, kinds as module words or prototypes), never where they are: its saves are the
demo story's scenes written with the variant's traits, so the hand-written demo pack's plan of the
original save is the answer the variant's scaffold must give.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bridge.cli.commands.demo import DEMO_PACK

DONE_SAVES = ("02-poland-falls", "04-hungary-occupied", "05-case-yellow", "09-border-defense")
SAVES_DIR = DEMO_PACK.parent / "saves"


def base_without_vassal(target: Path) -> Path:
    """A copy of the demo pack without vassal.toml: the demo's geography and rules data only."""
    shutil.copytree(DEMO_PACK, target)
    (target / "vassal.toml").unlink()
    return target


def scenario_lines() -> list[str]:
    """The hand-written pack's [vassal.countries] and [vassal.turn]: what no module carries."""
    table = tomllib.loads((DEMO_PACK / "vassal.toml").read_text(encoding="utf-8"))["vassal"]
    lines = ["[vassal.countries]"]
    for name, fields in table["countries"].items():
        inner = ", ".join(f"{k} = {json.dumps(v)}" for k, v in fields.items())
        lines.append(f"{json.dumps(name)} = {{ {inner} }}")
    lines += ["", "[vassal.turn]"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in table["turn"].items()]
    return [*lines, ""]


def state_the_scenario(pack_dir: Path) -> None:
    """Fill the scaffold's empty [vassal.countries] / [vassal.turn] as a player would: nothing else."""
    path = pack_dir / "vassal.toml"
    text = path.read_text(encoding="utf-8")
    empty = "[vassal.countries]\n\n[vassal.turn]\n"
    assert empty in text, "the scaffold leaves [vassal.countries] and [vassal.turn] for the player"
    path.write_text(text.replace(empty, "\n".join(scenario_lines())), encoding="utf-8")


def scaffold(module: Path, base: Path, target: Path) -> Path:
    from bridge.cli.main import main

    assert main(["pack", "scaffold", str(module), "--base", str(base), "-o", str(target), "-q"]) == 0
    state_the_scenario(target)
    return target


def scene_answers(save: Path) -> dict[str, Any]:
    """The players' answers to the scene's choices (demo/story.toml): the plan then has its steps."""
    from module_patches.demo_story import load_story

    return next((dict(s.answers) for s in load_story() if s.file == save.stem), {})


def plan_of(save: Path, module: Path, pack: Path | str) -> dict[str, Any]:
    """The plan of a save with its scene's answers, as `adjutant check --answers` gives it; its
    `position` key is the position the pack read from the save (without the pack's name)."""
    from bridge.pipeline import CheckPipeline

    result = CheckPipeline(module, pack, remember=False).plan_file(save, answers=scene_answers(save))
    position = {k: v for k, v in result.mapping.position.items() if k != "pack"}
    position["counters"] = sorted(position.get("counters", []), key=lambda c: str(c["id"]))
    return {**result.plan, "position": position}


def events_of(plan: dict[str, Any]) -> list[tuple[str, str, list[tuple[Any, ...]]]]:
    """Each event's rule, status and steps: what "the same plan" compares."""
    return [(e["rule"], e["status"],
             [(s["rule"], s["step"], s["action"], s["counter"], s.get("from"), s["to"], s["subject"],
               json.dumps(s["details"], sort_keys=True)) for s in e["steps"]])
            for e in plan["events"]]


def mapped_share(plan: dict[str, Any], save: Path, module: Path) -> tuple[int, int]:
    """(pieces the pack maps, pieces of the save): a piece is unmapped when no rule takes it or it
    stands on a place the pack does not map."""
    from bridge.pipeline import CheckPipeline

    pieces, _info = CheckPipeline(module, DEMO_PACK, remember=False).pieces_of(save)
    vassal = plan["vassal"]
    lost = sum(vassal["unmapped_pieces"].values()) + sum(vassal["unmapped_places"].values())
    return len(pieces) - lost, len(pieces)


# ---- variants: the demo module marked as other modules mark their counters ----------------------
@dataclass(frozen=True)
class Variant:
    name: str
    markers: dict[str, str]  # demo Marker name -> the variant's (absent: not a Marker in the variant)
    nation: Callable[[Any, Any], str]  # (counter, world) -> the nationality as the variant writes it
    kind_words: dict[str, str]  # demo kind -> the variant's word for it
    prototypes: bool = False  # nationality and kind as prototype names instead of Markers


KIND_WORDS = {"ground": "Infantry", "air": "Fighter", "ceded_land": "Ceded Land", "marker": "Event Marker",
              "state": "Status Marker", "card": "Option Card"}
ADJECTIVES = tomllib.loads((DEMO_PACK / "adjectives.toml").read_text(encoding="utf-8"))["adjectives"]

VARIANTS = (
    Variant("renamed properties, adjectives, module kind words",
            {"Nation": "Nationality", "Kind": "UnitType", "Counter": "UnitID", "Steps": "StepCount",
             "Code": "ReinforcementCode", "Stripe": "DelayStripe", "Tag": "EventTag", "Area": "CededArea",
             "Colonial": "ColonialOf", "Card": "CardNumber"},
            lambda counter, world: ADJECTIVES.get(counter.nation, counter.nation).upper(),
            KIND_WORDS),
    Variant("codes and kinds as prototypes",
            {"Counter": "Serial", "Steps": "Steps", "Code": "Reinf", "Stripe": "Stripe", "Tag": "Tag",
             "Area": "Area", "Colonial": "Colonial", "Card": "Card"},
            lambda counter, world: world.nations[counter.nation]["code"],
            KIND_WORDS, prototypes=True),
)


@contextmanager
def variant_builder(variant: Variant) -> Iterator[None]:
    """The demo builder (module_patches.demo_pieces) writing the variant's traits while it lasts."""
    import module_patches.demo_module as demo_module
    import module_patches.demo_pieces as pieces
    from vassal_parser.sequence import encode

    saved = (pieces.marker_trait, pieces.prototype_traits, pieces.slot_traits, demo_module.slot_traits,
             demo_module._prototype)
    names = [n for n in pieces.MARKER_NAMES if n in variant.markers]
    extra = [] if variant.prototypes else ["Nation", "Kind"]

    def marker_trait(counter: Any) -> tuple[str, str]:
        from module_patches.demo_world import WORLD

        values = dict(zip(pieces.MARKER_NAMES, pieces.marker_values(counter), strict=True))
        values["Nation"] = variant.nation(counter, WORLD())
        values["Kind"] = variant.kind_words[counter.kind]
        keys = [*names, *(n for n in extra if n not in names)]
        written = [variant.markers.get(k, k) for k in keys]
        return "mark;" + (encode(written, ",") or ""), encode([values[k] for k in keys], ",") or ""

    def prototype_names(counter: Any) -> list[str]:
        from module_patches.demo_world import WORLD

        return [variant.nation(counter, WORLD()), variant.kind_words[counter.kind]]

    def prototype_traits(counter: Any, world: Any) -> list[tuple[str, str]]:
        return [] if variant.prototypes else saved[1](counter, world)

    def slot_traits(counter: Any, world: Any) -> list[tuple[str, str]]:
        if not variant.prototypes:
            return saved[2](counter, world)
        own = pieces.own_traits(counter, world)
        return [*own, *((f"prototype;{name}", "") for name in prototype_names(counter))]

    def prototype(parent: Any, name: str) -> None:
        saved[4](parent, name)
        if variant.prototypes and name == "Card":  # the variant's own prototypes, once
            from module_patches.demo_world import WORLD

            world = WORLD()
            for proto in sorted({n for c in world.counters for n in prototype_names(c)}):
                _empty_prototype(parent, proto)

    pieces.marker_trait = marker_trait
    pieces.prototype_traits = prototype_traits
    pieces.slot_traits = slot_traits
    demo_module.slot_traits = slot_traits
    demo_module._prototype = prototype
    try:
        yield
    finally:
        (pieces.marker_trait, pieces.prototype_traits, pieces.slot_traits, demo_module.slot_traits,
         demo_module._prototype) = saved


def _empty_prototype(parent: Any, name: str) -> None:
    """A prototype that only names the piece's kind or nation (no Marker: the name is the evidence)."""
    from module_patches.demo_module import _el
    from module_patches.demo_pieces import chain
    from vassal_parser.sequence import encode

    type_ = chain(["piece;;;;"])
    state = chain(["null;0;0;;0"])
    _el(parent, "module.PrototypeDefinition", "+/" + (encode(["null", type_, state], "/") or ""),
        description=f"every {name} piece", name=name)


def build_variant(variant: Variant, folder: Path) -> tuple[Path, Path]:
    """(the variant module, its saves folder): the demo story written with the variant's traits."""
    from module_patches.demo_module import module_bytes, write_file
    from module_patches.demo_story import write_saves

    folder.mkdir(parents=True, exist_ok=True)
    with variant_builder(variant):
        module = folder / "variant.vmod"
        write_file(module, module_bytes())
        saves = folder / "saves"
        write_saves(saves)
    return module, saves
