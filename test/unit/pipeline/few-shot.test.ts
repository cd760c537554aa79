import { describe, expect, it } from "vitest";
import { formatFewShotPrompt, kareninaSeed, resolveFewShotExamples } from "../../../src/pipeline/few-shot";
import { md5Hex } from "../../../src/lib/md5";
import { runPipeline } from "../../../src/pipeline/orchestrator";
import { scriptedPort } from "../../support/scripted-port";
import { clock, input, judgeBy, question } from "./helpers";

const POOL = Array.from({ length: 6 }, (_, i) => ({ question: `Q${i}?`, answer: `A${i}` }));

describe("md5Hex", () => {
  it("matches RFC 1321 / Python hashlib digests", () => {
    expect(md5Hex("")).toBe("d41d8cd98f00b204e9800998ecf8427e");
    expect(md5Hex("The quick brown fox jumps over the lazy dog")).toBe("9e107d9d372bb6826bd81d3542a419d6");
    expect(md5Hex("é".repeat(100))).toBe("79bbe93f2c285420f1df88f98c509608"); // multi-byte, two blocks
  });
});

describe("resolveFewShotExamples", () => {
  it("uses none without a config or when disabled", () => {
    expect(resolveFewShotExamples(null, "q1", POOL)).toEqual([]);
    expect(resolveFewShotExamples({ enabled: false }, "q1", POOL)).toEqual([]);
    expect(resolveFewShotExamples({ global_mode: "none" }, "q1", POOL)).toEqual([]);
  });

  it("uses every example of the question in 'all' mode, then question and global external ones", () => {
    const ext = { question: "X?", answer: "x" };
    const glob = { question: "G?", answer: "g" };
    const got = resolveFewShotExamples(
      { question_configs: { q1: { mode: "all", external_examples: [ext] } }, global_external_examples: [glob] },
      "q1",
      POOL.slice(0, 2),
    );
    expect(got).toEqual([POOL[0], POOL[1], ext, glob]);
  });

  it("samples k examples deterministically per question id", () => {
    const cfg = { global_mode: "k-shot" as const, global_k: 3 };
    const a = resolveFewShotExamples(cfg, "q-alpha", POOL);
    expect(a).toHaveLength(3);
    expect(resolveFewShotExamples(cfg, "q-alpha", POOL)).toEqual(a);
    const others = ["q-beta", "q-gamma", "q-delta", "q-eps"].map((id) => resolveFewShotExamples(cfg, id, POOL));
    expect(others.some((o) => JSON.stringify(o) !== JSON.stringify(a))).toBe(true);
    expect(resolveFewShotExamples(cfg, "q-alpha", POOL.slice(0, 2))).toEqual(POOL.slice(0, 2));
  });

  // Karenina, schemas/config/models.py:472-473: random.seed(int(md5(question_id), 16) & 0x7FFFFFFF);
  // random.sample(available_examples, k). Expected picks printed by CPython 3.11.7 for this seed (481742513).
  it("k-shot picks exactly Karenina's examples in Karenina's order (pool path, 5 and 30 examples; set path, 1000)", () => {
    const pool = (n: number) => Array.from({ length: n }, (_, i) => ({ question: `Q${i}?`, answer: `A${i}` }));
    const pick = (n: number, cfg: object) =>
      resolveFewShotExamples(cfg, "q01-venetoclax-target", pool(n)).map((e) => Number(e.question.slice(1, -1)));
    expect(kareninaSeed("q01-venetoclax-target")).toBe(481742513);
    expect(pick(5, { pool_mode: "k-shot", pool_k: 3 })).toEqual([3, 0, 1]);
    expect(pick(30, { pool_mode: "k-shot", pool_k: 3 })).toEqual([12, 3, 15]);
    expect(pick(1000, { pool_mode: "k-shot", pool_k: 3 })).toEqual([407, 123, 509]);
    // The older shape samples the same way.
    expect(pick(5, { global_mode: "k-shot", global_k: 3 })).toEqual([3, 0, 1]);
  });

  it("Karenina's current shape: source picks the pool and/or global_examples; an inheriting question takes pool_k", () => {
    const glob = { question: "G?", answer: "g" };
    const two = POOL.slice(0, 2);
    expect(resolveFewShotExamples({ global_examples: [glob] }, "q1", two)).toEqual([...two, glob]); // source both, pool_mode all
    expect(resolveFewShotExamples({ source: "question_pool", global_examples: [glob] }, "q1", two)).toEqual(two);
    expect(resolveFewShotExamples({ source: "global", global_examples: [glob] }, "q1", two)).toEqual([glob]);
    expect(resolveFewShotExamples({ source: "disabled", global_examples: [glob] }, "q1", two)).toEqual([]);
    // models.py:410-416: mode inherit → k = pool_k even when the question sets k.
    expect(
      resolveFewShotExamples({ pool_mode: "k-shot", pool_k: 2, question_configs: { q1: { mode: "inherit", k: 4 } } }, "q1", POOL),
    ).toHaveLength(2);
    expect(
      resolveFewShotExamples({ pool_mode: "all", pool_k: 2, question_configs: { q1: { mode: "k-shot", k: 4 } } }, "q1", POOL),
    ).toHaveLength(4);
  });

  it("lets a question override k and selects custom examples by index or MD5, minus exclusions", () => {
    expect(resolveFewShotExamples({ global_mode: "k-shot", question_configs: { q1: { mode: "k-shot", k: 1 } } }, "q1", POOL)).toHaveLength(
      1,
    );
    const custom = {
      question_configs: { q1: { mode: "custom" as const, selected_examples: [4, md5Hex("Q1?"), 99], excluded_examples: [] } },
    };
    expect(resolveFewShotExamples(custom, "q1", POOL)).toEqual([POOL[4], POOL[1]]);
    expect(
      resolveFewShotExamples({ question_configs: { q1: { mode: "all", excluded_examples: [0, md5Hex("Q2?")] } } }, "q1", POOL.slice(0, 3)),
    ).toEqual([POOL[1]]);
  });

  it("formats Question/Answer blocks before the question", () => {
    expect(formatFewShotPrompt("Q?", [{ question: "A?", answer: "a" }])).toBe("Question: A?\nAnswer: a\n\nQuestion: Q?\nAnswer:");
    expect(formatFewShotPrompt("Q?", [])).toBe("Q?");
  });
});

