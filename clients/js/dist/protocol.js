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
