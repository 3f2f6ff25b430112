/** Whether `value` is a JSON object (not an array, not null). */
export function isJsonObject(value) {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}
/** Deep equality of two JSON values; object member order does not matter. */
export function jsonEqual(a, b) {
    if (a === b)
        return true;
    if (a === null || b === null || a === undefined || b === undefined)
        return false;
    if (typeof a !== "object" || typeof b !== "object")
        return false;
    if (Array.isArray(a) || Array.isArray(b)) {
        if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length)
            return false;
        for (let index = 0; index < a.length; index++) {
            if (!jsonEqual(a[index], b[index]))
                return false;
        }
        return true;
    }
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length)
        return false;
    for (const key of keys) {
        if (!Object.prototype.hasOwnProperty.call(b, key) || !jsonEqual(a[key], b[key]))
            return false;
    }
    return true;
}
const MAX_DEPTH = 512;
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const LONG_DIGIT_RUN = /[0-9]{16}/;
/**
 * Parses JSON text like `JSON.parse`, except that integers outside the safe range become `bigint` instead of
 * losing digits. Text without a run of 16 digits takes `JSON.parse` itself.
 * @param text the JSON text.
 * @throws SyntaxError for text that is not JSON.
 */
export function parseJson(text) {
    if (!LONG_DIGIT_RUN.test(text))
        return JSON.parse(text);
    const parser = new ExactParser(text);
    const value = parser.value(0);
    parser.end();
    return value;
}
/** A recursive-descent JSON parser that keeps large integers exact (strings go through `JSON.parse`). */
class ExactParser {
    constructor(text) {
        this.text = text;
        this.index = 0;
    }
    value(depth) {
        if (depth > MAX_DEPTH)
            this.fail("nesting too deep");
        this.skipSpace();
        const char = this.text[this.index];
        switch (char) {
            case "{":
                return this.object(depth);
            case "[":
                return this.array(depth);
            case '"':
                return this.string();
            case "t":
                return this.literal("true", true);
            case "f":
                return this.literal("false", false);
            case "n":
                return this.literal("null", null);
            default:
                return this.number();
        }
    }
    end() {
        this.skipSpace();
        if (this.index !== this.text.length)
            this.fail("text after the value");
    }
    object(depth) {
        const object = {};
        this.index++;
        this.skipSpace();
        if (this.text[this.index] === "}") {
            this.index++;
            return object;
        }
        for (;;) {
            this.skipSpace();
            if (this.text[this.index] !== '"')
                this.fail("a member name");
            const key = this.string();
            this.skipSpace();
            if (this.text[this.index] !== ":")
                this.fail("':'");
            this.index++;
            const member = this.value(depth + 1);
            if (key === "__proto__") {
                Object.defineProperty(object, key, { value: member, enumerable: true, writable: true, configurable: true });
            }
            else {
                object[key] = member;
            }
            this.skipSpace();
            const next = this.text[this.index++];
            if (next === "}")
                return object;
            if (next !== ",")
                this.fail("',' or '}'");
        }
    }
    array(depth) {
        const array = [];
        this.index++;
        this.skipSpace();
        if (this.text[this.index] === "]") {
            this.index++;
            return array;
        }
        for (;;) {
            array.push(this.value(depth + 1));
            this.skipSpace();
            const next = this.text[this.index++];
            if (next === "]")
                return array;
            if (next !== ",")
                this.fail("',' or ']'");
        }
    }
    string() {
        const start = this.index;
        let index = start + 1;
        for (;;) {
            const char = this.text[index];
            if (char === undefined)
                this.fail("the end of a string");
            if (char === "\\") {
                index += 2;
            }
            else if (char === '"') {
                break;
            }
            else {
                index++;
            }
        }
        this.index = index + 1;
        return JSON.parse(this.text.slice(start, index + 1));
    }
    number() {
        NUMBER.lastIndex = this.index;
        const match = NUMBER.exec(this.text);
        if (match === null)
            this.fail("a value");
        const source = match[0];
        this.index += source.length;
        const value = Number(source);
        if (match[1] === undefined && match[2] === undefined && !Number.isSafeInteger(value))
            return BigInt(source);
        return value;
    }
    literal(word, value) {
        if (!this.text.startsWith(word, this.index))
            this.fail("a value");
        this.index += word.length;
        return value;
    }
    skipSpace() {
        for (;;) {
            const char = this.text[this.index];
            if (char !== " " && char !== "\n" && char !== "\r" && char !== "\t")
                return;
            this.index++;
        }
    }
    fail(expected) {
        throw new SyntaxError(`JSON: expected ${expected} at position ${this.index}`);
    }
}
