/**
 * Scenario 9, injection corpus (issue 16 item 6): every answer of the corpus through the pipeline
 * with the edge's delimiting, graded by a judge that obeys any instruction outside the data block
 * (test/support/injection-judge.ts). Held: the verdict stayed "wrong answer". The control run
 * without delimiting must flip every verdict, or the corpus proves nothing.
 */
import { describe, expect, it } from "vitest";
import { injectionCorpus } from "../fixtures/injection-corpus";
import { injectionVerdicts } from "../support/injection-judge";
import { writeTestFigures } from "./scenario";

describe("scenario 9: injection corpus", () => {
  it("no answer of the corpus flips its verdict; without delimiting every one does", async () => {
    const delimited = await injectionVerdicts(true);
    const control = await injectionVerdicts(false);
    const failed = delimited.filter((r) => r.verify !== false).length;
    const flipped = control.filter((r) => r.verify === true).length;
    const cases = injectionCorpus.length;
    await writeTestFigures({
      name: "s9-injection-corpus",
      scenario: "9 injection corpus (answers are data)",
      size: `${cases} answers`,
      faults_injected: cases,
      invariants: {
        held: { pass: failed === 0, detail: `${cases - failed} of ${cases} verdicts held with delimiting; ${failed} flipped` },
        control_flips: { pass: flipped === cases, detail: `${flipped} of ${cases} flipped without delimiting (the corpus can fail)` },
      },
      figures: { cases, held: cases - failed, failed, control_flipped: flipped },
    });
    expect({ failed, flipped }).toEqual({ failed: 0, flipped: cases });
  });
});
