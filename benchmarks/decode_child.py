"""The full decode that `benchmarks/parse.py` times, in a module that imports nothing else.

Why separate: the pywargame comparison runs this as a whole process (`python decode_child.py SAVE`),
so its start-up must hold only what a decode needs — not the benchmark's subprocess, tracemalloc,
statistics or argparse machinery.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
if str(PROJECT_ROOT) not in sys.path:
    sys.path.insert(0, str(PROJECT_ROOT))

from vassal_parser.commands import decode_stream, encode_stream, iter_commands  # noqa: E402
from vassal_parser.container import open_container  # noqa: E402
from vassal_parser.pieces import Piece, make_piece  # noqa: E402
from vassal_parser.traits import encode_chain, forget_shared_traits  # noqa: E402


def _add_pieces(node):
    """Every add-piece command, LOG payloads unwrapped in place (replay order)."""
    return (command for command in iter_commands(node, unwrap_log=True) if command.kind == "add_piece")


def full_decode(path: Path, reencode: bool = True) -> dict[str, float | int]:
    """One complete pass; returns counts and per-phase seconds.

    `reencode=False` stops after decoding (what pywargame's `vsavdump -d` does: decode and dump), so
    the side-by-side comparison times the same job; the byte-identity check is extra work of ours.
    """
    forget_shared_traits()
    t0 = time.perf_counter()
    container = open_container(path)
    text = container.command_text()
    t1 = time.perf_counter()
    tree = decode_stream(text)
    t2 = time.perf_counter()
    pieces = traits = depth = 0
    for command in _add_pieces(tree):
        piece = make_piece(command.fields["id"], command.fields["type"], command.fields["state"])
        pieces += 1
        if isinstance(piece, Piece):
            chain = piece.traits
            traits += len(chain)
            depth = max(depth, len(chain))
            for trait in chain:
                _ = trait.fields
            piece.properties()
    t3 = time.perf_counter()
    same = encode_stream(tree) == text if reencode else False
    for command in _add_pieces(tree) if reencode else ():
        piece = make_piece(command.fields["id"], command.fields["type"], command.fields["state"])
        if isinstance(piece, Piece):
            type_string, state_string = encode_chain(piece.traits)
            same = same and type_string == piece.type_string()
            same = same and (state_string or "") == piece.state_string()
    t4 = time.perf_counter()
    return {
        "bytes": path.stat().st_size,
        "chars": len(text),
        "pieces": pieces,
        "traits": traits,
        "depth": depth,
        "identical": int(same),
        "open": t1 - t0,
        "tree": t2 - t1,
        "pieces_s": t3 - t2,
        "reencode": t4 - t3,
        "total": t4 - t0,
    }



if __name__ == "__main__":
    full_decode(Path(sys.argv[1]), reencode=False)
