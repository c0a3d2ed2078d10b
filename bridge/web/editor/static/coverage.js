// The editor's coverage sidebar: what the pack still lacks, grouped so a player can finish one country
// at a time. The server sends rules.facts coverage per event and need; one fact of one subject
// (Poland's City hexes) is usually needed by several events, so it is counted once here, with the
// events that read it, and grouped by country (a Ceded Land under its country), by fact, or by event.
"use strict";

const coverageView = {group: "country", open: new Set()};

function areaInfo(id) { return state.model.choices.area.find((a) => a.value === id); }

function subjectLabel(per, subject) {
  const area = per === "area" ? areaInfo(subject) : null;
  return area ? area.label : subject;
}

// One entry per (fact, subject): located or not, the events that need it, its hexes and its note.
function coverageFacts(lines) {
  const facts = new Map();
  for (const line of lines) {
    for (const subject of [...line.have, ...line.missing]) {
      const key = `${line.fact}\u0000${subject}`;
      let fact = facts.get(key);
      if (!fact) {
        fact = {fact: line.fact, label: line.label, per: line.per, subject, rules: [], located: true,
          where: (line.where && line.where[subject]) || [], canComplete: line.can_complete, note: null,
          trusted: false, none: false, empty: false};
        facts.set(key, fact);
      }
      if (!fact.rules.includes(line.rule)) fact.rules.push(line.rule);
      if (line.missing.includes(subject)) fact.located = false;
      // Trusted, not located (issue 22): the pack trusts it whole, so it is never counted as confirmed.
      if ((line.trusted || []).includes(subject)) fact.trusted = true;
      // Declared none (issue 38): complete with nothing located, shown as such, never as a plain tick.
      if ((line.none || []).includes(subject) && !line.missing.includes(subject)) fact.none = true;
      if ((line.empty || []).includes(subject)) fact.empty = true;
      if (line.values && line.values[subject]) fact.values = line.values[subject];
      if (line.notes && line.notes[subject]) fact.note = line.notes[subject];
    }
  }
  return [...facts.values()];
}

// The country a fact belongs to: its subject, or for an area (a Ceded Land) the country it is part of.
function groupOf(fact) {
  if (fact.per !== "area") return fact.subject;
  const area = areaInfo(fact.subject);
  return (area && area.country) || subjectLabel("area", fact.subject);
}

// The headline is the server's count (rules.facts.count_facts), in the words `pack check` prints.
function renderCoverage(lines, counted) {
  state.model.coverage = lines;
  if (counted) state.model.facts = counted;
  const facts = coverageFacts(lines);
  const total = state.model.facts ? state.model.facts.total : facts.length;
  $("coverage-progress").max = Math.max(1, total);
  $("coverage-progress").value = state.model.facts ? state.model.facts.complete : facts.filter(confirmed).length;
  $("coverage-count").textContent = state.model.facts ? state.model.facts.text : "";
  const list = $("coverage");
  list.replaceChildren();
  list.dataset.group = coverageView.group;
  if (!lines.length) {
    const item = document.createElement("li");
    item.textContent = "No event of this pack declares the map facts it needs.";
    list.appendChild(item);
    return;
  }
  if (coverageView.group === "event") renderByEvent(lines, list);
  else renderGroups(facts, list, coverageView.group === "fact" ? (f) => f.label : groupOf);
}

// Located and not merely trusted: what a progress bar and a green tick count.
function confirmed(fact) { return fact.located && !fact.trusted; }

function progressOf(items) {
  const bar = document.createElement("progress");
  bar.max = Math.max(1, items.length);
  bar.value = items.filter(confirmed).length;
  return bar;
}

