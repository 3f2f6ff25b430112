// Small helpers: building elements, and times and durations as text.

/** Creates an element with attributes (`data-*` included) and children. */
export function element<K extends keyof HTMLElementTagNameMap>(
    tag: K,
    attributes: { [name: string]: string } = {},
    ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
    const node = document.createElement(tag);
    for (const name of Object.keys(attributes)) node.setAttribute(name, attributes[name]);
    node.append(...children);
    return node;
}

/** The element with an id, which the page must have. */
export function byId<T extends HTMLElement>(id: string): T {
    const node = document.getElementById(id);
    if (node === null) throw new Error(`the page has no #${id}`);
    return node as T;
}

/** A time of day, hours to seconds. */
export function clock(milliseconds: number): string {
    return new Date(milliseconds || Date.now()).toLocaleTimeString([], { hour12: false });
}

/** A duration in milliseconds as `m:ss` (or `h:mm:ss`). */
export function duration(milliseconds: number): string {
    const seconds = Math.floor(milliseconds / 1000);
    const pad = (value: number) => String(value).padStart(2, "0");
    const hours = Math.floor(seconds / 3600);
    const minutes = Math.floor((seconds % 3600) / 60);
    return hours > 0 ? `${hours}:${pad(minutes)}:${pad(seconds % 60)}` : `${minutes}:${pad(seconds % 60)}`;
}
