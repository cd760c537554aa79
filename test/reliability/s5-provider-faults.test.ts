/** Scenario 5 (s5-provider-faults.ts): one run per fault kind, 50 jobs each in full, 10 in the fast subset (without the slow kinds). */
import { describe, expect, it } from "vitest";
import { FAULT_KINDS, providerFaultScenario } from "./s5-provider-faults";
import { failures, reportRun, SIZE_MODE, sized } from "./scenario";

/** Waiting out an 8 s retry-after and 5 s timeouts takes ~40 s: those two kinds run at the full size only. */
const SLOW = new Set(["429-hand-back", "hang-trickle"]);

describe("scenario 5: provider faults at 20 %", () => {
  for (const kind of FAULT_KINDS) {
    it.skipIf(SIZE_MODE === "fast" && SLOW.has(kind))(
      kind,
      async () => {
        const run = await providerFaultScenario(kind, sized(50, 10));
        const report = await reportRun(`s5-${kind}`, `5 provider faults: ${kind}`, run);
        expect(failures(report)).toEqual({});
      },
      300_000,
    );
  }
});