describe("answer generation with few-shot and prompt_config", () => {
  it("puts the examples in the user message, appends prompt_config.generation, and records the count", async () => {
    const answerer = scriptedPort({ chat: () => "mitochondrion" });
    const q = question({ few_shot_examples: POOL.slice(0, 2) });
    const { result } = await runPipeline(
      input(
        { question: q, answering: { ...input().answering, system_prompt: "You are an expert." } },
        { few_shot_config: { global_mode: "all" }, prompt_config: { generation: "One word." } },
      ),
      { answerer, judge: judgeBy({ Answer: () => ({ organelle: "mitochondrion" }) }), clock: clock() },
    );
    const [system, user] = answerer.calls[0]!.messages;
    expect(system).toEqual({ role: "system", content: "You are an expert.\n\nOne word." });
    expect(user!.content).toBe("Question: Q0?\nAnswer: A0\n\nQuestion: Q1?\nAnswer: A1\n\nQuestion: Which organelle makes ATP?\nAnswer:");
    expect(result.metadata).toMatchObject({ few_shot_enabled: true, few_shot_example_count: 2 });
  });

  it("appends prompt_config.parsing to the parsing judge's system prompt", async () => {
    const judge = judgeBy({ Answer: () => ({ organelle: "mitochondrion" }) });
    const { result } = await runPipeline(input({}, { prompt_config: { parsing: "Normalise organelle names to the singular." } }), {
      answerer: scriptedPort(),
      judge,
      clock: clock(),
    });
    expect(judge.calls[0]!.messages[0]!.content.endsWith("Normalise organelle names to the singular.")).toBe(true);
    expect(result.metadata).toMatchObject({ few_shot_enabled: false, few_shot_example_count: 0 });
  });
});
