/** A `ws://` or `wss://` URL; a path is taken relative to the page's own address. */
export declare function resolveUrl(url: string): string;
/** `url` with one more query parameter. */
export declare function withQueryParameter(url: string, name: string, value: string): string;
/** A device id that survives a reload of the tab (sessionStorage), or a new one. */
export declare function defaultDevice(): string;
