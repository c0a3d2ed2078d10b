"""An Adjutant extension (.vmdx) for a module, built with lxml: live report in Help, an "Adjutant" window.

Why an extension and what is in it (spec vassal-writeback.md §3.7, in that order of safety):
* Help → "Adjutant — live report": a `BrowserHelpFile` whose starting page is the local overlay's
  player view. VASSAL re-evaluates the page on every click (`$PlayerSide$` becomes the player's side
  where the module has a PlayerRoster) and opens it in the system browser.
* A toolbar button "Adjutant" opening a `ChartWindow` with an `HtmlChart`: what Adjutant does, how to
  load its continuation logs, and links to the live views (the chart's links open in the window).
* Optionally (`zones=True`) named Zones for pack boxes that declare a polygon, on boards that already
  have a ZonedGrid, where no module zone covers them — so VASSAL's own chat reports name the boxes.

No pieces, maps or prototypes: a game saved with it only gains an `EXT` line, which an opponent without
the extension sees as a warning, nothing more. Every `ExtensionElement` has one component and a target
computed from the element's real place in the module's buildFile and checked with VASSAL's path rules
(`ComponentPathBuilder`, ported in `vassal_parser.module`): a target that would not resolve to that
element is an error here, never a file VASSAL refuses.

Public API:
    build_extension(module_path, pack=None, port=8765, zones=False, extension_id=None,
                    writeback=None) -> Built
    write_extension(built, out) -> Path
    target_path(root, element) -> str
"""

from __future__ import annotations

import io
import re
import secrets
import time
import zipfile
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lxml import etree

from vassal_parser import sequence
from vassal_parser.container import major_minor, open_container, parse_xml
from vassal_parser.errors import InputError
from vassal_parser.module import ROOT_TAGS, configure_name, find_target
from vassal_parser.writer import write_atomically

P = "VASSAL.build."
EXTENSION_TAG = P + "module.ModuleExtension"
ELEMENT_TAG = P + "module.ExtensionElement"
DOCUMENTATION = P + "module.Documentation"
HELP_TITLE = "Adjutant — live report"
CHART_FILE = "adjutant/adjutant.html"
EXTENSION_VERSION = "1.0"
ZONE_GRID = P + "module.map.boardPicker.board.ZonedGrid"
ZONE_TAG = P + "module.map.boardPicker.board.mapgrid.Zone"


@dataclass
class Built:
    module_name: str
    module_version: str
    vassal_version: str
    extension_id: str
    build_file: bytes
    extensiondata: bytes
    moduledata: bytes | None
    chart_html: str
    components: list[tuple[str, str]] = field(default_factory=list)  # (target, component tag)
    notes: list[str] = field(default_factory=list)


def target_path(root: etree._Element, element: etree._Element) -> str:
    """The ExtensionElement target naming `element`: its ancestors below the GameModule, each
    `class[:configureName]` (SequenceEncoder on ':' then '/', so names with delimiters are escaped),
    checked to resolve back to that very element under VASSAL's rules."""
    if element is root:
        return ""
    chain = []
    node = element
    while node is not None and node is not root:
        chain.append(node)
        node = node.getparent()
    if node is not root:
        raise ValueError("element is not in this module")
    segments = []
    for item in reversed(chain):
        name = configure_name(item)
        segments.append(sequence.encode([item.tag, name] if name else [item.tag], ":") or "")
    path = sequence.encode(segments, "/") or ""
    found = find_target(root, path, "<module>")
    if found is not element:
        raise InputError("<module>", f"extension target {path!r} would resolve to another component than "
                                     f"the one meant (a same-class sibling comes first)")
    return path


def _module_root(module_path: Path) -> tuple[etree._Element, dict[str, str], bytes | None]:
    container = open_container(module_path)
    if container.kind not in ("module", "buildfile"):
        raise InputError(module_path, f"is a {container.kind}, not a VASSAL module (.vmod or buildFile)")
    root = parse_xml(container.build_xml_bytes(), module_path, huge=True)
    if root.tag not in ROOT_TAGS:
        raise InputError(module_path, f"build file root is {root.tag}, not a VASSAL GameModule")
    metadata = container.metadata_entries.get("moduledata", {})
    moduledata = container.read_entry("moduledata") if container.has_entry("moduledata") else None
    if moduledata is None and container.kind == "buildfile":  # an unpacked module: moduledata beside it
        sibling = module_path.parent / "moduledata"
        if sibling.is_file():
            moduledata = sibling.read_bytes()
            metadata = open_container(sibling).metadata
    return root, metadata, moduledata


