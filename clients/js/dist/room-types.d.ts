import type { ClientMessageType, ParticipantStateFlag, UNSUBSCRIBE_REASONS } from "./constants.js";
import type { RollcallError } from "./errors.js";
import type { JsonObject } from "./json.js";
import type { EventMode, RoomEvent, RoomSignal, RosterView, ServerMessage, WaitingStatus } from "./protocol.js";
import type { RequestOptions } from "./requests.js";
import type { RoomSubscription } from "./room.js";
/** How a room subscription reaches the gateway: the client behind it. */
export interface RoomChannel {
    /** Sends a request and resolves with its answer. */
    request(type: ClientMessageType, fields: JsonObject, options?: RequestOptions): Promise<ServerMessage>;
    /** Sends a message that gets no answer. */
    send(type: ClientMessageType, fields: JsonObject): void;
    /** The authenticated user's uid, once welcomed. */
    readonly uid: string | undefined;
    /** The subscription ended: forget it. */
    forget(subscription: RoomSubscription): void;
}
/** How to join a room. */
export interface JoinOptions {
    /** Join the call (`participant`, default) or watch it without joining (`observer`). */
    as?: "participant" | "observer";
    /** The roster view to mirror; default the whole roster. */
    view?: RosterView;
    /** The events to receive besides patches; default `all`. */
    events?: EventMode;
    /** `audio` or `video`, taken from the join that starts the call. */
    callType?: "audio" | "video";
    /**
     * Called while the join waits in the room's waiting room: with the gateway's first `waiting` answer and again
     * whenever the position changes (the subscription's `waiting` event; `join` resolves once a moderator admits).
     */
    onWaiting?: (status: WaitingStatus, subscription: RoomSubscription) => void;
}
/** What a room subscription tells its listeners. */
export interface RoomSubscriptionEvents {
    /** A room event arrived (each sequence number once, replays after a resume included). */
    event: RoomEvent;
    /** Another subscriber's ephemeral signal, to the room or to this user (not replayed after a reconnect). */
    signal: RoomSignal;
    /** A snapshot replaced the roster: `resync` after the gateway skipped patches, `recovered: false` after a resume
     * that could not replay. */
    snapshot: {
        readonly resync: boolean;
        readonly recovered: boolean | undefined;
    };
    /** A resume after a reconnect finished: `recovered` tells whether everything missed was replayed. */
    resumed: {
        readonly recovered: boolean;
    };
    /** The roster could not be trusted (a missed patch, a checksum mismatch); the client rejoins. */
    drift: {
        readonly detail: string;
        readonly resume: boolean;
    };
    /** The join waits in the waiting room: where it stands, at first and whenever the position changes (a rejoin after
     * a reconnect keeps the place). */
    waiting: WaitingStatus;
    /** A moderator let the waiting join in: the roster is there (`waitingPosition` is null again). */
    admitted: undefined;
    /** The connection dropped; the client reconnects and resumes. */
    connectionLost: undefined;
    /** The gateway took the subscription out of the room (`replaced`: the same user and device joined from another
     * connection, "you joined from another window"; `access_revoked`: a refreshed token no longer names the room).
     * `ended` follows; the client does not join again on its own. */
    unsubscribed: {
        readonly reason: UnsubscribeReason;
    };
    /** The subscription ended: `leave()`, a refused rejoin, the gateway taking it out (`unsubscribed`), or the client
     * closed (with why, when it failed). */
    ended: RollcallError | undefined;
}
/** Why the gateway took a subscription out of its room (docs/PROTOCOL.md, "unsubscribed"; `UNSUBSCRIBE_REASONS`); a
 * reason this client does not know is passed through. */
export declare type UnsubscribeReason = (typeof UNSUBSCRIBE_REASONS)[number] | (string & {});
/**
 * The fields of a participant's own state (docs/PROTOCOL.md, "state"): the flags a participant sets
 * (`ParticipantStateFlag`: `audioMuted`, `videoPaused`, `presenting`, `handRaised`), its media id and camera.
 */
export interface ParticipantStateUpdate extends Partial<Record<ParticipantStateFlag, boolean>> {
    /** The media id the calls SDK gave the participant. */
    mid?: string;
    /** `front` or `back`. */
    cameraFacing?: "front" | "back";
}
