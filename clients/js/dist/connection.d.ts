import type { JsonObject } from "./json.js";
import type { ServerMessage } from "./protocol.js";
/** What a WebSocket delivers to `onmessage`. */
export interface WebSocketMessageEvent {
    /** The message: a string for text frames. */
    readonly data: unknown;
}
/** What a WebSocket delivers to `onclose`. */
export interface WebSocketCloseEvent {
    /** The close code (1006 when the connection dropped without a close frame). */
    readonly code: number;
    /** The close reason. */
    readonly reason: string;
    /** Whether the closing handshake completed. */
    readonly wasClean: boolean;
}
declare type Handler<E> = {
    bivarianceHack(event: E): void;
}["bivarianceHack"];
/** The part of the WHATWG WebSocket the client uses; the browser's `WebSocket` and Node 22's have it. */
export interface WebSocketLike {
    /** 0 connecting, 1 open, 2 closing, 3 closed. */
    readonly readyState: number;
    /** Called when the connection opens. */
    onopen: Handler<unknown> | null;
    /** Called for each message. */
    onmessage: Handler<WebSocketMessageEvent> | null;
    /** Called once when the connection closes. */
    onclose: Handler<WebSocketCloseEvent> | null;
    /** Called when the connection fails (a close follows). */
    onerror: Handler<unknown> | null;
    /** Sends a text message. */
    send(data: string): void;
    /** Starts the closing handshake. */
    close(code?: number, reason?: string): void;
}
/** A WebSocket constructor, such as the browser's `WebSocket`. */
export declare type WebSocketConstructor = new (url: string) => WebSocketLike;
/** How a connection ended. */
export interface CloseInfo {
    /** The close code; undefined when the client dropped the connection itself. */
    readonly code: number | undefined;
    /** The close reason. */
    readonly reason: string;
}
/** What a connection tells its owner. */
export interface ConnectionHandlers {
    /** The WebSocket opened. */
    opened(): void;
    /** A message arrived, parsed. */
    received(message: ServerMessage): void;
    /** The connection is over; called once. */
    closed(info: CloseInfo): void;
}
/**
 * One WebSocket connection to the gateway: JSON text messages in both directions, and an end reported exactly
 * once, whether the gateway closed, the network dropped, or the client gave up on it (`abort`).
 */
export declare class Connection {
    private readonly handlers;
    private socket;
    private finished;
    /** When a message last arrived (milliseconds, `Date.now()`). */
    lastReceivedAt: number;
    /**
     * Opens a connection.
     * @param url the `ws://` or `wss://` URL.
     * @param WebSocketClass the WebSocket implementation.
     * @param handlers what to tell.
     */
    constructor(url: string, WebSocketClass: WebSocketConstructor, handlers: ConnectionHandlers);
    /** Whether the socket is open for sending. */
    get isOpen(): boolean;
    /**
     * Sends one message as JSON text; false when the socket is not open.
     * @param message the message.
     */
    send(message: JsonObject): boolean;
    /**
     * Closes the connection with a close handshake; the end is reported when the gateway answers.
     * @param code the close code (1000, or 3000-4999).
     * @param reason the reason.
     */
    close(code?: number, reason?: string): void;
    /**
     * Gives up on the connection at once, as when it stopped answering: its end is reported now (code undefined),
     * whatever the socket still does.
     * @param reason why, for the report.
     */
    abort(reason: string): void;
    private finish;
}
export {};
