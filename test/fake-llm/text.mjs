// Small text helpers shared by both wire formats.

/** What a `malformed` fault answers: HTTP 200, but no JSON in sight. */
export const MALFORMED_TEXT = "Sure! Here is what I found: {oops";

export const defaultAnswer = (lastUser) => `fake answer to: ${String(lastUser ?? "").slice(0, 80)}`;

/** Rough token count: ~4 characters a token, at least 1. */
export const estimateTokens = (s) => Math.max(1, Math.ceil(String(s ?? "").length / 4));

export const utf8Bytes = (s) => [...Buffer.from(s, "utf8")];