def player_sides(root: etree._Element) -> list[str]:
    """The sides of the module's PlayerRoster (`entry` children), in order."""
    sides = []
    for roster in root.iter(P + "module.PlayerRoster"):
        sides.extend((entry.text or "").strip() for entry in roster if entry.tag == "entry")
    return [side for side in sides if side]


def report_url(port: int, sides: list[str]) -> str:
    """The live report's player view; `$PlayerSide$` is filled in by VASSAL on every click."""
    base = f"http://127.0.0.1:{port}/?view=player"
    return base + "&faction=$PlayerSide$" if sides else base


_URL_SAFE = re.compile(r"[A-Za-z0-9._~-]+")


def help_items(port: int, sides: list[str]) -> list[tuple[str, str]]:
    """(menu title, starting page) of the Help items: one with `$PlayerSide$` when every side name can
    stand in a URL as it is (BrowserSupport.openURL builds a java.net.URI: a space would be an error
    dialog), else one per side with the name percent-encoded."""
    if not sides or all(_URL_SAFE.fullmatch(side) for side in sides):
        return [(HELP_TITLE, report_url(port, sides))]
    base = f"http://127.0.0.1:{port}/?view=player&faction="
    return [(f"{HELP_TITLE}: {side}", base + quote(side, safe="")) for side in sides]


def chart_html(port: int, sides: list[str], module_name: str) -> str:
    """The Adjutant window's page: HTML 3.2 (what Swing renders), links to the live views."""
    base = f"http://127.0.0.1:{port}/"
    views = [(f"{base}?view=player&amp;faction={quote(side, safe='')}", f"Player view: {escape(side)}")
             for side in sides]
    if not sides:
        views.append((f"{base}?view=player", "Player view"))
    views += [(f"{base}?view=control", "Control view (answer the plan's choices, write the moves)"),
              (f"{base}?view=stream", "Stream view (public: hidden and masked pieces never shown)")]
    links = "\n".join(f'<li><a href="{url}">{label}</a></li>' for url, label in views)
    return f"""<html><head><title>Adjutant</title></head><body>
<h2>Adjutant</h2>
<p>Adjutant reads this game's own VASSAL files ({escape(module_name)}), works out which Conditional Events
are due, and says which counters and markers must move, with the rule cited.</p>
<h3>Live report</h3>
<p>While <tt>adjutant watch</tt> runs on this computer (port {port}), these pages show the plan for the
latest save. Help &gt; {escape(HELP_TITLE)} opens your side's view in your browser.</p>
<ul>
{links}
</ul>
<h3>Continuation logs</h3>
<p><tt>adjutant apply GAME --out NAME-adjutant.vlog</tt> (or the control view's <i>Write the moves</i>)
writes a new log: your game as it stands, then one step per required move. Each step says in the chat
which rule it carries out (<tt>Adjutant: 16.1.1 Step 2 &#8212; move ...</tt>).</p>
<p>To check it: <b>File &gt; Load Game or Log...</b>, choose the <tt>-adjutant.vlog</tt> file, then step
through with <b>Page Down</b> (the Step forward button). <b>Undo</b> takes back one step. Your own file is
never changed.</p>
<p>This extension adds no pieces, maps or prototypes: an opponent without it loses nothing.</p>
</body></html>
"""


def _element(tag: str, attributes: dict[str, str], text: str | None = None) -> etree._Element:
    """Attributes in alphabetical order, as VASSAL writes them (ModuleExtension relies on the order)."""
    node = etree.Element(tag)
    for key in sorted(attributes):
        node.set(key, attributes[key])
    if text is not None:
        node.text = text
    return node


