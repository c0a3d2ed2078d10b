"""Build the demo VASSAL module (`demo/adjutant-demo.vmod`) from `demo/world.toml` with lxml.

Why generate it: the demo must be our own (no published module's art or data), open in VASSAL 3.7,
and be byte-identical on every build so that a test can prove the checked-in module is what this
code makes.  Images are simple SVGs (VASSAL renders SVG); the zip has fixed timestamps and order.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

from lxml import etree

from module_patches.demo_pieces import CARD_BACK, basic_type, chain, slot_traits
from module_patches.demo_world import DEMO_DIR, MAIN_MAP, WORLD, BoardSpec, CounterSpec, World
from vassal_parser.sequence import encode
from vassal_parser.writer import write_atomically

MODULE_FILE = DEMO_DIR / "adjutant-demo.vmod"
FIXED_ZIP_DATE = (2026, 1, 1, 0, 0, 0)
P = "VASSAL.build."


# ---- images -----------------------------------------------------------------------------------
def _hex_polygon(cx: float, cy: float, dx: float, dy: float) -> str:
    r = 2 * dx / 3
    points = [(cx - r, cy), (cx - r / 2, cy - dy / 2), (cx + r / 2, cy - dy / 2), (cx + r, cy),
              (cx + r / 2, cy + dy / 2), (cx - r / 2, cy + dy / 2)]
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def board_svg(world: World, board: BoardSpec) -> str:
    grid = world.hexgrid
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{grid.width}" height="{grid.height}">',
           f'<rect width="{grid.width}" height="{grid.height}" fill="rgb({board.color})"/>']
    for col in range(grid.columns):
        for row in range(grid.rows):
            cx, cy = grid.centre(col, row)
            name = board.hex_name(col, row)
            place = world.places.get(name)
            fill = "#f5f0dc" if place else "none"
            out.append(f'<polygon points="{_hex_polygon(cx, cy, grid.dx, grid.dy)}" fill="{fill}" '
                       f'stroke="#7a7a6a" stroke-width="1"/>')
            out.append(f'<text x="{cx}" y="{cy - 12}" font-size="8" text-anchor="middle" '
                       f'fill="#555">{name[1:]}</text>')
            if place:
                out.append(f'<circle cx="{cx}" cy="{cy}" r="4" fill="#222"/>')
                out.append(f'<text x="{cx}" y="{cy + 15}" font-size="9" text-anchor="middle" '
                           f'font-weight="bold">{escape(place)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def boxes_svg(world: World) -> str:
    width, height = world.boxes_size
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">',
           f'<rect width="{width}" height="{height}" fill="#ece7d9"/>']
    for box in world.boxes:
        out.append(f'<rect x="{box.x}" y="{box.y}" width="{box.width}" height="{box.height}" '
                   f'fill="#fffaf0" stroke="#333" stroke-width="2"/>')
        out.append(f'<text x="{box.x + 6}" y="{box.y + 16}" font-size="12">{escape(box.name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def counter_svg(world: World, counter: CounterSpec, reduced: bool = False) -> str:
    nation = world.nations[counter.nation]
    lines = [nation["code"], *counter.name.split(" ", 1)[1:]]
    if counter.kind == "ground" and counter.steps:
        lines.append(f"{counter.steps - 1 if reduced else counter.steps} step(s)")
    if counter.code:
        lines.append(counter.code)
    fill = "#ffffff" if reduced else nation["color"]
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="60" height="60">',
           f'<rect x="1" y="1" width="58" height="58" rx="4" fill="{fill}" stroke="#111" stroke-width="2"/>']
    if counter.stripe:
        out.append('<rect x="2" y="50" width="56" height="6" fill="#c00"/>')
    for index, line in enumerate(lines[:4]):
        out.append(f'<text x="30" y="{15 + 12 * index}" font-size="9" text-anchor="middle">'
                   f'{escape(line)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def level_svg(text: str) -> str:
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="60" height="60">'
            '<rect x="1" y="1" width="58" height="58" rx="4" fill="#f0e68c" stroke="#111" stroke-width="2"/>'
            f'<text x="30" y="34" font-size="9" text-anchor="middle">{escape(text)}</text></svg>')


def images(world: World) -> dict[str, str]:
    files: dict[str, str] = {}
    for board in world.boards:
        files[f"{board.name.lower()}.svg"] = board_svg(world, board)
    files["boxes.svg"] = boxes_svg(world)
    files[CARD_BACK] = level_svg("card")
    for counter in world.counters:
        files[counter.image] = counter_svg(world, counter)
        if counter.layer == "strength":
            files[f"{counter.id.lower()}-reduced.svg"] = counter_svg(world, counter, reduced=True)
        elif counter.layer != "none":
            for index, level in enumerate(world.layers[counter.layer]):
                files[f"{counter.layer}-{index}.svg"] = level_svg(level)
    return files


# ---- buildFile.xml -----------------------------------------------------------------------------
def _el(parent: etree._Element, tag: str, text: str | None = None, **attrs: str) -> etree._Element:
    element = etree.SubElement(parent, P + tag, {k: str(v) for k, v in sorted(attrs.items())})
    if text is not None:
        element.text = text
    return element


def _map(root: etree._Element, name: str, button: str) -> etree._Element:
    return _el(root, "module.Map", allowMultiple="false", backgroundcolor="255,255,255", buttonName=button,
               changeFormat="$message$", color="0,0,0", createFormat="$pieceName$ created in $location$",
               edgeHeight="0", edgeWidth="0", hideKey="", hotkey="", icon="", launch="true", mapName=name,
               markMoved="Never", markUnmovedHotkey="", markUnmovedIcon="", markUnmovedReport="",
               markUnmovedText="", markUnmovedTooltip="", moveKey="",
               moveToFormat="$pieceName$ moves $previousLocation$ -> $location$ *",
               moveWithinFormat="$pieceName$ moves $previousLocation$ -> $location$ *",
               onlyReportChangedLocation="false", showKey="", thickness="3")


def _map_tools(map_el: etree._Element) -> None:
    _el(map_el, "module.map.StackMetrics", bottom="40,0", disabled="false", down="37,0", exSepX="6",
        exSepY="18", top="38,0", unexSepX="3", unexSepY="5", up="39,0")
    for tool in ("ForwardToKeyBuffer", "Scroller", "ForwardToChatter", "MenuDisplayer", "MapCenterer",
                 "StackExpander", "PieceMover", "KeyBufferer", "SelectionHighlighters"):
        _el(map_el, f"module.map.{tool}")
    _el(map_el, "module.map.Zoomer", inButtonText="", inIconName="/images/zoomIn.gif", inTooltip="Zoom in",
        outButtonText="", outIconName="/images/zoomOut.gif", outTooltip="Zoom out", pickButtonText="",
        pickIconName="/images/zoom.png", pickTooltip="Select Zoom", zoomInKey="",
        zoomLevels="0.5,0.75,1.0,1.5", zoomOutKey="", zoomPickKey="", zoomStart="3")
    _el(map_el, "module.properties.GlobalProperties")


def _hex_board(picker: etree._Element, world: World, board: BoardSpec) -> None:
    grid = world.hexgrid
    board_el = _el(picker, "module.map.boardPicker.Board", image=f"{board.name.lower()}.svg", name=board.name,
                   reversible="false")
    grid_el = _el(board_el, "module.map.boardPicker.board.HexGrid", color="0,0,0", cornersLegal="false",
                  dotsVisible="false", dx=repr(grid.dx), dy=repr(grid.dy), edgesLegal="false",
                  sideways="false", snapTo="true", visible="false", x0=str(grid.x0), y0=str(grid.y0))
    # Rows count up from the bottom (vDescend) and the row is written first: `w3516` = row 35, col 16.
    _el(grid_el, "module.map.boardPicker.board.mapgrid.HexGridNumbering", color="0,0,0", first="V",
        fontSize="9", hDescend="false", hDrawOff="0", hLeading="1", hOff=str(board.first_column), hType="N",
        locationFormat=f"{board.prefix}$gridLocation$", rotateText="0", sep="", stagger="false",
        vDescend="true", vDrawOff="0", vLeading="1", vOff=str(board.v_off), vType="N", visible="false")


def _piece_slot(parent: etree._Element, world: World, counter: CounterSpec, gpid: int) -> None:
    traits = slot_traits(counter, world)
    type_ = chain([t for t, _ in traits] + [basic_type(counter)])
    state = chain([s for _, s in traits] + [f"null;0;0;{gpid};0"])
    command = "+/" + (encode(["null", type_, state], "/") or "")
    _el(parent, "widget.PieceSlot", command, entryName=counter.name, gpid=str(gpid), height="60", width="60")


def _prototype(parent: etree._Element, name: str) -> None:
    type_ = chain(["mark;Class", "piece;;;;"])
    state = chain([name, "null;0;0;;0"])
    _el(parent, "module.PrototypeDefinition", "+/" + (encode(["null", type_, state], "/") or ""),
        description=f"every demo {name.lower()}", name=name)


def build_file_xml(world: World) -> bytes:
    module = world.module
    root = etree.Element(P + "GameModule")
    root.set("ModuleOther1", "")
    root.set("ModuleOther2", "")
    root.set("VassalVersion", module["vassal_version"])
    root.set("description", module["description"])
    root.set("name", module["name"])
    root.set("nextPieceSlotId", str(len(world.counters) + 1))
    root.set("version", module["version"])
    _el(root, "module.BasicCommandEncoder")
    roster = _el(root, "module.PlayerRoster", buttonKeyStroke="", buttonText="Retire",
                 buttonToolTip="Switch sides, become observer, or release faction")
    for side in module["sides"]:
        entry = etree.SubElement(roster, "entry")
        entry.text = side
    _el(root, "module.GlobalOptions", autoReport="Always", centerOnMove="Use Preferences Setting",
        chatterHTMLSupport="Never", hotKeysOnClosedWindows="Never", inventoryForAll="Always",
        nonOwnerUnmaskable="Never", playerIdFormat="$PlayerName$", promptString="Opponents can unmask pieces")
    _el(root, "module.Chatter")
    _el(root, "module.KeyNamer")
    prototypes = _el(root, "module.PrototypesContainer")
    for name in ("Unit", "Marker", "Card"):
        _prototype(prototypes, name)

    europe = _map(root, MAIN_MAP, "Map")
    picker = _el(europe, "module.map.BoardPicker", addColumnText="Add column", addRowText="Add row",
                 boardPrompt="Select board", slotHeight="125", slotScale="0.2", slotWidth="350",
                 title="Choose Boards")
    for board in world.boards:
        _hex_board(picker, world, board)
    setup = [f"{MAIN_MAP}BoardPicker"]
    for board in world.boards:
        setup += [board.name, str(board.column), "0"]
    etree.SubElement(picker, "setup").text = encode(setup, "\t")
    _map_tools(europe)

    boxes = _map(root, world.boxes_window, world.boxes_window)
    box_picker = _el(boxes, "module.map.BoardPicker", addColumnText="Add column", addRowText="Add row",
                     boardPrompt="Select board", slotHeight="125", slotScale="0.2", slotWidth="350",
                     title="Choose Boards")
    box_board = _el(box_picker, "module.map.boardPicker.Board", image="boxes.svg", name=world.boxes_window,
                    reversible="false")
    zoned = _el(box_board, "module.map.boardPicker.board.ZonedGrid")
    for box in world.boxes:
        _el(zoned, "module.map.boardPicker.board.mapgrid.Zone", highlightProperty="", locationFormat="$name$",
            name=box.name, path=box.path, useHighlight="false", useParentGrid="false")
    _map_tools(boxes)

    window = _el(root, "module.PieceWindow", defaultWidth="0", hidden="false", hotkey="", icon="",
                 name="Counters", scale="1.0", text="Counters", tooltip="Show/Hide the counters")
    tabs = _el(window, "widget.TabWidget", entryName="Counters")
    gpid = 1
    for nation in world.nations:
        members = [c for c in world.counters if c.nation == nation]
        if not members:
            continue
        panel = _el(tabs, "widget.ListWidget", entryName=nation, divider="150", height="0", scale="1.0",
                    width="0")
        for counter in members:
            _piece_slot(panel, world, counter, gpid)
            gpid += 1
    _el(root, "module.DiceButton", addToTotal="0", canDisable="false", hotkey="", icon="", keepCount="1",
        keepDice="false", keepOption=">", lockAdd="false", lockDice="false", lockPlus="false",
        lockSides="false", nDice="1", nSides="6", name="1d6", plus="0", prompt="false", propertyGate="",
        reportFormat="** $name$ = $result$ *** <$PlayerName$>", reportTotal="false", sortDice="false",
        text="1d6", tooltip="Roll 1d6")
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=False, pretty_print=True)


def slot_gpids(world: World) -> dict[str, str]:
    """Counter id -> the gpid of its PieceSlot (same walk as `build_file_xml`)."""
    result: dict[str, str] = {}
    gpid = 1
    for nation in world.nations:
        for counter in (c for c in world.counters if c.nation == nation):
            result[counter.id] = str(gpid)
            gpid += 1
    return result


def moduledata_xml(world: World) -> bytes:
    module = world.module
    root = etree.Element("data", version="1")
    for tag, text in (("version", module["version"]), ("extra1", None), ("extra2", None),
                      ("VassalVersion", module["vassal_version"]), ("dateSaved", str(module["date_saved"])),
                      ("description", module["description"]), ("name", module["name"])):
        etree.SubElement(root, tag).text = text
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=False, pretty_print=True)


def module_bytes(world: World | None = None) -> bytes:
    """The whole .vmod as bytes: deterministic (fixed dates, sorted image entries)."""
    world = world or WORLD()
    entries: list[tuple[str, bytes]] = [("buildFile.xml", build_file_xml(world)),
                                        ("moduledata", moduledata_xml(world))]
    entries += [(f"images/{name}", text.encode("utf-8")) for name, text in sorted(images(world).items())]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=FIXED_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def write_file(path: Path, data: bytes) -> None:
    """Create the folder if needed; the write itself is atomic (temp name, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, data)


def build_module(path: Path = MODULE_FILE) -> Path:
    write_file(path, module_bytes())
    return path


__all__ = ["MODULE_FILE", "build_file_xml", "build_module", "module_bytes", "moduledata_xml", "slot_gpids"]
