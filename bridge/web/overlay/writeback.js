// "Write the moves" (docs/protocol.md, `writeback`): the control view's button, and in every view a
// line saying the moves were written. Self-contained on purpose: it keeps its own connection and its
// own copy of the state, so the main overlay script (overlay.js) needs no change to carry it.
(function () {
  "use strict";
  const params = new URLSearchParams(window.location.search);
  const view = params.get("view") || "player";
  if (!["player", "stream", "control"].includes(view)) return; // overlay.js reports a mistyped view
  let state = null;

  const box = document.createElement("section");
  box.id = "writeback";
  box.className = "writeback";
  box.hidden = true;
  const anchor = document.getElementById("content");
  if (anchor && anchor.parentNode) anchor.parentNode.insertBefore(box, anchor);
  else document.body.appendChild(box);

  function send(message) { feed.send(message); }

  // bridge/web/overlay/feed.js: the state kept in step with the daemon's
  const feed = window.adjutantFeed(view, (set) => { state = feed.state; render(); });

  function hasSteps(plan) {
    return (plan.events || []).some((event) => event.status === "fired" && (event.steps || []).length > 0);
  }

  // Why the button is off, or null when it can write.
  function blocked(writeback, plan) {
    if (!writeback || !writeback.enabled) return (writeback && writeback.how) || "writing the moves is off";
    if (!plan || state.status === "waiting") return "no game file has been planned yet";
    const open = plan.pending_choices || [];
    if (open.length) return `answer every choice first (${open.join(", ")})`;
    if (!hasSteps(plan)) return "nothing to write: no event is due";
    return null;
  }

  function line(cls, text) {
    const p = document.createElement("p");
    p.className = cls;
    p.textContent = text;
    return p;
  }

  function render() {
    const writeback = state && state.writeback;
    box.replaceChildren();
    box.hidden = !writeback || (view !== "control" && !writeback.last);
    if (!writeback) return;
    if (view === "control") {
      const reason = blocked(writeback, state.plan);
      const button = document.createElement("button");
      button.type = "button";
      button.id = "write-moves";
      button.className = "write-moves";
      button.textContent = "Write the moves";
      button.disabled = reason !== null;
      button.title = reason || "write a VASSAL continuation log of the required moves";
      button.addEventListener("click", () => send({ type: "write_moves" }));
      box.appendChild(button);
      if (reason) box.appendChild(line("writeback-hint", reason));
    }
    const last = writeback.last;
    box.dataset.written = last ? last.file : "";
    // The notice belongs to the save it was written for: once another save is planned it only names
    // that earlier file, so no one sends the wrong log.
    const earlier = last && last.for && state.file && state.file !== last.for;
    if (earlier) {
      box.hidden = view !== "control";
      box.dataset.written = "";
      box.dataset.earlier = last.file;
      if (view === "control") {
        box.appendChild(line("writeback-earlier", `Moves written earlier for ${last.for}: ${last.file}; `
          + `not for ${state.file}, the save now planned.`));
      }
    } else if (last) {
      box.dataset.earlier = "";
      const where = last.path && view !== "stream" ? ` (${last.path})` : "";
      box.appendChild(line("writeback-done", `Moves written: ${last.file}${where}`));
      if (last.save_file) {
        const saved = last.save_path && view !== "stream" ? ` (${last.save_path})` : "";
        box.appendChild(line("writeback-save", `Save with the moves made: ${last.save_file}${saved}`));
      }
      if (last.description) box.appendChild(line("writeback-description", last.description));
      if (view !== "stream") {
        box.appendChild(line("writeback-how", "Send it to your opponent: File > Load Game or Log…, then Page Down."));
      }
    }
    if (writeback.error && view !== "stream") box.appendChild(line("writeback-error", `Not written: ${writeback.error}`));
    // The daemon's state folder refused the answers (full, read-only): say they will not survive a restart.
    const storage = state && state.storage;
    if (view === "control" && storage && storage.answers_kept === false) {
      box.hidden = false;
      box.appendChild(line("storage-error", `Answers cannot be kept across a restart: ${storage.error}`));
    }
  }

})();