def _zones(root: etree._Element, pack: Any,
           writeback: Any) -> tuple[list[tuple[str, etree._Element]], list[str]]:
    """Zones for pack boxes that give a polygon ([vassal.writeback.points] map, board, polygon).

    `writeback` is the pack's write-back table as the caller read it (bridge.writeback.translate.Writeback:
    `.points`, `.source`): handed in, so this package never reaches up into bridge/."""
    table = (getattr(pack, "extra", {}).get("vassal") or {}).get("writeback", {}).get("points", {})
    added: list[tuple[str, etree._Element]] = []
    notes: list[str] = []
    for box, raw in table.items():
        polygon = raw.get("polygon") if isinstance(raw, dict) else None
        if not polygon:
            continue
        spec = writeback.points[box]
        where = f"{writeback.source} [vassal.writeback.points] {box!r}"
        board_name = spec.board
        name = spec.location or str(box)
        points = list(spec.polygon)
        board = _board(root, spec.map, board_name, where)
        grid = next((child for child in board if child.tag == ZONE_GRID), None)
        if grid is None:
            raise InputError(where, f"board {board_name!r} of map {spec.map!r} has no zoned grid: VASSAL "
                                    "cannot take a zone there without replacing its grid (not done)")
        if any(_covers(zone, points) for zone in grid if zone.tag == ZONE_TAG):
            notes.append(f"zone {name!r} not added: a module zone already covers it")
            continue
        path = ";".join(f"{x},{y}" for x, y in points)
        zone = _element(ZONE_TAG, {"name": name, "path": path, "locationFormat": "$name$",
                                   "useParentGrid": "false", "highlightProperty": "",
                                   "useHighlight": "false"})
        added.append((target_path(root, grid), zone))
    return added, notes


def _board(root: etree._Element, map_name: str, board_name: str | None, where: str) -> etree._Element:
    for map_node in root.iter():
        if configure_name(map_node) != map_name or not str(map_node.tag).endswith(("Map", "PrivateMap")):
            continue
        for board in map_node.iter(P + "module.map.boardPicker.Board"):
            if board_name is None or board.get("name") == board_name:
                return board
    raise InputError(where, f"no board {board_name!r} on map {map_name!r} in the module")


def _covers(zone: etree._Element, points: list[tuple[int, int]]) -> bool:
    """True when the module zone's polygon contains any corner or the centre of `points` (even-odd rule)."""
    try:
        pairs = (zone.get("path") or "").split(";")
        shape = [tuple(int(v) for v in pair.split(",")) for pair in pairs if pair]
    except ValueError:
        return False
    if len(shape) < 3:
        return False
    cx = sum(x for x, _ in points) // len(points)
    cy = sum(y for _, y in points) // len(points)
    return any(_inside(shape, x, y) for x, y in [*points, (cx, cy)])


