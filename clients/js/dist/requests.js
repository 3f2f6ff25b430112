import { RollcallError } from "./errors.js";
/**
 * Requests waiting for their answer, by id: ids count up from 1 per tracker; each request fails with a timeout
 * error when no answer comes within `timeoutMs` (but while held: a join in the waiting room waits as long as the
 * gateway keeps it there), and all fail at once when the connection closes.
 */
export class RequestTracker {
    /**
     * Creates a tracker.
     * @param timeoutMs how long a request waits for its answer.
     */
    constructor(timeoutMs) {
        this.timeoutMs = timeoutMs;
        this.pending = new Map();
        this.lastId = 0;
    }
    /** How many requests wait. */
    get size() {
        return this.pending.size;
    }
    /**
     * Registers a request; returns its id and the promise of its answer.
     * @param type the request's message type, for error messages.
     * @param options how it completes.
     */
    create(type, options = {}) {
        const id = ++this.lastId;
        const answer = new Promise((resolve, reject) => {
            this.pending.set(id, {
                type,
                room: options.room,
                completesOnRoster: options.completesOnRoster === true,
                acknowledgement: undefined,
                resolve,
                reject,
                timer: this.timeout(id, type),
            });
        });
        return { id, answer };
    }
    /**
     * Holds a request without a timeout: the gateway answered that it waits (a join in the waiting room, which gets
     * its answer when a moderator lets it in or turns it away). Its `ack` starts the timeout again, for the roster
     * that follows. False when no request has that id.
     * @param id the request's id.
     */
    hold(id) {
        const request = this.pending.get(id);
        if (request === undefined)
            return false;
        clearTimeout(request.timer);
        request.timer = undefined;
        return true;
    }
    /**
     * An `ack` arrived: it completes its request, unless the request waits for a roster too.
     * @param id the message's id.
     * @param message the ack.
     */
    acknowledge(id, message) {
        const request = this.pending.get(id);
        if (request === undefined)
            return;
        if (request.completesOnRoster) {
            request.acknowledgement = message;
            if (request.timer === undefined)
                request.timer = this.timeout(id, request.type);
        }
        else {
            this.resolve(id, message);
        }
    }
    /**
     * Completes a request with its answer (`result`, `pong`, `welcome`); false when no request has that id.
     * @param id the message's id.
     * @param message the answer.
     */
    resolve(id, message) {
        const request = this.take(id);
        if (request === undefined)
            return false;
        request.resolve(message);
        return true;
    }
    /**
     * Fails a request; false when no request has that id.
     * @param id the request's id.
     * @param error why.
     */
    reject(id, error) {
        const request = this.take(id);
        if (request === undefined)
            return false;
        request.reject(error);
        return true;
    }
    /**
     * A room's roster arrived: completes the acknowledged request waiting for it, if any.
     * @param room the room id.
     */
    rosterArrived(room) {
        for (const [id, request] of this.pending) {
            if (request.room === room && request.completesOnRoster && request.acknowledgement !== undefined) {
                this.resolve(id, request.acknowledgement);
                return;
            }
        }
    }
    /**
     * Fails every waiting request.
     * @param error why.
     */
    failAll(error) {
        const requests = Array.from(this.pending.values());
        for (const request of requests)
            clearTimeout(request.timer);
        this.pending.clear();
        for (const request of requests)
            request.reject(error);
    }
    /**
     * Fails the requests about a room that wait for its roster (a join, a view change): its subscription ended.
     * @param room the room id.
     * @param error why.
     */
    rejectRoom(room, error) {
        for (const [id, request] of Array.from(this.pending)) {
            if (request.room === room && request.completesOnRoster)
                this.reject(id, error);
        }
    }
    timeout(id, type) {
        return setTimeout(() => {
            const request = this.pending.get(id);
            if (request === undefined)
                return;
            this.pending.delete(id);
            request.reject(new RollcallError("timeout", `no answer to ${type} within ${this.timeoutMs} ms`));
        }, this.timeoutMs);
    }
    take(id) {
        const request = this.pending.get(id);
        if (request === undefined)
            return undefined;
        clearTimeout(request.timer);
        this.pending.delete(id);
        return request;
    }
}
