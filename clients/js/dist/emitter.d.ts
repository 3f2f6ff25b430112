/** A listener for one kind of event. */
export declare type Listener<T> = (value: T) => void;
/**
 * A small typed event emitter. Listeners run in the order they were added; one that throws does not keep the
 * others from running (the error is reported with `reportError`, or `console.error` where that is missing).
 */
export declare class Emitter<Events> {
    private readonly listeners;
    /**
     * Adds a listener; returns a function that removes it.
     * @param name the event's name.
     * @param listener called with the event's value.
     */
    on<Name extends keyof Events>(name: Name, listener: Listener<Events[Name]>): () => void;
    /**
     * Calls every listener of `name` with `value`.
     * @param name the event's name.
     * @param value the event's value.
     */
    emit<Name extends keyof Events>(name: Name, value: Events[Name]): void;
    /** Removes every listener. */
    clear(): void;
}
/** Reports an error thrown by a listener without stopping the caller. */
export declare function reportListenerError(error: unknown): void;
