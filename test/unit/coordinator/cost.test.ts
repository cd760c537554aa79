import { describe, expect, it } from "vitest";
import { runUsage, unpricedModels, usageRows, type UsageGroup } from "../../../src/coordinator/cost";
import { costOf, priceFor, priceTable, DEFAULT_PRICES, PRICES_AS_OF } from "../../../src/llm/prices";
import { statusOf } from "../../../src/coordinator/progress";
import type { ModelConfig } from "../../../src/schemas/model-config";

const model = (id: string, iface: ModelConfig["interface"], model_name: string): ModelConfig => ({
  id,
  interface: iface,
  model_name,
  temperature: 0,
  max_tokens: 100,
});
const answering = model("ans", "openai", "gpt-4o-mini");
const judge = model("judge", "anthropic", "claude-haiku-4-5");
const u = (i: number, o: number, m?: string) => ({ input_tokens: i, output_tokens: o, total_tokens: i + o, ...(m ? { model: m } : {}) });

function result(resultId: string, usage: Record<string, ReturnType<typeof u>> | null) {
  return { metadata: { result_id: resultId }, template: { usage_metadata: usage } } as any;
}

describe("prices", () => {
  it("are dated, and a run's override wins over the shipped price", () => {
    expect(PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const table = priceTable({ "openai:gpt-4o-mini": { input_per_mtok: 1, output_per_mtok: 2 } });
    expect(priceFor(table, "openai", "gpt-4o-mini")).toEqual({ input_per_mtok: 1, output_per_mtok: 2 });
    expect(priceFor(table, "openai", "gpt-4o")).toEqual(DEFAULT_PRICES["openai:gpt-4o"]);
  });

  it("fall back to the bare model name, so a compatible proxy can be priced by model", () => {
    const table = priceTable({ "my-model": { input_per_mtok: 3, output_per_mtok: 4 } });
    expect(priceFor(table, "openai_compatible", "my-model")).toEqual({ input_per_mtok: 3, output_per_mtok: 4 });
    expect(priceFor(table, "openai_compatible", "unknown")).toBeNull();
  });

  it("cost input and output tokens per million, and an unpriced model costs null, not 0", () => {
    expect(costOf({ input_per_mtok: 2, output_per_mtok: 10 }, { input_tokens: 500_000, output_tokens: 100_000 })).toBeCloseTo(2);
    expect(costOf(null, { input_tokens: 1, output_tokens: 1 })).toBeNull();
  });
});

describe("usageRows", () => {
  const table = priceTable({});
  it("keys the answer by job (shared by every judge) and each judging stage by result", () => {
    const rows = usageRows(
      result("r1", { answer_generation: u(100, 50, "gpt-4o-mini"), parsing: u(1000, 20), total: u(1100, 70) }),
      { job_id: "0.0.1", answering },
      judge,
      table,
    );
    expect(rows.map((r) => [r.key, r.parsing_id, r.stage])).toEqual([
      ["0.0.1|answer_generation", "", "answer_generation"],
      ["r1|parsing", "judge", "parsing"],
    ]);
    expect(rows[0]!.cost_usd).toBeCloseTo((100 * 0.15 + 50 * 0.6) / 1e6);
    expect(rows[1]!.cost_usd).toBeCloseTo((1000 * 1 + 20 * 5) / 1e6);
  });

  it("the same job judged by two parsers yields the same answer key, so the answer is paid once", () => {
    const other = model("judge2", "anthropic", "claude-haiku-4-5");
    const a = usageRows(result("r1", { answer_generation: u(100, 50) }), { job_id: "1.0.1", answering }, judge, table);
    const b = usageRows(result("r2", { answer_generation: u(100, 50) }), { job_id: "1.0.1", answering }, other, table);
    expect(a[0]!.key).toBe(b[0]!.key);
  });

  it("prices a stage by the model its usage names (the embedding model) when that has a price", () => {
    const openaiJudge = model("j", "openai", "gpt-4o");
    const [row] = usageRows(
      result("r", { embedding_check: u(1000, 0, "text-embedding-3-small") }),
      { job_id: "0.0.1", answering },
      openaiJudge,
      table,
    );
    expect(row!.model).toBe("openai:text-embedding-3-small");
    expect(row!.cost_usd).toBeCloseTo((1000 * 0.02) / 1e6);
  });

  it("a stage served from the response cache keeps its tokens and costs nothing", () => {
    const [row] = usageRows(
      result("r", { parsing: { ...u(1000, 20), cached: true } as any }),
      { job_id: "0.0.1", answering },
      judge,
      table,
    );
    expect(row).toMatchObject({ input_tokens: 1000, output_tokens: 20, cost_usd: 0 });
  });

  it("an unpriced model gives rows with null cost; no usage gives no rows", () => {
    const unknown = model("x", "openai_compatible", "mystery");
    expect(usageRows(result("r", { parsing: u(10, 10) }), { job_id: "0.0.1", answering }, unknown, table)[0]!.cost_usd).toBeNull();
    expect(usageRows(result("r", null), { job_id: "0.0.1", answering }, unknown, table)).toEqual([]);
  });
});

describe("usageRows: which model a row names and prices", () => {
  const table = priceTable({});
  const job = { job_id: "0.0.1", answering };

  it("names the configured model when the usage reports none, an empty name or not a name", () => {
    const usage = {
      parsing: u(10, 10),
      abstention_check: { ...u(10, 10), model: "" },
      sufficiency_check: { ...u(10, 10), model: 42 as unknown as string },
    };
    const rows = usageRows(result("r", usage), job, judge, table);
    expect(rows.map((r) => r.model)).toEqual(["anthropic:claude-haiku-4-5", "anthropic:claude-haiku-4-5", "anthropic:claude-haiku-4-5"]);
  });

  it("prices a reported name it does not know at the configured model's price, and still names what was reported", () => {
    const [row] = usageRows(result("r", { answer_generation: u(1_000_000, 0, "my-proxy-alias") }), job, judge, table);
    expect(row!.model).toBe("openai:my-proxy-alias");
    expect(row!.cost_usd).toBeCloseTo(0.15); // gpt-4o-mini's input price per million
  });

  it("gives a result without a template section no rows", () => {
    expect(usageRows({ metadata: { result_id: "r" }, template: null } as any, job, judge, table)).toEqual([]);
  });
});

describe("runUsage", () => {
  const g = (answering_id: string, parsing_id: string, stage: string, i: number, o: number, c: number | null): UsageGroup => ({
    answering_id,
    parsing_id,
    stage,
    input_tokens: i,
    output_tokens: o,
    cost_usd: c,
  });
  const groups = [
    g("a", "", "answer_generation", 100, 50, 1),
    g("a", "p", "parsing", 1000, 10, 2),
    g("a", "q", "parsing", 500, 5, 3),
    g("a", "p", "abstention_check", 200, 20, 0.5),
  ];

  it("splits answering from judging, with judging per stage, and totals both", () => {
    const usage = runUsage(groups);
    expect(usage.answering).toEqual({ input_tokens: 100, output_tokens: 50, total_tokens: 150, cost_usd: 1 });
    expect(usage.judging.per_stage.parsing).toEqual({ input_tokens: 1500, output_tokens: 15, total_tokens: 1515, cost_usd: 5 });
    expect(usage.total).toEqual({ input_tokens: 1800, output_tokens: 85, total_tokens: 1885, cost_usd: 6.5 });
  });

  it("per pair: that judge's stages plus the answers it read", () => {
    const usage = runUsage(groups, { answering_id: "a", parsing_id: "q" });
    expect(usage.answering.cost_usd).toBe(1);
    expect(usage.judging).toMatchObject({ input_tokens: 500, cost_usd: 3 });
    expect(usage.total.cost_usd).toBe(4);
  });

  it("a group with an unpriced call makes every total that includes it null, never 0 (issue 15 item 5)", () => {
    const withUnpriced = [...groups, g("b", "", "answer_generation", 10, 5, null), g("b", "p", "parsing", 30, 3, 0.25)];
    const usage = runUsage(withUnpriced);
    expect(usage.answering.cost_usd).toBeNull();
    expect(usage.total.cost_usd).toBeNull();
    expect(usage.answering.input_tokens).toBe(110); // tokens still add up
    expect(usage.judging.cost_usd).toBe(5.75); // every judging group is priced
    const pairB = runUsage(withUnpriced, { answering_id: "b", parsing_id: "p" });
    expect(pairB.answering.cost_usd).toBeNull();
    expect(pairB.judging.cost_usd).toBe(0.25);
    expect(runUsage(withUnpriced, { answering_id: "a", parsing_id: "p" }).total.cost_usd).toBe(3.5);
  });
});

describe("runUsage rounding", () => {
  it("rounds every cost to the nano-dollar, so float sums do not drift (0.1 + 0.2 is 0.3)", () => {
    const g = (parsing_id: string, stage: string, c: number): UsageGroup => ({
      answering_id: "a",
      parsing_id,
      stage,
      input_tokens: 1,
      output_tokens: 1,
      cost_usd: c,
    });
    const usage = runUsage([
      g("", "answer_generation", 0.1),
      g("", "answer_generation", 0.2),
      g("p", "parsing", 0.1),
      g("p", "parsing", 0.2),
    ]);
    expect([usage.answering.cost_usd, usage.judging.cost_usd, usage.judging.per_stage.parsing!.cost_usd, usage.total.cost_usd]).toEqual([
      0.3, 0.3, 0.3, 0.6,
    ]);
  });
});

describe("unpricedModels", () => {
  const rows = [
    { answering_id: "a", parsing_id: "", stage: "answer_generation", model: "openai_compatible:ans-a" },
    { answering_id: "a", parsing_id: "p", stage: "parsing", model: "openai_compatible:judge-p" },
    { answering_id: "b", parsing_id: "q", stage: "parsing", model: "openai_compatible:judge-q" },
  ];
  it("lists the run's unpriced models, or one pair's: its answers and its own judge's stages", () => {
    expect(unpricedModels(rows)).toEqual(["openai_compatible:ans-a", "openai_compatible:judge-p", "openai_compatible:judge-q"]);
    expect(unpricedModels(rows, { answering_id: "a", parsing_id: "p" })).toEqual(["openai_compatible:ans-a", "openai_compatible:judge-p"]);
    expect(unpricedModels(rows, { answering_id: "a", parsing_id: "q" })).toEqual(["openai_compatible:ans-a"]);
    expect(unpricedModels(rows, { answering_id: "b", parsing_id: "p" })).toEqual([]);
    expect(unpricedModels([...rows].reverse())).toEqual([
      "openai_compatible:ans-a",
      "openai_compatible:judge-p",
      "openai_compatible:judge-q",
    ]);
  });
});

describe("statusOf with a budget", () => {
  it("a run whose remaining jobs were skipped for the budget ends budget_exceeded", () => {
    expect(statusOf({ total: 4, done: 2, dead: 0, skipped: 2, started: true, graded: 2 })).toBe("budget_exceeded");
    expect(statusOf({ total: 4, done: 2, dead: 0, skipped: 1, started: true, graded: 2 })).toBe("running");
    expect(statusOf({ total: 4, done: 4, dead: 0, skipped: 0, started: true, graded: 4 })).toBe("completed");
  });
});
