import { describe, expect, it } from "vitest";
import { contentDisposition, exportFileName } from "../../../src/exports/file-name";

const RUN = "3f2a9c1e-7b44-4d2e-9a51-0c6d8e2f1a77";
const facts = (run_name: string | null, export_id?: string) => ({
  run_id: RUN,
  run_name,
  at: "2026-12-07T23:41:05.123Z",
  ...(export_id ? { export_id } : {}),
  extension: "csv",
});

describe("an export's file name", () => {
  it("names the run, the time and the export, so two exports of one run differ", () => {
    const a = exportFileName(facts("nightly gpt eval", "aaaa1111-0000-4000-8000-000000000000"));
    const b = exportFileName(facts("nightly gpt eval", "bbbb2222-0000-4000-8000-000000000000"));
    expect(a.utf8).toBe("nightly-gpt-eval_3f2a9c1e_20261207T234105Z_aaaa1111.csv");
    expect(a.ascii).toBe(a.utf8);
    expect(b.utf8).not.toBe(a.utf8);
    expect(exportFileName(facts(null)).utf8).toBe("3f2a9c1e_20261207T234105Z.csv");
  });

  it("keeps quotes, CR/LF and other header syntax of a run name out of the header, and its unicode in filename*", () => {
    const header = contentDisposition(exportFileName(facts('évals "q"\r\nSet-Cookie: x=1; \\ 日本/語 ✓', "cccc3333")));
    // One line, ASCII only, the quoted fallback closed once.
    expect(header).not.toMatch(/[\r\n]/);
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    const fallback = /filename="([^"]*)"/.exec(header)![1]!;
    expect(fallback).toBe("evals-q-Set-Cookie-x-1_3f2a9c1e_20261207T234105Z_cccc3333.csv");
    const star = /filename\*=UTF-8''([^;\s]+)$/.exec(header)![1]!;
    expect(star).toMatch(/^[A-Za-z0-9%._~-]+$/);
    expect(decodeURIComponent(star)).toBe("évals-q-Set-Cookie-x=1;-日本-語-✓_3f2a9c1e_20261207T234105Z_cccc3333.csv");
  });

  it("drops what ASCII cannot spell from the fallback as one dash, not a run of them", () => {
    expect(exportFileName(facts("Ünïcødé 評価 run", "dddd4444")).ascii).toBe("Unic-de-run_3f2a9c1e_20261207T234105Z_dddd4444.csv");
  });

  it("cuts a huge name and never leaves half a surrogate pair", () => {
    const name = exportFileName(facts("😀".repeat(500))).utf8;
    expect(name).toBe(`${"😀".repeat(60)}_3f2a9c1e_20261207T234105Z.csv`);
    expect(exportFileName(facts("😀".repeat(500))).ascii).toBe("3f2a9c1e_20261207T234105Z.csv");
  });
});
