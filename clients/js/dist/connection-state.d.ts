import type { ClientStatus } from "./client-types.js";
import type { Connection } from "./connection.js";
import type { RollcallError } from "./errors.js";
import type { Heartbeat } from "./heartbeat.js";
import type { Identity } from "./protocol.js";
/** A timer handle, in browsers and Node. */
export declare type Timer = ReturnType<typeof setTimeout>;
/** The promise `connect()` returned: settled by the first `welcome`, or rejected when the client ends first. */
export interface ConnectWaiter {
    /** Resolves it with the identity the gateway authenticated. */
    resolve(identity: Identity): void;
    /** Rejects it. */
    reject(error: RollcallError): void;
}
/** What a connection attempt is: the first (a failure ends the client) or a numbered reconnect (from 1). */
export declare type Attempt = {
    readonly kind: "first";
    readonly waiter: ConnectWaiter;
} | {
    readonly kind: "reconnect";
    readonly number: number;
};
/** The client's connection life, one phase at a time. */
export declare type ConnectionState = 
/** Created; `connect()` not called yet. */
{
    readonly phase: "idle";
}
/** Asking `getToken` for the attempt's token; no socket yet. */
 | {
    readonly phase: "fetching-token";
    readonly attempt: Attempt;
}
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
 | {
    readonly phase: "connected";
    readonly connection: Connection;
    readonly heartbeat: Heartbeat;
}
/** Waiting `timer` out before reconnect attempt `attempt` (from 1). */
 | {
    readonly phase: "backing-off";
    readonly attempt: number;
    readonly timer: Timer;
}
/** `close()` sent the close handshake and waits for its end (`done`); the status stays `status` until then. */
 | {
    readonly phase: "closing";
    readonly connection: Connection;
    readonly status: ClientStatus;
    readonly waiter: ConnectWaiter | undefined;
    readonly done: () => void;
}
/** Over for good. */
 | {
    readonly phase: "closed";
};
/**
 * The public status of a state: `connecting` for the first attempt, `reconnecting` for later ones and the backoff
 * between them.
 * @param state the state.
 */
export declare function statusOf(state: ConnectionState): ClientStatus;
/**
 * The socket of a state, in the phases that have one.
 * @param state the state.
 */
export declare function connectionOf(state: ConnectionState): Connection | undefined;
/**
 * The pending `connect()` of a state: only the first attempt, or a close during it, has one.
 * @param state the state.
 */
export declare function waiterOf(state: ConnectionState): ConnectWaiter | undefined;
/**
 * Stops the timers a state owns (the welcome timeout, the heartbeat, the backoff); the socket is left as it is.
 * @param state the state being left.
 */
export declare function stopTimers(state: ConnectionState): void;
