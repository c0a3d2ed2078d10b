// Finding one's way on a big map in the pack editor: the wheel zooms about the pointer, a drag with
// the middle or right button (or with Space held) pans, as in Leaflet and the Tiled map editor; the
// search box jumps to a hex id, a location name, a named hex or a country; hex labels appear for
// the hex under the pointer only, so they never cover the numbers printed on the board image.
"use strict";

const navigation = {spaceDown: false, pan: null};

function mapView() { return $("map-view"); }

// Zoom by `factor` keeping the map point under (clientX, clientY) where it is on the screen.
function zoomAt(factor, clientX, clientY) {
  const view = mapView();
  const box = view.getBoundingClientRect();
  const x = clientX === undefined ? box.left + view.clientWidth / 2 : clientX;
  const y = clientY === undefined ? box.top + view.clientHeight / 2 : clientY;
  const before = state.zoom;
  const mapX = (view.scrollLeft + x - box.left) / before;
  const mapY = (view.scrollTop + y - box.top) / before;
  state.zoom = Math.max(0.1, Math.min(4, before * factor));
  const size = currentMap().size || [1000, 800];
  $("map").setAttribute("width", Math.round(size[0] * state.zoom));
  $("map").setAttribute("height", Math.round(size[1] * state.zoom));
  view.scrollLeft = mapX * state.zoom - (x - box.left);
  view.scrollTop = mapY * state.zoom - (y - box.top);
}

function isPanStart(event) {
  return event.button === 1 || event.button === 2 || (event.button === 0 && navigation.spaceDown);
}

function installNavigation() {
  const view = mapView();
  view.addEventListener("wheel", (event) => {
    if (event.shiftKey) return; // Shift+wheel scrolls sideways, as everywhere
    event.preventDefault();
    zoomAt(event.deltaY < 0 ? 1.15 : 1 / 1.15, event.clientX, event.clientY);
  }, {passive: false});
  view.addEventListener("pointerdown", (event) => {
    if (!isPanStart(event)) return;
    event.preventDefault();
    navigation.pan = {x: event.clientX, y: event.clientY, left: view.scrollLeft, top: view.scrollTop};
    view.classList.add("panning");
  }, true);
  window.addEventListener("pointermove", (event) => {
    const pan = navigation.pan;
    if (!pan) return;
    view.scrollLeft = pan.left - (event.clientX - pan.x);
    view.scrollTop = pan.top - (event.clientY - pan.y);
  });
  window.addEventListener("pointerup", () => { navigation.pan = null; view.classList.remove("panning"); });
  view.addEventListener("contextmenu", (event) => event.preventDefault());
  view.addEventListener("auxclick", (event) => event.preventDefault());
  document.addEventListener("keydown", (event) => {
    if (event.key === " " && event.target.tagName !== "INPUT" && event.target.tagName !== "SELECT") {
      navigation.spaceDown = true;
      view.classList.add("can-pan");
      event.preventDefault();
    } else if (event.key === "/" && event.target.tagName !== "INPUT") {
      event.preventDefault();
      $("search").focus();
    }
  });
  document.addEventListener("keyup", (event) => {
    if (event.key === " ") { navigation.spaceDown = false; view.classList.remove("can-pan"); }
  });
  installHover();
  installSearch();
}

// ---- hover: the label and name of the hex under the pointer -------------------------------------
function installHover() {
  const svg = $("map");
  let shown = null;
  svg.addEventListener("pointerover", (event) => {
    const index = event.target.dataset && event.target.dataset.index;
    if (index === undefined) return;
    if (shown) shown.classList.remove("hover");
    shown = svg.querySelector(`text[data-label="${index}"]`);
    if (shown) shown.classList.add("hover");
    const cell = currentMap().cells[Number(index)];
    const record = cell.hex && hexes()[cell.hex];
    const name = record && record.name ? ` ${record.name}` : "";
    const country = record && record.country ? ` (${record.country})` : "";
    $("hover-name").textContent = cell.hex && cell.hex !== cell.name
      ? `${cell.name}: hex ${cell.hex}${name}${country}` : `${cell.name}${name}${country}`;
  });
  svg.addEventListener("pointerleave", () => {
    if (shown) shown.classList.remove("hover");
    shown = null;
    $("hover-name").textContent = "";
  });
}

// ---- search -----------------------------------------------------------------------------------------
function fillSearchNames() {
  const names = new Set(state.model.choices.country);
  for (const area of state.model.choices.area) names.add(area.label);
  for (const record of Object.values(hexes())) if (record.name) names.add(record.name);
  const list = $("search-names");
  list.replaceChildren();
  for (const name of [...names].sort()) {
    const option = document.createElement("option");
    option.value = name;
    list.appendChild(option);
  }
}

// What a query names: hexes to select, and a coverage group to open.
function findPlaces(query) {
  const q = query.trim().toLowerCase();
  if (!q) return null;
  const located = cellsByHex();
  const exact = [];
  state.model.maps.forEach((map) => map.cells.forEach((cell) => {
    if (cell.hex && (cell.hex.toLowerCase() === q || cell.name.toLowerCase() === q)) exact.push(cell.hex);
  }));
  if (exact.length) return {label: query.trim(), hexes: exact};
  const named = Object.entries(hexes()).filter(([, r]) => r.name && r.name.toLowerCase() === q)
    .map(([id]) => id);
  const country = state.model.choices.country.find((c) => c.toLowerCase() === q);
  if (country) {
    const ids = Object.entries(hexes()).filter(([, r]) => r.country === country).map(([id]) => id);
    return {label: country, hexes: ids, group: country};
  }
  const area = state.model.choices.area.find((a) => a.label.toLowerCase() === q || a.value === q);
  if (area) {
    const ids = Object.entries(hexes()).filter(([, r]) => r.area === area.value).map(([id]) => id);
    return {label: area.label, hexes: ids, group: area.country || area.label};
  }
  if (named.length) return {label: query.trim(), hexes: named};
  const partial = Object.entries(hexes()).filter(([, r]) => r.name && r.name.toLowerCase().startsWith(q))
    .map(([id]) => id).filter((id) => located.has(id));
  if (partial.length) return {label: query.trim(), hexes: partial};
  return {label: query.trim(), hexes: []};
}

function jumpTo(query) {
  const found = findPlaces(query);
  if (!found) return;
  if (found.group) openCoverageGroup(found.group);
  const located = cellsByHex();
  const places = found.hexes.map((id) => located.get(id)).filter(Boolean);
  if (!places.length) {
    status(found.group ? `${found.label}: no hex of it is in the pack yet — select its hexes and choose it`
      : `nothing on the map is called ${found.label}`, !found.group);
    return;
  }
  const first = places[0];
  if (first.map !== state.mapIndex) { state.mapIndex = first.map; $("map-choice").value = first.map; drawMap(); }
  state.selected = new Set(places.filter((p) => p.map === first.map).map((p) => p.cell.hex));
  state.selectedZone = null;
  refreshCells();
  const node = $("map").querySelector(`[data-hex="${CSS.escape(first.cell.hex)}"]`);
  if (node) node.scrollIntoView({block: "center", inline: "center"});
  status(`${found.label}: ${state.selected.size} hex${state.selected.size === 1 ? "" : "es"} selected`);
}

function installSearch() {
  const input = $("search");
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") { event.preventDefault(); jumpTo(input.value); }
    else if (event.key === "Escape") { input.blur(); }
    event.stopPropagation(); // letters typed here are not the editor's C/K/P keys
  });
}
