/** Scenario 6 (s6-rate-window.ts): 200 invocations at 60 rpm; minutes of waiting, so at the full size only. */
import { describe, expect, it } from "vitest";
import { rateWindowScenario } from "./s6-rate-window";
import { failures, reportRun, SIZE_MODE } from "./scenario";

describe("scenario 6: rate coordination", () => {
  it.skipIf(SIZE_MODE === "fast")(
    "200 concurrent invocations against 60 requests a minute",
    async () => {
      const run = await rateWindowScenario(200, 60);
      const report = await reportRun("s6-rate-window", "6 rate window: 200 invocations, 60 rpm", run);
      expect(failures(report)).toEqual({});
    },
    900_000,
  );
});
