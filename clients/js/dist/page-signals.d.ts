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
export declare function watchPageSignals(handlers: PageSignalHandlers): () => void;
/** Whether the browser says it is offline (`navigator.onLine === false`); false where there is no such signal. */
export declare function isOffline(): boolean;
