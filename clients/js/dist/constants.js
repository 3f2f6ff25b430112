/**
 * The protocol's constants (docs/PROTOCOL.md), one definition each: the types below are derived from these lists,
 * and the client's tests check every list against the shared vectors (Tests/Vectors/protocol.json), as the server and
 * the other clients do.
 */
/** The `type` of every message a client sends. */
export const CLIENT_MESSAGE_TYPES = [
    "auth",
    "join",
    "view",
    "leave",
    "state",
    "speaker",
    "media",
    "attributes",
    "metadata",
    "meeting",
    "action",
    "permissions",
    "query",
    "ping",
    "signal",
];
/** The `type` of every message the gateway sends. */
export const SERVER_MESSAGE_TYPES = [
    "welcome",
    "snapshot",
    "patch",
    "event",
    "resumed",
    "ack",
    "result",
    "error",
    "pong",
    "unsubscribed",
    "signal",
    "waiting",
];
/** Every event name (docs/PROTOCOL.md, "event"). */
export const EVENT_NAMES = [
    "participant.joined",
    "participant.left",
    "participant.audio_muted",
    "participant.audio_unmuted",
    "participant.video_paused",
    "participant.video_resumed",
    "participant.screen_share_started",
    "participant.screen_share_stopped",
    "participant.hand_raised",
    "participant.hand_lowered",
    "participant.pinned",
    "participant.unpinned",
    "participant.media_id_changed",
    "participant.active_speaker_changed",
    "participant.speaker_stopped",
    "participant.active_speaker_shown",
    "participant.attributes_changed",
    "participant.role_changed",
    "session.connection_lost",
    "session.connection_closed",
    "session.connection_restored",
    "session.timed_out",
    "session.ended",
    "media.recording_started",
    "media.recording_stopped",
    "media.audio_mode_changed",
    "media.camera_facing_changed",
    "moderation.muted",
    "moderation.promoted",
    "moderation.demoted",
    "moderation.banned",
    "moderation.unbanned",
    "moderation.permissions_changed",
    "moderation.unmute_requested",
    "room.metadata_changed",
    "room.locked",
    "room.unlocked",
    "room.floor_changed",
    "room.floor_requested",
    "room.floor_request_withdrawn",
    "room.admission_changed",
    "waiting.entered",
    "waiting.admitted",
    "waiting.denied",
    "waiting.left",
    "meeting.message",
];
/** Every error code the gateway answers with (docs/PROTOCOL.md, "ack, result, error, welcome, pong"). */
export const SERVER_ERROR_CODES = [
    "ERR_BAD_REQUEST",
    "ERR_UNAUTHORIZED",
    "ERR_TOKEN_EXPIRED",
    "ERR_NOT_GROUP_MEMBER",
    "ERR_CALL_FULL",
    "ERR_BANNED",
    "ERR_ROOM_LOCKED",
    "ERR_FORBIDDEN",
    "ERR_NOT_IN_ROOM",
    "ERR_NOT_FOUND",
    "ERR_CONFLICT",
    "ERR_FLOOR_TAKEN",
    "ERR_ADMISSION_DENIED",
    "ERR_WAIT_EXPIRED",
    "ERR_WAITING_ROOM_FULL",
    "ERR_METHOD_NOT_ALLOWED",
    "ERR_TOO_MANY_ROOMS",
    "ERR_ROOM_FULL",
    "ERR_TOO_MANY_CONNECTIONS",
    "ERR_TOO_MANY_SUBSCRIPTIONS",
    "ERR_TOO_LARGE",
    "ERR_RATE_LIMITED",
    "ERR_UNAVAILABLE",
    "ERR_BUSY",
];
/** The gateway's close codes (docs/PROTOCOL.md, "Close codes"). */
export const CLOSE_CODES = {
    /** Authentication failed or timed out. */
    unauthorized: 4001,
    /** The token expired without a refresh. */
    tokenExpired: 4002,
    /** A moderator removed the participant. */
    removed: 4003,
    /** A moderator banned the participant. */
    banned: 4004,
    /** The session was ended for everyone. */
    sessionEnded: 4005,
    /** The client did not read its messages. */
    slowConsumer: 4008,
    /** The server API disconnected the user; the client may reconnect. */
    disconnected: 4009,
    /** The user has as many connections open as it may. */
    tooManyConnections: 4010,
};
/** Close codes after which the client does not reconnect: the session is over. */
export const FINAL_CLOSE_CODES = [
    CLOSE_CODES.unauthorized,
    CLOSE_CODES.tokenExpired,
    CLOSE_CODES.removed,
    CLOSE_CODES.banned,
    CLOSE_CODES.sessionEnded,
];
/**
 * The boolean flags of a participant's roster entry, with the events of each turning on and off, and whether a
 * participant sets it in its own `state` (`pinned` is set by moderators only).
 */
export const PARTICIPANT_FLAGS = {
    audioMuted: { on: "participant.audio_muted", off: "participant.audio_unmuted", setByParticipant: true },
    videoPaused: { on: "participant.video_paused", off: "participant.video_resumed", setByParticipant: true },
    presenting: {
        on: "participant.screen_share_started",
        off: "participant.screen_share_stopped",
        setByParticipant: true,
    },
    handRaised: { on: "participant.hand_raised", off: "participant.hand_lowered", setByParticipant: true },
    pinned: { on: "participant.pinned", off: "participant.unpinned", setByParticipant: false },
};
/** Why the gateway took a connection out of a room (docs/PROTOCOL.md, "unsubscribed"): `replaced`, the same user and
 * device joined from another connection; `access_revoked`, a refreshed token no longer names the room. */
export const UNSUBSCRIBE_REASONS = ["replaced", "access_revoked"];
/** Why a participant's device left: the `data.reason` of `participant.left` (and `timed_out` of `session.timed_out`;
 * docs/PROTOCOL.md, "event"). */
export const LEAVE_REASONS = [
    "left",
    "timed_out",
    "connection_closed",
    "removed",
    "banned",
    "session_ended",
    "access_revoked",
];
/** The roster view filters (docs/PROTOCOL.md, "Roster views"). */
export const VIEW_FILTERS = [
    "all",
    "operators",
    "muted",
    "moderator_muted",
    "restricted",
    "banned",
    "raised_hands",
    "presenters",
    "speakers",
    "left",
    "search",
    "waiting",
];
/**
 * The counts every roster view's room entry carries (`room.counts`, docs/PROTOCOL.md "The room entry"), in the
 * entry's order; besides them, `roles` counts by role (`PARTICIPANT_ROLES`). A count at zero is left out.
 */
export const VIEW_COUNTS = ["inCall", "muted", "video", "presenting", "handsRaised"];
/** The participant roles, as `room.counts.roles` and the entries' `role` name them. */
export const PARTICIPANT_ROLES = ["admin", "moderator", "participant", "viewer", "bot"];
