// One room on the dashboard: its live roster (checksum verified by the client's store), its waiting room for an
// operator who may admit, its recent events with meeting messages and moderation marked, and the moderator actions
// with the gateway's answer.
import type {
    Acknowledgement,
    AttendanceRecord,
    ModeratorAction,
    Participant,
    RoomEvent,
    RoomSubscription,
    RosterSnapshot,
} from "rollcall";
import { RollcallError } from "rollcall";
import { clock, duration, element } from "./dashboard-dom.js";
import { WaitingRoomPanel } from "./dashboard-waiting.js";

const FLAGS: readonly [string, string, (person: Participant, snapshot: RosterSnapshot) => boolean][] = [
    ["muted", "Muted", (person) => person.audioMuted === true],
    ["video-off", "Video off", (person) => person.videoPaused === true],
    ["sharing", "Sharing", (person) => person.presenting === true],
    ["hand", "Hand", (person) => person.handRaised === true],
    ["speaking", "Speaking", (person, snapshot) => snapshot.state.activeSpeaker === person.uid],
];

const ACTIONS: readonly [ModeratorAction, string][] = [
    ["mute", "Mute"],
    ["lower_hand", "Lower hand"],
    ["remove", "Remove"],
];

const MAX_EVENTS = 60;

/** The attendance table's columns: a field name for tests, the title, and the record's figure as text. */
const ATTENDANCE: readonly [string, string, (record: AttendanceRecord) => string][] = [
    ["name", "Name", (record) => record.name],
    ["in-call", "In the call", (record) => duration(record.inCallMs)],
    ["speaking", "Speaking", (record) => duration(record.speakingMs)],
    ["video", "On video", (record) => duration(record.videoMs)],
    ["presenting", "Presenting", (record) => duration(record.presentingMs)],
    ["hands", "Hands", (record) => String(record.handsRaised)],
    ["left", "Left", (record) => (record.lastLeftAt === null ? "in the call" : clock(record.lastLeftAt))],
];

/** Whether an event is a notice an operator wants to see: meeting messages, moderation, removals, the end. */
export function isNotable(event: RoomEvent): boolean {
    return (
        event.event === "meeting.message" ||
        event.event.startsWith("moderation.") ||
        event.event === "session.ended" ||
        event.event.startsWith("media.recording") ||
        event.event === "room.admission_changed" ||
        (event.event === "participant.left" && (event.data.reason === "removed" || event.data.reason === "banned"))
    );
}

/** A one-line description of an event. */
export function describeEvent(event: RoomEvent): string {
    const uid = typeof event.data.uid === "string" ? ` ${event.data.uid}` : "";
    const by = event.actor !== null && event.actor !== event.data.uid ? ` by ${event.actor}` : "";
    const reason = event.reason !== undefined ? ` (${event.reason})` : "";
    if (event.event === "meeting.message") {
        const text = typeof event.data.text === "string" ? `: ${event.data.text}` : "";
        const state = event.data.active === false ? "over" : "on";
        return `#${event.seq} meeting ${state}${text} from ${String(event.data.sender ?? event.actor ?? "?")}`;
    }
    return `#${event.seq} ${event.event}${uid}${by}${reason}`;
}

/** The card of one room. */
export class RoomCard {
    /** The card's element. */
    readonly element: HTMLElement;
    private readonly summary: HTMLElement;
    private readonly checksum: HTMLElement;
    private readonly body: HTMLTableSectionElement;
    private readonly events: HTMLOListElement;
    private readonly answer: HTMLOutputElement;
    private readonly attendance: HTMLElement;
    private readonly waiting: WaitingRoomPanel;
    private renderQueued = false;

    /**
     * Builds the card and follows the subscription.
     * @param subscription the room, joined as an observer.
     */
    constructor(private readonly subscription: RoomSubscription) {
        const room = subscription.room;
        this.summary = element("span", { "data-field": "summary" });
        this.checksum = element("span", { class: "checksum", "data-field": "checksum" });
        this.answer = element("output", { "data-field": "answer", class: "answer" });
        const head = element("tr", {}, element("th", {}, "Name"), element("th", {}, "Role"), element("th", {}, "State"));
        for (const [, title] of FLAGS) head.append(element("th", {}, title));
        head.append(element("th", {}, "Actions"));
        this.body = element("tbody");
        this.events = element("ol", { class: "events" });
        this.attendance = element("div", { class: "attendance", "data-field": "attendance" });
        const readAttendance = element("button", { type: "button", "data-action": "attendance" }, "Attendance");
        readAttendance.addEventListener("click", () => void this.showAttendance());
        this.attendance.append(readAttendance);
        this.attendance.hidden = true;
        this.waiting = new WaitingRoomPanel(subscription, (label, request) => this.run(label, request));
        this.element = element(
            "section",
            { class: "room", "data-room": room, id: `room-${room}` },
            element("h2", {}, room, " ", this.summary),
            element("div", { class: "room-meta" }, this.checksum, this.answer),
            element("table", { class: "roster" }, element("thead", {}, head), this.body),
            this.waiting.element,
            this.attendance,
            element("h3", {}, "Events"),
            this.events,
        );
        subscription.roster.subscribe(() => this.queueRender());
        subscription.on("event", (event) => this.addEvent(event));
        subscription.on("drift", ({ detail }) => {
            this.checksum.textContent = `⚠ ${detail}: fetching the roster again`;
            this.checksum.classList.add("bad");
        });
        subscription.on("resumed", ({ recovered }) => {
            this.note(recovered ? "resumed: every missed change replayed" : "resumed with a fresh snapshot");
        });
        subscription.on("ended", (error) => {
            this.element.classList.add("ended");
            this.summary.textContent = `· left${error ? `: ${error.message}` : ""}`;
        });
    }

