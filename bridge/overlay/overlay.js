// Adjutant overlay: one page, three views (player, stream, control), fed by the daemon's
// WebSocket protocol (docs/protocol.md). No build step: plain browser JavaScript.
//
// Why everything is built with textContent: plan text comes from save files other people wrote;
// it must never be interpreted as HTML in an OBS scene or a player's browser.
"use strict";

(function () {
  const params = new URLSearchParams(window.location.search);
  const VIEWS = ["player", "stream", "control"];
  // A missing view means player; a mistyped one (`?view=strem` in an OBS source) must NOT fall
  // back to player, which would put hidden pieces on stream: it is refused below.
  const requestedView = params.has("view") ? params.get("view") : "player";
  const view = VIEWS.includes(requestedView) ? requestedView : null;
  const faction = params.get("faction");
  const interactive = view !== "stream";
  const HEARTBEAT_SILENCE_MS = 15000; // server beats every 5 s; three missed beats = dead link
  const BACKOFF_MIN_MS = 250;
  const BACKOFF_MAX_MS = 8000;

  let state = null;
  let run = null;
  let seq = null;
  let socket = null;
  let backoff = BACKOFF_MIN_MS;
  let silenceTimer = null;
  let reconnectTimer = null;

  document.body.classList.add("view-" + view);
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key.startsWith("data-") || key.startsWith("aria-")) node.setAttribute(key, String(value));
      else node[key] = value;
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // --- connection --------------------------------------------------------------------------------

  function socketUrl() {
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    const query = new URLSearchParams({ view });
    if (seq !== null && run !== null) {
      query.set("since", String(seq));
      query.set("run", run);
    }
    return `${scheme}//${window.location.host}/ws?${query}`;
  }

  function setConnection(up, text) {
    const banner = $("connection");
    banner.textContent = text;
    banner.classList.toggle("down", !up);
    document.body.dataset.connected = up ? "yes" : "no";
  }

  function armSilenceTimer() {
    clearTimeout(silenceTimer);
    silenceTimer = setTimeout(() => socket && socket.close(), HEARTBEAT_SILENCE_MS);
  }

  function connect() {
    clearTimeout(reconnectTimer);
    socket = new WebSocket(socketUrl());
    socket.onopen = () => {
      backoff = BACKOFF_MIN_MS;
      setConnection(true, "● Live");
      armSilenceTimer();
    };
    socket.onmessage = (event) => {
      armSilenceTimer();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      receive(message);
    };
    socket.onclose = () => {
      clearTimeout(silenceTimer);
      socket = null;
      const wait = Math.min(backoff, BACKOFF_MAX_MS) * (0.8 + Math.random() * 0.4);
      backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
      setConnection(false, `Disconnected from Adjutant — reconnecting in ${(wait / 1000).toFixed(1)} s`);
      reconnectTimer = setTimeout(connect, wait);
    };
  }

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }

  function receive(message) {
    if (message.type === "snapshot") {
      state = message.state;
      run = message.run;
      seq = message.seq;
      render();
    } else if (message.type === "delta") {
      if (message.run !== run || state === null) return send({ type: "resync", since: seq || 0, run });
      if (message.seq <= seq) return; // already have it (a resync overlap)
      if (message.seq !== seq + 1) return send({ type: "resync", since: seq, run }); // a gap
      Object.assign(state, message.set);
      seq = message.seq;
      render();
    } else if (message.type === "heartbeat") {
      if (message.run !== run || message.seq > seq) send({ type: "resync", since: seq || 0, run });
    } else if (message.type === "error") {
      showNotice(`Adjutant refused that: ${message.message}`);
    }
  }

  // --- what to show ------------------------------------------------------------------------------

  function eventIsDue(event) {
    return event.fired === true || event.status === "fired" || event.status === "waiting";
  }

  function choicesOf(event) {
    return Array.isArray(event.choices) ? event.choices : [];
  }

  function deciderOf(choice) {
    return choice.decider || choice.who || "";
  }

  function belongsToFaction(event, plan) {
    if (!faction) return true;
    const owner = event.faction || event.who || plan.phasing;
    if (owner === faction) return true;
    return choicesOf(event).some((choice) => deciderOf(choice) === faction);
  }

  function visibleEvents(plan) {
    const events = Array.isArray(plan.events) ? plan.events : [];
    if (view === "control") return events;
    return events.filter((event) => eventIsDue(event) && (view !== "player" || belongsToFaction(event, plan)));
  }

  function optionValue(option) {
    return option !== null && typeof option === "object" ? option.value ?? option.id ?? option.label : option;
  }

  function optionLabel(option) {
    return option !== null && typeof option === "object" ? option.label ?? String(optionValue(option)) : option;
  }

  // The value sent back to the server for an option (protocol: strings, other values as JSON).
  function answerText(value) {
    return typeof value === "string" ? value : JSON.stringify(value);
  }

  // An answer as a person reads it: a list as "a, b", nothing as "none" (never "null" or "[]").
  function answerWords(value) {
    if (value === null || value === undefined) return "none";
    if (Array.isArray(value)) return value.length ? value.map(answerWords).join(", ") : "none";
    return typeof value === "string" ? value : JSON.stringify(value);
  }

  // --- rendering ---------------------------------------------------------------------------------

  function showNotice(text) {
    const notice = $("notice");
    notice.textContent = text || "";
    notice.hidden = !text;
  }

  function render() {
    if (!state) return;
    const plan = state.plan && typeof state.plan === "object" ? state.plan : null;
    $("file").textContent = state.file ? state.file : "no save yet";
    $("turn").textContent = plan ? [plan.turn, plan.phasing ? `${plan.phasing} phasing` : ""].filter(Boolean).join(" · ") : "";
    $("title").textContent = view === "player" && faction ? `Adjutant — ${faction}` : "Adjutant";
    showNotice(view === "stream" ? "" : state.notice);
    renderViolations(plan);
    const events = plan ? visibleEvents(plan) : [];
    const container = $("events");
    container.replaceChildren(...events.map((event, index) => renderEvent(event, index, plan)));
    if (window.AdjutantInset) window.AdjutantInset.fitLabels(container);
    if (view === "stream") fitStream();
    $("nothing").textContent = view === "player" && faction ? `Nothing is due for ${faction}.` : "Nothing is due.";
    $("nothing").hidden = events.length > 0 || !plan;
    renderWaiting(plan);
    renderReplay(state.replay);
    renderWarnings(plan);
    document.body.dataset.seq = String(seq);
  }

  // Before the first plan the page would be blank: say what it is waiting for.
  function renderWaiting(plan) {
    const waiting = $("waiting");
    const text = plan
      ? ""
      : state.status === "planning"
        ? "Working out what is due…"
        : state.status === "error"
          ? "The last file could not be planned (see the notice above)."
          : "Waiting for a save: save the game in VASSAL into the watched folder.";
    waiting.textContent = text;
    waiting.hidden = !text || view === "stream";
  }

  // The lower third must show each event's title: when the events do not fit the screen, the
  // insets go first (an inset too small to read is worse than none), then long steps are clipped.
  function fitStream() {
    const content = $("content");
    if (content.scrollHeight <= content.clientHeight) return;
    for (const inset of content.querySelectorAll(".insets")) inset.remove();
  }

  function renderViolations(plan) {
    const section = $("violations");
    const violations = plan && Array.isArray(plan.violations) ? plan.violations : [];
    section.hidden = violations.length === 0 || view === "stream";
    section.replaceChildren(
      el("h2", {}, "War & Peace Segment (6.1) violations"),
      el("ul", {}, ...violations.map((v) => el("li", { class: "violation" }, el("span", { class: "rule" }, v.rule || ""), v.text || "")))
    );
  }

  function renderEvent(event, index, plan) {
    const status = event.status || (event.fired ? "fired" : "not_due");
    const steps = Array.isArray(event.steps) ? event.steps : [];
    // On air, an event that only waits for another's answer is one line, so the event that needs
    // the players (steps, a choice) stays in the lower third instead of being pushed off screen.
    const brief = view === "stream" && status === "waiting" && steps.length === 0 && choicesOf(event).length === 0;
    const many = steps.length > 4 ? " many-steps" : "";
    const node = el("article", { class: `event status-${status}${brief ? " brief" : ""}${many}`, "data-rule": event.rule || "" });
    const badge = status === "waiting" ? "waiting for an answer" : status === "fired" ? "due" : status.replace("_", " ");
    node.append(el("h2", {}, el("span", { class: "rule" }, event.rule || ""), event.title || "", el("span", { class: `badge badge-${status}` }, badge)));
    if (brief) return node;
    const why = Array.isArray(event.why) ? event.why : event.why ? [event.why] : [];
    if (why.length) node.append(el("ul", { class: "why" }, ...why.map((line) => el("li", {}, line))));
    // Readings of errata the event's Steps applied (docs/plan-format.md "errata"): which, the others, the option.
    const errata = Array.isArray(event.errata) ? event.errata : [];
    if (errata.length) node.append(el("ul", { class: "errata" }, ...errata.map((note) => el("li", { class: "erratum", "data-key": note.key || "" }, note.text || ""))));
    if (steps.length) node.append(el("ul", { class: "steps" }, ...steps.map(renderStep)));
    const inset = renderInset(event);
    if (inset) node.append(inset);
    for (const choice of choicesOf(event)) {
      if (view === "player" && faction && deciderOf(choice) && deciderOf(choice) !== faction) continue;
      node.append(renderChoice(choice));
    }
    return node;
  }

  function renderStep(step) {
    const key = step.key || "";
    const done = Boolean(state.ticks && state.ticks[key]);
    const label = [step.rule, step.step].filter(Boolean).join(" ");
    const text = el("span", { class: "text" }, el("span", { class: "rule" }, label), step.text || "");
    const item = el("li", { class: done ? "step done" : "step", "data-key": key });
    if (!interactive) {
      item.append(text);
      return item;
    }
    const box = el("input", { type: "checkbox", checked: done, "data-key": key });
    box.addEventListener("change", () => send({ type: "tick", step: key, done: box.checked }));
    item.append(el("label", {}, box, text));
    return item;
  }

  function renderChoice(choice) {
    const node = el("div", { class: "choice", "data-choice": choice.id || "" });
    const who = deciderOf(choice);
    node.append(el("div", { class: "prompt" }, who ? el("span", { class: "decider" }, `${who} decides: `) : "", choice.prompt || choice.id || ""));
    // An answer given in the overlay wins over one the planner was given (e.g. the demo's story).
    const fromOverlay = Boolean(state.answers && choice.id in state.answers);
    const answered = fromOverlay || Boolean(choice.answered);
    const current = fromOverlay ? state.answers[choice.id] : choice.answer;
    const status = answered
      ? `Answered: ${answerWords(current)}`
      : view === "player" && who && who === faction
        ? "Your decision: pick below"
        : `Awaiting ${who ? who + "'s" : "a"} decision`;
    node.append(el("div", { class: answered ? "answer answered" : "answer" }, status));
    node.classList.toggle("settled", answered);
    if (!interactive) return node;
    // A list answer (a `multiple` choice, or one the planner answered with a list) is toggled
    // one option per click.
    const multiple = choice.multiple === true || Array.isArray(current);
    const picked = multiple ? (Array.isArray(current) ? current.map(answerText) : []) : null;
    const buttons = el("div", { class: "options" });
    for (const option of Array.isArray(choice.options) ? choice.options : []) {
      const value = answerText(optionValue(option));
      const chosen = multiple ? picked.includes(value) : answered && answerText(current) === value;
      const button = el("button", { type: "button", class: chosen ? "option chosen" : "option", "data-value": value,
        "aria-pressed": chosen ? "true" : "false" }, optionLabel(option));
      button.addEventListener("click", () => {
        const answer = multiple ? (chosen ? picked.filter((v) => v !== value) : [...picked, value]) : value;
        send({ type: "answer", choice: choice.id, option: answer });
      });
      buttons.append(button);
    }
    if (answered) {
      const clear = el("button", { type: "button", class: "clear" }, "Clear answer");
      clear.addEventListener("click", () => send({ type: "answer", choice: choice.id, option: null }));
      buttons.append(clear);
    }
    node.append(buttons);
    return node;
  }

  // Map inset (inset.js): one panel per cluster of nearby hexes, arrows for moves between them.
  function renderInset(event) {
    if (!window.AdjutantInset) return null;
    const stream = view === "stream";
    return window.AdjutantInset.render(event.map || null, event.steps, {
      view,
      maxWidth: Math.max(window.innerWidth * (stream ? 0.9 : 1) - 90, 200),
      maxHeight: stream ? window.innerHeight * 0.45 : 520,
      fontScale: stream ? parseFloat(getComputedStyle(document.body).fontSize) / 20 : 1,
    });
  }

  function renderReplay(replay) {
    const section = $("replay");
    const rows = replay && Array.isArray(replay.became_due) ? replay.became_due : [];
    section.hidden = view === "stream" || rows.length === 0;
    if (section.hidden) return section.replaceChildren();
    section.replaceChildren(
      el("h2", {}, `Log replay: ${replay.steps} step(s)`),
      el(
        "table",
        {},
        el("tr", {}, el("th", {}, "Rule"), el("th", {}, "Event"), el("th", {}, "Became due at step")),
        ...rows.map((row) => el("tr", {}, el("td", { class: "rule" }, row.rule || ""), el("td", {}, row.title || ""), el("td", {}, row.steps.join(", "))))
      )
    );
  }

  // Control view only: what the reader could not place (CheckPipeline's `vassal` report).
  function renderWarnings(plan) {
    const section = $("warnings");
    const vassal = plan && plan.vassal && typeof plan.vassal === "object" ? plan.vassal : {};
    const lines = Array.isArray(vassal.warnings) ? vassal.warnings.map(String) : [];
    for (const [what, table] of [["unmapped piece", vassal.unmapped_pieces], ["unmapped place", vassal.unmapped_places]]) {
      for (const [name, count] of Object.entries(table && typeof table === "object" ? table : {})) {
        lines.push(`${what}: ${name} ×${count}`);
      }
    }
    section.hidden = view !== "control" || lines.length === 0;
    section.replaceChildren(...(section.hidden ? [] : [el("h2", {}, "Reader warnings"), el("ul", {}, ...lines.map((line) => el("li", {}, line)))]));
  }

  if (view === null) {
    setConnection(false, `Unknown view "${requestedView}": use ?view=player&faction=…, ?view=stream or ?view=control`);
  } else {
    setConnection(false, "Connecting to Adjutant…");
    connect();
  }
})();
