"""`adjutant extension MODULE.vmod --pack P [--port N] [--zones] --out Adjutant.vmdx`.

Builds the Adjutant extension for one module (module_patches/extension.py): Help → "Adjutant — live
report" and a toolbar "Adjutant" window. It changes no pieces, so an opponent without it loses nothing.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bridge.cli.helptext import HelpFormatter
from module_patches.extension import build_extension, write_extension
from rules.packs import load_pack
from vassal_parser.atomic import AlreadyExists
from vassal_parser.errors import InputError

EPILOG = """\
examples:
  adjutant extension TK.vmod --out Adjutant.vmdx
  adjutant extension TK.vmod --pack my-pack --zones --port 8765 --out Adjutant.vmdx --json

exit status: 0 written; 2 bad input (not a module, --out exists without --force, a bad port).
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "extension", help="build the Adjutant extension (.vmdx) for a module",
        description="Write a VASSAL module extension that adds Help > Adjutant — live report (the local "
                    "overlay's player view) and an Adjutant toolbar window explaining Adjutant's files.",
        epilog=EPILOG, formatter_class=HelpFormatter)
    parser.add_argument("module", metavar="MODULE", help="the VASSAL module (.vmod, or a buildFile)")
    parser.add_argument("--pack", help="rules pack (needed for --zones)")
    parser.add_argument("--port", type=int, default=8765, help="the port `adjutant watch` serves on (8765)")
    parser.add_argument("--zones", action="store_true",
                        help="also add named Zones for pack boxes with a polygon that no module zone covers")
    parser.add_argument("--force", action="store_true", help="replace --out if it exists")
    parser.add_argument("--out", required=True, help="the .vmdx to write (e.g. Adjutant.vmdx)")
    parser.add_argument("--json", action="store_true", help="print what was written as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.suffix.lower() != ".vmdx":
        raise InputError(out, "the extension's file name must end in .vmdx")
    if out.exists() and not args.force:
        raise InputError(out, "already exists: choose another name, or pass --force to replace it")
    if not 0 < args.port < 65536:
        raise InputError("--port", f"{args.port} is not a TCP port")
    pack = load_pack(args.pack) if args.pack else None
    writeback = None
    if args.zones and pack is not None:
        from bridge.writeback.translate import Writeback

        writeback = Writeback.from_pack(pack)
    built = build_extension(args.module, pack=pack, port=args.port, zones=args.zones, writeback=writeback)
    try:  # without --force the name is claimed at the instant of writing, not by the check above alone
        write_extension(built, out, exclusive=not args.force)
    except AlreadyExists:
        raise InputError(out, "already exists: choose another name, or pass --force to replace it") from None
    if getattr(args, "json", False):
        from bridge.common.jsonout import dumps, header, module_json

        print(dumps({**header("extension"), "out": str(out), "extension_id": built.extension_id,
                     "module": module_json(built.module_name, built.module_version),
                     "components": [{"target": target, "component": tag} for target, tag in built.components],
                     "notes": list(built.notes)}))
        return 0
    print(f"wrote {out}: extension {built.extension_id} for module {built.module_name!r} "
          f"{built.module_version}".rstrip())
    for target, tag in built.components:
        print(f"  adds {tag.rsplit('.', 1)[-1]} at {target or 'the module'}")
    for note in built.notes:
        print(f"  {note}")
    print(f"  put it in the module's extension folder ({Path(args.module).stem}_ext/) and restart the module")
    return 0
