import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { laneArgs, RELIABILITY_LANES, RELIABILITY_TESTS, reportsTable } from "../../reliability/table";
import { reportPasses } from "../../reliability/report";

const report = (name: string, pass: Record<string, boolean>) => ({
  name,
  scenario: `scenario ${name}`,
  size_mode: "fast",
  size: "2 jobs",
  faults_injected: 2,
  lost: 0,
  duplicated: 0,
  repaid_calls: 0,
  terminal_status: "completed",
  invariants: Object.fromEntries(Object.entries(pass).map(([k, p]) => [k, { pass: p, detail: "seen" }])),
  figures: {},
});

describe("the reliability table", () => {
  it("passes a report whose invariants all hold, with '-' for invariants it does not state", () => {
    const { table, failed } = reportsTable(
      [{ file: "a.json", json: report("a", { d1_one_row: true, repaid: true, one_run: true }) }],
      ["a"],
    );
    expect(failed).toEqual([]);
    const row = table
      .split("\n")[2]!
      .split("|")
      .map((c) => c.trim());
    expect(row).toEqual([
      "scenario a",
      "2 jobs",
      "2",
      "0",
      "0",
      "0",
      "completed",
      "pass",
      "-",
      "-",
      "-",
      "-",
      "pass",
      "one_run:pass",
      "pass",
    ]);
  });

  it("fails on one failed invariant, a malformed report, and an expected report never written", () => {
    const { table, failed } = reportsTable(
      [
        { file: "a.json", json: report("a", { d1_one_row: true, usage_once: false }) },
        { file: "b.json", json: { ...report("b", { terminal: true }), lost: "none" } },
      ],
      ["a", "c"],
    );
    expect(failed).toEqual(["a", "b.json", "c"]);
    expect(table).toContain("malformed report");
    expect(table).toContain("no report written");
  });

  it("refuses a report without invariants: nothing checked is not a pass", () => {
    expect(reportsTable([{ file: "a.json", json: report("a", {}) }]).failed).toEqual(["a.json"]);
    expect(reportPasses({ invariants: { x: { pass: false, detail: "" } } })).toBe(false);
  });
});

describe("the reliability runner's lanes", () => {
  it("runs every reliability test in exactly one lane: the soak, the waiting scenarios, the rest", () => {
    const [soak, waits, rest] = RELIABILITY_LANES;
    expect(soak!.files).toEqual(["test/reliability/s8-soak.test.ts"]);
    expect(waits!.files).toEqual(["test/reliability/s5-provider-faults.test.ts", "test/reliability/s6-rate-window.test.ts"]);
    const scenarios = fs.readdirSync("test/reliability").filter((f) => f.endsWith(".test.ts"));
    expect(scenarios.length).toBeGreaterThan(8);
    const everyFile = [...scenarios.map((f) => `test/reliability/${f}`), ...RELIABILITY_TESTS.slice(1)].sort();
    const laned = RELIABILITY_LANES.flatMap((l) => l.files);
    expect([...laned].sort()).toEqual(everyFile);
    // vitest takes each file argument as a filter matching every path that contains it: no lane's
    // argument may match a file of another lane (a folder would, as "test/reliability/" once did).
    for (const lane of RELIABILITY_LANES) for (const arg of lane.files) expect(everyFile.filter((f) => f.includes(arg))).toEqual([arg]);
    for (const lane of RELIABILITY_LANES) expect(laneArgs(lane)).not.toContain("--exclude");
    const args = laneArgs(rest!);
    expect(args.slice(0, 8)).toEqual(["vitest", "run", "--project", "workers", "--project", "workers-alone", "--maxWorkers", "1"]);
  });
});