function renderGroups(facts, list, keyOf) {
  const groups = new Map();
  for (const fact of facts) {
    const key = keyOf(fact);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(fact);
  }
  const byFact = coverageView.group === "fact";
  for (const key of [...groups.keys()].sort((a, b) => a.localeCompare(b))) {
    const items = groups.get(key);
    const done = items.filter(confirmed).length;
    const item = document.createElement("li");
    const details = document.createElement("details");
    details.dataset.group = key;
    details.open = coverageView.open.has(`${coverageView.group}:${key}`);
    details.addEventListener("toggle", () => {
      const id = `${coverageView.group}:${key}`;
      if (details.open) coverageView.open.add(id); else coverageView.open.delete(id);
    });
    const summary = document.createElement("summary");
    const count = document.createElement("span");
    count.className = "count";
    const none = items.filter((f) => f.none).length;
    count.textContent = ` ${done} of ${items.length}${none ? ` (${none} declared none)` : ""}`;
    summary.append(key, count, progressOf(items));
    details.appendChild(summary);
    item.classList.toggle("done", done === items.length);
    const rows = document.createElement("ul");
    items.sort((a, b) => (a.located - b.located) || a.label.localeCompare(b.label)
      || a.subject.localeCompare(b.subject));
    for (const fact of items) rows.appendChild(factRow(fact, byFact));
    details.appendChild(rows);
    item.appendChild(details);
    list.appendChild(item);
  }
}

// "✗ City hexes (16.1.1, 16.2.1) [show] [✓]": a missing fact, its events, where to work, and the
// [complete] declaration when the pack has that table.
function factRow(fact, byFact) {
  const row = document.createElement("li");
  row.dataset.fact = fact.fact;
  row.dataset.subject = fact.subject;
  row.className = fact.trusted ? "trusted" : fact.none ? "none" : fact.located ? "done" : "lack";
  const name = byFact ? subjectLabel(fact.per, fact.subject)
    : (fact.per === "area" ? `${subjectLabel("area", fact.subject)}: ${fact.label}` : fact.label);
  row.append(`${fact.trusted ? "?" : fact.none ? "∅" : fact.located ? "✓" : "✗"} ${name} `);
  if (fact.none) {
    const said = document.createElement("span");
    said.className = "declared-none";
    said.textContent = "declared none ";
    row.appendChild(said);
  }
  const rules = document.createElement("span");
  rules.className = "rules";
  rules.textContent = `(${fact.rules.join(", ")})`;
  row.appendChild(rules);
  const neighbours = hasNeighbourList(fact);
  const show = document.createElement("button");
  show.className = "show";
  show.textContent = "show";
  show.dataset.subject = fact.subject;
  if (neighbours) {
    // A list of countries, not hexes (issue 38): "show" lights their hexes and selects nothing.
    show.title = `light up the hexes of the countries listed as neighbours of ${subjectLabel(fact.per, fact.subject)}`;
    show.addEventListener("click", () => showNeighbours(fact));
  } else {
    show.title = `select the hexes of ${subjectLabel(fact.per, fact.subject)} in the pack`;
    show.addEventListener("click", () => focusSubject(fact, fact.subject));
  }
  row.appendChild(show);
  if (!fact.located && fact.canComplete) {
    row.appendChild(completeButton(fact.fact, fact.label, fact.subject, subjectLabel(fact.per, fact.subject),
      fact.empty, row));
  }
  if (fact.none && fact.canComplete) row.appendChild(takeBackButton(fact));
  if (neighbours) row.appendChild(neighbourControl(fact));
  if (fact.trusted) {
    const note = document.createElement("div");
    note.className = "trusted-note";
    note.textContent = `trusted, not confirmed (no [complete] entry names ${fact.fact})`;
    row.appendChild(note);
  }
  if (fact.note) {
    const note = document.createElement("div");
    note.className = "note";
    note.textContent = fact.note;
    row.appendChild(note);
  }
  return row;
}

function completeButton(factName, label, subject, shown, empty = false, row = null) {
  // The pack has a [complete] table: located facts count only once declared whole.
  const mark = document.createElement("button");
  mark.className = "complete";
  mark.textContent = "✓";
  mark.dataset.complete = subject;
  mark.dataset.fact = factName;
  mark.title = empty ? `nothing is marked as ${label} of ${shown}: ✓ asks whether it has none`
    : `every ${label} of ${shown} is now marked: list it under [complete]`;
  mark.addEventListener("click", () => {
    if (empty) askNone(mark, factName, label, subject, shown, row);
    else commit({kind: "complete", fact: factName, subject, value: true});
  });
  return mark;
}