def _inside(shape: list[tuple[int, ...]], x: int, y: int) -> bool:
    inside = False
    j = len(shape) - 1
    for i in range(len(shape)):
        xi, yi = shape[i]
        xj, yj = shape[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / ((yj - yi) or 1) + xi:
            inside = not inside
        j = i
    return inside


def build_extension(module_path: str | Path, pack: Any = None, port: int = 8765, zones: bool = False,
                    extension_id: str | None = None, writeback: Any = None) -> Built:
    """The extension's files; with `zones`, also a zone per pack box with a polygon (`writeback` is the
    pack's write-back table, bridge.writeback.translate.Writeback.from_pack(pack), read by the caller)."""
    module_path = Path(module_path)
    root, metadata, moduledata = _module_root(module_path)
    name = metadata.get("name") or root.get("name") or ""
    if not name:
        raise InputError(module_path, "the module has no name: an extension is bound to its module's name")
    version = metadata.get("version") or root.get("version") or ""
    vassal_version = metadata.get("VassalVersion") or root.get("VassalVersion") or "3.7.0"
    sides = player_sides(root)
    ext_id = extension_id or secrets.token_hex(2)[-3:]
    description = "Adjutant: live report of the Conditional Events, and how to load its continuation logs"
    extension = _element(EXTENSION_TAG, {
        "anyModule": "false", "description": description, "extensionId": ext_id, "module": name,
        "moduleVersion": version, "nextPieceSlotId": "0", "vassalVersion": vassal_version,
        "version": EXTENSION_VERSION})
    components: list[tuple[str, etree._Element]] = []
    notes: list[str] = []
    help_files = [_element(P + "module.documentation.BrowserHelpFile", {"startingPage": url, "title": title})
                  for title, url in help_items(port, sides)]
    if len(help_files) > 1:
        notes.append("a side name is not URL-safe ($PlayerSide$ would break VASSAL's URL): "
                     "one Help item per side")
    documentation = next((child for child in root if child.tag == DOCUMENTATION), None)
    if documentation is not None:
        components.extend((target_path(root, documentation), item) for item in help_files)
    else:  # no Help menu component yet: the extension brings one, holding the items
        holder = _element(DOCUMENTATION, {})
        holder.extend(help_files)
        components.append(("", holder))
    window = _element(P + "module.ChartWindow", {
        "description": "What Adjutant does, and links to its live report", "hotkey": "", "icon": "",
        "name": "Adjutant", "text": "Adjutant", "tooltip": "Adjutant: what it does, how to load its logs"})
    window.append(_element(P + "widget.HtmlChart", {"chartName": "Adjutant", "description": "",
                                                    "fileName": CHART_FILE}))
    components.append(("", window))
    if zones:
        if pack is None or writeback is None:
            raise InputError("--zones", "needs --pack: the zones come from the pack's "
                                        "[vassal.writeback.points]")
        added, zone_notes = _zones(root, pack, writeback)
        notes.extend(zone_notes)
        components.extend(added)
        if not added:
            notes.append("no zones added: no pack box with a polygon lacks a module zone")
    for target, component in components:
        wrapper = _element(ELEMENT_TAG, {"target": target})
        wrapper.append(component)
        extension.append(wrapper)
    build_file = _xml_bytes(extension)
    extensiondata = _extensiondata(description, vassal_version)
    return Built(name, version, vassal_version, ext_id, build_file, extensiondata, moduledata,
                 chart_html(port, sides, name), [(t, str(c.tag)) for t, c in components], notes)


def _extensiondata(description: str, vassal_version: str) -> bytes:
    """`ExtensionMetaData.save`: AbstractMetaData's fields plus `universal` (spec §3.1)."""
    data = etree.Element("data", version="1")
    for tag, value in (("version", EXTENSION_VERSION), ("extra1", ""), ("extra2", ""),
                       ("VassalVersion", vassal_version), ("dateSaved", str(int(time.time() * 1000))),
                       ("description", description), ("universal", "false")):
        child = etree.SubElement(data, tag)
        if value:
            child.text = value
    return _xml_bytes(data)


def _xml_bytes(node: etree._Element) -> bytes:
    """The XML declaration as VASSAL's own writer (the JDK transformer) spells it, then the tree."""
    return b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + etree.tostring(
        node, encoding="UTF-8", pretty_print=True)


def build_entry(vassal_version: str) -> str:
    """The entry VASSAL reads an extension's components from: `ModuleExtension.build` opens the legacy
    `buildFile` when the extensiondata's VassalVersion is below 3.5 (truncated to major.minor), else
    `buildFile.xml` (what `ModuleExtension.write` names it). An extension for a module built before
    3.5 carries that module's version, so it must name its entry `buildFile`, or VASSAL loads it
    empty ("Extension … v0.0 loaded" with nothing added); VASSAL before 3.5 reads only `buildFile`."""
    return "buildFile" if major_minor(vassal_version) < (3, 5) else "buildFile.xml"


def write_extension(built: Built, out: str | Path, exclusive: bool = False) -> Path:
    """The .vmdx zip (its build entry, extensiondata, moduledata copy, the chart page), temp name + rename
    (`exclusive`: the name must be new at the instant of writing, `vassal_parser.atomic.AlreadyExists`)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(build_entry(built.vassal_version), built.build_file)
        archive.writestr("extensiondata", built.extensiondata)
        if built.moduledata is not None:
            archive.writestr("moduledata", built.moduledata)
        archive.writestr(CHART_FILE, built.chart_html.encode("utf-8"))
    return write_atomically(Path(out), buffer.getvalue(), exclusive=exclusive)
