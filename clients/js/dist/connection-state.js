/**
 * The public status of a state: `connecting` for the first attempt, `reconnecting` for later ones and the backoff
 * between them.
 * @param state the state.
 */
export function statusOf(state) {
    switch (state.phase) {
        case "idle":
            return "idle";
        case "fetching-token":
        case "authenticating":
            return state.attempt.kind === "first" ? "connecting" : "reconnecting";
        case "connected":
            return "connected";
        case "backing-off":
            return "reconnecting";
        case "closing":
            return state.status;
        case "closed":
            return "closed";
    }
}
/**
 * The socket of a state, in the phases that have one.
 * @param state the state.
 */
export function connectionOf(state) {
    switch (state.phase) {
        case "authenticating":
        case "connected":
        case "closing":
            return state.connection;
        default:
            return undefined;
    }
}
/**
 * The pending `connect()` of a state: only the first attempt, or a close during it, has one.
 * @param state the state.
 */
export function waiterOf(state) {
    switch (state.phase) {
        case "fetching-token":
        case "authenticating":
            return state.attempt.kind === "first" ? state.attempt.waiter : undefined;
        case "closing":
            return state.waiter;
        default:
            return undefined;
    }
}
/**
 * Stops the timers a state owns (the welcome timeout, the heartbeat, the backoff); the socket is left as it is.
 * @param state the state being left.
 */
export function stopTimers(state) {
    switch (state.phase) {
        case "authenticating":
            clearTimeout(state.welcomeTimer);
            break;
        case "connected":
            state.heartbeat.stop();
            break;
        case "backing-off":
            clearTimeout(state.timer);
            break;
        default:
            break;
    }
}
