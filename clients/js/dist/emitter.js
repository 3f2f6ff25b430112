/**
 * A small typed event emitter. Listeners run in the order they were added; one that throws does not keep the
 * others from running (the error is reported with `reportError`, or `console.error` where that is missing).
 */
export class Emitter {
    constructor() {
        this.listeners = new Map();
    }
    /**
     * Adds a listener; returns a function that removes it.
     * @param name the event's name.
     * @param listener called with the event's value.
     */
    on(name, listener) {
        let set = this.listeners.get(name);
        if (set === undefined) {
            set = new Set();
            this.listeners.set(name, set);
        }
        set.add(listener);
        return () => {
            set?.delete(listener);
        };
    }
    /**
     * Calls every listener of `name` with `value`.
     * @param name the event's name.
     * @param value the event's value.
     */
    emit(name, value) {
        const set = this.listeners.get(name);
        if (set === undefined)
            return;
        for (const listener of Array.from(set)) {
            try {
                listener(value);
            }
            catch (error) {
                reportListenerError(error);
            }
        }
    }
    /** Removes every listener. */
    clear() {
        this.listeners.clear();
    }
}
/** Reports an error thrown by a listener without stopping the caller. */
export function reportListenerError(error) {
    const global = globalThis;
    if (typeof global.reportError === "function") {
        global.reportError(error);
    }
    else {
        console.error(error);
    }
}