// Nothing marked: a ✓ would say "it has none", so the row asks first (issue 38), in the page itself
// (Enter on the focused button declares it, Esc or "cancel" leaves the fact missing).
function askNone(mark, factName, label, subject, shown, row) {
  const host = row || mark.parentElement;
  if (host.querySelector(".ask-none")) return;
  const ask = document.createElement("div");
  ask.className = "ask-none";
  ask.setAttribute("role", "alertdialog");
  ask.append(`Nothing is marked as ${label} of ${shown}. Declare that ${shown} has none? `);
  const yes = document.createElement("button");
  yes.className = "declare-none";
  yes.textContent = "declare none";
  yes.addEventListener("click", () => commit({kind: "complete", fact: factName, subject, value: true, none: true}));
  const no = document.createElement("button");
  no.className = "cancel-none";
  no.textContent = "cancel";
  no.addEventListener("click", () => { ask.remove(); status(`${label} of ${shown}: still missing`); });
  ask.addEventListener("keydown", (event) => {
    if (event.key === "Escape") { event.stopPropagation(); no.click(); }
  });
  ask.append(yes, " ", no);
  host.appendChild(ask);
  yes.focus();
}

// "∅ declared none [take back]": the declaration undone without Ctrl+Z through later edits.
function takeBackButton(fact) {
  const back = document.createElement("button");
  back.className = "take-back";
  back.textContent = "take back";
  back.title = `${fact.subject} is not declared to have no ${fact.label} any more: the fact is missing again`;
  back.addEventListener("click", () => commit({kind: "complete", fact: fact.fact, subject: fact.subject,
    value: false}));
  return back;
}

// ---- neighbouring countries: a list the player sees and changes (issue 38) ----------------------------
// A country's list (`[countries.X] neighbors`) or a region's (`[areas.x] neighbors`, to which its hexes'
// borders add: shown apart, changed on the map).
function neighbourLists(fact) {
  if (fact.fact === "neighbors") return {own: state.model.neighbors, base: state.model.base_neighbors};
  if (fact.fact === "area_neighbors") return {own: state.model.area_neighbors, base: state.model.base_area_neighbors};
  return null;
}

function hasNeighbourList(fact) {
  const lists = neighbourLists(fact);
  return Boolean(lists && lists.own && fact.subject in lists.own);
}

function neighbourControl(fact) {
  const subject = fact.subject;
  const shown = subjectLabel(fact.per, subject);
  const lists = neighbourLists(fact);
  const listed = lists.own[subject] || [];
  const base = (lists.base || {})[subject];
  const box = document.createElement("div");
  box.className = "neighbours";
  box.dataset.subject = subject;
  const list = document.createElement("span");
  list.className = "listed";
  if (!listed.length) list.append("none listed ");
  for (const name of listed) {
    const chip = document.createElement("span");
    chip.className = "neighbour";
    chip.dataset.neighbour = name;
    chip.append(name);
    const drop = document.createElement("button");
    drop.className = "drop";
    drop.textContent = "×";
    drop.title = `${name} does not border ${shown}`;
    drop.setAttribute("aria-label", `remove ${name}`);
    drop.addEventListener("click", () => setNeighbours(fact, listed.filter((n) => n !== name)));
    chip.appendChild(drop);
    list.append(chip, " ");
  }
  box.appendChild(list);
  const add = document.createElement("select");
  add.className = "add-neighbour";
  add.setAttribute("aria-label", `add a neighbour of ${shown}`);
  add.appendChild(new Option("add a country…", ""));
  for (const name of state.model.choices.country) {
    if (name !== subject && !listed.includes(name)) add.appendChild(new Option(name, name));
  }
  add.addEventListener("change", () => { if (add.value) setNeighbours(fact, [...listed, add.value]); });
  box.appendChild(add);
  const fromHexes = (fact.values || []).filter((n) => !listed.includes(n));
  if (fromHexes.length) {
    const more = document.createElement("div");
    more.className = "hex-neighbours";
    more.textContent = `also, from its hexes' borders: ${fromHexes.join(", ")}`;
    box.appendChild(more);
  }
  if (base !== undefined) {
    const from = document.createElement("div");
    from.className = "base-neighbours";
    const same = base.length === listed.length && base.every((n) => listed.includes(n));
    from.append(same ? "as the base pack lists them" : `base pack: ${base.join(", ") || "none"} `);
    if (!same) {
      const reset = document.createElement("button");
      reset.className = "use-base";
      reset.textContent = "use the base pack's list";
      reset.addEventListener("click", () => setNeighbours(fact, [...base]));
      from.appendChild(reset);
    }
    box.appendChild(from);
  }
  return box;
}

