// Game facts (docs/pack-format.md, "Game facts"): what no save carries — the DP level, whose player
// turn it is — asked in the control view until a player gives it. Self-contained as writeback.js is:
// its own connection and copy of the state, so overlay.js (reworked elsewhere) needs no change.
// A fact is sent as an answer with choice id "fact:NAME"; the daemon keeps it with the map's game turn.
(function () {
  "use strict";
  const params = new URLSearchParams(window.location.search);
  if ((params.get("view") || "player") !== "control") return; // only the control view gives facts
  let state = null;
  const editing = new Set(); // facts whose form a player is filling: not redrawn under their hands

  const box = document.createElement("section");
  box.id = "facts";
  box.className = "facts";
  box.hidden = true;
  const anchor = document.getElementById("content");
  if (anchor && anchor.parentNode) anchor.parentNode.insertBefore(box, anchor);
  else document.body.appendChild(box);

  function send(message) { feed.send(message); }

  // bridge/web/overlay/feed.js: the state kept in step with the daemon's
  const feed = window.adjutantFeed("control", (set) => {
    state = feed.state;
    if (set === null || "plan" in set) render(); // a snapshot, or a plan that changed
  });

  function element(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The input for one fact: a number, a select of its values, or a checkbox per value (a list).
  function input(fact, value) {
    if (fact.type === "int") {
      const field = element("input", "fact-value");
      field.type = "number";
      if (fact.min !== null && fact.min !== undefined) field.min = String(fact.min);
      if (fact.max !== null && fact.max !== undefined) field.max = String(fact.max);
      if (value !== undefined) field.value = String(value);
      return field;
    }
    if (fact.type === "choice") {
      const field = element("select", "fact-value");
      field.appendChild(element("option", "", "—"));
      field.firstChild.value = "";
      for (const item of fact.values) {
        const option = element("option", "", item);
        option.value = item;
        if (item === value) option.selected = true;
        field.appendChild(option);
      }
      return field;
    }
    const group = element("span", "fact-value fact-list");
    for (const item of fact.values) {
      const label = element("label", "");
      const box = element("input", "");
      box.type = "checkbox";
      box.value = item;
      box.checked = Array.isArray(value) && value.includes(item);
      label.append(box, ` ${item}`);
      group.appendChild(label);
    }
    return group;
  }

  function valueOf(form, fact) {
    if (fact.type === "list") {
      return Array.from(form.querySelectorAll("input[type=checkbox]:checked"), (box) => box.value);
    }
    return form.querySelector(".fact-value").value;
  }

  function renderFact(fact, given) {
    const form = element("form", "fact");
    form.dataset.fact = fact.name;
    if (given) form.dataset.given = "yes";
    const label = element("label", "fact-question", `${fact.question} (${(fact.rules || []).join(", ")})`);
    form.appendChild(label);
    form.appendChild(input(fact, given ? given.value : undefined));
    const button = element("button", "fact-give", given ? "Change" : "Give");
    button.type = "submit";
    form.appendChild(button);
    if (given) {
      const shown = Array.isArray(given.value) ? given.value.join(", ") || "none" : String(given.value);
      form.appendChild(element("span", "fact-by", `= ${shown} (given by ${given.by})`));
    }
    if (fact.again) form.appendChild(element("p", "fact-again", fact.again));
    form.addEventListener("focusin", () => editing.add(fact.name));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      editing.delete(fact.name);
      const value = valueOf(form, fact);
      if (value === "") return;
      send({ type: "answer", choice: `fact:${fact.name}`, option: value });
    });
    return form;
  }

  function render() {
    const facts = state && state.plan && state.plan.game_facts;
    const fromMap = (facts && facts.from_map) || [];
    if (!facts || (!facts.questions.length && !facts.given.length && !fromMap.length)) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    if (box.contains(document.activeElement) && editing.size) return; // redraw after the player's submit
    box.hidden = false;
    box.replaceChildren();
    box.appendChild(element("h2", "facts-title", "Game facts no save carries"));
    if (facts.turn) box.appendChild(element("p", "facts-turn", `game turn on the map: ${facts.turn}`));
    for (const question of facts.questions) box.appendChild(renderFact(question, null));
    for (const given of facts.given) box.appendChild(renderFact(given, given));
    // Facts the save's pieces show (a marker on a track): read from the map, never asked nor typed over
    for (const fact of fromMap) box.appendChild(renderFromMap(fact));
  }

  function renderFromMap(fact) {
    const shown = Array.isArray(fact.value) ? fact.value.join(", ") || "none" : String(fact.value);
    const line = element("p", "fact fact-map",
      `${fact.question} (${(fact.rules || []).join(", ")}) = ${shown} (read from the map)`);
    line.dataset.fact = fact.name;
    const aside = fact.set_aside;
    if (aside && String(aside.value) !== shown) {
      line.appendChild(element("span", "fact-aside", ` — the answer ${aside.value} given by ${aside.by} is not used`));
    }
    return line;
  }

})();
