// src/llm/temperature-range.ts: a temperature the provider would refuse on every call is refused up front.
import { describe, expect, it } from "vitest";
import { temperatureIssues } from "../../../src/llm/temperature-range";

describe("temperatureIssues", () => {
  it.each([
    ["openai", 2.01, 2],
    ["anthropic", 1.1, 1],
  ] as const)("refuses %s above its documented maximum (%s > %s), at the model's temperature", (iface, t, max) => {
    expect(temperatureIssues({ interface: iface, temperature: t }, "config.answering_models[0]")).toEqual([
      {
        path: "config.answering_models[0].temperature",
        message: `interface "${iface}" takes a temperature from 0 to ${max} (got ${t}); the provider would refuse every call`,
      },
    ]);
  });

  it.each([
    ["openai", 2],
    ["anthropic", 1],
    ["anthropic", undefined],
    ["openai_compatible", 5],
    ["workers_ai", 3],
    ["manual", 9],
  ] as const)("takes %s at %s (its range, no temperature, or a server whose range edgeval does not know)", (iface, t) => {
    expect(temperatureIssues({ interface: iface, temperature: t }, "p")).toEqual([]);
  });
});
