// The declarations of rollcall.min.js, the bundle of rollcall.js: the same exports.
export * from "./rollcall.js";