function setNeighbours(fact, countries) {
  const lists = neighbourLists(fact);
  const before = [...(lists.own[fact.subject] || [])];
  const key = fact.fact === "neighbors" ? "country" : "area";
  commit({kind: "neighbors", key, subject: fact.subject, before, after: countries});
}

// Light up the neighbours' hexes without selecting anything: the selection stays the player's.
function showNeighbours(fact) {
  const lists = neighbourLists(fact);
  const listed = [...new Set([...(lists.own[fact.subject] || []), ...(fact.values || [])])];
  const wanted = new Set(listed);
  state.focus = new Set(Object.entries(state.model.hexes).filter(([, r]) => wanted.has(r.country)).map(([h]) => h));
  refreshCells();
  const shown = subjectLabel(fact.per, fact.subject);
  status(listed.length ? `neighbouring countries of ${shown}: ${listed.join(", ")} (their hexes lit up)`
    : `${shown} lists no neighbouring country: add them in the list`);
}

// The events in rule order, each need with its count and missing subjects (the first editor's view).
function renderByEvent(lines, list) {
  for (const line of lines) {
    const total = line.have.length + line.missing.length;
    const item = document.createElement("li");
    item.dataset.rule = line.rule;
    item.dataset.fact = line.fact;
    const word = line.per === "area" ? "areas" : "countries";
    item.append(`${line.rule} ${line.label}: ${line.have.length} of ${total} ${word}`);
    const trusted = line.trusted || [];
    item.classList.toggle("done", line.missing.length === 0 && !trusted.length);
    item.classList.toggle("trusted", trusted.length > 0);
    if (trusted.length) {
      const note = document.createElement("div");
      note.className = "trusted-note";
      const names = trusted.map((subject) => subjectLabel(line.per, subject));
      note.textContent = `trusted, not confirmed (no [complete] entry names ${line.fact}): ${names.join(", ")}`;
      item.appendChild(note);
    }
    const none = (line.none || []).filter((subject) => line.have.includes(subject));
    if (none.length) {
      const said = document.createElement("div");
      said.className = "declared-none";
      said.textContent = `declared none: ${none.map((subject) => subjectLabel(line.per, subject)).join(", ")}`;
      item.appendChild(said);
    }
    if (line.missing.length) {
      const lack = document.createElement("div");
      lack.className = "lack";
      lack.append("missing: ");
      for (const subject of line.missing) {
        const button = document.createElement("button");
        button.textContent = subjectLabel(line.per, subject);
        button.dataset.subject = subject;
        button.title = `show where ${subject} is`;
        button.addEventListener("click", () => focusSubject(line, subject));
        lack.appendChild(button);
        if (line.can_complete) {
          lack.appendChild(completeButton(line.fact, line.label, subject, button.textContent,
            (line.empty || []).includes(subject), lack));
        }
      }
      item.appendChild(lack);
    }
    list.appendChild(item);
  }
}

// Open the group of a subject (a country found by the search box) and bring it into view.
function openCoverageGroup(key) {
  coverageView.open.add(`${coverageView.group}:${key}`);
  const details = [...$("coverage").querySelectorAll("details")].find((d) => d.dataset.group === key);
  if (details) { details.open = true; details.scrollIntoView({block: "nearest"}); }
}

function installCoverage() {
  $("coverage-group").addEventListener("change", (event) => {
    coverageView.group = event.target.value;
    renderCoverage(state.model.coverage);
  });
}
