// The pack editor page (`adjutant pack edit`). The server holds the working copy of the pack and
// answers every edit with the new coverage (rules.facts); this page draws the module's boards with
// the grid cells the server computed from the module's own grid geometry, keeps undo/redo, and
// offers only the choices the pack has (countries, areas, factions, boxes).
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const FLAGS = ["city", "capital", "port", "partisan_base", "white_star", "strategic", "road", "rail"];
const FLAG_MARKS = {city: "C", capital: "K", port: "P", partisan_base: "B", white_star: "★", strategic: "S",
  road: "r", rail: "R"};
const KEYS = {c: "city", k: "capital", p: "port", b: "partisan_base", w: "white_star", s: "strategic",
  r: "road", l: "rail"};
const MAX_MESSAGE = 12000; // characters per message: the server takes messages of at most 16 KB

const state = {
  model: null, mapIndex: 0, zoom: 1, selected: new Set(), selectedZone: null, focus: new Set(),
  history: {undo: 0, redo: 0}, unsaved: 0, pending: 0, ws: null, nextId: 1, waiters: new Map(), dirty: false,
  step: null,
};
const $ = (id) => document.getElementById(id);

function status(text, error = false) {
  const el = $("status");
  el.textContent = text;
  el.title = text;
  el.classList.toggle("error", error);
}

function hexes() { return state.model.hexes; }
function currentMap() { return state.model.maps[state.mapIndex]; }
function cellsByHex() {
  const out = new Map();
  state.model.maps.forEach((map, m) => map.cells.forEach((cell, i) => {
    if (cell.hex) out.set(cell.hex, {map: m, index: i, cell});
  }));
  return out;
}

