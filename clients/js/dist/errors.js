import { FINAL_CLOSE_CODES } from "./constants.js";
export { FINAL_CLOSE_CODES } from "./constants.js";
/**
 * Why a client operation failed. Server refusals carry the protocol's code in `serverCode`
 * (`ERR_NOT_GROUP_MEMBER`, `ERR_FORBIDDEN`, ...); closed connections the close code in `closeCode`.
 */
export class RollcallError extends Error {
    /**
     * Creates an error.
     * @param kind what kind of failure it is.
     * @param message a readable description.
     * @param details the server's code or the close code.
     */
    constructor(kind, message, details = {}) {
        super(message);
        this.name = "RollcallError";
        this.kind = kind;
        this.serverCode = details.serverCode;
        this.closeCode = details.closeCode;
    }
    /** Whether the request got no answer in time. */
    get isTimeout() {
        return this.kind === "timeout";
    }
    /** Whether the error comes from the connection rather than from the gateway refusing the request. */
    get isConnectionFailure() {
        return this.kind === "not-connected" || this.kind === "connection-closed" || this.kind === "closed";
    }
    /** Whether the connection closed with a code that ends the session for good (4001-4005). */
    get isFinal() {
        return this.closeCode !== undefined && FINAL_CLOSE_CODES.includes(this.closeCode);
    }
    /** An error for an `error` message from the gateway. */
    static fromServer(code, message) {
        return new RollcallError("server", `${code}: ${message}`, { serverCode: code });
    }
    /** An error for a connection that closed, with the close frame's code and reason when one arrived. */
    static closed(code, reason) {
        const text = "connection closed" + (code === undefined ? "" : ` with ${code}`) + (reason ? `: ${reason}` : "");
        return new RollcallError("connection-closed", text, { closeCode: code });
    }
}
