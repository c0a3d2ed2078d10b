// Tracks in the pack editor (docs/pack-format.md, "Tracks"): draw a printed track or box row on the
// module's own map — pick the board, drag the first and the last box, give the count and the values,
// adjust any box (click it, then drag it or move it with the arrow keys; Shift: 10 pixels) — and add it
// to the pack; the editor's Save writes it (bridge/web/editor/tracks.py, tomlkit).
// Its own file on purpose: editor.js is reworked elsewhere; this one uses only its `state`, `send`,
// `currentMap`, `mapPoint` and `status`, and follows `drawMap` to keep its layer on the map.
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
  const track = {mode: null, first: null, last: null, boxes: [], selected: null, drag: null};

  function node(tag, attrs, parent, text) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    if (parent) parent.appendChild(el);
    return el;
  }

  function svgNode(tag, attrs, parent) {
    const el = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
    if (parent) parent.appendChild(el);
    return el;
  }

  // ---- the panel --------------------------------------------------------------------------------
  const panel = node("section", {id: "tracks-panel"});
  node("h2", {}, panel, "Tracks");
  const label = (text, input) => { const l = node("label", {}, panel, text + " "); l.appendChild(input); return input; };
  const nameField = label("Name", node("input", {id: "track-name", placeholder: "as printed, e.g. Turn Track"}));
  const boardField = label("Board", node("select", {id: "track-board"}));
  const countField = label("Boxes", node("input", {id: "track-count", type: "number", min: "1", value: "2"}));
  const valuesField = label("Values", node("input", {id: "track-values", placeholder: "1-12, or Fall, Winter, …"}));
  const namesField = label("Names", node("input", {id: "track-names", placeholder: "as printed (default: the values)"}));
  const checkedField = label("Checked against the board image", node("input", {id: "track-verified", type: "checkbox"}));
  const buttons = node("div", {class: "track-buttons"}, panel);
  const firstButton = node("button", {id: "track-first", type: "button"}, buttons, "Drag the first box");
  const lastButton = node("button", {id: "track-last", type: "button"}, buttons, "Drag the last box");
  const makeButton = node("button", {id: "track-make", type: "button"}, buttons, "Make the boxes");
  const addButton = node("button", {id: "track-add", type: "button", disabled: ""}, buttons, "Add the track");
  const hint = node("p", {id: "track-hint"}, panel, "Pick the board, then drag the first and the last box on the map.");
  const list = node("ol", {id: "track-boxes"}, panel);
  const known = node("ul", {id: "track-known"}, panel);
  const aside = document.querySelector("aside.panel");
  if (aside) aside.insertBefore(panel, aside.querySelector("p.keys"));

  function map() { return currentMap(); }
  function board() { return map().boards.find((b) => b.name === boardField.value) || map().boards[0]; }

  function fillBoards() {
    boardField.replaceChildren();
    for (const b of map().boards) node("option", {value: b.name}, boardField, b.name);
    checkedField.checked = map().boards.some((b) => b.image);
    known.replaceChildren();
    for (const t of state.model.tracks || []) {
      if (t.map !== map().id) continue;
      const item = node("li", {"data-track": t.name}, known, `${t.name}${t.verified ? "" : " (unverified)"} `);
      if (t.boxes) {
        const adjust = node("button", {type: "button", class: "track-adjust"}, item, "Adjust");
        adjust.addEventListener("click", () => load(t));
      }
    }
  }

  // An existing track into the layer: its boxes can be moved, then added again under its name.
  function load(t) {
    nameField.value = t.name;
    if (t.board) boardField.value = t.board;
    track.boxes = t.boxes.map((b) => ({name: b.name, value: b.value, rect: b.rect.slice()}));
    track.first = track.last = null;
    track.selected = null;
    countField.value = String(track.boxes.length);
    valuesField.value = track.boxes.map((b) => b.value).join(", ");
    addButton.disabled = false;
    hint.textContent = `${t.name}: click a box to adjust it, then Add the track`;
    drawLayer();
  }

  // ---- the layer on the map ---------------------------------------------------------------------
  function layer() {
    const svg = document.getElementById("map");
    let g = svg.querySelector("#track-layer");
    if (!g) g = svgNode("g", {id: "track-layer"}, svg);
    return g;
  }

  function rectAttrs(r, b) { // r: [l, t, r, b] in board pixels -> map pixels
    return {x: r[0] + b.x, y: r[1] + b.y, width: r[2] - r[0], height: r[3] - r[1]};
  }

  function drawLayer() {
    const g = layer();
    g.replaceChildren();
    const b = board();
    for (const [which, r] of [["first", track.first], ["last", track.last]]) {
      if (r && !track.boxes.length) svgNode("rect", {class: `track-end track-${which}`, ...rectAttrs(r, b)}, g);
    }
    track.boxes.forEach((box, i) => {
      const rect = svgNode("rect", {class: "track-box" + (i === track.selected ? " sel" : ""),
        "data-box": String(i), ...rectAttrs(box.rect, b)}, g);
      const t = svgNode("text", {class: "track-label", x: rect.getAttribute("x") * 1 + 4,
        y: rect.getAttribute("y") * 1 + 14}, g);
      t.textContent = box.name;
    });
    list.replaceChildren();
    track.boxes.forEach((box, i) => {
      const item = node("li", {"data-box": String(i), class: i === track.selected ? "sel" : ""}, list,
        `${box.name} = ${box.value} [${box.rect.join(", ")}]`);
      item.addEventListener("click", () => { track.selected = i; drawLayer(); });
    });
  }

  // ---- values -----------------------------------------------------------------------------------
  function parseList(text) {
    const raw = text.trim();
    const range = raw.match(/^(-?\d+)\s*(?:-|\.\.)\s*(-?\d+)$/);
    if (range) {
      const [a, b] = [Number(range[1]), Number(range[2])];
      const step = a <= b ? 1 : -1;
      const out = [];
      for (let v = a; step > 0 ? v <= b : v >= b; v += step) out.push(v);
      return out;
    }
    return raw.split(",").map((s) => s.trim()).filter((s) => s).map((s) => (/^-?\d+$/.test(s) ? Number(s) : s));
  }

  function makeBoxes() {
    if (!track.first || !track.last) { hint.textContent = "drag the first and the last box first"; return; }
    const values = parseList(valuesField.value);
    const count = values.length || Number(countField.value);
    if (!count || count < 1) { hint.textContent = "give the count, or the values"; return; }
    if (values.length && Number(countField.value) !== values.length) countField.value = String(values.length);
    const names = namesField.value.trim() ? namesField.value.split(",").map((s) => s.trim()) : null;
    if (names && names.length !== count) { hint.textContent = `${names.length} names for ${count} boxes`; return; }
    track.boxes = [];
    for (let n = 0; n < count; n++) { // evenly spaced from the first to the last (bridge/mapping/tracks.row_of_boxes)
      const t = count > 1 ? n / (count - 1) : 0;
      const rect = track.first.map((a, k) => Math.round(a + (track.last[k] - a) * t));
      const value = values.length ? values[n] : n + 1;
      track.boxes.push({name: names ? names[n] : String(value), value, rect});
    }
    track.selected = null;
    addButton.disabled = false;
    hint.textContent = `${count} boxes: click one to adjust it (drag, or the arrow keys)`;
    drawLayer();
  }

  async function addTrack() {
    const name = nameField.value.trim();
    if (!name) { hint.textContent = "give the track's name"; nameField.focus(); return; }
    const reply = await send({type: "track", track: {name, map: map().id, board: board().name, boxes: track.boxes,
      verified: checkedField.checked}});
    if (reply.type === "error") { hint.textContent = reply.text; return; }
    hint.textContent = `track ${name} added: Save writes it to the pack`;
    status(`track ${name} added (not saved yet)`);
    document.body.dataset.trackAdded = name;
  }

  // ---- pointer: drag a new box, or move a box ---------------------------------------------------
  function toBoard(p) { const b = board(); return [p.x - b.x, p.y - b.y]; }

  function onDown(event) {
    if (event.button !== 0) return;
    const target = event.target;
    if (track.mode) {
      event.stopPropagation();
      event.preventDefault();
      track.drag = {kind: "new", start: toBoard(mapPoint(event))};
      return;
    }
    if (target.dataset && target.dataset.box !== undefined && target.closest("#track-layer")) {
      event.stopPropagation();
      event.preventDefault();
      track.selected = Number(target.dataset.box);
      track.drag = {kind: "move", start: toBoard(mapPoint(event)), rect: track.boxes[track.selected].rect.slice()};
      drawLayer();
    }
  }

  function onMove(event) {
    if (!track.drag) return;
    const p = toBoard(mapPoint(event));
    const d = track.drag;
    if (d.kind === "new") {
      const r = [Math.min(p[0], d.start[0]), Math.min(p[1], d.start[1]), Math.max(p[0], d.start[0]), Math.max(p[1], d.start[1])];
      track[track.mode] = r.map(Math.round);
    } else {
      const dx = Math.round(p[0] - d.start[0]), dy = Math.round(p[1] - d.start[1]);
      track.boxes[track.selected].rect = [d.rect[0] + dx, d.rect[1] + dy, d.rect[2] + dx, d.rect[3] + dy];
    }
    drawLayer();
  }

  function onUp() {
    if (!track.drag) return;
    const was = track.mode;
    track.drag = null;
    if (was) {
      track.mode = null;
      document.body.dataset.trackMode = "";
      hint.textContent = was === "first" ? "now drag the last box" : "give the values, then Make the boxes";
    }
    drawLayer();
  }

  function onKey(event) {
    if (track.selected === null || !track.boxes.length) return;
    if (["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
    const step = event.shiftKey ? 10 : 1;
    const move = {ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step]}[event.key];
    if (!move) return;
    event.preventDefault();
    const r = track.boxes[track.selected].rect;
    track.boxes[track.selected].rect = [r[0] + move[0], r[1] + move[1], r[2] + move[0], r[3] + move[1]];
    drawLayer();
  }

  function arm(mode) {
    track.mode = mode;
    track.boxes = [];
    addButton.disabled = true;
    document.body.dataset.trackMode = mode;
    hint.textContent = `drag the ${mode} box on the map`;
  }

  // ---- hooks into the editor --------------------------------------------------------------------
  function install() {
    fillBoards();
    const view = document.getElementById("map-view");
    view.addEventListener("pointerdown", onDown, true); // before the editor's own selection
    window.addEventListener("pointermove", onMove);
    window.addEventListener("pointerup", onUp);
    document.addEventListener("keydown", onKey);
    firstButton.addEventListener("click", () => arm("first"));
    lastButton.addEventListener("click", () => arm("last"));
    makeButton.addEventListener("click", makeBoxes);
    addButton.addEventListener("click", addTrack);
    boardField.addEventListener("change", drawLayer);
    document.getElementById("map-choice").addEventListener("change", () => {
      track.first = track.last = null; track.boxes = []; fillBoards(); drawLayer();
    });
    const draw = window.drawMap;
    window.drawMap = function () { draw.apply(this, arguments); drawLayer(); };
    drawLayer();
  }

  const ready = () => document.body.dataset.ready === "yes";
  if (ready()) install();
  else new MutationObserver((_m, observer) => { if (ready()) { observer.disconnect(); install(); } })
    .observe(document.body, {attributes: true, attributeFilter: ["data-ready"]});
})();
