/**
 * Issue 15 item 4: each endpoint has its own body cap, and its 413 says the cap and advice that
 * fits the endpoint (the run endpoint's "split the benchmark" made no sense for /v1/judge).
 */
import { describe, expect, it } from "vitest";
import { api } from "./helpers";

const provider = { id: "j", interface: "openai_compatible", model_name: "m", base_url: "http://127.0.0.1:1/v1" };
const config = { type: "categorical", categories: ["a", "b"], provider };

async function refusal(path: string, json: unknown) {
  const res = await api(path, { method: "POST", json });
  expect(res.status).toBe(413);
  return ((await res.json()) as { error: { code: string; message: string } }).error;
}

describe("body limits per endpoint", () => {
  it("/v1/judge refuses above 1 MB and says a request grades one output", async () => {
    const e = await refusal("/v1/judge", { output: "x".repeat(1_000_100), config });
    expect(e.code).toBe("body_too_large");
    expect(e.message).toMatch(/^POST \/v1\/judge takes a body of at most 1 MB; a judge request grades one output/);
    expect(e.message).not.toMatch(/benchmark/);
  });

  it("/v1/judge/calibrate refuses above 8 MB and says to send the items in several requests", async () => {
    const items = [0, 1].map((i) => ({ output: "y".repeat(4_100_000), label: i === 0 }));
    const e = await refusal("/v1/judge/calibrate", { config, items });
    expect(e.message).toMatch(/^POST \/v1\/judge\/calibrate takes a body of at most 8 MB; send the items in several calibrate requests/);
  });

  it("/v1/judge takes a body just under its cap (the limit is the cap, not below it)", async () => {
    const res = await api("/v1/judge", { method: "POST", json: { output: "x".repeat(900_000), config: { ...config, categories: ["a"] } } });
    // Past the body cap, on to validation: one category is a 400, not a 413.
    expect(res.status).toBe(400);
  });
});
