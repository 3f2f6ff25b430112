/**
 * The Rollcall browser client: one connection to the gateway, live rosters per room (a snapshot, then RFC 7386
 * merge patches checked for continuity and by checksum), events, requests, and reconnects that resume every room.
 * See docs/CLIENT.md and docs/PROTOCOL.md.
 *
 * @packageDocumentation
 */
export { Rollcall } from "./client.js";
export type { ClientStatus, MeetingAnnouncement, RollcallEvents, RollcallOptions, RoomSummary, StatusChange } from "./client-types.js";
export { RoomSubscription } from "./room.js";
export type {
    FollowUp,
    JoinOptions,
    ParticipantStateUpdate,
    RoomChannel,
    RoomSubscriptionEvents,
    UnsubscribeReason,
} from "./room.js";
export { MAX_DRIFT_STREAK, RoomMirror } from "./room-mirror.js";
export type { MirrorChange, MirrorOptions, MirrorOutcome } from "./room-mirror.js";
export { RosterStore } from "./roster-store.js";
export type { ApplyOutcome, ParticipantChange, ParticipantListener, RosterListener, RosterSnapshot } from "./roster-store.js";
export { RollcallError } from "./errors.js";
export type { RollcallErrorKind } from "./errors.js";
export {
    CLIENT_MESSAGE_TYPES,
    CLOSE_CODES,
    EVENT_NAMES,
    FINAL_CLOSE_CODES,
    LEAVE_REASONS,
    PARTICIPANT_FLAGS,
    SERVER_ERROR_CODES,
    SERVER_MESSAGE_TYPES,
    PARTICIPANT_ROLES,
    UNSUBSCRIBE_REASONS,
    VIEW_COUNTS,
    VIEW_FILTERS,
} from "./constants.js";
export type {
    ClientMessageType,
    LeaveReason,
    ParticipantFlag,
    ParticipantStateFlag,
    RoomEventName,
    ServerErrorCode,
    ServerMessageType,
    ViewCount,
} from "./constants.js";
export { ReconnectPolicy } from "./reconnect-policy.js";
export type { ReconnectOptions } from "./reconnect-policy.js";
export { applyMergePatch, diffMergePatch } from "./merge-patch.js";
export { canonicalJson, compareUtf8, rosterChecksum } from "./checksum.js";
export { isJsonObject, jsonEqual, parseJson } from "./json.js";
export type { JsonObject, JsonValue } from "./json.js";
export type {
    Acknowledgement,
    AttendanceRecord,
    EventMode,
    Identity,
    MeetingMessage,
    ModeratorAction,
    Participant,
    QueryName,
    Role,
    RoomEvent,
    RoomRights,
    RoomSignal,
    RoomState,
    RosterView,
    ServerMessage,
    ViewCounts,
    ViewCountsEntry,
    ViewFilter,
    WaitingEntry,
    WaitingPage,
    WaitingStatus,
} from "./protocol.js";
export type { WebSocketCloseEvent, WebSocketConstructor, WebSocketLike, WebSocketMessageEvent } from "./connection.js";
