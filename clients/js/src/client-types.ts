import type { WebSocketConstructor } from "./connection.js";
import type { RollcallError } from "./errors.js";
import type { JsonObject } from "./json.js";
import type { Identity, RoomEvent } from "./protocol.js";
import type { ReconnectOptions, ReconnectPolicy } from "./reconnect-policy.js";

/** How a client connects. Give `token` or `getToken`. */
export interface RollcallOptions {
    /** The gateway's rooms URL: `wss://host/v1/ws`; a path such as `/v1/ws` is taken relative to the page. */
    url: string;
    /** A token (JWT) from the app's backend. */
    token?: string;
    /**
     * Fetches a token from the app's backend: called before every connection attempt and, while connected,
     * before the token expires (the new token is sent with an `auth` message, without dropping the connection).
     */
    getToken?: () => string | Promise<string>;
    /**
     * The device id sent with joins, so one user can be in a call from several devices, and a page that reloads
     * comes back as the same device. Default: an id kept in the tab's `sessionStorage` (a new one per client
     * where there is none).
     */
    device?: string;
    /** How the token reaches the gateway: an `auth` message (default; it stays out of URLs and logs) or the
     * `token` query parameter. */
    authentication?: "message" | "query";
    /** How long a request waits for its answer, in milliseconds; default 10,000. */
    requestTimeoutMs?: number;
    /**
     * The reconnect policy; default: 10 attempts after a drop, exponential backoff from 200 ms to 10 s with 20 %
     * jitter (the Swift and Python clients' default too). `{ maxAttempts: Infinity }` never gives up.
     */
    reconnect?: ReconnectOptions | ReconnectPolicy;
    /** Quiet time before an app-level ping, in milliseconds; default 25,000; 0 disables it. */
    pingIntervalMs?: number;
    /** How long a ping waits for its pong before the connection is taken for dead, in milliseconds; default 10,000. */
    pongTimeoutMs?: number;
    /** How long before the token expires `getToken` is asked for a new one, in milliseconds; default 60,000. */
    tokenRefreshMarginMs?: number;
    /** The WebSocket implementation; default the global `WebSocket` (browsers, Node 22). */
    WebSocket?: WebSocketConstructor;
    /** Whether to follow `online`, `offline` and page visibility to reconnect or check the connection at once;
     * default true. */
    watchPage?: boolean;
}

/** Where the client's connection stands. */
export type ClientStatus = "idle" | "connecting" | "connected" | "reconnecting" | "closed";

/** A change of status, with what the client knows about it. */
export interface StatusChange {
    /** The new status. */
    readonly status: ClientStatus;
    /** While reconnecting: the attempt coming next (from 1). */
    readonly attempt?: number;
    /** While reconnecting: milliseconds until that attempt. */
    readonly delayMs?: number;
    /** While reconnecting: whether the browser is offline (the attempt comes as soon as it is online). */
    readonly waitingForNetwork?: boolean;
    /** Why the connection ended, when it did. */
    readonly error?: RollcallError;
}

/** One room of the `rooms` query. */
export interface RoomSummary {
    /** The room id. */
    readonly room: string;
    /** Whether anyone is in the call. */
    readonly active: boolean;
    /** How many are in the call. */
    readonly participants: number;
    /** The room's sequence number. */
    readonly seq: number;
    /** The group's active meeting, if any. */
    readonly activeMeeting: JsonObject | null;
}

/** A group meeting message to send (docs/PROTOCOL.md, "meeting"). */
export interface MeetingAnnouncement {
    /** The group id. */
    group: string;
    /** The calls SDK's session id. */
    sessionId: string;
    /** `audio` or `video`; default `video`. */
    callType?: "audio" | "video";
    /** A short text, such as the meeting's title. */
    text?: string;
    /** True when the meeting starts (default), false when it ends. */
    active?: boolean;
}

/** What the client tells its listeners. */
export interface RollcallEvents {
    /** The status changed. */
    status: StatusChange;
    /** The gateway authenticated the client: after each connection and each token refresh. */
    welcome: Identity;
    /** A group meeting message for a group without a subscription (a subscribed room's come as its events). */
    meeting: RoomEvent;
    /** An error no request waited for: `ERR_TOKEN_EXPIRED`, a failed token refresh, a failed `getToken`. */
    error: RollcallError;
    /** The client closed for good: with why, unless `close()` was called. */
    closed: RollcallError | undefined;
}
