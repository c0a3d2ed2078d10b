// The daemon's state as a self-contained panel of the overlay sees it (writeback.js, facts.js): its own
// websocket, a snapshot, then deltas applied in sequence order, and a resync whenever one is missed or
// the daemon restarted (docs/protocol.md). Why a connection of its own: the panels need no change in
// overlay.js to come and go. The page's token rides along, as overlay.js sends it (bridge/web/access.py).
window.adjutantFeed = function (view, changed) {
  "use strict";
  const params = new URLSearchParams(window.location.search);
  const feed = {state: null, send};
  let run = null;
  let seq = 0;
  let socket = null;

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }

  function connect() {
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    const token = params.get("token") ? `&token=${encodeURIComponent(params.get("token"))}` : "";
    // a player view is one faction's (what it is shown of hidden pieces, which key opens it)
    const faction = view === "player" && params.get("faction") ? `&faction=${encodeURIComponent(params.get("faction"))}` : "";
    socket = new WebSocket(`${scheme}//${window.location.host}/ws?view=${encodeURIComponent(view)}${faction}${token}`);
    socket.onmessage = (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch (error) { return; }
      if (message.type === "snapshot") {
        feed.state = message.state; run = message.run; seq = message.seq; changed(null);
      } else if (message.type === "delta") {
        if (feed.state === null || message.run !== run || message.seq !== seq + 1) {
          send({ type: "resync", since: seq || 0, run: run });
          return;
        }
        Object.assign(feed.state, message.set);
        seq = message.seq;
        changed(message.set);
      } else if (message.type === "heartbeat" && (message.run !== run || message.seq > seq)) {
        send({ type: "resync", since: seq || 0, run: run });
      }
    };
    socket.onclose = () => { socket = null; setTimeout(connect, 1000); };
  }

  connect();
  return feed;
};
