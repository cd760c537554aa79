import { expect, it } from "vitest";
import { isRetryable } from "../../src/llm/port";
it("classifies rate limits as retryable and bad output as not", () => {
  expect(isRetryable({ kind: "rate_limit", message: "" })).toBe(true);
  expect(isRetryable({ kind: "invalid_output", message: "" })).toBe(false);
});
