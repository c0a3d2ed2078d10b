// Adjutant overlay: the map inset of one event (docs/protocol.md, "Map inset").
//
// Why panels: an event's hexes can lie in two far-apart places (a unit moved from Moscow to
// Brest-Litovsk). One SVG spanning both shrinks every hex to a dot, so each cluster of nearby hexes
// becomes its own panel, scaled so a hex is big enough to read, with an arrow between the "from"
// and the "to" panel. Everything is drawn from the geometry the daemon supplies (module map
// pixels); nothing is an image, and all text is set with textContent.
"use strict";

(function () {
  const SVG_NS = "http://www.w3.org/2000/svg";
  const CLUSTER_REACH = 2.5; // hex widths between centres that still belong in one panel
  const MIN_HEX_PX = 72; // below this a hex label is no longer readable
  const PANEL_PAD = 0.15; // of a hex width, around each panel's hexes
  const TIGHT_PAD = 0.3; // of a hex width, around a tight panel's named hexes (neighbours as a sliver)
  // On-screen sizes (px) per view: the stream is read from across a room.
  const SIZES = {
    player: { hex: 100, place: 13, id: 11, counter: 11 },
    control: { hex: 100, place: 13, id: 11, counter: 11 },
    stream: { hex: 120, place: 17, id: 14, counter: 13 },
  };

  function finite(value) {
    return typeof value === "number" && Number.isFinite(value);
  }

  function validPoint(point) {
    return Array.isArray(point) && point.length >= 2 && finite(point[0]) && finite(point[1]);
  }

  function median(values) {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  }

  /** A hex with its bounding box and centre (the supplied `center`, else its corners' mean). */
  function measureHex(hex, index) {
    const xs = hex.points.map((p) => p[0]);
    const ys = hex.points.map((p) => p[1]);
    const box = { minX: Math.min(...xs), maxX: Math.max(...xs), minY: Math.min(...ys), maxY: Math.max(...ys) };
    const centre = validPoint(hex.center)
      ? hex.center
      : [xs.reduce((s, x) => s + x, 0) / xs.length, ys.reduce((s, y) => s + y, 0) / ys.length];
    return { hex, index, box, cx: centre[0], cy: centre[1], width: box.maxX - box.minX, height: box.maxY - box.minY };
  }

  /**
   * Panels: single-linkage clusters of the hexes the event names (`focus`) whose centres are within
   * CLUSTER_REACH hex widths; each neighbour hex joins the panel of its nearest named hex. Why not
   * cluster every hex: neighbours form chains that would glue far-apart places back into one
   * oversized panel. With no `focus` flags at all, every hex counts as named.
   */
  function clusterHexes(cells, hexWidth) {
    const named = cells.some((cell) => cell.hex.focus === true) ? cells.filter((cell) => cell.hex.focus === true) : cells;
    const parent = new Map(named.map((cell) => [cell, cell]));
    const root = (cell) => (parent.get(cell) === cell ? cell : root(parent.get(cell)));
    const reach = CLUSTER_REACH * hexWidth;
    const distance = (a, b) => Math.hypot(a.cx - b.cx, a.cy - b.cy);
    for (let i = 0; i < named.length; i++) {
      for (let j = i + 1; j < named.length; j++) {
        if (distance(named[i], named[j]) <= reach) parent.set(root(named[j]), root(named[i]));
      }
    }
    const groups = new Map();
    for (const cell of cells) {
      const anchor = parent.has(cell) ? cell : named.reduce((best, n) => (distance(cell, n) < distance(cell, best) ? n : best));
      const key = root(anchor);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(cell);
    }
    // The daemon lists the hexes an event names first, in order of mention (a move's "from"
    // before its "to"), so ordering panels by their first hex reads left to right like the step.
    return [...groups.values()]
      .map((group) => group.sort((a, b) => a.index - b.index))
      .sort((a, b) => a[0].index - b[0].index)
      .map((group) => ({ cells: group, counters: [] }));
  }

  /** The cell a counter stands in: the one whose name is its `hex`, else the nearest centre. */
  function cellOfCounter(counter, cells) {
    const named = cells.find((cell) => counter.hex && cell.hex.name === counter.hex);
    if (named) return named;
    let best = null;
    let bestDistance = Infinity;
    for (const cell of cells) {
      const distance = Math.hypot(cell.cx - counter.x, cell.cy - counter.y);
      if (distance < bestDistance) [best, bestDistance] = [cell, distance];
    }
    return best;
  }

  /** The cell a step's `from`/`to` names: a pack hex id is the VASSAL location, or wraps it. */
  function cellNamed(id, cells) {
    if (typeof id !== "string" || !id) return null;
    return (
      cells.find((cell) => cell.hex.name === id || cell.hex.label === id) ||
      cells.find((cell) => cell.hex.name && cell.hex.name.length >= 3 && (id.startsWith(cell.hex.name) || id.endsWith(cell.hex.name))) ||
      null
    );
  }

  /** Moves between panels: [{from: panelIndex, to: panelIndex, what}] from the steps' from/to. */
  function movesBetween(panels, steps, counters) {
    const panelOf = new Map();
    panels.forEach((panel, i) => panel.cells.forEach((cell) => panelOf.set(cell, i)));
    const moves = [];
    for (const step of steps) {
      const from = cellNamed(step.from, [...panelOf.keys()]);
      const to = cellNamed(step.to, [...panelOf.keys()]);
      if (!from || !to || panelOf.get(from) === panelOf.get(to)) continue;
      // A step names a counter by its id (RU-1); the inset's counter gives the name players read.
      const drawn = counters.find((c) => step.counter && (c.counter === step.counter || c.name === step.counter));
      moves.push({ from: panelOf.get(from), to: panelOf.get(to), what: (drawn && drawn.name) || step.counter || step.piece || "" });
    }
    return moves;
  }

  /**
   * The map box a panel shows. `tight` (a stream band too small for the whole panel): only its named
   * hexes and a sliver of the neighbours around them, so the places themselves stay legible.
   */
  function panelBox(panel, hexWidth, tight) {
    const pad = (tight ? TIGHT_PAD : PANEL_PAD) * hexWidth;
    const named = tight ? panel.cells.filter((cell) => cell.hex.focus) : [];
    const box = { minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity };
    for (const cell of named.length ? named : panel.cells) {
      box.minX = Math.min(box.minX, cell.box.minX);
      box.maxX = Math.max(box.maxX, cell.box.maxX);
      box.minY = Math.min(box.minY, cell.box.minY);
      box.maxY = Math.max(box.maxY, cell.box.maxY);
    }
    return { x: box.minX - pad, y: box.minY - pad, width: box.maxX - box.minX + 2 * pad, height: box.maxY - box.minY + 2 * pad };
  }

  /** Whether a cell lies wholly inside a box (a tight box cuts its neighbours off). */
  function insideBox(cell, box) {
    const slack = 0.01 * Math.max(cell.width, cell.height);
    return cell.box.minX >= box.x - slack && cell.box.maxX <= box.x + box.width + slack &&
      cell.box.minY >= box.y - slack && cell.box.maxY <= box.y + box.height + slack;
  }

  /**
   * Pixels per map pixel: the view's hex size, shrunk (never below MIN_HEX_PX) to fit `limits`.
   * Returns null when even the minimum does not fit a limit marked `strict` (the stream drops the
   * inset rather than show it illegibly small).
   */
  function chooseScale(boxes, hexSize, targetPx, limits) {
    const rowWidth = boxes.reduce((s, b) => s + b.width, 0);
    const widest = Math.max(...boxes.map((b) => b.width));
    const tallest = Math.max(...boxes.map((b) => b.height));
    let px = targetPx; // on-screen size of one hex; the panels grow with it
    if (limits.width) {
      // Side by side reads best (the stream has only one row); a page wraps the panels rather
      // than shrink hexes much below the target.
      const inOneRow = (limits.width * hexSize) / rowWidth;
      px = Math.min(px, limits.oneRow || inOneRow >= 0.84 * targetPx ? inOneRow : (limits.width * hexSize) / widest);
    }
    if (limits.height) px = Math.min(px, (limits.height * hexSize) / tallest);
    if (px < limits.minPx) {
      if (limits.strict) return null;
      px = limits.minPx;
    }
    return px / hexSize;
  }

  /** Split a place name into at most two lines near its middle (at a space or hyphen). */
  function wrapName(name, maxChars) {
    if (name.length <= maxChars) return [name];
    let best = -1;
    for (let i = 1; i < name.length - 1; i++) {
      if ((name[i] === " " || name[i] === "-") && (best < 0 || Math.abs(i - name.length / 2) < Math.abs(best - name.length / 2))) best = i;
    }
    if (best < 0) return [name];
    const first = name[best] === "-" ? name.slice(0, best + 1) : name.slice(0, best);
    return [first, name.slice(best + 1)];
  }

  /** Width of the hex at height y (where a horizontal line crosses its outline), in map pixels. */
  function widthAt(points, y) {
    const xs = [];
    points.forEach((a, i) => {
      const b = points[(i + 1) % points.length];
      if ((a[1] <= y && y <= b[1]) || (b[1] <= y && y <= a[1])) {
        xs.push(a[1] === b[1] ? a[0] : a[0] + ((y - a[1]) * (b[0] - a[0])) / (b[1] - a[1]));
        if (a[1] === b[1]) xs.push(b[0]);
      }
    });
    return xs.length >= 2 ? Math.max(...xs) - Math.min(...xs) : 0;
  }

  /** Room for a line of text whose band is [top, bottom]: the narrower end, less a margin. */
  function roomFor(cell, top, bottom, unit) {
    return Math.max(0, Math.min(widthAt(cell.hex.points, top), widthAt(cell.hex.points, bottom)) - 8 * unit);
  }

  function svgNode(tag, attrs, text) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function drawPanel(panel, box, scale, sizes) {
    const svg = svgNode("svg", {
      class: "inset",
      viewBox: `${box.x} ${box.y} ${box.width} ${box.height}`,
      width: Math.round(box.width * scale),
      height: Math.round(box.height * scale),
      role: "img",
      "aria-label": "map inset",
    });
    const unit = 1 / scale; // one screen pixel, in map pixels
    for (const cell of panel.cells) {
      // `focus`: a hex the event names (the others are its neighbours, for context).
      svg.append(svgNode("polygon", {
        class: cell.hex.focus ? "hex focus" : "hex",
        "data-hex": cell.hex.name || "",
        points: cell.hex.points.map((p) => `${p[0]},${p[1]}`).join(" "),
      }));
    }
    // A neighbour cut off by a tight box keeps its outline, not its label or counters (they would be clipped).
    for (const cell of panel.cells.filter((c) => insideBox(c, box))) {
      svg.append(drawCellContents(cell, panel.counters.filter((c) => c.cell === cell), unit, sizes));
    }
    return svg;
  }

  /**
   * A hex's label (place name, hex id) and its counters, stacked and centred in the hex. Each line
   * gets the width the outline leaves at its height (a hex narrows away from its middle), so
   * labels are wrapped or squeezed to stay inside their hex and never clipped by the panel.
   */
  function drawCellContents(cell, counters, unit, sizes) {
    const group = svgNode("g", { class: "hex-label", "data-hex": cell.hex.name || "" });
    const lineHeight = (size) => size * 1.18 * unit;
    const middleRoom = roomFor(cell, cell.cy - lineHeight(sizes.place), cell.cy + lineHeight(sizes.place), unit);
    const maxChars = Math.max(4, Math.floor(middleRoom / (sizes.place * unit * 0.58)));
    const lines = [];
    if (cell.hex.label) for (const part of wrapName(String(cell.hex.label), maxChars)) lines.push({ text: part, cls: "place", size: sizes.place });
    if (cell.hex.name) lines.push({ text: String(cell.hex.name), cls: "hex-id", size: sizes.id });
    const rows = counters.length === 0 ? 0 : counters.length <= 2 ? counters.length : 1;
    const rowHeight = lineHeight(sizes.counter) * 1.1;
    const blockHeight = lines.reduce((s, line) => s + lineHeight(line.size), 0) + rows * rowHeight;
    let top = cell.cy - blockHeight / 2;
    for (const line of lines) {
      const bottom = top + lineHeight(line.size);
      group.append(svgNode("text", {
        class: line.cls, x: cell.cx, y: bottom - line.size * 0.3 * unit, "text-anchor": "middle",
        "font-size": line.size * unit, "data-max": roomFor(cell, top, bottom, unit),
      }, line.text));
      top = bottom;
    }
    drawCounters(group, cell, counters, top, rowHeight, unit, sizes);
    return group;
  }

  /** Counters as small labelled squares; more than two in a hex become a row of squares and a count. */
  function drawCounters(group, cell, counters, top, rowHeight, unit, sizes) {
    const side = sizes.counter * 0.8 * unit;
    const square = (x, y, width, counter) => {
      const rect = svgNode("rect", { class: "counter", x, y, width, height: side });
      rect.append(svgNode("title", {}, counter.name || counter.counter || "counter"));
      group.append(rect);
    };
    const band = (row) => {
      const room = roomFor(cell, top + row * rowHeight, top + (row + 1) * rowHeight, unit);
      const y = top + row * rowHeight + (rowHeight - side) / 2;
      return { room, y };
    };
    if (counters.length <= 2) {
      counters.forEach((counter, row) => {
        const name = String(counter.name || counter.counter || "");
        const { room, y } = band(row);
        const textRoom = room - side * 1.35;
        const textWidth = Math.min(textRoom, name.length * sizes.counter * 0.56 * unit);
        const left = cell.cx - (side * 1.35 + textWidth) / 2;
        square(left, y, side, counter);
        group.append(svgNode("text", {
          class: "counter-name", x: left + side * 1.35, y: y + side * 0.92, "font-size": sizes.counter * unit,
          "data-max": textRoom,
        }, name));
      });
      return;
    }
    const count = `${counters.length} units`;
    const { room, y } = band(0);
    const countWidth = Math.min(room * 0.6, count.length * sizes.counter * 0.56 * unit);
    const gap = side * 0.2;
    const squareWidth = Math.max(unit * 3, Math.min(side, (room - countWidth - gap * (counters.length + 1)) / counters.length));
    let x = cell.cx - (counters.length * (squareWidth + gap) + countWidth) / 2;
    for (const counter of counters) {
      square(x, y, squareWidth, counter);
      x += squareWidth + gap;
    }
    group.append(svgNode("text", { class: "counter-name", x, y: y + side * 0.92, "font-size": sizes.counter * unit,
      "data-max": Math.max(room - (x - (cell.cx - room / 2)), countWidth) }, count));
  }

  function caption(panel, index, moves) {
    const role = moves.some((m) => m.from === index) ? "from " : moves.some((m) => m.to === index) ? "to " : "";
    const named = panel.cells.filter((cell) => cell.hex.focus).map((cell) => [cell.hex.label, cell.hex.name].filter(Boolean).join(" "));
    return (role + (named.length ? named.join(", ") : "")).trim();
  }

  function linkBetween(left, right, moves) {
    const link = document.createElement("div");
    link.className = "inset-link";
    const forward = moves.filter((m) => m.from === left && m.to === right);
    const backward = moves.filter((m) => m.from === right && m.to === left);
    if (!forward.length && !backward.length) return null;
    const arrow = document.createElement("span");
    arrow.className = "arrow";
    arrow.textContent = forward.length && backward.length ? "⇄" : forward.length ? "→" : "←";
    const what = document.createElement("span");
    what.className = "what";
    what.textContent = [...new Set([...forward, ...backward].map((m) => m.what).filter(Boolean))].join(", ");
    link.append(arrow, what);
    return link;
  }

  /**
   * Which panels matter most when not all fit: a panel with a hex a step names (its from/to, or its
   * text) comes first, then one with counters, then the rest (e.g. the other hexes of a country a
   * step changes); ties keep the reading order. Returns panel indices, most important first.
   */
  function panelRanks(panels, steps) {
    const named = (cell) => steps.some((step) => step && (cellNamed(step.from, [cell]) || cellNamed(step.to, [cell]) ||
      (cell.hex.name && String(step.text || "").split(/[^A-Za-z0-9_.:-]+/).includes(String(cell.hex.name)))));
    const rank = (panel) => (panel.cells.some((cell) => cell.hex.focus !== false && named(cell)) ? 0 : panel.counters.length ? 1 : 2);
    return panels.map((panel, index) => ({ index, rank: rank(panel) }))
      .sort((a, b) => a.rank - b.rank || a.index - b.index)
      .map((entry) => entry.index);
  }

  /** A panel's named places as players read them: "Brest-Litovsk (e3806)". */
  function placeNames(panel) {
    const focus = panel.cells.filter((cell) => cell.hex.focus);
    return (focus.length ? focus : panel.cells.slice(0, 1)).map((cell) =>
      cell.hex.label && cell.hex.name ? `${cell.hex.label} (${cell.hex.name})` : String(cell.hex.label || cell.hex.name || "a hex"));
  }

  /**
   * What the inset of `map` shows under `options` ({view, maxWidth, maxHeight, fontScale, gapPx}): its
   * panels, the scale, and (stream) which panels were left out to fit. Why leave panels out rather
   * than the whole inset: the stream has one row and a legible minimum hex, so an event about six
   * far-apart places (16.5.4 redeploying two units, the other hexes of Russia) fits none of them at
   * the default scale; the places the steps name still fit, and "+N more" says the rest exist.
   * Returns null when no hex is drawable or not even one panel is legible.
   */
  function layout(map, steps, options) {
    if (!map || typeof map !== "object") return null;
    const hexes = Array.isArray(map.hexes)
      ? map.hexes.filter((h) => h && Array.isArray(h.points) && h.points.length >= 3 && h.points.every(validPoint))
      : [];
    if (hexes.length === 0) return null;
    steps = Array.isArray(steps) ? steps : [];
    const cells = hexes.map(measureHex);
    const hexWidth = median(cells.map((c) => Math.min(c.width, c.height))) || 1;
    const panels = clusterHexes(cells, median(cells.map((c) => c.width)) || 1);
    const counters = Array.isArray(map.counters) ? map.counters.filter((c) => c && finite(c.x) && finite(c.y)) : [];
    for (const counter of counters) {
      const cell = cellOfCounter(counter, cells);
      const panel = panels.find((p) => p.cells.includes(cell));
      panel.counters.push({ ...counter, cell });
    }
    const moves = movesBetween(panels, steps, counters);
    const view = options.view in SIZES ? options.view : "player";
    // The stream's type grows with the browser source's height; its inset grows with it.
    const grow = finite(options.fontScale) && options.fontScale > 0 ? options.fontScale : 1;
    const sizes = Object.fromEntries(Object.entries(SIZES[view]).map(([key, px]) => [key, px * grow]));
    let boxes = panels.map((panel) => panelBox(panel, hexWidth, false));
    const ranks = panelRanks(panels, steps);
    const linked = (a, b) => moves.some((m) => (m.from === a && m.to === b) || (m.from === b && m.to === a));
    const scaleFor = (kept) => {
      // px for the arrows between panels (drawn only where a step moves a counter between them), for
      // "+N more" when some are left out, and for the gaps between all of them
      const links = kept.slice(1).filter((index, i) => linked(kept[i], index)).length;
      const more = kept.length < panels.length ? 1 : 0;
      const gap = finite(options.gapPx) && options.gapPx > 0 ? options.gapPx : 0;
      const allowance = links * 90 + more * (gap ? 7.5 * gap : 90) + (kept.length + links + more - 1) * gap;
      return chooseScale(kept.map((i) => boxes[i]), hexWidth, sizes.hex, {
        width: options.maxWidth ? Math.max(options.maxWidth - (view === "stream" ? allowance : 0), 1) : null,
        height: options.maxHeight || null,
        strict: view === "stream",
        oneRow: view === "stream",
        minPx: MIN_HEX_PX * grow,
      });
    };
    // `maxPanels`: the stream's band has room for fewer (overlay.js, fitStream).
    const most = finite(options.maxPanels) && options.maxPanels >= 1 ? Math.floor(options.maxPanels) : panels.length;
    let kept = ranks.slice(0, most).sort((a, b) => a - b);
    let scale = scaleFor(kept);
    if (scale === null) {
      // The whole panels do not fit (the stream): their named hexes alone, before any place is left out.
      boxes = panels.map((panel) => panelBox(panel, hexWidth, true));
      // A panel too big to be legible even on its own (a tall cluster in a short band) goes first.
      kept = ranks.filter((i) => scaleFor([i]) !== null).slice(0, most).sort((a, b) => a - b);
      scale = kept.length ? scaleFor(kept) : null;
    }
    // Only a strict view (the stream) gets null: leave out the least important panel until the rest fit.
    while (scale === null && kept.length > 1) {
      const drop = ranks.filter((i) => kept.includes(i)).pop();
      kept = kept.filter((i) => i !== drop);
      scale = scaleFor(kept);
    }
    if (scale === null) kept = [];
    const leftOut = panels.map((_, i) => i).filter((i) => !kept.includes(i));
    return { panels, boxes, moves, scale, sizes, hexWidth, kept, leftOut };
  }

  /**
   * What the stream would show of an inset, as place names: {shown, leftOut} (the control view says
   * which places do not fit on air, and why, so the stream itself stays clean).
   */
  function onAir(map, steps, options) {
    const fitted = layout(map, steps, { ...options, view: "stream" });
    if (!fitted) return null;
    const names = (indices) => indices.flatMap((i) => placeNames(fitted.panels[i]));
    return fitted.kept.length ? { shown: names(fitted.kept), leftOut: names(fitted.leftOut) } : { shown: [], leftOut: names(fitted.leftOut) };
  }

  /** The "+N more places" note at the end of a row that leaves panels out. */
  function moreNote(count) {
    const more = document.createElement("div");
    more.className = "inset-more";
    more.textContent = `+ ${count} more place${count === 1 ? "" : "s"}`;
    return more;
  }

  /**
   * The inset for `map` (with the event's `steps` for from/to arrows), or null when it has no
   * drawable hex or (stream) not even one panel would be legible. `options`: {view, maxWidth,
   * maxHeight, fontScale, gapPx, maxPanels}. A row that leaves places out says how many (`data-left-out`, "+N more").
   */
  function render(map, steps, options) {
    const fitted = layout(map, steps, options);
    if (!fitted || fitted.kept.length === 0) return null;
    const { panels, boxes, moves, scale, sizes, hexWidth, kept, leftOut } = fitted;
    // Hexes shrunk to fit: shrink their type a little too (not below 80%), so labels keep fitting.
    const shrink = Math.max(Math.min((scale * hexWidth) / sizes.hex, 1), 0.8);
    for (const key of Object.keys(sizes)) sizes[key] *= shrink;
    const row = document.createElement("div");
    row.className = "insets";
    row.dataset.panels = String(kept.length);
    kept.forEach((index, position) => {
      if (position > 0) {
        const link = linkBetween(kept[position - 1], index, moves);
        if (link) row.append(link);
      }
      const figure = document.createElement("figure");
      figure.className = "inset-panel";
      figure.dataset.places = placeNames(panels[index]).join(", ");
      figure.append(drawPanel(panels[index], boxes[index], scale, sizes));
      const text = caption(panels[index], index, moves);
      if (text) {
        const figcaption = document.createElement("figcaption");
        figcaption.textContent = text;
        figure.append(figcaption);
      }
      row.append(figure);
    });
    // Counted in places, as the control view names them (a panel may hold two).
    const places = leftOut.reduce((sum, i) => sum + placeNames(panels[i]).length, 0);
    row.dataset.leftOut = String(places);
    if (places) row.append(moreNote(places));
    return row;
  }

  const MIN_SQUEEZE = 0.72; // narrower glyphs than this read badly: shorten the text instead

  /**
   * Once the inset is in the document: fit any label wider than its hex allows (fonts differ from
   * the estimate used to wrap) by squeezing it a little, or shortening it with "…" (the full text
   * stays in `data-full`), so no text runs out of its hex or is clipped by its panel.
   */
  function fitLabels(root) {
    for (const text of root.querySelectorAll("svg.inset text[data-max]")) {
      const max = Number(text.getAttribute("data-max"));
      if (!(finite(max) && max > 0) || text.getComputedTextLength() <= max) continue;
      const full = text.textContent;
      let shown = full;
      while (shown.length > 2 && text.getComputedTextLength() * MIN_SQUEEZE > max) {
        shown = shown.slice(0, -1);
        text.textContent = shown.trimEnd() + "…";
      }
      if (shown !== full) text.setAttribute("data-full", full);
      if (text.getComputedTextLength() > max) {
        text.setAttribute("textLength", String(max));
        text.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
    }
  }

  window.AdjutantInset = { render, fitLabels, onAir };
})();
