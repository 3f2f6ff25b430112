import { RollcallError } from "./errors.js";
import type { ServerMessage } from "./protocol.js";
/** How a request completes. */
export interface RequestOptions {
    /** The room the request is about, for requests answered by the room's roster. */
    room?: string | undefined;
    /**
     * Whether the request completes when the room's roster arrives after its `ack` (a `snapshot`, or `resumed`
     * after a replay), as `join` and `view` do; otherwise the `ack` completes it.
     */
    completesOnRoster?: boolean | undefined;
}
/**
 * Requests waiting for their answer, by id: ids count up from 1 per tracker; each request fails with a timeout
 * error when no answer comes within `timeoutMs` (but while held: a join in the waiting room waits as long as the
 * gateway keeps it there), and all fail at once when the connection closes.
 */
export declare class RequestTracker {
    private readonly timeoutMs;
    private readonly pending;
    private lastId;
    /**
     * Creates a tracker.
     * @param timeoutMs how long a request waits for its answer.
     */
    constructor(timeoutMs: number);
    /** How many requests wait. */
    get size(): number;
    /**
     * Registers a request; returns its id and the promise of its answer.
     * @param type the request's message type, for error messages.
     * @param options how it completes.
     */
    create(type: string, options?: RequestOptions): {
        id: number;
        answer: Promise<ServerMessage>;
    };
    /**
     * Holds a request without a timeout: the gateway answered that it waits (a join in the waiting room, which gets
     * its answer when a moderator lets it in or turns it away). Its `ack` starts the timeout again, for the roster
     * that follows. False when no request has that id.
     * @param id the request's id.
     */
    hold(id: number): boolean;
    /**
     * An `ack` arrived: it completes its request, unless the request waits for a roster too.
     * @param id the message's id.
     * @param message the ack.
     */
    acknowledge(id: number, message: ServerMessage): void;
    /**
     * Completes a request with its answer (`result`, `pong`, `welcome`); false when no request has that id.
     * @param id the message's id.
     * @param message the answer.
     */
    resolve(id: number, message: ServerMessage): boolean;
    /**
     * Fails a request; false when no request has that id.
     * @param id the request's id.
     * @param error why.
     */
    reject(id: number, error: RollcallError): boolean;
    /**
     * A room's roster arrived: completes the acknowledged request waiting for it, if any.
     * @param room the room id.
     */
    rosterArrived(room: string): void;
    /**
     * Fails every waiting request.
     * @param error why.
     */
    failAll(error: RollcallError): void;
    /**
     * Fails the requests about a room that wait for its roster (a join, a view change): its subscription ended.
     * @param room the room id.
     * @param error why.
     */
    rejectRoom(room: string, error: RollcallError): void;
    private timeout;
    private take;
}
