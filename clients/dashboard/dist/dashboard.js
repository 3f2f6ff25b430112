// The live dashboard: it connects with an operator's token, watches every room the token gives access to as an
// observer, and shows each roster live. It is built on the browser client served at /client/rollcall.js.
import { Rollcall, RollcallError } from "rollcall";
import { byId, clock, element } from "./dashboard-dom.js";
import { RoomCard, describeEvent } from "./dashboard-room.js";
import { forgetToken, keepToken, takeToken } from "./dashboard-token.js";
const status = byId("status");
const banner = byId("banner");
const roomList = byId("room-list");
const rooms = byId("rooms");
const meetings = byId("meetings");
const form = byId("token-form");
const tokenInput = byId("token");
let client;
function showStatus(text, kind) {
    status.textContent = text;
    status.className = kind;
    document.body.dataset.status = kind;
}
function statusChanged(change) {
    switch (change.status) {
        case "connecting":
            showStatus("connecting", "busy");
            break;
        case "connected":
            banner.hidden = true;
            showStatus(`connected as ${client?.identity?.name ?? "?"}`, "ok");
            break;
        case "reconnecting": {
            const seconds = ((change.delayMs ?? 0) / 1000).toFixed(1);
            const wait = change.waitingForNetwork ? "waiting for the network" : `attempt ${change.attempt} in ${seconds} s`;
            showStatus(`reconnecting (${wait})`, "busy");
            banner.hidden = false;
            banner.textContent = `Connection lost${change.error ? ` (${change.error.message})` : ""}: reconnecting; rosters show the last state until they resume.`;
            break;
        }
        case "closed":
            showStatus(`closed${change.error ? `: ${change.error.message}` : ""}`, "bad");
            break;
        default:
            break;
    }
}
function meetingMessage(event) {
    meetings.prepend(element("li", { class: "notable" }, element("time", {}, clock(event.time)), ` ${event.room}: ${describeEvent(event)}`));
}
async function watchRoom(room) {
    if (client === undefined || client.rooms.has(room))
        return;
    try {
        const subscription = await client.join(room, { as: "observer", events: "all" });
        const card = new RoomCard(subscription);
        rooms.append(card.element);
        const item = roomList.querySelector(`li[data-room="${CSS.escape(room)}"]`);
        item?.classList.add("watching");
        subscription.roster.subscribe((snapshot) => {
            if (item && snapshot.ready)
                item.dataset.count = String(snapshot.state.participantCount ?? snapshot.participants.length);
        });
    }
    catch (error) {
        const text = error instanceof RollcallError ? error.message : String(error);
        roomList.append(element("li", { class: "refused", "data-room": room }, `${room}: ${text}`));
    }
}
/** The rooms protocol's path, which the gateway writes into the page. */
function roomsPath() {
    return document.querySelector('meta[name="rollcall-rooms-path"]')?.content || "/v1/ws";
}
async function start(token) {
    await client?.close();
    rooms.replaceChildren();
    roomList.replaceChildren();
    // An operator's screen keeps trying through a gateway restart, however long it takes.
    client = new Rollcall({ url: roomsPath(), token, device: "dashboard", reconnect: { maxAttempts: Infinity } });
    client.on("status", statusChanged);
    client.on("meeting", meetingMessage);
    client.on("error", (error) => meetingMessage({ room: "gateway", seq: 0, event: error.message, time: Date.now(), actor: null, data: {}, recovered: false }));
    try {
        await client.connect();
    }
    catch (error) {
        showStatus(`not connected: ${error instanceof Error ? error.message : String(error)}`, "bad");
        form.hidden = false;
        return;
    }
    form.hidden = true;
    const requested = new URLSearchParams(location.search).getAll("room");
    const summaries = await client.listRooms();
    const ids = Array.from(new Set([...summaries.map((summary) => summary.room), ...requested]));
    for (const room of ids) {
        const link = element("a", { href: `#room-${room}` }, room);
        roomList.append(element("li", { "data-room": room }, link));
    }
    for (const room of ids)
        await watchRoom(room);
}
form.addEventListener("submit", (event) => {
    event.preventDefault();
    const token = tokenInput.value.trim();
    tokenInput.value = "";
    if (token === "")
        return;
    keepToken(token);
    void start(token);
});
byId("forget").addEventListener("click", () => {
    forgetToken();
    void client?.close();
    form.hidden = false;
    showStatus("token forgotten", "bad");
});
const kept = takeToken();
if (kept !== undefined) {
    void start(kept);
}
else {
    form.hidden = false;
    showStatus("an operator token is needed", "bad");
}
