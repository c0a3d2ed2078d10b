"""`adjutant pack edit PACK --module M.vmod [--port P]`: complete a pack on the module's own map.

Why a browser editor: a real game needs every City, Port, Strategic Hex, border and road/rail hex of
the map in the pack, and typing them from the printed map is slow and error-prone. The editor shows
the module's boards with its own grid and VASSAL's location names, and writes only the pack
(atomically, comments and order kept); the module is read, never written. See bridge/web/editor/.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib

from bridge.cli.helptext import HelpFormatter
from bridge.web.editor.model import EditorSession
from bridge.web.editor.server import EditorServer
from vassal_parser.errors import InputError

DEFAULT_PORT = 8766
EPILOG = """\
examples:
  adjutant pack scaffold TK.vmod --base tk -o my-pack     first, a pack of your own for the module
  adjutant pack edit my-pack --module TK.vmod              then open the printed address in a browser
  adjutant pack edit my-pack --module TK.vmod --extension Extra.vmdx --port 8800
  adjutant pack check my-pack --module TK.vmod             what the pack still lacks, after saving

in the page: click a hex, Shift+click or drag for more; C K P B W S R L toggle City, Capital, Port,
Partisan Base, white star, Strategic Hex, road, rail; Ctrl+Z/Ctrl+Y undo/redo; Ctrl+S saves; the wheel
zooms, a middle- or right-button drag (or Space+drag) pans; / finds a hex id, place or country.
in the sidebar: ✓ declares a fact complete (on a fact with nothing marked it asks first, then shows
"declared none"); a neighbouring-countries row lists the countries (the base pack's, for a scaffold):
× drops one, "add a country…" adds one. Its count is `pack check`'s ("9 of 100 map facts complete").
exit status: 0 when stopped with Ctrl+C (unsaved edits are lost: the page warns); 2 bad input.
"""


def register(actions: argparse._SubParsersAction) -> None:
    edit = actions.add_parser(
        "edit", help="edit a pack's map facts and boxes in the browser, on the module's map",
        description="Serve a map editor on 127.0.0.1: mark countries, Cities, Ports, Strategic Hexes, areas, "
                    "border and road/rail hexes on the module's own boards, name its zones as the game's "
                    "boxes, and save the pack.",
        epilog=EPILOG, formatter_class=HelpFormatter)
    edit.add_argument("pack", metavar="PACK", help="pack directory to edit")
    edit.add_argument("--module", required=True, help="the VASSAL module (.vmod) whose map to show")
    edit.add_argument("--extension", action="append", default=[], metavar="VMDX",
                      help="a module extension (.vmdx) whose maps or boards the game uses (repeatable)")
    edit.add_argument("--port", type=int, default=DEFAULT_PORT,
                      help=f"port on 127.0.0.1 (default {DEFAULT_PORT})")
    edit.set_defaults(handler=run_edit)


async def serve_editor(session: EditorSession, port: int, started: asyncio.Event | None = None,
                       stop: asyncio.Event | None = None) -> EditorServer:
    """Run the editor until `stop` is set (or forever); `started` is set once the port is bound."""
    server = EditorServer(session, port=port)
    try:
        await server.start()
    except OSError as exc:
        raise InputError(f"127.0.0.1:{port}", f"cannot listen there ({exc.strerror or exc}); "
                                              "pass another --port") from None
    print(f"editing pack {session.pack.name} ({session.pack_dir}) on module {session.module.name}: "
          f"open {server.view_url(level='control')}  (Ctrl+C stops; unsaved edits are lost; the URL's token "
          "changes with every start)", flush=True)
    if started is not None:
        started.set()
    try:
        await (stop.wait() if stop is not None else asyncio.Event().wait())
    finally:
        await server.stop()
    return server


def run_edit(args: argparse.Namespace) -> int:
    session = EditorSession(args.pack, args.module, args.extension)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve_editor(session, args.port))
    return 0
