"""The map inset of the HTML report: static SVG panels laid out as the live overlay lays them out.

Why not one SVG over every hex: an event's hexes can lie in far-apart places (Case Yellow names
Paris, Brussels and Lyon; Finest Hour Paris and Marseille), and one drawing spanning them shrinks the
hexes until the names run past the picture's edge ("usse", "ome") and the counters sit on the hex ids.
As bridge/web/overlay/inset.js does, each cluster of nearby named hexes is its own panel, drawn at a size
where a hex can be read; in each hex the place name, the hex id and the counters (each with its name)
are stacked, every line given the width the hex outline leaves at its height. A report is a file read
later, with no script to measure text: a line whose estimated width exceeds its room is shortened and
then fitted with SVG's own `textLength`, so no text leaves its hex, and no hex leaves its panel.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

CLUSTER_REACH = 2.5  # hex widths between named centres that still share a panel (as inset.js)
HEX_PX = 100  # on-screen size of a hex
PANEL_PAD = 0.15  # of a hex width around each panel's hexes
SIZES = {"place": 13.0, "id": 11.0, "counter": 11.0}  # on-screen font sizes, px
CHAR_EM = 0.6  # estimated glyph width (Arial, mixed case: ~0.5 em): the estimate errs wide


def _h(text: Any) -> str:
    return html.escape(str(text), quote=True)


class _Cell:
    def __init__(self, hex_: Mapping[str, Any], index: int) -> None:
        self.hex = hex_
        self.index = index
        self.points = [(float(x), float(y)) for x, y in hex_["points"]]
        xs = [p[0] for p in self.points]
        ys = [p[1] for p in self.points]
        self.box = (min(xs), min(ys), max(xs), max(ys))
        center = hex_.get("center")
        if isinstance(center, (list, tuple)) and len(center) >= 2:
            self.cx, self.cy = float(center[0]), float(center[1])
        else:
            self.cx, self.cy = sum(xs) / len(xs), sum(ys) / len(ys)
        self.width = self.box[2] - self.box[0]
        self.height = self.box[3] - self.box[1]
        self.counters: list[Mapping[str, Any]] = []

    def width_at(self, y: float) -> float:
        """Where a horizontal line at y crosses the outline: the hex's width there."""
        xs = []
        for (x1, y1), (x2, y2) in zip(self.points, [*self.points[1:], self.points[0]], strict=True):
            if min(y1, y2) <= y <= max(y1, y2):
                if y1 == y2:
                    xs += [x1, x2]
                else:
                    xs.append(x1 + (y - y1) * (x2 - x1) / (y2 - y1))
        return max(xs) - min(xs) if len(xs) >= 2 else 0.0

    def room(self, top: float, bottom: float, margin: float) -> float:
        return max(0.0, min(self.width_at(top), self.width_at(bottom)) - 2 * margin)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else 1.0


def _panels(cells: list[_Cell], hex_width: float) -> list[list[_Cell]]:
    """Single-linkage clusters of the named (focus) hexes; each neighbour joins its nearest named hex."""
    named = [c for c in cells if c.hex.get("focus") is True] or cells
    parent = {id(c): c for c in named}

    def root(cell: _Cell) -> _Cell:
        while parent[id(cell)] is not cell:
            cell = parent[id(cell)]
        return cell

    reach = CLUSTER_REACH * hex_width
    for i, a in enumerate(named):
        for b in named[i + 1:]:
            if math.hypot(a.cx - b.cx, a.cy - b.cy) <= reach:
                parent[id(root(b))] = root(a)
    groups: dict[int, list[_Cell]] = {}
    for cell in cells:
        anchor = cell if id(cell) in parent else min(
            named, key=lambda n: math.hypot(cell.cx - n.cx, cell.cy - n.cy))
        groups.setdefault(id(root(anchor)), []).append(cell)
    panels = [sorted(group, key=lambda c: c.index) for group in groups.values()]
    return sorted(panels, key=lambda group: group[0].index)


def _cell_of(counter: Mapping[str, Any], cells: list[_Cell]) -> _Cell:
    for cell in cells:
        if counter.get("hex") and cell.hex.get("name") == counter.get("hex"):
            return cell
    x, y = float(counter["x"]), float(counter["y"])
    return min(cells, key=lambda c: math.hypot(c.cx - x, c.cy - y))


