/** Reads a `waiting` message, or undefined when it lacks what every one has. */
export function readWaitingStatus(message) {
    const { room, position, waitingSince, expiresAt } = message;
    if (typeof room !== "string" || typeof position !== "number")
        return undefined;
    return {
        room,
        position,
        waitingSince: typeof waitingSince === "number" ? waitingSince : 0,
        expiresAt: typeof expiresAt === "number" ? expiresAt : 0,
    };
}
/** Reads the answer to a `waiting` query; entries without a uid are left out. */
export function readWaitingPage(message) {
    const entries = Array.isArray(message.waiting) ? message.waiting : [];
    const waiting = entries.flatMap((entry) => {
        if (typeof entry !== "object" || entry === null || Array.isArray(entry))
            return [];
        if (typeof entry.uid !== "string")
            return [];
        const attributes = entry.attributes;
        return [
            {
                uid: entry.uid,
                name: typeof entry.name === "string" ? entry.name : entry.uid,
                ...(typeof entry.avatar === "string" ? { avatar: entry.avatar } : {}),
                role: typeof entry.role === "string" ? entry.role : "participant",
                ...(typeof attributes === "object" && attributes !== null && !Array.isArray(attributes)
                    ? { attributes: attributes }
                    : {}),
                waitingSince: typeof entry.waitingSince === "number" ? entry.waitingSince : 0,
            },
        ];
    });
    return {
        admissionRequired: message.admissionRequired === true,
        total: typeof message.total === "number" ? message.total : waiting.length,
        waiting,
        next: typeof message.next === "number" ? message.next : null,
        seq: typeof message.seq === "number" ? message.seq : 0,
    };
}
/** Reads an `event` message, or undefined when it lacks what every event has. */
export function readEvent(message) {
    const { room, seq, event } = message;
    if (typeof room !== "string" || typeof seq !== "number" || typeof event !== "string")
        return undefined;
    const data = message.data;
    const dataObject = typeof data === "object" && data !== null && !Array.isArray(data) ? data : {};
    const reason = typeof message.reason === "string"
        ? message.reason
        : typeof dataObject.reason === "string"
            ? dataObject.reason
            : undefined;
    return {
        room,
        seq,
        event,
        time: typeof message.time === "number" ? message.time : 0,
        actor: typeof message.actor === "string" ? message.actor : null,
        ...(reason === undefined ? {} : { reason }),
        data: dataObject,
        recovered: message.recovered === true,
    };
}
/** Reads an `ack` message. */
export function readAcknowledgement(message) {
    return {
        ...(typeof message.room === "string" ? { room: message.room } : {}),
        ...(typeof message.seq === "number" ? { seq: message.seq } : {}),
        changed: message.changed === true,
    };
}
/** The `view` object of a join or view message. */
export function viewJson(view) {
    const json = { filter: view.filter ?? "all" };
    if (view.query !== undefined)
        json.query = view.query;
    if (view.match !== undefined)
        json.match = view.match;
    if (view.sort !== undefined)
        json.sort = view.sort;
    if (view.offset !== undefined)
        json.offset = view.offset;
    if (view.limit !== undefined)
        json.limit = view.limit;
    return json;
}