// ---- connection ---------------------------------------------------------------------------------
function connect() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${location.host}/ws`);
    ws.onopen = () => { state.ws = ws; resolve(ws); };
    ws.onerror = () => reject(new Error("no connection to the editor"));
    ws.onclose = () => { status("disconnected from the editor: restart `adjutant pack edit`", true); };
    ws.onmessage = (event) => onReply(JSON.parse(event.data));
  });
}

function send(message) {
  const id = state.nextId++;
  state.pending++;
  document.body.dataset.busy = "yes";
  return new Promise((resolve) => {
    state.waiters.set(id, resolve);
    state.ws.send(JSON.stringify(state.step && !message.type.match(/^(save|model|undo|redo)$/)
      ? {...message, id, step: state.step} : {...message, id}));
  });
}

function onReply(reply) {
  if (reply.type === "changed") { onChanged(reply); return; } // another tab's edit, not a reply
  // Replies come in order: the oldest waiter gets this one.
  const [id, resolve] = state.waiters.entries().next().value || [];
  if (id !== undefined) state.waiters.delete(id);
  state.pending--;
  if (state.pending === 0) document.body.dataset.busy = "no";
  if (reply.neighbors) state.model.neighbors = reply.neighbors;
  if (reply.area_neighbors) state.model.area_neighbors = reply.area_neighbors;
  if (reply.coverage) renderCoverage(reply.coverage, reply.facts);
  if ("dirty" in reply) setDirty(reply.dirty);
  if ("unsaved" in reply) showUnsaved(reply);
  if (reply.type === "error") status(reply.text, true);
  if (resolve) resolve(reply);
}

function setDirty(dirty) {
  state.dirty = dirty;
  document.body.dataset.dirty = dirty ? "yes" : "no";
  $("save").disabled = !dirty;
}

// The server keeps the history and counts what differs from the files (bridge/web/editor/history.py), so
// a reload or a second tab shows the same unsaved edits and can undo them.
function showUnsaved(counts) {
  state.unsaved = counts.unsaved;
  state.history = {undo: counts.undo, redo: counts.redo};
  const badge = $("unsaved");
  badge.textContent = counts.unsaved
    ? `${counts.unsaved} unsaved change${counts.unsaved === 1 ? "" : "s"}` : "all saved";
  badge.classList.toggle("pending", counts.unsaved > 0);
  document.body.dataset.unsaved = String(counts.unsaved);
  document.title = `${counts.unsaved ? "● " : ""}${state.model.pack.name} — Adjutant pack editor`;
  $("undo").disabled = !counts.undo;
  $("redo").disabled = !counts.redo;
}

// ---- drawing ------------------------------------------------------------------------------------
function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

const COLOURS = new Map();
function countryColour(country) {
  if (!country) return "transparent";
  if (!COLOURS.has(country)) {
    let h = 0;
    for (const ch of country) h = (h * 31 + ch.charCodeAt(0)) % 360;
    COLOURS.set(country, `hsla(${h}, 65%, 55%, 0.35)`);
  }
  return COLOURS.get(country);
}

function drawMap() {
  const map = currentMap();
  const svg = $("map");
  svg.replaceChildren();
  const size = map.size || [1000, 800];
  const imaged = map.boards.some((b) => b.image);
  svg.classList.toggle("has-image", imaged);
  showImageNote(map);
  if (!map.boards.some((b) => b.width != null)) {
    el("rect", {class: "blank", x: 0, y: 0, width: size[0], height: size[1]}, svg);
  }
  svg.setAttribute("viewBox", `0 0 ${size[0]} ${size[1]}`);
  svg.setAttribute("width", Math.round(size[0] * state.zoom));
  svg.setAttribute("height", Math.round(size[1] * state.zoom));
  for (const board of map.boards) {
    if (board.width == null) continue;
    const transform = board.reversed
      ? `rotate(180 ${board.x + board.width / 2} ${board.y + board.height / 2})` : "";
    if (board.image) {
      el("image", {href: board.image, x: board.x, y: board.y, width: board.width, height: board.height,
        preserveAspectRatio: "none", transform}, svg);
    } else {
      // A board without an image is drawn from its size, as VASSAL draws an empty board.
      el("rect", {class: "blank", x: board.x, y: board.y, width: board.width, height: board.height}, svg);
    }
  }
  const layer = el("g", {id: "cells"}, svg);
  map.cells.forEach((cell, index) => {
    const isZone = cell.kind === "zone" || cell.kind === "region";
    let shape;
    if (cell.points.length) {
      shape = el("polygon", {points: cell.points.map((p) => p.join(",")).join(" ")}, layer);
    } else {
      shape = el("circle", {cx: cell.center[0], cy: cell.center[1], r: 12}, layer);
    }
    shape.dataset.index = index;
    shape.dataset.name = cell.name;
    if (isZone) {
      shape.setAttribute("class", "zone");
      shape.dataset.zone = cell.name;
    } else {
      shape.setAttribute("class", cell.hex ? "cell" : "cell nohex");
      if (cell.hex) shape.dataset.hex = cell.hex;
    }
    const title = el("title", {}, shape);
    title.textContent = cell.hex && cell.hex !== cell.name ? `${cell.name} (hex ${cell.hex})` : cell.name;
    const height = cellHeight(cell);
    const label = el("text", {class: "label", x: cell.center[0], y: cell.center[1] - height * 0.18,
      "font-size": Math.max(6, Math.min(14, height / 4.5))}, layer);
    label.textContent = cell.name;
    label.dataset.label = index;
    if (!isZone) {
      const marks = el("text", {class: "marks", x: cell.center[0], y: cell.center[1] + height * 0.22,
        "font-size": Math.max(6, Math.min(14, height / 4))}, layer);
      marks.dataset.marks = cell.hex || "";
    }
  });
  refreshCells();
}

// A module given as a bare buildFile has no board images: the grid is drawn over the map's extent,
// and the header says what is missing (the printed map, with its Cities and numbers).
function showImageNote(map) {
  const note = $("image-note");
  note.hidden = !map.missing_images.length;
  note.textContent = map.missing_images.length ? `map image missing: ${map.missing_images.join(", ")}` : "";
  note.title = map.missing_images.length
    ? `${map.missing_images.join(", ")} is not in the module (a bare buildFile?): only the grid is drawn, `
      + "over the map's whole extent; open the .vmod to see the printed map" : "";
}

function cellHeight(cell) {
  if (!cell.points.length) return 24;
  const ys = cell.points.map((p) => p[1]);
  return Math.max(...ys) - Math.min(...ys);
}

function refreshCells() {
  const svg = $("map");
  for (const shape of svg.querySelectorAll("[data-hex]")) {
    const id = shape.dataset.hex;
    const record = hexes()[id];
    shape.style.fill = countryColour(record && record.country);
    shape.classList.toggle("sel", state.selected.has(id));
    shape.classList.toggle("focus", state.focus.has(id));
  }
  for (const marks of svg.querySelectorAll("text[data-marks]")) {
    const record = hexes()[marks.dataset.marks];
    marks.textContent = record ? FLAGS.filter((f) => record[f]).map((f) => FLAG_MARKS[f]).join("") : "";
  }
  for (const zone of svg.querySelectorAll("[data-zone]")) {
    zone.classList.toggle("mapped", Boolean(state.model.boxes[zone.dataset.zone]));
    zone.classList.toggle("sel", state.selectedZone === zone.dataset.zone);
  }
  renderZones();
  refreshPanel();
}

// Every zone of the current map, with the box it is named as; a window without a grid (a Force Pool
// window: every piece "offboard") has no place to click on the map, so it is only listed here.
function renderZones() {
  const zones = currentMap().zones;
  const list = $("zones");
  list.replaceChildren();
  $("zones-panel").hidden = !zones.length;
  const labels = new Map(state.model.choices.boxes.map((c) => [c.value, c.label]));
  for (const zone of zones) {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.textContent = zone;
    button.dataset.zone = zone;
    button.addEventListener("click", () => { state.selectedZone = zone; state.selected.clear(); refreshCells(); });
    const box = state.model.boxes[zone];
    item.append(button, box ? ` = ${labels.get(box) || box}` : " (not a box)");
    list.appendChild(item);
  }
}

// ---- side panel ---------------------------------------------------------------------------------
function fillSelect(select, options, empty) {
  select.replaceChildren();
  const none = document.createElement("option");
  none.value = "";
  none.textContent = empty;
  select.appendChild(none);
  for (const option of options) {
    const node = document.createElement("option");
    node.value = typeof option === "string" ? option : option.value;
    node.textContent = typeof option === "string" ? option : option.label;
    select.appendChild(node);
  }
}

function buildPanel() {
  const choices = state.model.choices;
  fillSelect($("field-country"), choices.country, "(no country)");
  fillSelect($("field-area"), choices.area, "(none)");
  fillSelect($("field-strategic_faction"), choices.strategic_faction, "(none)");
  fillSelect($("field-box"), choices.boxes, "(not a box)");
  const border = $("border-panel");
  for (const area of choices.border_defense) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.dataset.border = area.value;
    label.append(input, ` ${area.label}`);
    border.appendChild(label);
  }
  border.hidden = choices.border_defense.length === 0;
  const mapChoice = $("map-choice");
  state.model.maps.forEach((map, index) => {
    const option = document.createElement("option");
    option.value = index;
    option.textContent = `${map.id} (${map.cells.length} places)`;
    mapChoice.appendChild(option);
  });
  // Start on the map with the most hexes.
  let best = 0;
  state.model.maps.forEach((map, i) => { if (map.cells.filter((c) => c.hex).length >
    state.model.maps[best].cells.filter((c) => c.hex).length) best = i; });
  state.mapIndex = best;
  mapChoice.value = best;
}

function common(values) {
  return values.length && values.every((v) => v === values[0]) ? values[0] : null;
}

function refreshPanel() {
  const ids = [...state.selected];
  const records = ids.map((id) => hexes()[id] || {});
  const names = ids.slice(0, 8).map((id) => (hexes()[id] && hexes()[id].name) ? `${id} ${hexes()[id].name}` : id);
  $("selection").textContent = ids.length
    ? `${ids.length} hex${ids.length === 1 ? "" : "es"}: ${names.join(", ")}${ids.length > 8 ? " …" : ""}`
    : "Click a hex; Shift+click adds or removes; drag to select an area.";
  $("hex-panel").classList.toggle("disabled", !ids.length);
  for (const field of ["country", "area", "strategic_faction"]) {
    const select = $(`field-${field}`);
    select.disabled = !ids.length;
    const value = common(records.map((r) => r[field] || ""));
    select.value = value === null ? "" : value;
  }
  for (const input of document.querySelectorAll("[data-flag]")) {
    const on = records.filter((r) => r[input.dataset.flag]).length;
    input.disabled = !ids.length;
    input.checked = ids.length > 0 && on === ids.length;
    input.indeterminate = on > 0 && on < ids.length;
  }
  for (const input of document.querySelectorAll("[data-border]")) {
    const members = state.model.border[input.dataset.border] || [];
    const on = ids.filter((id) => members.includes(id)).length;
    input.disabled = !ids.length;
    input.checked = ids.length > 0 && on === ids.length;
    input.indeterminate = on > 0 && on < ids.length;
  }
  const zone = state.selectedZone;
  $("box-panel").hidden = !zone;
  if (zone) {
    $("zone-name").textContent = zone;
    $("field-box").value = state.model.boxes[zone] || "";
  }
  $("undo").disabled = !state.history.undo;
  $("redo").disabled = !state.history.redo;
}

function focusSubject(line, id) {
  // line: a coverage line (where: subject -> hexes) or one fact of coverage.js (where: its hexes)
  const where = Array.isArray(line.where) ? line.where : (line.where && line.where[id]) || [];
  const area = state.model.choices.area.find((a) => a.value === id);
  const subject = line.per === "area" && area ? area.label : id;
  state.focus = new Set(where);
  const located = cellsByHex();
  const first = where.map((id) => located.get(id)).find(Boolean);
  if (!first) {
    status(`no hex of ${subject} is in the pack yet: select its hexes and choose ${subject}`
      + (line.per === "area" ? " as their area" : " as their country"));
    refreshCells();
    return;
  }
  if (first.map !== state.mapIndex) { state.mapIndex = first.map; $("map-choice").value = first.map; drawMap(); }
  refreshCells();
  state.selected = new Set(where.filter((id) => located.has(id)));
  refreshCells();
  const node = $("map").querySelector(`[data-hex="${CSS.escape(first.cell.hex)}"]`);
  if (node) node.scrollIntoView({block: "center", inline: "center"});
  status(`${subject}: ${where.length} hex${where.length === 1 ? "" : "es"} in the pack, selected — `
    + `${line.label} still to mark`);
}

// ---- edits and history ----------------------------------------------------------------------------
function snapshot(ids) {
  const out = {};
  for (const id of ids) out[id] = hexes()[id] ? {...hexes()[id]} : null;
  return out;
}

// Split a list of items into parts whose JSON stays under MAX_MESSAGE characters.
function chunks(items, sizeOf) {
  const parts = [];
  let part = [];
  let size = 0;
  for (const item of items) {
    const itemSize = sizeOf(item) + 1;
    if (part.length && size + itemSize > MAX_MESSAGE) { parts.push(part); part = []; size = 0; }
    part.push(item);
    size += itemSize;
  }
  if (part.length) parts.push(part);
  return parts;
}

async function sendRecords(records) {
  let last = null;
  const entries = Object.entries(records);
  for (const part of chunks(entries, (entry) => JSON.stringify(entry).length)) {
    last = await send({type: "restore", records: Object.fromEntries(part)});
    if (last.type === "error") return last;
  }
  return last;
}

async function sendBorder(area, ids, member) {
  let last = null;
  for (const part of chunks(ids, (id) => JSON.stringify(id).length)) {
    last = await send({type: "border", area, hexes: part, member});
    if (last.type === "error") return last;
  }
  return last;
}

function applyRecords(records) {
  for (const [id, record] of Object.entries(records)) {
    if (record === null) delete hexes()[id]; else hexes()[id] = {...record};
  }
}

async function commit(entry) {
  // entry: {kind: "hexes", before, after} | {kind: "border", area, ids, member} | {kind: "box", zone, before, after}
  //   | {kind: "complete", fact, subject, value, none} | {kind: "neighbors", key: "country"|"area", subject, before, after}
  // All the messages of one entry are one step of the server's history (one undo).
  state.step = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  let reply;
  try {
    reply = await perform(entry, false);
  } finally {
    state.step = null;
  }
  if (reply && reply.type === "error") return;
  refreshCells();
}

async function perform(entry, reverse) {
  let reply;
  if (entry.kind === "hexes") {
    const records = reverse ? entry.before : entry.after;
    applyRecords(records);
    reply = await sendRecords(records);
  } else if (entry.kind === "border") {
    const member = reverse ? !entry.member : entry.member;
    const list = state.model.border[entry.area] || (state.model.border[entry.area] = []);
    for (const id of entry.ids) {
      const at = list.indexOf(id);
      if (member && at < 0) list.push(id);
      if (!member && at >= 0) list.splice(at, 1);
    }
    reply = await sendBorder(entry.area, entry.ids, member);
  } else if (entry.kind === "complete") {
    reply = await send({type: "complete", fact: entry.fact, subject: entry.subject,
      value: reverse ? !entry.value : entry.value, none: Boolean(entry.none) && !reverse});
  } else if (entry.kind === "neighbors") {
    const countries = reverse ? entry.before : entry.after;
    const lists = entry.key === "country" ? state.model.neighbors : state.model.area_neighbors;
    lists[entry.subject] = [...countries];
    reply = await send({type: "neighbors", [entry.key]: entry.subject, countries});
  } else {
    const box = reverse ? entry.before : entry.after;
    if (box) state.model.boxes[entry.zone] = box; else delete state.model.boxes[entry.zone];
    reply = await send({type: "box", zone: entry.zone, box: box || null});
  }
  if (reply && reply.type === "error") {
    await reload();
  } else if (reply) {
    status("changed (not saved yet)");
  }
  return reply;
}

// Another page edited the same working copy: show it as it now is.
function onChanged(message) {
  state.model.hexes = message.hexes;
  state.model.border = message.border;
  state.model.boxes = message.boxes;
  state.model.neighbors = message.neighbors;
  state.model.area_neighbors = message.area_neighbors;
  renderCoverage(message.coverage, message.facts);
  setDirty(message.dirty);
  showUnsaved(message);
  refreshCells();
  status("changed in another editor page");
}

async function undo() { await travel("undo"); }
async function redo() { await travel("redo"); }

async function travel(way) {
  if (!(way === "undo" ? state.history.undo : state.history.redo)) return;
  const reply = await send({type: way});
  if (reply.type !== "state") return;
  state.model.hexes = reply.hexes;
  state.model.border = reply.border;
  state.model.boxes = reply.boxes;
  status(way === "undo" ? "undone" : "redone");
  refreshCells();
}

function setField(field, value) {
  const ids = [...state.selected];
  if (!ids.length) return;
  const before = snapshot(ids);
  const after = {};
  for (const id of ids) {
    const record = before[id] ? {...before[id]} : null;
    if (field === "country") {
      if (!value) { after[id] = null; continue; }
      after[id] = {...(record || {}), country: value};
      continue;
    }
    if (!record) {
      status(`${id} has no country yet: choose its country first`, true);
      refreshPanel();
      return;
    }
    if (value === null || value === false || value === "") delete record[field]; else record[field] = value;
    after[id] = record;
  }
  commit({kind: "hexes", before, after});
}

function toggleFlag(flag) {
  const ids = [...state.selected];
  if (!ids.length) return;
  const all = ids.every((id) => hexes()[id] && hexes()[id][flag]);
  setField(flag, !all);
}

function toggleBorder(area, member) {
  const ids = [...state.selected];
  const list = state.model.border[area] || [];
  const changing = ids.filter((id) => list.includes(id) !== member);
  if (changing.length) commit({kind: "border", area, ids: changing, member});
}

async function save() {
  status("saving…");
  const reply = await send({type: "save"});
  if (reply.type === "saved") status(`saved ${reply.files.join(", ")} in ${state.model.pack.path}`);
}

async function reload() {
  const reply = await send({type: "model"});
  if (reply.type === "model") {
    state.model = reply.model;
    renderCoverage(state.model.coverage, state.model.facts);
    setDirty(state.model.dirty);
    showUnsaved(state.model);
    drawMap();
  }
}

// ---- pointer: click, shift-click, drag-select ------------------------------------------------------
function mapPoint(event) {
  const svg = $("map");
  const point = svg.createSVGPoint();
  point.x = event.clientX;
  point.y = event.clientY;
  return point.matrixTransform(svg.getScreenCTM().inverse());
}

// A drag selects the hexes it passes over: every hex its rectangle covers more than a sliver of, not
// only those whose centre falls inside (a drag from centre to centre would otherwise drop a whole
// column at a pixel's rounding).
const DRAG_SHARE = 0.15;

function polygonArea(points) {
  let sum = 0;
  points.forEach((p, i) => { const q = points[(i + 1) % points.length]; sum += p[0] * q[1] - q[0] * p[1]; });
  return Math.abs(sum) / 2;
}

function clipToRect(points, x0, y0, x1, y1) { // Sutherland–Hodgman against the four edges
  const edges = [[(p) => p[0] >= x0, (p, q) => [x0, p[1] + (q[1] - p[1]) * (x0 - p[0]) / (q[0] - p[0])]],
    [(p) => p[0] <= x1, (p, q) => [x1, p[1] + (q[1] - p[1]) * (x1 - p[0]) / (q[0] - p[0])]],
    [(p) => p[1] >= y0, (p, q) => [p[0] + (q[0] - p[0]) * (y0 - p[1]) / (q[1] - p[1]), y0]],
    [(p) => p[1] <= y1, (p, q) => [p[0] + (q[0] - p[0]) * (y1 - p[1]) / (q[1] - p[1]), y1]]];
  let out = points;
  for (const [inside, cut] of edges) {
    const source = out;
    out = [];
    source.forEach((p, i) => {
      const prev = source[(i + source.length - 1) % source.length];
      if (inside(p)) {
        if (!inside(prev)) out.push(cut(prev, p));
        out.push(p);
      } else if (inside(prev)) {
        out.push(cut(prev, p));
      }
    });
    if (!out.length) return out;
  }
  return out;
}

function dragCovers(cell, x0, y0, x1, y1) {
  const [cx, cy] = cell.center;
  if (cx >= x0 && cx <= x1 && cy >= y0 && cy <= y1) return true;
  if (!cell.points || cell.points.length < 3) return false;
  const whole = polygonArea(cell.points);
  const part = clipToRect(cell.points, x0, y0, x1, y1);
  return whole > 0 && part.length >= 3 && polygonArea(part) >= DRAG_SHARE * whole;
}

function installPointer() {
  const svg = $("map");
  let start = null;
  let rect = null;
  svg.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || isPanStart(event)) return;
    start = {point: mapPoint(event), shift: event.shiftKey, target: event.target};
  });
  svg.addEventListener("pointermove", (event) => {
    if (!start) return;
    const p = mapPoint(event);
    if (!rect && Math.hypot(p.x - start.point.x, p.y - start.point.y) < 5 / state.zoom) return;
    if (!rect) rect = el("rect", {class: "drag"}, svg);
    rect.setAttribute("x", Math.min(p.x, start.point.x));
    rect.setAttribute("y", Math.min(p.y, start.point.y));
    rect.setAttribute("width", Math.abs(p.x - start.point.x));
    rect.setAttribute("height", Math.abs(p.y - start.point.y));
  });
  window.addEventListener("pointerup", (event) => {
    if (!start) return;
    const begin = start;
    start = null;
    if (rect) {
      const p = mapPoint(event);
      const [x0, x1] = [Math.min(p.x, begin.point.x), Math.max(p.x, begin.point.x)];
      const [y0, y1] = [Math.min(p.y, begin.point.y), Math.max(p.y, begin.point.y)];
      rect.remove();
      rect = null;
      if (!begin.shift) state.selected.clear();
      for (const cell of currentMap().cells) {
        if (cell.hex && dragCovers(cell, x0, y0, x1, y1)) state.selected.add(cell.hex);
      }
      // The hexes the drag starts and ends in belong to it, wherever in them the pointer was.
      const end = document.elementFromPoint(event.clientX, event.clientY);
      for (const node of [begin.target, end]) if (node && node.dataset && node.dataset.hex) state.selected.add(node.dataset.hex);
      state.selectedZone = null;
      refreshCells();
      return;
    }
    const target = begin.target;
    if (target.dataset && target.dataset.hex) {
      const id = target.dataset.hex;
      if (begin.shift) {
        if (state.selected.has(id)) state.selected.delete(id); else state.selected.add(id);
      } else {
        state.selected = new Set([id]);
      }
      state.selectedZone = null;
    } else if (target.dataset && target.dataset.zone) {
      state.selectedZone = target.dataset.zone;
      state.selected.clear();
    } else if (!begin.shift) {
      state.selected.clear();
      state.selectedZone = null;
    }
    refreshCells();
  });
}

function zoom(factor) {
  zoomAt(factor); // about the middle of the view (navigate.js)
}

function installControls() {
  for (const field of ["country", "area", "strategic_faction"]) {
    $(`field-${field}`).addEventListener("change", (event) => setField(field, event.target.value || null));
  }
  for (const input of document.querySelectorAll("[data-flag]")) {
    input.addEventListener("change", () => toggleFlag(input.dataset.flag));
  }
  $("border-panel").addEventListener("change", (event) => {
    if (event.target.dataset.border) toggleBorder(event.target.dataset.border, event.target.checked);
  });
  $("field-box").addEventListener("change", (event) => {
    const zone = state.selectedZone;
    if (!zone) return;
    commit({kind: "box", zone, before: state.model.boxes[zone] || null, after: event.target.value || null});
  });
  $("map-choice").addEventListener("change", (event) => {
    state.mapIndex = Number(event.target.value);
    drawMap();
  });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("save").addEventListener("click", save);
  $("zoom-in").addEventListener("click", () => zoom(1.25));
  $("zoom-out").addEventListener("click", () => zoom(0.8));
  document.addEventListener("keydown", (event) => {
    const key = event.key.toLowerCase();
    if (event.ctrlKey || event.metaKey) {
      if (key === "z" && !event.shiftKey) { event.preventDefault(); undo(); }
      else if (key === "y" || (key === "z" && event.shiftKey)) { event.preventDefault(); redo(); }
      else if (key === "s") { event.preventDefault(); if (state.dirty) save(); }
      return;
    }
    if (event.target.tagName === "SELECT" || event.altKey) return;
    if (key === "escape") { state.selected.clear(); state.selectedZone = null; state.focus.clear(); refreshCells(); }
    else if (key === "+" || key === "=") zoom(1.25);
    else if (key === "-") zoom(0.8);
    else if (KEYS[key] && state.selected.size) { event.preventDefault(); toggleFlag(KEYS[key]); }
  });
  window.addEventListener("beforeunload", (event) => {
    if (!state.dirty) return;
    event.preventDefault();
    event.returnValue = "unsaved edits"; // older browsers ask only when a text is set
  });
}

async function main() {
  const response = await fetch("model.json");
  state.model = await response.json();
  $("title").textContent = `Pack ${state.model.pack.name} on ${state.model.module.name} ${state.model.module.version}`;
  document.title = `${state.model.pack.name} — Adjutant pack editor`;
  buildPanel();
  installControls();
  installPointer();
  installCoverage();
  installNavigation();
  fillSearchNames();
  renderCoverage(state.model.coverage);
  setDirty(state.model.dirty);
  showUnsaved(state.model);
  drawMap();
  await connect();
  document.body.dataset.ready = "yes";
  const problems = state.model.maps.flatMap((m) => m.problems.map((p) => `${m.id}: ${p}`));
  if (state.model.unsaved) {
    // Edits made before this page was loaded (a reload, another tab): never "ready" as if saved.
    status(`${state.model.unsaved} unsaved change${state.model.unsaved === 1 ? "" : "s"} from before this `
      + "page was opened: Save writes them, Undo takes them back", true);
  } else {
    status(problems.length ? problems[0] : "ready");
  }
}

main().catch((error) => status(String(error), true));
