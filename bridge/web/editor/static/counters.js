// The Counters pane of the pack editor (issue 38): every counter, state and ignore rule of the pack's
// vassal.toml — a rule `pack scaffold` proposed is marked "proposed, not reviewed" with its evidence (the
// comment lines above it) — the module's pieces each rule matches, with their images, Accept / Change /
// Drop, and the module's pieces no rule matches. Edits go to the server (bridge/web/editor/counters.py)
// like every other edit of the editor: the history, the unsaved count and Save are the editor's own.
// Its own file on purpose: it uses only editor.js's `state`, `send` and `status`, and follows `onReply`
// (as tracks.js follows `drawMap`). Everything shown is set as text, never as markup.
(function () {
  "use strict";
  // editing: the id of the rule whose change form is open, or "new:counters" (…) for a new rule's form
  const pane = {model: null, version: null, editing: null, newMatch: null};
  const KIND_NAMES = {counters: "counter", state: "state", ignore: "ignore"};
  // A new rule's empty fields: what a counter needs (bridge/mapping/pack_rules.py), none for the others.
  const NEW_SET = {counters: ["id", "kind", "name", "nationality", "steps"], state: [], ignore: []};
  const SHOWN = 48; // thumbnails per rule before "and N more"
  const UNMATCHED_SHOWN = 400; // a real module's palette has thousands of pieces

  function node(tag, attrs, parent, text) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    if (parent) parent.appendChild(el);
    return el;
  }

  const panel = node("section", {id: "counters-panel"});
  node("h2", {}, panel, "Counters");
  const summary = node("p", {id: "counters-summary"}, panel);
  const reason = node("p", {id: "counters-reason", class: "counters-reason", hidden: ""}, panel);
  const list = node("ol", {id: "counter-rules"}, panel);
  const adding = node("div", {id: "counters-new", class: "rule-buttons"}, panel);
  const placesHead = node("h3", {hidden: ""}, panel, "Boxes proposed from the module");
  const places = node("ul", {id: "counter-places"}, panel);
  node("h3", {}, panel, "Pieces no rule matches");
  const unmatched = node("div", {id: "counters-unmatched", class: "thumbs"}, panel);
  const aside = document.querySelector("aside.panel");
  if (aside) aside.insertBefore(panel, aside.querySelector("p.keys"));
  // In the header: how many rules still wait for a review, and a way to the pane below the map facts.
  const jump = node("button", {id: "counters-jump", type: "button", title: "Show the Counters pane"});
  const bar = document.querySelector("header.bar");
  if (bar) bar.insertBefore(jump, document.getElementById("unsaved"));
  jump.addEventListener("click", () => panel.scrollIntoView({block: "start"}));

  function pieces() { return state.model.counter_pieces || []; }

  function thumb(n, parent) {
    const piece = pieces()[n];
    if (!piece) return;
    const props = Object.entries(piece.properties).map(([k, v]) => `${k} = ${v}`);
    if (piece.prototypes.length) props.push(`prototypes: ${piece.prototypes.join(", ")}`);
    const title = [piece.name, ...props].join("\n");
    const item = node("figure", {class: "piece", "data-piece": String(n), title}, parent);
    if (piece.image) node("img", {src: piece.image, alt: piece.name, loading: "lazy"}, item);
    node("figcaption", {}, item, piece.name);
  }

  function thumbs(numbers, parent) {
    const box = node("div", {class: "thumbs"}, parent);
    numbers.slice(0, SHOWN).forEach((n) => thumb(n, box));
    if (numbers.length > SHOWN) node("span", {class: "more"}, box, `and ${numbers.length - SHOWN} more`);
    return box;
  }

  function pairs(table) { return Object.entries(table).map(([k, v]) => `${k} = ${v}`); }

  function badge(rule) {
    if (rule.dropped) return ["dropped", "dropped (Save removes it)"];
    if (rule.proposed) return ["proposed", "proposed, not reviewed"];
    if (rule.changed) return ["changed", "changed (not saved yet)"];
    if (rule.accepted) return ["accepted", "accepted (not saved yet)"];
    return ["reviewed", ""];
  }

  function renderRule(rule) {
    const [kind, text] = badge(rule);
    const item = node("li", {class: `counter-rule ${kind}`, "data-rule": rule.id}, list);
    const head = node("div", {class: "rule-head"}, item);
    node("strong", {}, head, rule.label);
    if (text) node("span", {class: `badge ${kind}`}, head, text);
    if (rule.evidence.length) {
      const evidence = node("p", {class: "evidence"}, item);
      rule.evidence.forEach((line, i) => {
        if (i) evidence.appendChild(document.createElement("br"));
        evidence.appendChild(document.createTextNode(line));
      });
    }
    if (rule.note) node("p", {class: "rule-note"}, item, rule.note);
    node("p", {class: "rule-match"}, item, `match: ${pairs(rule.match).join(", ")}`);
    const sets = pairs(rule.set);
    if (rule.steps_delta) sets.push(`steps ${rule.steps_delta > 0 ? "+" : ""}${rule.steps_delta}`);
    if (sets.length) node("p", {class: "rule-set"}, item, `${rule.kind === "state" ? "writes" : "sets"}: ${sets.join(", ")}`);
    const count = rule.pieces.length;
    node("p", {class: "rule-count"}, item, rule.dropped ? "takes nothing once dropped"
      : `matches ${count} piece${count === 1 ? "" : "s"} of the module${count ? "" : " (as the palette holds them)"}`);
    if (!rule.dropped && count) thumbs(rule.pieces, item);
    if (!pane.model.editable) return;
    const buttons = node("div", {class: "rule-buttons"}, item);
    if (rule.dropped) {
      button(buttons, "Keep", "restore", rule);
      return;
    }
    if (rule.proposed) button(buttons, "Accept", "accept", rule);
    const change = node("button", {type: "button", class: "rule-change"}, buttons, "Change");
    change.addEventListener("click", () => { pane.editing = pane.editing === rule.id ? null : rule.id; render(); });
    button(buttons, "Drop", "drop", rule);
    if (pane.editing === rule.id) renderForm(rule, item);
  }

  function button(parent, text, action, rule) {
    const b = node("button", {type: "button", class: `rule-${action}`}, parent, text);
    b.addEventListener("click", () => act({type: "rule", rule: rule.id, action}));
  }

  async function act(message) {
    const reply = await send(message);
    if (reply.type === "error") return reply;
    const what = {accept: "accepted", drop: "dropped", restore: "kept", change: "changed"}[message.action];
    if (message.action === "add") status(`new ${KIND_NAMES[message.kind]} rule added (not saved yet)`);
    else status(`${labelOf(message.rule)} ${what} (not saved yet)`);
    if (message.action === "change" || message.action === "add") { pane.editing = null; pane.newMatch = null; }
    return reply; // the reply's counters_version moved: the hook below redraws the pane
  }

  function labelOf(id) { return (pane.model.rules.find((r) => r.id === id) || {}).label || id; }

  // ---- the change form: each condition and value as a field; an emptied one is removed --------------
  function renderForm(rule, item) {
    const form = node("form", {class: "rule-form", "data-form": rule.id}, item);
    const table = (title, entries, attr) => {
      const set = node("fieldset", {}, form);
      node("legend", {}, set, title);
      for (const [key, value] of Object.entries(entries)) {
        const label = node("label", {}, set, `${key} `);
        node("input", {type: "text", [attr]: key, value: String(value), "aria-label": `${title} ${key}`}, label);
      }
      const addRow = () => {
        const add = node("div", {class: "rule-add"});
        set.insertBefore(add, more);
        node("input", {type: "text", class: "add-key", placeholder: attr === "data-match" ? "property, @name, @prototype…"
          : "field", "aria-label": `new ${title} name`, list: attr === "data-set" && rule.kind === "counters" ? "counter-fields" : ""}, add);
        node("input", {type: "text", class: "add-value", placeholder: "value (re: for a pattern)",
          "aria-label": `new ${title} value`}, add);
        return add;
      };
      const more = node("button", {type: "button", class: "rule-more"}, set, `+ ${attr === "data-match" ? "condition" : "field"}`);
      more.addEventListener("click", () => addRow().querySelector("input").focus());
      addRow();
      return set;
    };
    const matchSet = table("match", rule.match, "data-match");
    // An ignore rule sets nothing: only its conditions are shown.
    const valueSet = rule.kind === "ignore" ? null : table(rule.kind === "state" ? "writes" : "set", rule.set, "data-set");
    if (rule.kind === "counters" && !document.getElementById("counter-fields")) {
      const fields = node("datalist", {id: "counter-fields"}, panel);
      for (const f of pane.model.counter_fields) node("option", {value: f}, fields);
    }
    node("p", {class: "rule-hint"}, form, rule.isNew ? "Enter adds the rule, Esc cancels; empty fields are left out."
      : "Enter applies, Esc cancels; an emptied field is removed. A rule you change is yours: it is saved as reviewed.");
    const row = node("div", {class: "rule-buttons"}, form);
    node("button", {type: "submit", class: "rule-apply"}, row, rule.isNew ? "Add" : "Apply");
    const cancel = node("button", {type: "button", class: "rule-cancel"}, row, "Cancel");
    cancel.addEventListener("click", () => { pane.editing = null; render(); });
    const collect = (set, attr) => {
      const out = {};
      if (!set) return out;
      for (const input of set.querySelectorAll(`input[${attr}]`)) {
        if (input.value !== "") out[input.getAttribute(attr)] = input.value;
      }
      for (const row of set.querySelectorAll(".rule-add")) {
        const key = row.querySelector(".add-key").value.trim();
        if (key) out[key] = row.querySelector(".add-value").value;
      }
      return out;
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const match = collect(matchSet, "data-match");
      const set = collect(valueSet, "data-set");
      act(rule.isNew ? {type: "rule", action: "add", kind: rule.kind, match, set}
        : {type: "rule", rule: rule.id, action: "change", match, set});
    });
    form.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { event.preventDefault(); pane.editing = null; render(); }
    });
    const first = form.querySelector("input");
    if (first) first.focus();
  }

  // ---- a new rule (for the pieces no rule matches): the same form, appended to its list on Save ------
  function renderNew() {
    adding.replaceChildren();
    if (!pane.model.editable) return;
    for (const kind of ["counters", "ignore", "state"]) {
      const b = node("button", {type: "button", class: `rule-new`, "data-kind": kind}, adding,
        `New ${KIND_NAMES[kind]} rule`);
      b.addEventListener("click", () => { pane.editing = `new:${kind}`; pane.newMatch = null; render(); });
    }
    const kind = (pane.editing || "").startsWith("new:") ? pane.editing.slice(4) : null;
    if (!kind) return;
    const holder = node("div", {class: "counter-rule new", "data-rule": pane.editing}, adding);
    node("strong", {}, holder, `New ${KIND_NAMES[kind]} rule`);
    const set = Object.fromEntries(NEW_SET[kind].map((k) => [k, ""]));
    renderForm({id: pane.editing, kind, isNew: true, match: pane.newMatch || {}, set}, holder);
  }

  // ---- proposed boxes: accept; a zone's box is changed or dropped with the zone editor's own edit ----
  function boxLabel(value) {
    const choice = (state.model.choices.boxes || []).find((c) => c.value === value);
    return choice ? choice.label : value;
  }

  function renderPlace(place) {
    const kind = place.dropped ? "dropped" : place.proposed ? "proposed" : place.edited ? "changed" : "accepted";
    const item = node("li", {class: `counter-place ${kind}`, "data-place": place.name}, places);
    const text = place.pattern ? `zones named ${place.name} → ${place.box}`
      : `${place.name} → ${place.box ? boxLabel(place.box) : "no box"}`;
    node("span", {class: "place-name"}, item, text);
    const badgeText = {dropped: "dropped (not saved yet)", proposed: "proposed, not reviewed",
      changed: "chosen by you (not saved yet)", accepted: "accepted (not saved yet)"}[kind];
    node("span", {class: `badge ${kind}`}, item, badgeText);
    if (!pane.model.file) return;
    const buttons = node("span", {class: "rule-buttons"}, item);
    const add = (label, done, cls, message) => {
      const b = node("button", {type: "button", class: cls}, buttons, label);
      b.addEventListener("click", async () => {
        const reply = await send(message);
        if (reply.type !== "error") status(`${place.name}: ${done} (not saved yet)`);
      });
    };
    if (place.proposed) add("Accept", "accepted", "place-accept", {type: "place", name: place.name, action: "accept"});
    if (place.pattern) {
      if (place.dropped) add("Keep", "kept", "place-restore", {type: "place", name: place.name, action: "restore"});
      else add("Drop", "dropped", "place-drop", {type: "place", name: place.name, action: "drop"});
    } else if (!place.dropped) {
      add("Drop", "no box any more", "place-drop", {type: "box", zone: place.name, box: null});
    }
  }

  // A redraw while a change form is open (another tab's edit, an undo) keeps what is typed in it.
  function draft() {
    const form = panel.querySelector("form.rule-form");
    if (!form) return null;
    const inputs = [...form.querySelectorAll("input")];
    return {rule: form.dataset.form, values: inputs.map((i) => i.value), focus: inputs.indexOf(document.activeElement)};
  }

  function restore(saved) {
    const form = saved && panel.querySelector(`form.rule-form[data-form="${CSS.escape(saved.rule)}"]`);
    if (!form) return;
    const inputs = [...form.querySelectorAll("input")];
    if (inputs.length !== saved.values.length) return;
    inputs.forEach((input, i) => { input.value = saved.values[i]; });
    if (saved.focus >= 0) inputs[saved.focus].focus();
  }

  function render() {
    const model = pane.model;
    if (!model) return;
    const typed = draft();
    places.replaceChildren();
    placesHead.hidden = !(model.places || []).length;
    (model.places || []).forEach(renderPlace);
    list.replaceChildren();
    unmatched.replaceChildren();
    reason.hidden = !model.reason;
    reason.textContent = model.reason || "";
    const live = model.rules.filter((r) => !r.dropped);
    const boxes = (model.places || []).filter((p) => p.proposed).length;
    summary.textContent = `${live.length} rule${live.length === 1 ? "" : "s"} in ${model.file || "the pack"}`
      + (model.proposed ? ` · ${model.proposed} proposed from the module, not yet reviewed` : " · none proposed")
      + (boxes ? ` · ${boxes} box${boxes === 1 ? "" : "es"} proposed` : "")
      + ` · ${model.unmatched.length} of ${pieces().length} pieces of the module no rule matches`;
    document.body.dataset.proposedRules = String(model.proposed);
    document.body.dataset.proposedBoxes = String(boxes);
    jump.textContent = model.proposed + boxes ? `Counters: ${model.proposed + boxes} proposed` : "Counters";
    jump.classList.toggle("pending", model.proposed + boxes > 0);
    model.rules.forEach(renderRule);
    if (model.unmatched.length) {
      model.unmatched.slice(0, UNMATCHED_SHOWN).forEach((n) => thumb(n, unmatched));
      for (const figure of unmatched.querySelectorAll("figure.piece")) {
        figure.tabIndex = 0;
        const start = () => {
          pane.editing = "new:counters";
          pane.newMatch = {"@name": pieces()[Number(figure.dataset.piece)].name};
          render();
          adding.scrollIntoView({block: "nearest"});
        };
        figure.addEventListener("click", start);
        figure.addEventListener("keydown", (event) => { if (event.key === "Enter") start(); });
      }
      if (model.unmatched.length > UNMATCHED_SHOWN) {
        node("span", {class: "more"}, unmatched, `and ${model.unmatched.length - UNMATCHED_SHOWN} more`);
      }
    }
    else node("p", {class: "none"}, unmatched, "every piece of the module is matched by some rule");
    renderNew();
    if (typed && typed.rule === pane.editing) restore(typed);
  }

  async function refresh() {
    const reply = await send({type: "counters"});
    if (reply.type !== "counters") return;
    pane.model = reply.counters;
    pane.version = reply.counters.version;
    if (!String(pane.editing).startsWith("new:") && !pane.model.rules.some((r) => r.id === pane.editing)) {
      pane.editing = null;
    }
    render();
    document.body.dataset.countersVersion = String(pane.version);
  }

  // Typing in the pane's fields is text, not the map's keys (C, K, P… toggle flags of the selected hexes).
  panel.addEventListener("keydown", (event) => {
    if (event.target.tagName !== "INPUT") return;
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") return; // Ctrl+S still saves
    event.stopPropagation();
  });

  // ---- hooks into the editor --------------------------------------------------------------------
  function install() {
    pane.model = state.model.counters;
    pane.version = pane.model ? pane.model.version : null;
    render();
    document.body.dataset.countersVersion = String(pane.version);
    const reply = window.onReply;
    // Undo, redo, a save or another tab's edit change the rules too: redraw when their version moves.
    window.onReply = function (message) {
      reply.apply(this, arguments);
      if (message && "counters_version" in message && message.counters_version !== pane.version
          && message.type !== "counters") {
        pane.version = message.counters_version;
        refresh();
      }
    };
  }

  const ready = () => document.body.dataset.ready === "yes";
  if (ready()) install();
  else new MutationObserver((_m, observer) => { if (ready()) { observer.disconnect(); install(); } })
    .observe(document.body, {attributes: true, attributeFilter: ["data-ready"]});
})();
