/**
 * A JSON value as `parseJson` returns it: integers beyond `Number.MAX_SAFE_INTEGER` are `bigint`, so they keep
 * every digit (the roster checksum hashes them exactly as the gateway wrote them).
 */
export declare type JsonValue = null | boolean | number | bigint | string | JsonValue[] | JsonObject;
/** A JSON object. */
export interface JsonObject {
    [key: string]: JsonValue;
}
/** Whether `value` is a JSON object (not an array, not null). */
export declare function isJsonObject(value: unknown): value is JsonObject;
/** Deep equality of two JSON values; object member order does not matter. */
export declare function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean;
/**
 * Parses JSON text like `JSON.parse`, except that integers outside the safe range become `bigint` instead of
 * losing digits. Text without a run of 16 digits takes `JSON.parse` itself.
 * @param text the JSON text.
 * @throws SyntaxError for text that is not JSON.
 */
export declare function parseJson(text: string): JsonValue;
