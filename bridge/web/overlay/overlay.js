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
  const requestedFaction = params.get("faction");
  let faction = requestedFaction; // made canonical (any case -> "Axis") once a plan lists the factions
  let unknownFaction = false;
  const DEFAULT_FACTIONS = ["Axis", "Western", "Soviet"];
  // Only the control view answers and ticks: the player view is read-only (its URL's token cannot answer,
  // bridge/web/access.py), so it shows no control it cannot use, and says who decides and where.
  const interactive = view === "control";
  // Stream settings (OBS browser source URL): where the lower third sits, how big, how much.
  //   position=bottom|top|left|right  scale=0.5..3  lines=1..12 (steps per event)  insets=1|0  cycle=S
  const POSITIONS = ["bottom", "top", "left", "right"];
  function number(name, fallback, low, high) {
    const value = parseFloat(params.get(name));
    return Number.isFinite(value) ? Math.min(Math.max(value, low), high) : fallback;
  }
  const stream = {
    position: POSITIONS.includes(params.get("position")) ? params.get("position") : "bottom",
    scale: number("scale", 1, 0.5, 3),
    lines: Math.round(number("lines", 3, 1, 12)),
    insets: ["1", "true", "yes", "on"].includes((params.get("insets") || "").toLowerCase()),
    cycle: number("cycle", 8, 2, 120),
  };
  let cycleIndex = 0;
  let cycleTimer = null;
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
  if (view === "stream") {
    document.body.classList.add("stream-" + stream.position);
    document.body.classList.toggle("stream-insets", stream.insets);
    document.documentElement.style.setProperty("--stream-scale", String(stream.scale));
  }
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
    // A player view is one faction's: the server shows it that faction's own hidden pieces (and checks
    // the key is that faction's), so the socket asks for the faction the page was opened for.
    if (view === "player" && requestedFaction) query.set("faction", requestedFaction);
    if (params.get("token")) query.set("token", params.get("token")); // else the cookie (bridge/web/access.py)
    if (seq !== null && run !== null) {
      query.set("since", String(seq));
      query.set("run", run);
    }
    return `${scheme}//${window.location.host}/ws?${query}`;
  }

  // On air there is no banner: the last plan stays, dimmed, with a small marker (#stale); the
  // player and control views keep the banner, since there a person can act on it.
  function setConnection(up, text) {
    const banner = $("connection");
    banner.textContent = text;
    banner.classList.toggle("down", !up);
    document.body.dataset.connected = up ? "yes" : "no";
    const marker = $("stale");
    if (marker) {
      marker.hidden = up || view !== "stream";
      marker.title = up ? "" : text;
    }
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
      document.body.dataset.access = message.access || ""; // "read": a player/stream URL (bridge/web/access.py)
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

  // Undecided: a fact the event needs is missing. Never "not due": shown in every view, own style.
  function eventIsUndecided(event) {
    return event.status === "undecided";
  }

  // Owed: it fired in an earlier position and this one does not show all its steps (docs/protocol.md
  // "Owed steps"): the steps still to make are the players' business as much as a due event's.
  function eventIsOwed(event) {
    return event.status === "owed";
  }

  function needsPlayers(event) {
    return eventIsDue(event) || eventIsUndecided(event) || eventIsOwed(event);
  }

  // An owed event's deviations: "PO 2 Inf (PO-2) is in the Delay Box; 16.1.1 Step 2 puts it in …".
  function deviationTexts(event) {
    return Array.isArray(event.deviations) ? event.deviations.filter((text) => typeof text === "string") : [];
  }

  // "2 of 6 steps made": counted from the steps this page was sent (the stream's lack hidden pieces).
  function madeLine(event) {
    const steps = Array.isArray(event.steps) ? event.steps : [];
    const made = steps.filter((step) => step && step.made === true).length;
    return `${made} of ${steps.length} step(s) made; still to do: ${steps.length - made}`;
  }

  function missingTexts(event) {
    const missing = Array.isArray(event.missing) ? event.missing : [];
    return missing.map((item) => {
      if (item === null || typeof item !== "object") return String(item);
      const text = String(item.text || item.fact || "a fact");
      return item.subject && !text.includes(String(item.subject)) ? `${item.subject}: ${text}` : text;
    });
  }

  function sameFaction(a, b) {
    return typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();
  }

  // `?faction=axis` is the Axis: matched without regard to case against the plan's factions; an
  // unknown faction says which ones there are instead of "Nothing is due for allies".
  function resolveFaction(plan) {
    if (!requestedFaction) return;
    const known = plan && Array.isArray(plan.factions) && plan.factions.length ? plan.factions : DEFAULT_FACTIONS;
    // ...or a VASSAL side a faction plays (the extension's `faction=$PlayerSide$`; the pack's [vassal.sides])
    const sides = plan && plan.vassal && plan.vassal.sides && typeof plan.vassal.sides === "object" ? plan.vassal.sides : {};
    const bySide = known.filter((name) => Array.isArray(sides[name]) && sides[name].some((side) => sameFaction(side, requestedFaction)));
    const match = known.find((name) => sameFaction(name, requestedFaction)) || (bySide.length === 1 ? bySide[0] : undefined);
    faction = match || requestedFaction;
    unknownFaction = !match;
    if (unknownFaction) showNotice(`Unknown faction "${requestedFaction}": use ${known.join(", ")} (?view=player&faction=…)`);
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
    if (sameFaction(owner, faction)) return true;
    // The plan names every faction whose counters an event moves or who must choose (docs/plan-format.md).
    if (Array.isArray(event.factions) && event.factions.some((f) => sameFaction(f, faction))) return true;
    return choicesOf(event).some((choice) => sameFaction(deciderOf(choice), faction));
  }

  function visibleEvents(plan) {
    const events = Array.isArray(plan.events) ? plan.events : [];
    if (view === "control") return events;
    if (unknownFaction) return [];
    return events.filter((event) => needsPlayers(event) && (view !== "player" || belongsToFaction(event, plan)));
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

  // An answer by its options' labels, as the plan names them (never the bare value, e.g. "remove").
  function answerLabels(choice, value) {
    const options = Array.isArray(choice.options) ? choice.options : [];
    const labelOf = (v) => {
      const found = options.find((option) => answerText(optionValue(option)) === answerText(v));
      return found === undefined ? answerWords(v) : String(optionLabel(found));
    };
    if (Array.isArray(value)) return value.length ? value.map(labelOf).join(", ") : "none";
    return value === null || value === undefined ? "none" : labelOf(value);
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
    // A World at War names its player turn in the rules' words (plan.player_turn), never a faction (issue 41)
    const whose = plan && (plan.player_turn || (plan.phasing ? `${plan.phasing} phasing` : ""));
    $("turn").textContent = plan ? [plan.turn, whose].filter(Boolean).join(" · ") : "";
    showNotice(view === "stream" ? "" : state.notice);
    resolveFaction(plan);
    $("title").textContent = view === "player" && faction && !unknownFaction ? `Adjutant — ${faction}` : "Adjutant";
    renderViolations(plan);
    const events = plan ? visibleEvents(plan) : [];
    const container = $("events");
    if (view === "stream") {
      renderStream(events, plan);
    } else {
      container.replaceChildren(...events.map((event, index) => renderEvent(event, index, plan)));
      if (window.AdjutantInset) window.AdjutantInset.fitLabels(container);
    }
    renderTables(plan);
    renderPlanMissing(plan);
    $("nothing").textContent = view === "player" && faction ? `Nothing is due for ${faction}.` : "Nothing is due.";
    // Never "Nothing is due" while an event is due, waiting or undecided (unknown is not "not due").
    const violated = plan && Array.isArray(plan.violations) && plan.violations.length > 0 &&
      (view !== "player" || !faction || sameFaction(plan.phasing, faction)); // 6.1: the phasing faction's
    const pending = events.some(needsPlayers) || violated || planMissing(plan).length > 0;
    $("nothing").hidden = pending || !plan || unknownFaction;
    renderExport(plan);
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

  // --- the stream view: one card, a lower third ---------------------------------------------------
  //
  // Why one card: a broadcast overlay must leave the game visible. The card shows the current event's
  // rule, title and its next few steps (`lines`); with more events it cycles every `cycle` seconds and
  // lists the others as chips, so every due event's rule number stays on screen.

  function mainEvents(events) {
    const brief = (event) => event.status === "waiting" && !(event.steps || []).length && !choicesOf(event).length;
    const main = events.filter((event) => !brief(event));
    return main.length ? main : events;
  }

  function renderStream(events, plan) {
    const container = $("events");
    clearTimeout(cycleTimer);
    const main = mainEvents(events);
    if (!main.length) {
      container.replaceChildren();
      document.body.dataset.streamEmpty = "yes";
      return;
    }
    document.body.dataset.streamEmpty = "no";
    cycleIndex = cycleIndex % main.length;
    const current = main[cycleIndex];
    const card = renderStreamCard(current, main.length > 1 ? `${cycleIndex + 1}/${main.length}` : "");
    const others = events.filter((event) => event !== current);
    const chips = others.length
      ? el("div", { class: "chips" }, ...others.map((event) => el("span", { class: `chip status-${event.status || "fired"}`, "data-rule": event.rule || "" },
          el("span", { class: "rule" }, event.rule || ""), event.title || "")))
      : null;
    container.replaceChildren(...(chips ? [card, chips] : [card])); // (a null child would print "null")
    if (window.AdjutantInset) window.AdjutantInset.fitLabels(container);
    fitStream(card, current);
    if (main.length > 1) {
      cycleTimer = setTimeout(() => {
        cycleIndex = (cycleIndex + 1) % main.length;
        render();
      }, stream.cycle * 1000);
    }
  }

  function renderStreamCard(event, counter) {
    const status = event.status || (event.fired ? "fired" : "not_due");
    const steps = Array.isArray(event.steps) ? event.steps : [];
    const node = el("article", { class: `event status-${status} stream-card`, "data-rule": event.rule || "" });
    node.append(el("h2", {}, el("span", { class: "rule" }, event.rule || ""), event.title || "",
      el("span", { class: `badge badge-${status}` }, badgeText(status)),
      counter ? el("span", { class: "cycle" }, counter) : null));
    for (const text of missingTexts(event)) node.append(el("div", { class: "missing" }, `Missing: ${text}`));
    // On air an owed event shows what is still to do (and what went wrong); the made steps are counted.
    const owed = status === "owed";
    if (owed) node.append(...owedLines(event));
    const todo = owed ? steps.filter((step) => step.made !== true) : steps;
    if (todo.length) {
      const shown = todo.slice(0, stream.lines);
      const list = el("ul", { class: "steps" }, ...shown.map(renderStep));
      node.append(list);
      if (todo.length > shown.length) node.append(el("div", { class: "more" }, `+ ${todo.length - shown.length} more step(s)`));
    }
    if (stream.insets) {
      const inset = renderInset(event);
      if (inset) node.append(inset);
    }
    for (const choice of choicesOf(event)) node.append(renderChoice(choice));
    return node;
  }

  // Keep the card inside its band (CSS max-height): insets go first (an inset too small to read is
  // worse than none), panel by panel, then steps one by one down to one, then choice prompts are
  // clamped to a line.
  function fitStream(card, event) {
    const content = $("content");
    // A side column gathers its events at its foot (overlay.css), so an overflow runs out of its top,
    // which scrollHeight does not count: every child must lie inside the band as well.
    const fits = () => {
      if (content.scrollHeight > content.clientHeight + 1) return false;
      const band = content.getBoundingClientRect();
      return [...content.children].every((child) => {
        const box = child.getBoundingClientRect();
        return box.height === 0 || (box.top >= band.top - 1 && box.bottom <= band.bottom + 1);
      });
    };
    if (fits()) return;
    // An inset is first drawn again in the height the band leaves it (smaller hexes, down to the
    // legible minimum, then without its least important panels: "+N more" says so), then fewer
    // panels, and only then goes as a whole.
    let inset = card.querySelector(".insets");
    for (let tries = 0; inset && !fits() && tries < 12; tries++) {
      const excess = content.scrollHeight - content.clientHeight;
      const tallest = Math.max(...[...inset.querySelectorAll("svg.inset")].map((svg) => svg.getBoundingClientRect().height));
      const panels = Number(inset.dataset.panels);
      let smaller = renderInset(event, { maxHeight: tallest - excess - 1 });
      if (smaller && Number(smaller.dataset.panels) >= panels && tries > 0) smaller = null; // no progress by height
      if (!smaller && panels > 1) smaller = renderInset(event, { maxPanels: panels - 1, maxHeight: tallest });
      if (smaller) {
        inset.replaceWith(smaller);
        if (window.AdjutantInset) window.AdjutantInset.fitLabels(smaller);
      } else {
        inset.remove();
      }
      inset = smaller;
    }
    if (inset && !fits()) inset.remove();
    const steps = Array.isArray(event.steps) ? event.steps : [];
    const total = event.status === "owed" ? steps.filter((step) => step.made !== true).length : steps.length;
    let items = card.querySelectorAll(".steps > li");
    while (!fits() && items.length > 1) {
      items[items.length - 1].remove();
      items = card.querySelectorAll(".steps > li");
      let more = card.querySelector(".more");
      if (!more) {
        more = el("div", { class: "more" });
        card.querySelector(".steps").after(more);
      }
      more.textContent = `+ ${total - items.length} more step(s)`;
    }
    if (!fits()) for (const prompt of card.querySelectorAll(".choice .prompt")) prompt.classList.add("clamped");
  }

  function badgeText(status) {
    return status === "waiting" ? "waiting for an answer" : status === "fired" ? "due" : status === "undecided" ? "undecided"
      : status === "owed" ? "owed: steps still to make" : status.replace("_", " ");
  }

  // --- facts missing for the whole position (plan key `missing`, e.g. most of a save unmapped) -------

  function planMissing(plan) {
    const missing = plan && Array.isArray(plan.missing) ? plan.missing : [];
    return missing.map((item) => (item && typeof item === "object" ? String(item.text || item.fact || "") : String(item))).filter(Boolean);
  }

  // Nothing can be decided: never shown as "Nothing is due" — its own undecided block, in every view.
  function renderPlanMissing(plan) {
    const section = $("undecided");
    if (!section) return;
    const texts = planMissing(plan);
    section.hidden = texts.length === 0;
    section.replaceChildren(...(texts.length
      ? [el("article", { class: "event status-undecided plan-missing" },
          el("h2", {}, "Nothing is decided", el("span", { class: "badge badge-undecided" }, "undecided")),
          ...texts.map((text) => el("div", { class: "missing" }, `Missing: ${text}`)))]
      : []));
  }

  // --- tables (e.g. AWAW's Russian Resistance Table, plan key `tables`) ----------------------------

  function renderTables(plan) {
    const section = $("tables");
    if (!section) return;
    const tables = plan && Array.isArray(plan.tables) ? plan.tables.filter((t) => t && typeof t === "object") : [];
    section.hidden = tables.length === 0;
    section.replaceChildren(...tables.map((table) => view === "stream" ? streamTable(table) : fullTable(table)));
  }

  function fullTable(table) {
    const rows = Array.isArray(table.rows) ? table.rows : [];
    const node = el("article", { class: "table-panel" },
      el("h2", {}, el("span", { class: "rule" }, table.rule || ""), table.title || "Table"));
    const grid = el("table", {}, ...rows.map((row) => el("tr", {}, el("td", {}, row.label ?? ""), el("td", { class: "figure" }, row.figure ?? ""),
      el("td", { class: "rule" }, row.rule || ""))));
    if (table.total !== undefined && table.total !== null) {
      grid.append(el("tr", { class: "total" }, el("th", {}, "Total"), el("th", { class: "figure" }, table.total),
        el("td", {}, table.threshold !== undefined && table.threshold !== null ? `threshold ${table.threshold}` : "")));
    }
    node.append(grid);
    if (table.note) node.append(el("p", { class: "note" }, table.note));
    return node;
  }

  function streamTable(table) {
    const threshold = table.threshold !== undefined && table.threshold !== null ? ` / ${table.threshold}` : "";
    const total = table.total !== undefined && table.total !== null ? `${table.total}${threshold}` : "";
    return el("div", { class: "table-chip" }, el("span", { class: "rule" }, table.rule || ""), `${table.title || "Table"}: ${total}`);
  }

  // --- control view: the answers as the JSON `adjutant check --answers FILE` reads ----------------

  function currentAnswers(plan) {
    // Only the current file's choices: the daemon keeps every answer given this session (04's
    // stays when 05 is planned), and an answers file for 05 must not carry 04's.
    const answers = {};
    const given = state.answers || {};
    for (const event of plan && Array.isArray(plan.events) ? plan.events : []) {
      for (const choice of choicesOf(event)) {
        if (!choice.id) continue;
        if (choice.id in given) answers[choice.id] = given[choice.id];
        else if (choice.answered) answers[choice.id] = choice.answer;
      }
    }
    return answers;
  }

  function renderExport(plan) {
    const section = $("export");
    if (!section) return;
    section.hidden = view !== "control" || !plan;
    if (section.hidden) return section.replaceChildren();
    const answers = currentAnswers(plan);
    const text = JSON.stringify(answers, null, 2) + "\n";
    const link = el("a", { class: "export-answers", download: "answers.json", href: "data:application/json;charset=utf-8," + encodeURIComponent(text) },
      "Export answers (JSON)");
    section.replaceChildren(link, el("span", { class: "hint" }, ` ${Object.keys(answers).length} answer(s), for adjutant check --answers answers.json`));
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
    node.append(el("h2", {}, el("span", { class: "rule" }, event.rule || ""), event.title || "", el("span", { class: `badge badge-${status}` }, badgeText(status))));
    for (const text of missingTexts(event)) node.append(el("div", { class: "missing" }, `Missing: ${text}`));
    if (brief) return node;
    const why = Array.isArray(event.why) ? event.why : event.why ? [event.why] : [];
    if (why.length) node.append(el("ul", { class: "why" }, ...why.map((line) => el("li", {}, line))));
    // Readings of errata the event's Steps applied (docs/plan-format.md "errata"): which, the others, the option.
    const errata = Array.isArray(event.errata) ? event.errata : [];
    if (errata.length) node.append(el("ul", { class: "errata" }, ...errata.map((note) => el("li", { class: "erratum", "data-key": note.key || "" }, note.text || ""))));
    if (status === "owed") node.append(...owedLines(event));
    if (steps.length) node.append(el("ul", { class: "steps" }, ...steps.map(renderStep)));
    const inset = renderInset(event);
    if (inset) node.append(inset);
    const note = view === "control" ? onAirNote(event, plan) : null;
    if (note) node.append(note);
    for (const choice of choicesOf(event)) {
      if (view === "player" && faction && deciderOf(choice) && !sameFaction(deciderOf(choice), faction)) continue;
      node.append(renderChoice(choice));
    }
    return node;
  }

  // What an owed event says above its steps: how many the position shows made, and each deviation.
  function owedLines(event) {
    const lines = [el("div", { class: "owed-summary" }, madeLine(event))];
    const wrong = deviationTexts(event);
    if (wrong.length) {
      lines.push(el("ul", { class: "deviations" }, ...wrong.map((text) => el("li", { class: "deviation" }, text))));
    }
    return lines;
  }

  function renderStep(step) {
    const key = step.key || "";
    const done = Boolean(state.ticks && state.ticks[key]);
    const label = [step.rule, step.step].filter(Boolean).join(" ");
    // An owed event's step says what the position shows of it (ticked by itself when made).
    const judged = step.made === true ? el("span", { class: "judged made" }, " (the position shows it made)")
      : step.made === false ? el("span", { class: "judged todo" }, step.deviation ? " (not where the rules put it)" : " (still to do)")
      : null;
    const text = el("span", { class: "text" }, el("span", { class: "rule" }, label), step.text || "", judged);
    const made = step.made === true ? " made" : step.made === false ? " todo" : "";
    const item = el("li", { class: (done ? "step done" : "step") + made + (step.deviation ? " deviation" : ""), "data-key": key });
    if (!interactive) {
      item.append(text);
      if (step.deviation) item.append(el("div", { class: "step-deviation" }, step.deviation));
      return item;
    }
    const box = el("input", { type: "checkbox", checked: done, "data-key": key });
    box.addEventListener("change", () => send({ type: "tick", step: key, done: box.checked }));
    item.append(el("label", {}, box, text));
    if (step.deviation) item.append(el("div", { class: "step-deviation" }, step.deviation));
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
    const where = view === "player" ? " (answered in the control view)" : "";
    const status = answered
      ? `Answered: ${answerLabels(choice, current)}`
      : view === "player" && who && sameFaction(who, faction)
        ? `Your decision (${who}): give it in the control view`
        : `Awaiting ${who ? who + "'s" : "a"} decision${where}`;
    node.append(el("div", { class: answered ? "answer answered" : "answer" }, status));
    node.classList.toggle("settled", answered);
    if (view === "player" && !answered) node.append(optionList(choice));
    if (!interactive) return node;
    if (choice.multiple === true && window.AdjutantListAnswer) {
      // Built item by item and sent once, complete (listanswer.js).
      node.append(window.AdjutantListAnswer.render(choice, { el, send, view, current, answered, answerText,
        optionValue, optionLabel, cliLine }));
      if (answered) node.append(clearButton(choice, fromOverlay));
      return node;
    }
    // A list answer (a `multiple` choice, or one the planner answered with a list) is toggled
    // one option per click.
    const multiple = choice.multiple === true || Array.isArray(current);
    const picked = multiple ? (Array.isArray(current) ? current.map(answerText) : []) : null;
    const buttons = el("div", { class: "options" });
    for (const option of Array.isArray(choice.options) ? choice.options : []) {
      const value = answerText(optionValue(option));
      const chosen = multiple ? picked.includes(value) : answered && answerText(current) === value;
      const button = el("button", { type: "button", class: chosen ? "option chosen" : "option", "data-value": value,
        "aria-pressed": chosen ? "true" : "false" }, optionLabel(option),
        view === "control" && String(optionLabel(option)) !== value ? el("code", { class: "value" }, value) : null);
      button.addEventListener("click", () => {
        const answer = multiple ? (chosen ? picked.filter((v) => v !== value) : [...picked, value]) : value;
        send({ type: "answer", choice: choice.id, option: answer });
      });
      buttons.append(button);
    }
    if (answered) buttons.append(clearButton(choice, fromOverlay));
    node.append(buttons);
    if (view === "control") node.append(cliLine(choice.id, answered ? current : null));
    return node;
  }

  // The player view's options: what may be chosen, as text (the choosing is done in the control view).
  function optionList(choice) {
    const options = Array.isArray(choice.options) ? choice.options : [];
    return el("ul", { class: "options-read" }, ...options.map((option) => el("li", {}, optionLabel(option))));
  }

  // An answer the planner was given with the file (the demo's story) is not this page's to clear:
  // clearing would bring it straight back, so the page says so instead of offering a dead button.
  function clearButton(choice, fromOverlay) {
    if (!fromOverlay) {
      return el("span", { class: "given-answer" },
        "This answer comes with the plan (the demo's story answers it), not from this page: "
        + "choose another option to change it.");
    }
    const clear = el("button", { type: "button", class: "clear" }, "Clear answer");
    clear.addEventListener("click", () => send({ type: "answer", choice: choice.id, option: null }));
    return clear;
  }

  // Control view: the answer as `adjutant check` / `apply` take it, to copy (labels are not values).
  function cliLine(choiceId, value) {
    const shown = value === null || value === undefined ? "VALUE"
      : Array.isArray(value) ? JSON.stringify(value.map(answerText)) : answerText(value);
    const flag = `--answer '${choiceId}=${shown.replace(/'/g, "'\\''")}'`;
    return el("div", { class: "cli" }, "command line: ", el("code", { class: "cli-answer" }, flag));
  }

  // Map inset (inset.js): one panel per cluster of nearby hexes, arrows for moves between them.
  // `fit`: less room than the page's (the stream's band, fitStream): {maxHeight, maxPanels}.
  function renderInset(event, fit) {
    if (!window.AdjutantInset) return null;
    const stream = view === "stream";
    const options = stream
      ? streamInsetRoom(window.innerWidth, window.innerHeight, parseFloat(getComputedStyle(document.body).fontSize))
      : { maxWidth: Math.max(window.innerWidth - (window.innerWidth < 600 ? 40 : 90), 200), maxHeight: 520, fontScale: 1 };
    // A side column (&position=left|right) is narrower than the page: its one row is as wide as the column.
    const band = stream ? $("content").clientWidth : 0;
    if (band > 0) options.maxWidth = Math.min(options.maxWidth, Math.max(band - 2.5 * options.gapPx, 100));
    if (fit && fit.maxHeight) options.maxHeight = Math.min(options.maxHeight, Math.max(fit.maxHeight, 1));
    return window.AdjutantInset.render(event.map || null, event.steps, { view, maxPanels: fit && fit.maxPanels, ...options });
  }

  // The room a stream page of `width` x `height` px gives an inset, its body type `fontPx` px (the
  // gap between its panels is 1em, overlay.css).
  function streamInsetRoom(width, height, fontPx) {
    return { maxWidth: Math.max(width * 0.9 - (width < 600 ? 40 : 90), 200), maxHeight: height * 0.3, fontScale: fontPx / 20,
      gapPx: fontPx };
  }

  // The stream's body type at `scale` on a `height` px source (overlay.css: max(14px, 2.2vh) x scale).
  function streamFontPx(height, scale) {
    return Math.max(14, 0.022 * height) * scale;
  }

  // The inset as the stream is sent it (bridge/web/view_filter.py): without the hexes of the places
  // hidden pieces stand in, nor the neighbours drawn around them; null when no named hex is left.
  function publicMap(map, plan) {
    if (!map || !Array.isArray(map.hexes)) return null;
    const vassal = plan && plan.vassal && typeof plan.vassal === "object" ? plan.vassal : {};
    const concealed = new Set((Array.isArray(vassal.concealed_places) ? vassal.concealed_places : []).map(String));
    if (concealed.size === 0) return map;
    const dropped = new Set(map.hexes.filter((h) => h && (concealed.has(String(h.name)) || concealed.has(String(h.label || ""))))
      .map((h) => String(h.name)));
    const hexes = map.hexes.filter((h) => h && !dropped.has(String(h.name)) && !dropped.has(String(h.near || "")));
    if (!hexes.some((h) => h.focus)) return null;
    const counters = (Array.isArray(map.counters) ? map.counters : []).filter((c) => c && !dropped.has(String(c.hex || "")));
    return { ...map, hexes, counters };
  }

  // The steps the stream is sent: none about a hidden or masked piece (they rank the inset's panels).
  function publicSteps(steps, plan) {
    const vassal = plan && plan.vassal && typeof plan.vassal === "object" ? plan.vassal : {};
    const names = [...(Array.isArray(vassal.concealed_names) ? vassal.concealed_names : []),
      ...Object.keys(vassal.concealed && typeof vassal.concealed === "object" ? vassal.concealed : {})].map(String).filter(Boolean);
    return (Array.isArray(steps) ? steps : []).filter((step) => step && !step.hidden && !step.masked && !step.private &&
      !names.some((name) => [step.counter, step.piece, step.text].some((field) => typeof field === "string" && field.includes(name))));
  }

  // The source size the README tells OBS users to set, and the stream's default `scale`.
  const ON_AIR = { width: 1920, height: 1080, scale: 1 };

  // Control view: when the stream (`&insets=1`, the README's 1920x1080 source, default scale) cannot
  // show every place of an event's inset, say which it leaves out and why, in plain words, and which
  // `&scale` would show them all. Why here and not on air: the stream says only "+N more places";
  // the players, not the audience, decide what to change.
  function onAirNote(event, plan) {
    const map = publicMap(event.map, plan);
    if (!window.AdjutantInset || !map) return null;
    const steps = publicSteps(event.steps, plan);
    const at = (scale) => window.AdjutantInset.onAir(map, steps,
      streamInsetRoom(ON_AIR.width, ON_AIR.height, streamFontPx(ON_AIR.height, scale)));
    const fitted = at(ON_AIR.scale);
    if (!fitted || fitted.leftOut.length === 0) return null;
    let all = null;
    for (let scale = 0.9; scale >= 0.5 - 1e-9; scale -= 0.1) {
      const tried = at(scale);
      if (tried && tried.leftOut.length === 0) {
        all = Math.round(scale * 10) / 10;
        break;
      }
    }
    const where = `On air (the stream view with &insets=1, a ${ON_AIR.width}×${ON_AIR.height} source at the default scale)`;
    const why = "the stream's band has one row of map panels, and its hexes must stay big enough to read";
    const fix = all !== null ? ` Add &scale=${all} to the stream URL to show them all.` : " No &scale shows them all on air.";
    const count = fitted.leftOut.length;
    const text = fitted.shown.length
      ? `${where}, this map shows at most ${fitted.shown.join(", ")}; it leaves out ${fitted.leftOut.join(", ")} `
        + `(it says "+ ${count} more place${count === 1 ? "" : "s"}"): ${why}. All are drawn here.${fix}`
      : `${where}, this map is not shown: ${why}, and not even one of its places fits.${fix}`;
    return el("div", { class: "inset-on-air", "data-left-out": String(fitted.leftOut.length) }, text);
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

  // The words of bridge/mapping/proposal.py `proposed_text`: "14 counter rules proposed from the module, not
  // yet reviewed (and 9 state rules, 3 ignore rules, 13 boxes)"; "" when nothing is marked proposed.
  function proposedText(counts) {
    const table = counts && typeof counts === "object" ? counts : {};
    const count = (key) => Math.max(0, Number(table[key]) || 0);
    const counters = count("counter_rules");
    const others = [
      [count("state_rules"), "state rule", "state rules"],
      [count("ignore_rules"), "ignore rule", "ignore rules"],
      [count("boxes"), "box", "boxes"],
    ].filter(([n]) => n > 0).map(([n, one, many]) => `${n} ${n === 1 ? one : many}`);
    if (counters === 0 && others.length === 0) return "";
    const head = `${counters} counter rule${counters === 1 ? "" : "s"} proposed from the module, not yet reviewed`;
    return others.length ? `${head} (and ${others.join(", ")})` : head;
  }

  // Control view only: what the reader could not place (CheckPipeline's `vassal` report).
  function renderWarnings(plan) {
    const section = $("warnings");
    const vassal = plan && plan.vassal && typeof plan.vassal === "object" ? plan.vassal : {};
    const lines = Array.isArray(vassal.warnings) ? vassal.warnings.map(String) : [];
    // Facts the pack trusts rather than locates (issue 22): never silent, as in every report.
    if (plan && Array.isArray(plan.trusted) && plan.trusted.length) {
      lines.push(`trusted, not located: pack ${plan.pack || "?"} takes what it locates of ${plan.trusted.join(", ")} as the whole fact`);
    }
    // Rules and boxes `pack scaffold` proposed and no one has reviewed yet (issue 38): inferred, so said.
    const proposed = proposedText(vassal.proposed);
    if (proposed) lines.push(`proposed mapping: ${proposed}; this position is read through them`);
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
