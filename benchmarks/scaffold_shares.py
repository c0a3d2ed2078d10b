"""How much of a module `pack scaffold --base` maps by itself (issue 38 item 4): measured, not tuned.

For the demo module scaffolded over the demo geography (a copy of module_patches/demo/pack without
vassal.toml; only the scenario's [vassal.countries] / [vassal.turn] stated, as a player would) and for
the demo variants of tests/demo/scaffold_variants.py: the share of each demo save's pieces and of the
module's zones the scaffold maps, and whether each save's plan (each event's status and steps, with the
scene's answers) equals the hand-written demo pack's. For each module of the corpus
(/work/shared/corpus, read at run time; skipped when absent): the share of its pieces the proposal
gives a nationality and a kind, over the `tk` pack -- reported, not asserted: they are other games.

Run:  .venv/bin/python benchmarks/scaffold_shares.py [--corpus DIR] [--no-corpus]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK  # noqa: E402
from tests.demo.scaffold_variants import (  # noqa: E402
    SAVES_DIR,
    VARIANTS,
    base_without_vassal,
    build_variant,
    events_of,
    mapped_share,
    plan_of,
    scaffold,
)

CORPUS_DIR = PROJECT_ROOT.parent / "shared" / "corpus"


def zone_share(pack: Path, module: Path) -> tuple[int, int]:
    from bridge.cli.commands.pack import check_report
    from bridge.mapping.hexnaming import grid_summary
    from vassal_parser.module import load_module

    loaded = load_module(module)
    zones = {f"{m.identifier}: {z}" for m in loaded.maps for b in m.boards for z in grid_summary(b.grid)[2]}
    report = check_report(str(pack), str(module), [], None)
    return len(zones) - len(report["unmapped_zones"]), len(zones)


def demo_rows(label: str, module: Path, saves: Path, base: Path, work: Path) -> list[str]:
    pack = scaffold(module, base, work / f"pack-{label}")
    mapped, total = zone_share(pack, module)
    rows = [f"{label}: zones mapped {mapped} of {total} ({mapped / total:.0%})"]
    for save in sorted(saves.glob("*.vsav")):
        hand = plan_of(SAVES_DIR / save.name, DEMO_MODULE, DEMO_PACK)
        mine = plan_of(save, module, pack)
        got, pieces = mapped_share(mine, save, module)
        same = "same plan" if events_of(mine) == events_of(hand) else "PLAN DIFFERS"
        same += ", same position" if mine["position"] == hand["position"] else ", POSITION DIFFERS"
        rows.append(f"  {save.stem:24} pieces mapped {got:3} of {pieces:3} ({got / pieces:4.0%})  {same}")
    return rows


def corpus_rows(corpus: Path) -> list[str]:
    from bridge.cli.commands.scaffold_proposal import proposal_for
    from rules.packs import load_pack
    from vassal_parser.errors import InputError
    from vassal_parser.module import load_module

    pack = load_pack("tk")
    rows = [f"corpus modules over --base tk ({corpus}): share of pieces given a kind / a nationality / both"]
    files = sorted(p for p in corpus.rglob("*")
                   if p.is_file() and (p.name in ("buildFile", "buildFile.xml") or p.suffix == ".vmod"))
    for path in files:
        start = time.perf_counter()
        try:
            proposal = proposal_for(load_module(path), pack)
        except InputError as problem:  # an extension without its module, a file that is no module
            rows.append(f"  {path.relative_to(corpus)}: skipped ({str(problem).split(': ')[-1]})")
            continue
        total = proposal.pieces or 1
        kinds = proposal.counters.kind.pieces if proposal.counters.kind else {}
        nations = proposal.counters.nation.pieces if proposal.counters.nation else {}
        both = set(kinds) & set(nations)
        name = str(path.relative_to(corpus))
        rows.append(f"  {name:66} {proposal.pieces:5} pieces  kind {len(kinds) / total:4.0%}"
                    f"  nationality {len(nations) / total:4.0%}  both {len(both) / total:4.0%}"
                    f"  ({time.perf_counter() - start:.1f} s)")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS_DIR)
    parser.add_argument("--no-corpus", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        base = base_without_vassal(work / "base")
        rows = demo_rows("demo module", DEMO_MODULE, SAVES_DIR, base, work)
        for index, variant in enumerate(VARIANTS):
            module, saves = build_variant(variant, work / f"variant-{index}")
            rows += demo_rows(f"variant: {variant.name}", module, saves, base, work)
    print("\n".join(rows))
    if args.no_corpus:
        return 0
    if not args.corpus.is_dir():
        print(f"corpus: skipped ({args.corpus} is absent)")
        return 0
    print("\n".join(corpus_rows(args.corpus)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
