import type { ServerErrorCode } from "./constants.js";
export { FINAL_CLOSE_CODES } from "./constants.js";
export type { ServerErrorCode } from "./constants.js";
/** What kind of failure a `RollcallError` is. */
export declare type RollcallErrorKind = 
/** The gateway answered with an `error` message; `serverCode` holds its code. */
"server"
/** No answer within the request timeout. */
 | "timeout"
/** The client is not connected (or not yet authenticated). */
 | "not-connected"
/** The connection closed while the request waited, or could not be opened; `closeCode` when one was sent. */
 | "connection-closed"
/** The client was closed with `close()`. */
 | "closed"
/** The gateway sent something the client cannot use, or the client was used the wrong way. */
 | "protocol"
/** The `getToken` callback failed. */
 | "token";
/**
 * Why a client operation failed. Server refusals carry the protocol's code in `serverCode`
 * (`ERR_NOT_GROUP_MEMBER`, `ERR_FORBIDDEN`, ...); closed connections the close code in `closeCode`.
 */
export declare class RollcallError extends Error {
    /** What kind of failure this is. */
    readonly kind: RollcallErrorKind;
    /** The gateway's error code, for `kind === "server"`. A code this client does not know is passed through. */
    readonly serverCode: ServerErrorCode | (string & {}) | undefined;
    /** The WebSocket close code, for a closed connection that received one (4001 authentication, 4003 removed, ...). */
    readonly closeCode: number | undefined;
    /**
     * Creates an error.
     * @param kind what kind of failure it is.
     * @param message a readable description.
     * @param details the server's code or the close code.
     */
    constructor(kind: RollcallErrorKind, message: string, details?: {
        serverCode?: string | undefined;
        closeCode?: number | undefined;
    });
    /** Whether the request got no answer in time. */
    get isTimeout(): boolean;
    /** Whether the error comes from the connection rather than from the gateway refusing the request. */
    get isConnectionFailure(): boolean;
    /** Whether the connection closed with a code that ends the session for good (4001-4005). */
    get isFinal(): boolean;
    /** An error for an `error` message from the gateway. */
    static fromServer(code: string, message: string): RollcallError;
    /** An error for a connection that closed, with the close frame's code and reason when one arrived. */
    static closed(code: number | undefined, reason: string): RollcallError;
}
