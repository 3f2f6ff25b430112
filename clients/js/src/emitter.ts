/** A listener for one kind of event. */
export type Listener<T> = (value: T) => void;

/**
 * A small typed event emitter. Listeners run in the order they were added; one that throws does not keep the
 * others from running (the error is reported with `reportError`, or `console.error` where that is missing).
 */
export class Emitter<Events> {
    private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();

    /**
     * Adds a listener; returns a function that removes it.
     * @param name the event's name.
     * @param listener called with the event's value.
     */
    on<Name extends keyof Events>(name: Name, listener: Listener<Events[Name]>): () => void {
        let set = this.listeners.get(name);
        if (set === undefined) {
            set = new Set();
            this.listeners.set(name, set);
        }
        set.add(listener as Listener<never>);
        return () => {
            set?.delete(listener as Listener<never>);
        };
    }

    /**
     * Calls every listener of `name` with `value`.
     * @param name the event's name.
     * @param value the event's value.
     */
    emit<Name extends keyof Events>(name: Name, value: Events[Name]): void {
        const set = this.listeners.get(name);
        if (set === undefined) return;
        for (const listener of Array.from(set)) {
            try {
                (listener as Listener<Events[Name]>)(value);
            } catch (error) {
                reportListenerError(error);
            }
        }
    }

    /** Removes every listener. */
    clear(): void {
        this.listeners.clear();
    }
}

/** Reports an error thrown by a listener without stopping the caller. */
export function reportListenerError(error: unknown): void {
    const global = globalThis as { reportError?: (error: unknown) => void };
    if (typeof global.reportError === "function") {
        global.reportError(error);
    } else {
        console.error(error);
    }
}
