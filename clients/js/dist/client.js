import { Connection } from "./connection.js";
import { connectionOf, statusOf, stopTimers, waiterOf } from "./connection-state.js";
import { Emitter } from "./emitter.js";
import { FINAL_CLOSE_CODES, RollcallError } from "./errors.js";
import { Heartbeat } from "./heartbeat.js";
import { isOffline, watchPageSignals } from "./page-signals.js";
import { readAcknowledgement, readEvent } from "./protocol.js";
import { ReconnectPolicy } from "./reconnect-policy.js";
import { RequestTracker } from "./requests.js";
import { RoomSubscription } from "./room.js";
import { TokenRefresher, fetchToken } from "./token.js";
import { defaultDevice, resolveUrl, withQueryParameter } from "./endpoint.js";
/**
 * A Rollcall client: one authenticated connection to the gateway, the rooms joined over it, and requests.
 *
 * ```ts
 * const client = new Rollcall({ url: "wss://rollcall.example.com/v1/ws", getToken: fetchTokenFromBackend });
 * await client.connect();
 * const room = await client.join("team-standup", { events: "notable" });
 * room.roster.subscribe((roster) => render(roster.participants));
 * ```
 *
 * When the connection drops, the client reconnects with exponential backoff and jitter and rejoins every room with
 * `resume`, so each replays exactly what it missed (`resumed` with `recovered: true`) or gets a fresh snapshot
 * (`recovered: false`). Close codes 4001-4005 (authentication, expiry, removal, ban, session ended) end it for good.
 */
