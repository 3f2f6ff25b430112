/// The live dashboard: one static page with no build step, served at `/dashboard`. It connects to the rooms
/// protocol as an observer with a token the operator supplies, lists the token's rooms, and shows a room's roster
/// live from the snapshot and the patch stream (RFC 7386 merge patches, checksum verified), with recent events.
public enum DashboardPage {
    /// The page's HTML, scripts and styles.
    public static let html: String = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Rollcall dashboard</title>
        <style>
          :root { font-family: system-ui, sans-serif; color: #1d2330; background: #f5f6f8; }
          body { margin: 0; }
          header { background: #1d2330; color: #fff; padding: 12px 20px; display: flex; gap: 12px; align-items: center; }
          header h1 { font-size: 18px; margin: 0 16px 0 0; }
          header input { flex: 1; padding: 6px 8px; border-radius: 4px; border: 0; font-family: monospace; }
          button { padding: 6px 12px; border-radius: 4px; border: 0; background: #3d6df2; color: #fff; cursor: pointer; }
          main { display: grid; grid-template-columns: 220px 1fr 320px; gap: 16px; padding: 16px 20px; }
          section { background: #fff; border-radius: 6px; padding: 12px; box-shadow: 0 1px 2px rgba(0,0,0,.08); }
          h2 { font-size: 14px; text-transform: uppercase; letter-spacing: .05em; color: #5b6478; margin: 0 0 8px; }
          #rooms li { cursor: pointer; padding: 6px; border-radius: 4px; list-style: none; }
          #rooms li.selected { background: #e6ecfe; }
          #rooms ul { padding: 0; margin: 0; }
          table { border-collapse: collapse; width: 100%; font-size: 14px; }
          th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #eceef2; }
          td.flag { text-align: center; }
          .on { color: #c62828; font-weight: 600; }
          .speaking td { background: #fff7d6; }
          #events { font-family: monospace; font-size: 12px; max-height: 70vh; overflow: auto; padding-left: 0; list-style: none; }
          #status { font-size: 13px; }
          #room-state { font-size: 13px; color: #5b6478; margin-bottom: 8px; }
        </style>
        </head>
        <body>
        <header>
          <h1>Rollcall</h1>
          <input id="token" placeholder="observer token (rollcall token --uid ops --room ROOM --role admin)">
          <button id="connect">Connect</button>
          <span id="status">disconnected</span>
        </header>
        <main>
          <section id="rooms"><h2>Rooms</h2><ul id="room-list"></ul></section>
          <section>
            <h2 id="roster-title">Roster</h2>
            <div id="room-state"></div>
            <table id="roster">
              <thead><tr><th>Name</th><th>Role</th><th>State</th><th>Muted</th><th>Video off</th><th>Sharing</th>
                <th>Hand</th><th>Speaking</th></tr></thead>
              <tbody></tbody>
            </table>
          </section>
          <section><h2>Recent events</h2><ul id="events"></ul></section>
        </main>
        <script>
        "use strict";
        const state = { socket: null, room: null, roster: null, seq: 0, nextId: 1 };
        const $ = (id) => document.getElementById(id);

        function mergePatch(target, patch) {
          if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
          const result = (target && typeof target === "object" && !Array.isArray(target)) ? { ...target } : {};
          for (const [key, value] of Object.entries(patch)) {
            if (value === null) delete result[key]; else result[key] = mergePatch(result[key], value);
          }
          return result;
        }

        function send(message) {
          message.id = state.nextId++;
          state.socket.send(JSON.stringify(message));
        }

        function connect() {
          const token = $("token").value.trim();
          if (!token) { $("status").textContent = "a token is needed"; return; }
          if (state.socket) state.socket.close();
          const scheme = location.protocol === "https:" ? "wss" : "ws";
          const socket = new WebSocket(`${scheme}://${location.host}/v1/ws?token=${encodeURIComponent(token)}`);
          state.socket = socket;
          $("status").textContent = "connecting";
          socket.onmessage = (message) => receive(JSON.parse(message.data));
          socket.onclose = (close) => { $("status").textContent = `closed (${close.code}${close.reason ? ": " + close.reason : ""})`; };
        }

        function receive(message) {
          switch (message.type) {
            case "welcome":
              $("status").textContent = `connected as ${message.name}`;
              send({ type: "query", query: "rooms" });
              break;
            case "result":
              if (message.query === "rooms") showRooms(message.rooms);
              break;
            case "snapshot":
              state.roster = message.roster; state.seq = message.seq;
              renderRoster();
              break;
            case "patch":
              if (!state.roster || message.room !== state.room) break;
              state.roster = mergePatch(state.roster, message.patch); state.seq = message.seq;
              renderRoster();
              break;
            case "event":
              logEvent(message);
              break;
            case "error":
              logLine(`error ${message.code}: ${message.message}`);
              break;
          }
        }

        function showRooms(rooms) {
          const list = $("room-list");
          list.replaceChildren();
          for (const room of rooms) {
            const item = document.createElement("li");
            item.textContent = `${room.room} (${room.participants})`;
            item.dataset.room = room.room;
            item.onclick = () => selectRoom(room.room);
            list.appendChild(item);
          }
          const requested = new URLSearchParams(location.search).get("room");
          if (requested && !state.room) selectRoom(requested);
        }

        function selectRoom(room) {
          if (state.room) send({ type: "leave", room: state.room });
          state.room = room; state.roster = null;
          for (const item of $("room-list").children) item.classList.toggle("selected", item.dataset.room === room);
          $("roster-title").textContent = `Roster: ${room}`;
          $("events").replaceChildren();
          send({ type: "join", room, as: "observer", events: "all" });
        }

        function flag(value) { return value ? "●" : ""; }

        function renderRoster() {
          const body = $("roster").tBodies[0];
          body.replaceChildren();
          if (!state.roster) return;
          const room = state.roster.room || {};
          $("room-state").textContent = `seq ${state.seq} · ${room.participantCount || 0} in the call` +
            (room.recording ? " · recording" : "") + (room.activeSpeaker ? ` · speaking: ${room.activeSpeaker}` : "");
          for (const item of $("room-list").children) {
            if (item.dataset.room === state.room) item.textContent = `${state.room} (${room.participantCount || 0})`;
          }
          const people = Object.values(state.roster.participants || {}).sort((a, b) => a.order - b.order);
          for (const person of people) {
            const row = document.createElement("tr");
            row.dataset.uid = person.uid;
            const speaking = room.activeSpeaker === person.uid;
            if (speaking) row.classList.add("speaking");
            const cells = [person.name, person.role, person.state, flag(person.audioMuted), flag(person.videoPaused),
              flag(person.presenting), flag(person.handRaised), flag(speaking)];
            const names = ["name", "role", "state", "muted", "video-off", "sharing", "hand", "speaking"];
            cells.forEach((text, index) => {
              const cell = document.createElement("td");
              cell.textContent = text;
              cell.dataset.field = names[index];
              if (index >= 3) { cell.className = "flag"; if (text) cell.classList.add("on"); }
              row.appendChild(cell);
            });
            body.appendChild(row);
          }
        }

        function logEvent(event) {
          const who = event.data && event.data.uid ? ` ${event.data.uid}` : "";
          const by = event.actor && event.actor !== (event.data && event.data.uid) ? ` by ${event.actor}` : "";
          logLine(`#${event.seq} ${event.event}${who}${by}`);
        }

        function logLine(text) {
          const item = document.createElement("li");
          item.textContent = text;
          const list = $("events");
          list.insertBefore(item, list.firstChild);
          while (list.children.length > 100) list.removeChild(list.lastChild);
        }

        $("connect").onclick = connect;
        const params = new URLSearchParams(location.search);
        const fragmentToken = new URLSearchParams(location.hash.slice(1)).get("token");
        if (fragmentToken || params.get("token")) { $("token").value = fragmentToken || params.get("token"); connect(); }
        </script>
        </body>
        </html>
        """#
}