def _wrap(name: str, max_chars: int) -> list[str]:
    """A place name in at most two lines, split near its middle at a space or hyphen."""
    if len(name) <= max_chars:
        return [name]
    cuts = [i for i in range(1, len(name) - 1) if name[i] in " -"]
    if not cuts:
        return [name]
    cut = min(cuts, key=lambda i: abs(i - len(name) / 2))
    return [name[:cut + 1] if name[cut] == "-" else name[:cut], name[cut + 1:]]


def _text(x: float, y: float, size: float, text: str, room: float, cls: str, anchor: str = "middle") -> str:
    """One line of text that never runs wider than `room`: shortened with "…", then fitted."""
    estimate = len(text) * size * CHAR_EM
    shown = text
    while len(shown) > 2 and len(shown) * size * CHAR_EM * 0.72 > room:
        shown = shown[:-1]
    if shown != text:
        shown = shown.rstrip() + "…"
        estimate = len(shown) * size * CHAR_EM
    fit = f' textLength="{room:.1f}" lengthAdjust="spacingAndGlyphs"' if estimate > room else ""
    full = f' data-full="{_h(text)}"' if shown != text else ""
    return (f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" font-size="{size:.2f}" text-anchor="{anchor}"'
            f'{fit}{full}>{_h(shown)}</text>')


def _cell_contents(cell: _Cell, unit: float) -> list[str]:
    """Place name, hex id and counters stacked in the middle of the hex, each line inside the outline."""
    sizes = {k: v * unit for k, v in SIZES.items()}
    line = 1.18
    margin = 4 * unit
    middle_room = cell.room(cell.cy - sizes["place"] * line, cell.cy + sizes["place"] * line, margin)
    max_chars = max(4, int(middle_room / (sizes["place"] * CHAR_EM)))
    lines: list[tuple[str, str, float]] = []
    if cell.hex.get("label"):
        lines += [(part, "place", sizes["place"]) for part in _wrap(str(cell.hex["label"]), max_chars)]
    if cell.hex.get("name"):
        lines.append((str(cell.hex["name"]), "hex-id", sizes["id"]))
    counters = cell.counters
    rows = 0 if not counters else min(len(counters), 2)
    row_height = sizes["counter"] * line * 1.1
    top = cell.cy - (sum(size * line for _t, _c, size in lines) + rows * row_height) / 2
    out = []
    for text, cls, size in lines:
        bottom = top + size * line
        out.append(_text(cell.cx, bottom - size * 0.3, size, text, cell.room(top, bottom, margin), cls))
        top = bottom
    side = sizes["counter"] * 0.8
    shown = counters if len(counters) <= 2 else counters[:1]
    for row, counter in enumerate(shown):
        name = str(counter.get("name") or counter.get("counter") or "counter")
        if len(counters) > 2:
            name = f"{name} and {len(counters) - 1} more"
        room = cell.room(top + row * row_height, top + (row + 1) * row_height, margin)
        text_room = max(room - side * 1.35, unit)
        width = min(text_room, len(name) * sizes["counter"] * CHAR_EM)
        left = cell.cx - (side * 1.35 + width) / 2
        y = top + row * row_height + (row_height - side) / 2
        title = ", ".join(str(c.get("name") or c.get("counter") or "counter") for c in counters)
        out.append(f'<rect class="counter" x="{left:.1f}" y="{y:.1f}" width="{side:.1f}" height="{side:.1f}">'
                   f"<title>{_h(title if len(counters) > 2 else name)}</title></rect>")
        out.append(_text(left + side * 1.35, y + side * 0.92, sizes["counter"], name, text_room,
                         "counter-name", anchor="start"))
    return out


