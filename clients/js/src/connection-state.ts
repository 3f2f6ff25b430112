// Where a client's connection stands, as one value: each phase carries exactly the data that exists in it (the
// socket, its timers, the attempt, the promise `connect()` returned), so a combination that cannot happen, such as a
// backoff timer beside an open socket or a reconnect attempt with a pending `connect()`, cannot be written down.
// The public status (`ClientStatus`) is derived from it, never kept beside it.
import type { ClientStatus } from "./client-types.js";
import type { Connection } from "./connection.js";
import type { RollcallError } from "./errors.js";
import type { Heartbeat } from "./heartbeat.js";
import type { Identity } from "./protocol.js";

/** A timer handle, in browsers and Node. */
export type Timer = ReturnType<typeof setTimeout>;

/** The promise `connect()` returned: settled by the first `welcome`, or rejected when the client ends first. */
export interface ConnectWaiter {
    /** Resolves it with the identity the gateway authenticated. */
    resolve(identity: Identity): void;
    /** Rejects it. */
    reject(error: RollcallError): void;
}

/** What a connection attempt is: the first (a failure ends the client) or a numbered reconnect (from 1). */
export type Attempt =
    | { readonly kind: "first"; readonly waiter: ConnectWaiter }
    | { readonly kind: "reconnect"; readonly number: number };

/** The client's connection life, one phase at a time. */
export type ConnectionState =
    /** Created; `connect()` not called yet. */
    | { readonly phase: "idle" }
    /** Asking `getToken` for the attempt's token; no socket yet. */
    | { readonly phase: "fetching-token"; readonly attempt: Attempt }
    /** The socket is opening or open, waiting for `welcome` until `welcomeTimer` fires; `refusal` is the gateway's
     * error (or the welcome timeout) that the coming close is reported with. */
    | {
          readonly phase: "authenticating";
          readonly attempt: Attempt;
          readonly connection: Connection;
          readonly welcomeTimer: Timer;
          readonly refusal: RollcallError | undefined;
      }
    /** Welcomed: requests go out, the heartbeat watches the socket. */
    | { readonly phase: "connected"; readonly connection: Connection; readonly heartbeat: Heartbeat }
    /** Waiting `timer` out before reconnect attempt `attempt` (from 1). */
    | { readonly phase: "backing-off"; readonly attempt: number; readonly timer: Timer }
    /** `close()` sent the close handshake and waits for its end (`done`); the status stays `status` until then. */
    | {
          readonly phase: "closing";
          readonly connection: Connection;
          readonly status: ClientStatus;
          readonly waiter: ConnectWaiter | undefined;
          readonly done: () => void;
      }
    /** Over for good. */
    | { readonly phase: "closed" };

/**
 * The public status of a state: `connecting` for the first attempt, `reconnecting` for later ones and the backoff
 * between them.
 * @param state the state.
 */
export function statusOf(state: ConnectionState): ClientStatus {
    switch (state.phase) {
        case "idle":
            return "idle";
        case "fetching-token":
        case "authenticating":
            return state.attempt.kind === "first" ? "connecting" : "reconnecting";
        case "connected":
            return "connected";
        case "backing-off":
            return "reconnecting";
        case "closing":
            return state.status;
        case "closed":
            return "closed";
    }
}

/**
 * The socket of a state, in the phases that have one.
 * @param state the state.
 */
export function connectionOf(state: ConnectionState): Connection | undefined {
    switch (state.phase) {
        case "authenticating":
        case "connected":
        case "closing":
            return state.connection;
        default:
            return undefined;
    }
}

/**
 * The pending `connect()` of a state: only the first attempt, or a close during it, has one.
 * @param state the state.
 */
export function waiterOf(state: ConnectionState): ConnectWaiter | undefined {
    switch (state.phase) {
        case "fetching-token":
        case "authenticating":
            return state.attempt.kind === "first" ? state.attempt.waiter : undefined;
        case "closing":
            return state.waiter;
        default:
            return undefined;
    }
}

/**
 * Stops the timers a state owns (the welcome timeout, the heartbeat, the backoff); the socket is left as it is.
 * @param state the state being left.
 */
export function stopTimers(state: ConnectionState): void {
    switch (state.phase) {
        case "authenticating":
            clearTimeout(state.welcomeTimer);
            break;
        case "connected":
            state.heartbeat.stop();
            break;
        case "backing-off":
            clearTimeout(state.timer);
            break;
        default:
            break;
    }
}