    private queueRender(): void {
        if (this.renderQueued) return;
        this.renderQueued = true;
        setTimeout(() => {
            this.renderQueued = false;
            this.render();
        }, 16);
    }

    private render(): void {
        const snapshot = this.subscription.roster.getSnapshot();
        if (!snapshot.ready) return;
        const state = snapshot.state;
        const parts = [`seq ${snapshot.seq}`, `${state.participantCount ?? snapshot.participants.length} in the call`];
        const hands = snapshot.counts.handsRaised;
        if (hands > 0) parts.push(hands === 1 ? "1 hand raised" : `${hands} hands raised`);
        if (state.recording === true) parts.push("recording");
        if (typeof state.activeSpeaker === "string") parts.push(`speaking: ${state.activeSpeaker}`);
        if (state.admission === true) parts.push("waiting room on");
        if (typeof state.waiting === "number") parts.push(`${state.waiting} waiting`);
        this.summary.textContent = `· ${parts.join(" · ")}`;
        this.checksum.textContent = `checksum ✓ ${snapshot.checksum}`;
        this.checksum.classList.remove("bad");
        this.checksum.dataset.checksum = snapshot.checksum;
        // Moderators and bots with `attendance` read it; nobody else sees the button.
        this.attendance.hidden = this.subscription.rights?.attendance !== true;
        this.waiting.update(state);
        this.element.dataset.seq = String(snapshot.seq);
        const rows = snapshot.participants.map((person) => this.row(person, snapshot));
        this.body.replaceChildren(...rows);
    }

    private row(person: Participant, snapshot: RosterSnapshot): HTMLTableRowElement {
        const row = element(
            "tr",
            { "data-uid": person.uid },
            element("td", { "data-field": "name" }, person.name),
            element("td", { "data-field": "role" }, String(person.role)),
            element("td", { "data-field": "state" }, String(person.state)),
        );
        if (snapshot.state.activeSpeaker === person.uid) row.classList.add("speaking");
        for (const [field, , test] of FLAGS) {
            const on = test(person, snapshot);
            row.append(element("td", { "data-field": field, class: on ? "flag on" : "flag" }, on ? "●" : ""));
        }
        const actions = element("td", { "data-field": "actions", class: "actions" });
        for (const [action, title] of ACTIONS) {
            const button = element("button", { type: "button", "data-action": action }, title);
            button.addEventListener("click", () => void this.act(action, person.uid));
            actions.append(button);
        }
        row.append(actions);
        return row;
    }

    private async act(action: ModeratorAction, target: string): Promise<void> {
        await this.run(`${action} ${target}`, () => this.subscription.moderate(action, target, "from the dashboard"));
    }

    /** Sends a request and shows the gateway's answer under the room's name; resolves with whether it was accepted. */
    private async run(label: string, request: () => Promise<Acknowledgement>): Promise<boolean> {
        this.answer.className = "answer pending";
        this.answer.textContent = `${label}…`;
        try {
            const ack = await request();
            this.answer.className = "answer ok";
            this.answer.textContent = `${label}: ok, ${ack.changed ? "changed" : "nothing to change"}${ack.seq ? ` (seq ${ack.seq})` : ""}`;
            return true;
        } catch (error) {
            this.answer.className = "answer refused";
            const text = error instanceof RollcallError && error.serverCode ? error.message : String(error);
            this.answer.textContent = `${label}: ${text}`;
            return false;
        }
    }

    /** Reads the room's attendance (the first 100 in join order) and shows it as a table under the roster. */
    private async showAttendance(): Promise<void> {
        try {
            const answer = await this.subscription.query("attendance", { limit: 100 });
            const list = answer.participants;
            const records = Array.isArray(list) ? (list as unknown as AttendanceRecord[]) : [];
            const head = element("tr", {});
            for (const [, title] of ATTENDANCE) head.append(element("th", {}, title));
            const rows = records.map((record) => {
                const row = element("tr", { "data-attendee": record.uid });
                for (const [field, , text] of ATTENDANCE) {
                    row.append(element("td", { "data-field": field }, text(record)));
                }
                return row;
            });
            const table = element(
                "table",
                { class: "attendance-table" },
                element("thead", {}, head),
                element("tbody", {}, ...rows),
            );
            this.attendance.querySelector("table")?.remove();
            this.attendance.append(table);
        } catch (error) {
            this.answer.className = "answer refused";
            const text = error instanceof RollcallError && error.serverCode ? error.message : String(error);
            this.answer.textContent = `attendance: ${text}`;
        }
    }

    private addEvent(event: RoomEvent): void {
        const notable = isNotable(event);
        const item = element(
            "li",
            { class: notable ? "notable" : "", "data-event": event.event },
            element("time", {}, clock(event.time)),
            " ",
            describeEvent(event) + (event.recovered ? " (replayed)" : ""),
        );
        this.events.prepend(item);
        while (this.events.children.length > MAX_EVENTS) this.events.lastElementChild?.remove();
    }

    private note(text: string): void {
        this.events.prepend(element("li", { class: "note" }, element("time", {}, clock(Date.now())), " ", text));
    }
}
