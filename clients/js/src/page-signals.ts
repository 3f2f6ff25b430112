/** What the page tells the client about the network and its own visibility. */
export interface PageSignalHandlers {
    /** The browser went online. */
    online(): void;
    /** The browser went offline. */
    offline(): void;
    /** The page became visible again (after being hidden, when timers ran late or not at all). */
    visible(): void;
}

/**
 * Listens to `online`, `offline` and `visibilitychange` where the page has them (a browser; nothing in Node);
 * returns the function that stops listening.
 * @param handlers what to call.
 */
export function watchPageSignals(handlers: PageSignalHandlers): () => void {
    const scope = globalThis as {
        addEventListener?: (name: string, listener: () => void) => void;
        removeEventListener?: (name: string, listener: () => void) => void;
        document?: {
            visibilityState?: string;
            addEventListener?: (name: string, listener: () => void) => void;
            removeEventListener?: (name: string, listener: () => void) => void;
        };
    };
    const online = (): void => handlers.online();
    const offline = (): void => handlers.offline();
    const visibility = (): void => {
        if (scope.document?.visibilityState === "visible") handlers.visible();
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
export function isOffline(): boolean {
    const scope = globalThis as { navigator?: { onLine?: boolean } };
    return scope.navigator?.onLine === false;
}
