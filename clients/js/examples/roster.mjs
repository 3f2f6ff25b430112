// The small example for Node, run from a project that installed the package (docs/CLIENT.md, "Node"):
//   npm install ./rollcall-client-1.0.0.tgz                     # made by `npm pack` in clients/js
//   export ROLLCALL_TOKEN=$(rollcall token --uid alice --name Alice --group standup)
//   node --experimental-websocket roster.mjs ws://127.0.0.1:8080/v1/ws standup     # Node 22 needs no flag
// It joins the room, raises a hand, prints the roster on every change, and leaves and closes once its hand is
// lowered again (by a moderator, say).
import { Rollcall } from "rollcall-client";

const [url = "ws://127.0.0.1:8080/v1/ws", roomId = "standup"] = process.argv.slice(2);
const token = process.env.ROLLCALL_TOKEN;
if (!token) {
    console.error("set ROLLCALL_TOKEN: rollcall token --uid alice --name Alice --group standup");
    process.exit(2);
}
if (typeof WebSocket === "undefined") {
    console.error("this Node has no WebSocket: run it with --experimental-websocket (Node 20), or on Node 22");
    process.exit(2);
}

const client = new Rollcall({ url, token });
const me = await client.connect();
const room = await client.join(roomId);
await room.setState({ handRaised: true });

let handWasUp = false;
await new Promise((lowered) => {
    room.roster.subscribe(({ seq, participants }) => {
        const people = participants.map((person) =>
            person.name + (person.audioMuted ? " (muted)" : "") + (person.handRaised ? " (hand up)" : ""));
        console.log(`seq ${seq}: ${people.join(", ")}`);
        const mine = participants.find((person) => person.uid === me.uid);
        if (mine?.handRaised) handWasUp = true;
        else if (handWasUp) lowered();
    });
});
await room.leave();
await client.close();
console.log("left and closed");
