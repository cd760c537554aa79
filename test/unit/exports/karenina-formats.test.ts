import { describe, expect, it } from "vitest";
import { csvHeader, csvLayout, csvRow, displayString } from "../../../src/exports/karenina-csv";
import { kareninaHeader, KARENINA_FOOTER, exportTimestamp } from "../../../src/exports/karenina-document";
import { kareninaKeySets, toKareninaResult } from "../../../src/exports/karenina-result";
import { csvLine, pyCell, pyFloat, pyJson, pySafeJson } from "../../../src/exports/py-format";
import fixture from "../../fixtures/karenina/results_export_v2.2_full.json";

describe("Python's formatting", () => {
  it("json.dumps separators and ensure_ascii, str() of cells, csv quoting", () => {
    expect(pyJson({ a: [1, "é"], b: null, c: true })).toBe('{"a": [1, "\\u00e9"], "b": null, "c": true}');
    expect(pySafeJson({})).toBe("");
    expect(pySafeJson([])).toBe("");
    expect(pySafeJson(false)).toBe("");
    expect(pySafeJson({ x: 1 })).toBe('{"x": 1}');
    expect([pyCell(true), pyCell(null), pyCell(3)]).toEqual(["True", "", "3"]);
    expect([pyFloat(2), pyFloat(0.25), pyFloat(null)]).toEqual(["2.0", "0.25", ""]);
    expect(csvLine(["a", 'say "hi"', "x,y", "line\nbreak"])).toBe('a,"say ""hi""","x,y","line\nbreak"\r\n');
  });
});

describe("Karenina's result shape", () => {
  it("the committed schema's key sets are the fixture's, two levels deep", () => {
    const sets = kareninaKeySets();
    const r = fixture.results[0] as Record<string, any>;
    expect(sets[""]!.slice().sort()).toEqual(Object.keys(r).sort());
    expect(sets.metadata!.slice().sort()).toEqual(Object.keys(r.metadata).sort());
    expect(sets.template!.slice().sort()).toEqual(Object.keys(r.template).sort());
  });

  it("drops the keys Karenina forbids, fills the ones edgeval lacks with defaults, keeps null sections", () => {
    const out = toKareninaResult({
      metadata: { question_id: "q", completed_without_errors: true, error: null, caveats: ["retries_used"] },
      template: { raw_llm_response: "x" },
      rubric: { rubric_evaluation_performed: true, compound_trait_scores: { c: 1 } },
      deep_judgment: null,
      evaluation_input: null,
      used_full_trace: true,
      trace_extraction_error: null,
    }) as any;
    expect(out.metadata).not.toHaveProperty("completed_without_errors");
    expect(out.metadata).not.toHaveProperty("error");
    expect(out.metadata).toMatchObject({
      question_id: "q",
      caveats: ["retries_used"],
      scenario_id: null,
      partial_content: null,
      warnings: [],
    });
    expect(out.template).toMatchObject({
      raw_llm_response: "x",
      conversation_context: [],
      trace_messages: [],
      usage_unavailable: false,
      agentic_parsing_performed: false,
    });
    expect(out.rubric).not.toHaveProperty("compound_trait_scores");
    expect(out.deep_judgment).toBeNull();
    expect(out.deep_judgment_rubric).toBeNull();
  });
});

describe("the Karenina document and CSV", () => {
  it("writes the v2.2 layout around the results", () => {
    const head = kareninaHeader({
      run_id: "r",
      answering_models: [],
      parsing_models: [],
      global_rubric: null,
      total: 2,
      successful: 1,
      failed: 1,
      start_time: 100,
      end_time: 150,
      is_complete: true,
      export_timestamp: exportTimestamp(Date.parse("2026-04-21T12:00:00Z")),
      version: "edgeval test",
    });
    const doc = JSON.parse(`${head}{"a": 1},\n{"b": 2}${KARENINA_FOOTER}`);
    expect(Object.keys(doc)).toEqual(Object.keys(fixture));
    expect(doc.metadata.export_timestamp).toBe("2026-04-21 12:00:00 UTC");
    expect(doc.metadata.job_summary).toEqual({
      total_questions: 2,
      successful_count: 1,
      failed_count: 1,
      start_time: 100,
      end_time: 150,
      total_duration: 50,
      is_complete: true,
    });
    expect(doc.results).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it("CSV: global traits as columns (sorted), the others in one JSON column, bad names skipped", () => {
    const layout = csvLayout(["clarity", "zeta", "custom", "bad\nname"], ["zeta", "clarity"], {
      exportTimestamp: "t",
      version: "v",
      jobId: "j",
    });
    expect(layout).toMatchObject({ globalTraits: ["clarity", "zeta"], questionTraits: ["custom"] });
    const header = csvHeader(layout).trim().split(",");
    expect(header.slice(12, 15)).toEqual(["rubric_clarity", "rubric_zeta", "question_specific_rubrics"]);
    const result = {
      metadata: {
        question_id: "q",
        failure: null,
        question_text: "Q?",
        keywords: null,
        answering: { interface: "openai", model_name: "m", tools: [], config_id: "a" },
        parsing: { interface: "openai", model_name: "j", tools: [] },
        replicate: 1,
        execution_time: 2,
        timestamp: "ts",
        run_name: null,
      },
      template: {
        raw_llm_response: "ans",
        verify_result: false,
        template_verification_performed: true,
        parsed_gt_response: { x: 1 },
        usage_metadata: null,
      },
      rubric: { rubric_evaluation_performed: true, llm_trait_scores: { clarity: true, custom: 4 }, regex_trait_scores: null },
    };
    const row = csvRow(result, layout).trim().split(",");
    expect(row).toHaveLength(header.length);
    const at = (name: string) => row[header.indexOf(name)];
    expect([at("success"), at("verify_result"), at("rubric_clarity"), at("rubric_zeta"), at("execution_time")]).toEqual([
      "True",
      "false",
      "True",
      "",
      "2.0",
    ]);
    expect(at("answering_model")).toBe("openai:m (a)");
    expect(displayString({ interface: "i", model_name: "m", tools: ["t1", "t2"], config_id: null })).toBe("i:m +[t1, t2]");
  });
});
