// The waiting room of one room on the dashboard, for an operator who may admit (its rights' actions include
// `admit`): whether it is on, with a button to turn it on or off, who waits (name, attributes, for how long; read
// with the `waiting` query whenever the room entry's `admission` or `waiting` changes), and Admit / Deny for each
// and for everyone.
import type { Acknowledgement, RoomState, RoomSubscription, WaitingEntry } from "rollcall";
import { duration, element } from "./dashboard-dom.js";

/** How the card sends a request and shows the gateway's answer; resolves with whether it was accepted. */
export type Runner = (label: string, request: () => Promise<Acknowledgement>) => Promise<boolean>;

/** How many waiting users the panel lists (the first, in arrival order); it says how many more wait. */
const PAGE = 100;

/** The waiting room panel of a room card. */
export class WaitingRoomPanel {
    /** The panel's element; hidden unless the operator may admit. */
    readonly element: HTMLElement;
    private readonly status: HTMLElement;
    private readonly toggle: HTMLButtonElement;
    private readonly reason: HTMLInputElement;
    private readonly body: HTMLTableSectionElement;
    private readonly more: HTMLElement;
    private entries: readonly WaitingEntry[] = [];
    private admission = false;
    private shown: string | undefined;
    private reads = 0;
    private ticker: ReturnType<typeof setInterval> | undefined;

    /**
     * Builds the panel.
     * @param subscription the room.
     * @param run sends a request and shows its answer.
     */
    constructor(
        private readonly subscription: RoomSubscription,
        private readonly run: Runner,
    ) {
        this.status = element("span", { "data-field": "waiting-status" });
        this.toggle = element("button", { type: "button", "data-action": "admission" });
        this.toggle.addEventListener("click", () => void this.answer(this.admission ? "open_admission" : "require_admission"));
        this.reason = element("input", {
            type: "text",
            "data-field": "deny-reason",
            placeholder: "reason for a denial (optional)",
            "aria-label": "reason for a denial",
        });
        const admitAll = element("button", { type: "button", "data-action": "admit_all" }, "Admit all");
        admitAll.addEventListener("click", () => void this.answer("admit_all"));
        const denyAll = element("button", { type: "button", "data-action": "deny_all" }, "Deny all");
        denyAll.addEventListener("click", () => void this.answer("deny_all"));
        const head = element(
            "tr",
            {},
            element("th", {}, "Name"),
            element("th", {}, "Role"),
            element("th", {}, "Attributes"),
            element("th", {}, "Waiting for"),
            element("th", {}, "Actions"),
        );
        this.body = element("tbody");
        this.more = element("div", { class: "waiting-more", "data-field": "waiting-more" });
        this.element = element(
            "div",
            { class: "waiting-room", "data-field": "waiting-room" },
            element("h3", {}, "Waiting room ", this.status),
            element("div", { class: "waiting-tools" }, this.toggle, admitAll, denyAll, this.reason),
            element("table", { class: "waiting" }, element("thead", {}, head), this.body),
            this.more,
        );
        this.element.hidden = true;
        // A fresh roster (after a reconnect, a resync) may come with the same count and different people.
        subscription.on("snapshot", () => void this.refresh());
    }

    /**
     * Follows the room entry: shows whether the waiting room is on and how many wait, and reads the list again when
     * either changed.
     * @param state the roster's room entry.
     */
    update(state: RoomState): void {
        const allowed = this.subscription.rights?.actions.includes("admit") === true;
        this.element.hidden = !allowed;
        if (!allowed) return;
        this.admission = state.admission === true;
        const count = typeof state.waiting === "number" ? state.waiting : 0;
        this.element.dataset.admission = this.admission ? "on" : "off";
        this.element.dataset.waiting = String(count);
        this.status.textContent = `· ${this.admission ? "on" : "off"} · ${count} waiting`;
        this.toggle.textContent = this.admission ? "Turn off (admit everyone)" : "Turn on";
        const shown = `${this.admission}/${count}`;
        if (shown !== this.shown) {
            this.shown = shown;
            void this.refresh();
        }
    }

    /** Reads who waits (the first page) and lists them; a later read wins over one still on its way. */
    async refresh(): Promise<void> {
        if (this.element.hidden) return;
        const read = ++this.reads;
        try {
            const page = await this.subscription.listWaiting({ limit: PAGE });
            if (read !== this.reads) return;
            this.entries = page.waiting;
            const rest = page.total - page.waiting.length;
            this.more.textContent = rest > 0 ? `and ${rest} more waiting` : "";
        } catch (error) {
            if (read !== this.reads) return;
            this.more.textContent = `the waiting list: ${error instanceof Error ? error.message : String(error)}`;
        }
        this.render();
    }

    private render(): void {
        if (this.entries.length === 0) {
            const empty = element("td", { colspan: "5", class: "empty" }, "nobody waits");
            this.body.replaceChildren(element("tr", { class: "empty" }, empty));
        } else {
            this.body.replaceChildren(...this.entries.map((entry) => this.row(entry)));
        }
        // The "waiting for" column counts up while anyone waits.
        if (this.entries.length > 0 && this.ticker === undefined) {
            this.ticker = setInterval(() => this.tick(), 1000);
        } else if (this.entries.length === 0 && this.ticker !== undefined) {
            clearInterval(this.ticker);
            this.ticker = undefined;
        }
    }

    private row(entry: WaitingEntry): HTMLTableRowElement {
        const attributes = Object.entries(entry.attributes ?? {})
            .map(([key, value]) => `${key}: ${value}`)
            .join(", ");
        const admit = element("button", { type: "button", "data-action": "admit" }, "Admit");
        admit.addEventListener("click", () => void this.answer("admit", entry.uid));
        const deny = element("button", { type: "button", "data-action": "deny" }, "Deny");
        deny.addEventListener("click", () => void this.answer("deny", entry.uid));
        return element(
            "tr",
            { "data-waiting": entry.uid },
            element("td", { "data-field": "name" }, entry.name),
            element("td", { "data-field": "role" }, String(entry.role)),
            element("td", { "data-field": "attributes" }, attributes),
            element("td", { "data-field": "waited", "data-since": String(entry.waitingSince) }, since(entry.waitingSince)),
            element("td", { "data-field": "actions", class: "actions" }, admit, deny),
        );
    }

    private tick(): void {
        for (const cell of Array.from(this.body.querySelectorAll<HTMLElement>("td[data-since]"))) {
            cell.textContent = since(Number(cell.dataset.since));
        }
    }

    private async answer(
        action: "require_admission" | "open_admission" | "admit" | "admit_all" | "deny" | "deny_all",
        uid?: string,
    ): Promise<void> {
        const room = this.subscription;
        const reason = this.reason.value.trim();
        const denial = reason === "" ? {} : { reason };
        const requests = {
            require_admission: () => room.requireAdmission("from the dashboard"),
            open_admission: () => room.openAdmission("from the dashboard"),
            admit: () => room.admit(uid as string),
            admit_all: () => room.admitAll(),
            deny: () => room.deny(uid as string, denial),
            deny_all: () => room.denyAll(denial),
        };
        await this.run(uid === undefined ? action : `${action} ${uid}`, requests[action]);
        // Whatever the answer, the list may have moved (someone admitted meanwhile, a wait that ran out).
        void this.refresh();
    }
}

/** How long ago a time was, by this browser's clock, as a duration. */
function since(time: number): string {
    return duration(Math.max(0, Date.now() - time));
}
