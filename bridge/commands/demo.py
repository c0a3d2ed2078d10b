"""`adjutant demo`: walk the demo story save by save and say what the players are told at each step.

Why a walk-through first: it is the README's first command, so it must work with nothing but the
checked-in demo module, pack and saves.  `walk_through(out)` is the whole show; the live mode of the
daemon (`adjutant watch`) can reuse it, and plain `adjutant demo` behaves like `--no-serve` until then.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from bridge.pipeline import CheckPipeline
from module_patches.demo_story import SAVES_DIR, load_story, save_path
from module_patches.demo_world import DEMO_DIR

DEMO_MODULE = DEMO_DIR / "adjutant-demo.vmod"
DEMO_PACK = DEMO_DIR / "pack"
SHOWN = {"fired": "DUE", "waiting": "WAITING"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo", help="walk through the demo story and show what each save makes due",
        description="Run `adjutant check` over the demo saves (module_patches/demo/saves) one by one and "
                    "print what a player would be told at each step, naming each event by its rule number.")
    parser.add_argument("--no-serve", action="store_true",
                        help="only print the walk-through (the default until the live overlay is served)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    return walk_through(sys.stdout)


def walk_through(out: TextIO) -> int:
    """Print every scene's plan in story order; 0 when each scene's due events are the story's."""
    pipeline = CheckPipeline(DEMO_MODULE, DEMO_PACK)
    story = load_story()
    mismatches = 0
    module = pipeline.module
    out.write(f"Adjutant demo: {len(story)} saves of module {module.name} {module.version}, "
              f"pack {pipeline.pack.name} ({SAVES_DIR})\n")
    for number, scene in enumerate(story, start=1):
        result = pipeline.plan_file(save_path(scene), answers=scene.answers, answers_source="story.toml")
        plan = result.plan
        out.write(f"\n[{number}/{len(story)}] {scene.file}.vsav -- {scene.title}\n")
        out.write(f"    {plan['phasing']} faction, {plan['turn']}; exit status {result.exit_status}\n")
        due = []
        for event in plan["events"]:
            if event["status"] not in SHOWN:
                continue
            due.append(event["rule"])
            out.write(f"  {event['rule']} {event['title']}: {SHOWN[event['status']]}\n")
            for reason in event["why"]:
                out.write(f"      why: {reason}\n")
            for step in event["steps"]:
                label = f"{step['rule']} {step['step']}" if step["step"] else step["rule"]
                out.write(f"      ({label}) {step['text']}\n")
            for choice in event["choices"]:
                answer = f"answered {choice['answer']!r}" if choice["answered"] else "waiting for an answer"
                out.write(f"      ? {choice['decider']}: {choice['prompt']} ({answer})\n")
        if not due:
            out.write("  nothing is due\n")
        first_due = [rule for rule in due if not _blocked(plan, rule)]
        if first_due != scene.expect:
            mismatches += 1
            out.write(f"  ! the story expected {scene.expect or 'nothing'} here\n")
    return 0 if mismatches == 0 else 1


def _blocked(plan: dict, rule: str) -> bool:
    """An event reported only because an earlier unanswered choice holds it up (6.2 order)."""
    event = next(e for e in plan["events"] if e["rule"] == rule)
    return event["status"] == "waiting" and not event["choices"] and bool(event["waiting_for"])
