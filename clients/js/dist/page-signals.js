/**
 * Listens to `online`, `offline` and `visibilitychange` where the page has them (a browser; nothing in Node);
 * returns the function that stops listening.
 * @param handlers what to call.
 */
export function watchPageSignals(handlers) {
    const scope = globalThis;
    const online = () => handlers.online();
    const offline = () => handlers.offline();
    const visibility = () => {
        if (scope.document?.visibilityState === "visible")
            handlers.visible();
    };
    if (typeof scope.addEventListener === "function") {
        scope.addEventListener("online", online);
        scope.addEventListener("offline", offline);
    }
    const document = scope.document;
    if (document !== undefined && typeof document.addEventListener === "function") {
        document.addEventListener("visibilitychange", visibility);
    }
    return () => {
        if (typeof scope.removeEventListener === "function") {
            scope.removeEventListener("online", online);
            scope.removeEventListener("offline", offline);
        }
        if (document !== undefined && typeof document.removeEventListener === "function") {
            document.removeEventListener("visibilitychange", visibility);
        }
    };
}
/** Whether the browser says it is offline (`navigator.onLine === false`); false where there is no such signal. */
export function isOffline() {
    const scope = globalThis;
    return scope.navigator?.onLine === false;
}