def _moves(panels: list[list[_Cell]], steps: Sequence[Mapping[str, Any]],
           counters: list[Mapping[str, Any]]) -> list[tuple[int, int, str]]:
    """(from panel, to panel, counter name) for each step that moves a counter between panels."""
    where: dict[str, int] = {}
    for index, panel in enumerate(panels):
        for cell in panel:
            for key in (cell.hex.get("name"), cell.hex.get("label")):
                if key:
                    where.setdefault(str(key), index)

    def panel_of(place: Any) -> int | None:
        if not isinstance(place, str) or not place:
            return None
        if place in where:
            return where[place]
        return next((i for name, i in where.items() if len(name) >= 3 and (
            place.startswith(name) or place.endswith(name))), None)

    out = []
    for step in steps:
        a, b = panel_of(step.get("from")), panel_of(step.get("to"))
        if a is None or b is None or a == b:
            continue
        drawn = next((c for c in counters if step.get("counter") and step.get("counter") in (
            c.get("counter"), c.get("name"))), None)
        out.append((a, b, str((drawn or {}).get("name") or step.get("counter") or "")))
    return out


def inset_html(inset: Mapping[str, Any] | None, steps: Sequence[Mapping[str, Any]] = ()) -> str:
    """An event's map inset (bridge/mapping/inset.py shape) as static HTML: one SVG panel per cluster."""
    if not isinstance(inset, Mapping):
        return ""
    hexes = [h for h in inset.get("hexes", []) if isinstance(h, Mapping) and len(h.get("points") or []) >= 3]
    if not hexes:
        return ""
    cells = [_Cell(h, i) for i, h in enumerate(hexes)]
    hex_size = _median([min(c.width, c.height) for c in cells]) or 1.0
    panels = _panels(cells, _median([c.width for c in cells]) or 1.0)
    counters = [c for c in inset.get("counters", []) if isinstance(c, Mapping)
                and isinstance(c.get("x"), (int, float)) and isinstance(c.get("y"), (int, float))]
    for counter in counters:
        _cell_of(counter, cells).counters.append(counter)
    moves = _moves(panels, [s for s in steps if isinstance(s, Mapping)], counters)
    pad = PANEL_PAD * hex_size
    boxes = [(min(c.box[0] for c in p) - pad, min(c.box[1] for c in p) - pad,
              max(c.box[2] for c in p) + pad, max(c.box[3] for c in p) + pad) for p in panels]
    # Screen px per map px. A panel wider than the page is shrunk whole by the page's CSS
    # (max-width: 100%), text and hexes together, so what fits its hex here fits it there.
    scale = HEX_PX / hex_size
    unit = 1 / scale
    out = [f'<div class="insets" data-panels="{len(panels)}">']
    for index, (panel, (x0, y0, x1, y1)) in enumerate(zip(panels, boxes, strict=True)):
        if index:
            forward = [m for m in moves if (m[0], m[1]) == (index - 1, index)]
            backward = [m for m in moves if (m[0], m[1]) == (index, index - 1)]
            if forward or backward:
                arrow = "⇄" if forward and backward else "→" if forward else "←"
                names = ", ".join(dict.fromkeys(m[2] for m in forward + backward if m[2]))
                out.append(f'<span class="inset-link">{arrow} {_h(names)}</span>')
        width, height = x1 - x0, y1 - y0
        parts = [f'<figure class="inset-panel"><svg class="inset" xmlns="http://www.w3.org/2000/svg" '
                 f'viewBox="{x0:.1f} {y0:.1f} {width:.1f} {height:.1f}" width="{width * scale:.0f}" '
                 f'height="{height * scale:.0f}" role="img" aria-label="map inset">']
        for cell in panel:
            points = " ".join(f"{x:.1f},{y:.1f}" for x, y in cell.points)
            focus = " focus" if cell.hex.get("focus") else ""
            parts.append(f'<polygon class="hex{focus}" data-hex="{_h(cell.hex.get("name", ""))}" '
                         f'points="{points}"/>')
        for cell in panel:
            parts += _cell_contents(cell, unit)
        parts.append("</svg>")
        role = ("from " if any(m[0] == index for m in moves)
                else "to " if any(m[1] == index for m in moves) else "")
        named = [" ".join(str(v) for v in (c.hex.get("label"), c.hex.get("name")) if v)
                 for c in panel if c.hex.get("focus")]
        caption = (role + ", ".join(named)).strip()
        if caption:
            parts.append(f"<figcaption>{_h(caption)}</figcaption>")
        parts.append("</figure>")
        out.append("".join(parts))
    out.append("</div>")
    return "".join(out)