export class Rollcall {
    /**
     * Creates a client; nothing happens on the network until `connect()`.
     * @param options where to connect, the token, and the policies.
     */
    constructor(options) {
        this.emitter = new Emitter();
        this.subscriptions = new Map();
        /** Where the connection stands: the one value the status, the socket and its timers are read from. */
        this.state = { phase: "idle" };
        if (options.token === undefined && options.getToken === undefined) {
            throw new RollcallError("protocol", "a Rollcall client needs a token or getToken");
        }
        this.url = resolveUrl(options.url);
        this.tokenSource = options.getToken ?? options.token;
        this.device = options.device ?? defaultDevice();
        this.authentication = options.authentication ?? "message";
        this.requestTimeoutMs = options.requestTimeoutMs ?? 10000;
        this.policy =
            options.reconnect instanceof ReconnectPolicy
                ? options.reconnect
                : new ReconnectPolicy(options.reconnect);
        this.pingIntervalMs = options.pingIntervalMs ?? 25000;
        this.pongTimeoutMs = options.pongTimeoutMs ?? 10000;
        this.WebSocketClass = options.WebSocket ?? globalThis.WebSocket;
        this.watchPage = options.watchPage ?? true;
        this.requests = new RequestTracker(this.requestTimeoutMs);
        this.refresher = new TokenRefresher(options.tokenRefreshMarginMs ?? 60000, () => this.refreshToken(), (error) => this.emitter.emit("error", asRollcallError(error, "token")), () => this.state.phase === "connected");
        const client = this;
        this.channel = {
            request: (type, fields, requestOptions) => this.request(type, fields, requestOptions),
            send: (type, fields) => this.send(type, fields),
            get uid() {
                return client.currentIdentity?.uid;
            },
            forget: (subscription) => {
                if (this.subscriptions.get(subscription.room) !== subscription)
                    return;
                this.subscriptions.delete(subscription.room);
                // A join still open ends with it: the gateway answers nothing more to a wait that a leave ended.
                const room = subscription.room;
                this.requests.rejectRoom(room, new RollcallError("closed", `the subscription to ${room} ended before its join was answered`));
            },
        };
    }
    /** Where the connection stands. */
    get status() {
        return statusOf(this.state);
    }
    /** Who the gateway authenticated, from the last `welcome`. */
    get identity() {
        return this.currentIdentity;
    }
    /** The rooms joined, by id. */
    get rooms() {
        return this.subscriptions;
    }
    /**
     * Adds a listener; returns the function that removes it.
     * @param name `status`, `welcome`, `meeting`, `error` or `closed`.
     * @param listener the callback.
     */
    on(name, listener) {
        return this.emitter.on(name, listener);
    }
    /**
     * Connects and authenticates; resolves with the identity from the gateway's `welcome`. A first connection that
     * fails is not retried: the promise rejects (`ERR_UNAUTHORIZED` for a refused token) and the client is closed.
     */
    connect() {
        if (this.state.phase !== "idle") {
            return Promise.reject(new RollcallError("protocol", "connect() was already called"));
        }
        if (this.WebSocketClass === undefined) {
            return Promise.reject(new RollcallError("protocol", "no WebSocket implementation: pass one as the WebSocket option"));
        }
        if (this.watchPage) {
            this.stopWatchingPage = watchPageSignals({
                online: () => this.networkCameBack(),
                offline: () => this.checkConnectionNow(),
                visible: () => this.pageVisible(),
            });
        }
        return new Promise((resolve, reject) => {
            void this.openConnection({ kind: "first", waiter: { resolve, reject } });
            this.emitStatus({ status: "connecting" });
        });
    }
    /**
     * Joins a room (or watches it as an observer); resolves once its first snapshot is applied.
     * Refusals reject with `ERR_NOT_GROUP_MEMBER`, `ERR_BANNED`, `ERR_CALL_FULL`, `ERR_TOO_MANY_ROOMS`, ...
     * In a room whose waiting room is on, the join waits (without a timeout, and through reconnects) until a
     * moderator admits it; meanwhile the subscription (`rooms.get(room)`, or `onWaiting`) tells its `waiting`
     * listeners its position. Turned away, it rejects with `ERR_ADMISSION_DENIED`; a wait that ran out with
     * `ERR_WAIT_EXPIRED`; `leave()` on the subscription ends the wait.
     * @param room the room id (a group's room is the group id).
     * @param options participant or observer, view, events, call type.
     */
    async join(room, options = {}) {
        if (this.subscriptions.has(room))
            throw new RollcallError("protocol", `already joined ${room}`);
        const subscription = new RoomSubscription(this.channel, room, this.device, options);
        this.subscriptions.set(room, subscription);
        try {
            const answer = await this.request("join", subscription.joinFields(false), { room, completesOnRoster: true });
            subscription.joined(answer);
        }
        catch (error) {
            const failure = asRollcallError(error);
            if (subscription.active && subscription.waitingPosition !== null && failure.isConnectionFailure) {
                // The connection dropped while the join waited in the waiting room: the reconnect joins again, which
                // waits again, and this join completes when that one is let in (or rejects when it is turned away).
                await subscription.whenAdmitted();
                return subscription;
            }
            subscription.end(failure);
            throw error;
        }
        return subscription;
    }
    /**
     * Tells every member of a group that a meeting is on or over.
     * @param meeting the group, session id, call type, text, and whether it is active.
     */
    async sendMeeting(meeting) {
        const fields = {
            group: meeting.group,
            sessionId: meeting.sessionId,
            callType: meeting.callType ?? "video",
            active: meeting.active ?? true,
        };
        if (meeting.text !== undefined)
            fields.text = meeting.text;
        return readAcknowledgement(await this.request("meeting", fields));
    }
    /**
     * Asks the gateway a question; resolves with the whole `result` message.
     * @param query `rooms`, `active_meeting`, `members`, `operators`, `muted`, `banned` or `history`.
     * @param parameters its parameters: `room`, `group`, `after`, `limit`.
     */
    query(query, parameters = {}) {
        return this.request("query", { ...parameters, query });
    }
    /** The rooms the token gives access to, with who is in them. */
    async listRooms() {
        const answer = await this.query("rooms");
        const rooms = Array.isArray(answer.rooms) ? answer.rooms : [];
        return rooms.flatMap((entry) => {
            if (typeof entry !== "object" || entry === null || Array.isArray(entry))
                return [];
            if (typeof entry.room !== "string")
                return [];
            const meeting = entry.activeMeeting;
            return [
                {
                    room: entry.room,
                    active: entry.active === true,
                    participants: typeof entry.participants === "number" ? entry.participants : 0,
                    seq: typeof entry.seq === "number" ? entry.seq : 0,
                    activeMeeting: typeof meeting === "object" && meeting !== null && !Array.isArray(meeting) ? meeting : null,
                },
            ];
        });
    }
    /** Sends an app-level `ping`; resolves with the round trip in milliseconds. */
    async ping() {
        const start = Date.now();
        await this.request("ping", {});
        return Date.now() - start;
    }
    /**
     * Replaces the token without dropping the connection; later reconnects use the new one. Without an argument the
     * token comes from `getToken`. Rejects with `ERR_FORBIDDEN` for another user's token and `ERR_UNAUTHORIZED` for
     * one that fails verification; the connection stays on the old token either way.
     * @param token a token for the same user.
     */
    async refreshToken(token) {
        const fresh = token ?? (await fetchToken(this.tokenSource));
        await this.request("auth", { token: fresh });
        if (typeof this.tokenSource === "string")
            this.tokenSource = fresh;
        return this.currentIdentity;
    }
    /**
     * Drops the connection as a network failure would; the client then reconnects and resumes every room. For an
     * app that learns the network changed.
     * @param reason why, for the status report.
     */
    dropConnection(reason = "dropped by the app") {
        connectionOf(this.state)?.abort(reason);
    }
    /** Closes the connection (code 1000) and ends every room; resolves once closed. Calling it again does nothing. */
    async close() {
        const state = this.state;
        if (state.phase === "closed" || state.phase === "closing")
            return;
        this.refresher.stop();
        stopTimers(state);
        if (state.phase === "authenticating" || state.phase === "connected") {
            const connection = state.connection;
            await new Promise((resolve) => {
                const timer = setTimeout(() => connection.abort("closed by the app"), 2000);
                const done = () => {
                    clearTimeout(timer);
                    resolve();
                };
                this.state = { phase: "closing", connection, status: statusOf(state), waiter: waiterOf(state), done };
                connection.close(1000, "");
            });
        }
        this.finish(undefined);
    }
    // Requests
    request(type, fields, options = {}) {
        const state = this.state;
        if (state.phase !== "connected") {
            return Promise.reject(new RollcallError("not-connected", `not connected: cannot send ${type}`));
        }
        const connection = state.connection;
        const { id, answer } = this.requests.create(type, options);
        if (!connection.send({ type, id, ...fields })) {
            this.requests.reject(id, new RollcallError("not-connected", `not connected: cannot send ${type}`));
        }
        return answer;
    }
    send(type, fields) {
        const state = this.state;
        if (state.phase !== "connected" || !state.connection.send({ type, ...fields })) {
            throw new RollcallError("not-connected", `not connected: cannot send ${type}`);
        }
    }
    // The connection's life
    /** Starts an attempt: fetches its token, then opens the socket and waits for `welcome`. */
    async openConnection(attempt) {
        const fetching = { phase: "fetching-token", attempt };
        this.state = fetching;
        let token;
        try {
            token = await fetchToken(this.tokenSource);
        }
        catch (error) {
            const failure = new RollcallError("token", `getToken failed: ${describe(error)}`);
            this.emitter.emit("error", failure);
            if (this.state === fetching)
                this.attemptFailed(attempt, failure);
            return;
        }
        if (this.state !== fetching)
            return; // closed meanwhile
        const url = this.authentication === "query" ? withQueryParameter(this.url, "token", token) : this.url;
        let connection;
        try {
            connection = new Connection(url, this.WebSocketClass, {
                opened: () => {
                    if (this.authentication === "message")
                        connection?.send({ type: "auth", token });
                },
                received: (message) => this.received(message),
                closed: (info) => {
                    if (connection !== undefined)
                        this.connectionEnded(connection, info);
                },
            });
        }
        catch (error) {
            this.attemptFailed(attempt, new RollcallError("connection-closed", `cannot open ${this.url}: ${describe(error)}`));
            return;
        }
        const opened = connection;
        const welcomeTimer = setTimeout(() => {
            const state = this.state;
            if (state.phase === "authenticating" && state.connection === opened) {
                this.state = {
                    ...state,
                    refusal: new RollcallError("timeout", `no welcome within ${this.requestTimeoutMs} ms`),
                };
                opened.abort("no welcome");
            }
        }, this.requestTimeoutMs);
        this.state = { phase: "authenticating", attempt, connection: opened, welcomeTimer, refusal: undefined };
    }
    /** An attempt failed before it had a socket: the first ends the client, a reconnect backs off again. */
    attemptFailed(attempt, error) {
        if (attempt.kind === "first") {
            this.finish(error);
        }
        else {
            this.scheduleReconnect(attempt.number + 1, error);
        }
    }
    connectionEnded(connection, info) {
        const state = this.state;
        if (connectionOf(state) !== connection)
            return;
        stopTimers(state);
        this.refresher.stop();
        const closedError = info.code === undefined
            ? new RollcallError("connection-closed", `connection dropped: ${info.reason}`)
            : RollcallError.closed(info.code, info.reason);
        const final = info.code !== undefined && FINAL_CLOSE_CODES.includes(info.code);
        this.requests.failAll(closedError);
        switch (state.phase) {
            case "authenticating":
                if (state.attempt.kind === "first") {
                    this.finish(state.refusal ?? closedError);
                }
                else if (final) {
                    this.finish(closedError);
                }
                else {
                    this.scheduleReconnect(state.attempt.number + 1, closedError);
                }
                break;
            case "connected":
                this.tellConnectionLost();
                if (final) {
                    this.finish(closedError);
                }
                else {
                    this.scheduleReconnect(1, closedError);
                }
                break;
            case "closing":
                if (state.status === "connected")
                    this.tellConnectionLost();
                state.done();
                break;
            default:
                break;
        }
    }
    tellConnectionLost() {
        for (const subscription of Array.from(this.subscriptions.values()))
            subscription.connectionLost();
    }
    /** Backs off before reconnect attempt `attempt`, or ends the client when the policy allows no more. */
    scheduleReconnect(attempt, error) {
        if (!this.policy.allows(attempt)) {
            this.finish(error);
            return;
        }
        const offline = isOffline();
        const delayMs = offline ? this.policy.maxDelayMs : this.policy.delayBefore(attempt);
        const timer = setTimeout(() => this.reconnectNow(), delayMs);
        this.state = { phase: "backing-off", attempt, timer };
        this.emitStatus({ status: "reconnecting", attempt, delayMs, waitingForNetwork: offline, error });
    }
    /** Ends the backoff: its timer fired, the network came back, or the page became visible. */
    reconnectNow() {
        const state = this.state;
        if (state.phase !== "backing-off")
            return;
        clearTimeout(state.timer);
        void this.openConnection({ kind: "reconnect", number: state.attempt });
    }
    /** Pings at once when connected, to find a connection that died while the page slept or the network changed. */
    checkConnectionNow() {
        const state = this.state;
        if (state.phase === "connected")
            state.heartbeat.checkNow();
    }
    networkCameBack() {
        this.reconnectNow();
        this.checkConnectionNow();
    }
    pageVisible() {
        this.reconnectNow();
        this.checkConnectionNow();
        if (this.state.phase === "connected" && this.refresher.overdue)
            void this.refresher.runNow();
    }
    finish(error) {
        const state = this.state;
        if (state.phase === "closed")
            return;
        stopTimers(state);
        this.refresher.stop();
        this.state = { phase: "closed" };
        this.stopWatchingPage?.();
        this.stopWatchingPage = undefined;
        const ending = error ?? new RollcallError("closed", "the client was closed");
        this.requests.failAll(ending);
        waiterOf(state)?.reject(ending);
        for (const subscription of Array.from(this.subscriptions.values()))
            subscription.end(error);
        this.subscriptions.clear();
        this.emitStatus(error === undefined ? { status: "closed" } : { status: "closed", error });
        this.emitter.emit("closed", error);
    }
    /** Tells `status` listeners of a change the state already made. */
    emitStatus(change) {
        this.emitter.emit("status", change);
    }
    // Messages
    received(message) {
        const id = typeof message.id === "number" ? message.id : undefined;
        switch (message.type) {
            case "welcome":
                this.welcome(message, id);
                break;
            case "ack":
                if (id !== undefined)
                    this.requests.acknowledge(id, message);
                break;
            case "result":
            case "pong":
                if (id !== undefined)
                    this.requests.resolve(id, message);
                break;
            case "waiting":
                // The join waits in the room's waiting room: it is held without a timeout until its answer comes.
                if (id !== undefined && this.requests.hold(id) && typeof message.room === "string") {
                    this.subscriptions.get(message.room)?.waited(message);
                }
                break;
            case "error": {
                const code = typeof message.code === "string" ? message.code : "ERR_UNKNOWN";
                const error = RollcallError.fromServer(code, typeof message.message === "string" ? message.message : "");
                if (id !== undefined && this.requests.reject(id, error))
                    return;
                const state = this.state;
                if (state.phase === "authenticating")
                    this.state = { ...state, refusal: error };
                this.emitter.emit("error", error);
                break;
            }
            case "snapshot":
            case "patch":
            case "event":
            case "resumed":
                this.roomMessage(message);
                break;
            case "signal":
                if (typeof message.room === "string")
                    this.subscriptions.get(message.room)?.signalled(message);
                break;
            case "unsubscribed": {
                // Taken out of the room (another connection holds the device now): the subscription ends and is
                // forgotten, so no reconnect joins the room again.
                const subscription = typeof message.room === "string" ? this.subscriptions.get(message.room) : undefined;
                subscription?.unsubscribed(typeof message.reason === "string" ? message.reason : "");
                break;
            }
        }
    }
    roomMessage(message) {
        const room = message.room;
        if (typeof room !== "string")
            return;
        const subscription = this.subscriptions.get(room);
        if (subscription === undefined) {
            if (message.type === "event") {
                const event = readEvent(message);
                if (event !== undefined && event.event === "meeting.message")
                    this.emitter.emit("meeting", event);
            }
            return;
        }
        const followUp = subscription.handle(message);
        if (message.type === "snapshot" || message.type === "resumed")
            this.requests.rosterArrived(room);
        if (followUp !== "none")
            this.rejoin(subscription, followUp === "rejoin-resume");
    }
    welcome(message, id) {
        const identity = {
            uid: typeof message.uid === "string" ? message.uid : "",
            name: typeof message.name === "string" ? message.name : "",
            expiresAt: typeof message.expiresAt === "number" ? message.expiresAt : 0,
        };
        this.currentIdentity = identity;
        if (typeof this.tokenSource !== "string")
            this.refresher.schedule(identity.expiresAt);
        const state = this.state;
        if (state.phase === "connected") {
            // The answer to a token refresh.
            if (id !== undefined)
                this.requests.resolve(id, message);
            this.emitter.emit("welcome", identity);
            return;
        }
        if (state.phase !== "authenticating")
            return;
        clearTimeout(state.welcomeTimer);
        const connection = state.connection;
        const heartbeat = new Heartbeat(this.pingIntervalMs, () => connection.lastReceivedAt, () => this.pingWithin(this.pongTimeoutMs), (reason) => connection.abort(reason));
        this.state = { phase: "connected", connection, heartbeat };
        this.emitStatus({ status: "connected" });
        this.emitter.emit("welcome", identity);
        if (state.attempt.kind === "first") {
            state.attempt.waiter.resolve(identity);
        }
        else {
            for (const subscription of Array.from(this.subscriptions.values()))
                this.rejoin(subscription, true);
        }
    }
    pingWithin(timeoutMs) {
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new RollcallError("timeout", "no pong")), timeoutMs);
            this.request("ping", {}).then((answer) => {
                clearTimeout(timer);
                resolve(answer);
            }, (error) => {
                clearTimeout(timer);
                reject(error);
            });
        });
    }
    /** Joins a room again: after a reconnect (resuming) or after drift. */
    rejoin(subscription, resume) {
        this.request("join", subscription.joinFields(resume), {
            room: subscription.room,
            completesOnRoster: true,
        }).then((answer) => subscription.joined(answer)).catch((error) => {
            const failure = asRollcallError(error);
            subscription.rejoinFailed();
            // A connection that dropped meanwhile rejoins again on the next welcome.
            if (failure.isConnectionFailure || failure.isTimeout)
                return;
            subscription.end(failure);
        });
    }
}
function asRollcallError(error, kind = "protocol") {
    return error instanceof RollcallError ? error : new RollcallError(kind, describe(error));
}
function describe(error) {
    return error instanceof Error ? error.message : String(error);
}
