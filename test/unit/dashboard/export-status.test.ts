// An export's status line on the dashboard: counted in words that agree with the count.
import { describe, expect, it } from "vitest";
import { ExportStatus } from "../../../src/dashboard/export-list";
import type { ExportRecord } from "../../../src/exports/exports-repo";

const ready = (results_done: number) =>
  String(ExportStatus({ e: { status: "ready", results_done, bytes: 2048 } as unknown as ExportRecord })).replace(/<[^>]+>/g, "");

describe("ExportStatus", () => {
  it("says 1 result, and 0 or 2 results", () => {
    expect([0, 1, 2].map(ready)).toEqual(["ready: 0 results, 2.05 kB", "ready: 1 result, 2.05 kB", "ready: 2 results, 2.05 kB"]);
  });
});
