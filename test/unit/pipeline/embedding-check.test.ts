import { describe, expect, it } from "vitest";
import { cosine } from "../../../src/pipeline/stages/embedding-check";
import { runPipeline } from "../../../src/pipeline/orchestrator";
import { VerificationResult } from "../../../src/schemas/result";
import { scriptedPort } from "../../support/scripted-port";
import { clock, input, judgeBy, memoryLog, question, withEmbeddings } from "./helpers";

const ON = { embedding_check: { enabled: true, model: "embed-small", threshold: 0.85 } };
/** Vectors: the ground truth and "mitochondria" point the same way; anything else is orthogonal. */
const vec = (text: string) => (/mitochondri/.test(text) ? [1, 0, 0] : [0, 1, 0]);

describe("EmbeddingCheck (stage 9)", () => {
  it("overrides a field failure when the embeddings are close and the judge says YES", async () => {
    const log = memoryLog();
    const judge = withEmbeddings(
      judgeBy({ Answer: () => ({ organelle: "mitochondria" }) }, () => "YES, same organelle."),
      vec,
    );
    const { result } = await runPipeline(input({}, ON), { answerer: scriptedPort(), judge, clock: clock(), log });
    expect(judge.embedCalls).toEqual([{ inputs: ['{"organelle":"mitochondrion"}', '{"organelle":"mitochondria"}'], model: "embed-small" }]);
    expect(result.template).toMatchObject({
      field_results: { organelle: false },
      verify_result: true,
      embedding_check_performed: true,
      embedding_similarity_score: 1,
      embedding_override_applied: true,
      embedding_model_used: "embed-small",
    });
    expect(result.metadata.failure).toBeNull();
    expect(result.metadata.caveats).toEqual(["embedding_override"]);
    expect(result.template!.usage_metadata!.embedding_check).toMatchObject({ total_tokens: 19 }); // embed 4 + judge 15
    expect(
      log.lines.some(
        (l) => l.event === "verify_result_override" && l.fields?.stage === "embedding_check" && l.fields?.verify_result === true,
      ),
    ).toBe(true);
    expect(VerificationResult.parse(result)).toEqual(result);
  });

  it("keeps the failure when the judge says NO", async () => {
    const judge = withEmbeddings(
      judgeBy({ Answer: () => ({ organelle: "mitochondria" }) }, () => "NO"),
      vec,
    );
    const { result } = await runPipeline(input({}, ON), { answerer: scriptedPort(), judge, clock: clock() });
    expect(result.template).toMatchObject({ verify_result: false, embedding_check_performed: true, embedding_override_applied: false });
    expect(result.metadata.failure?.category).toBe("content");
  });

  it("asks no judge below the threshold", async () => {
    const judge = withEmbeddings(
      judgeBy({ Answer: () => ({ organelle: "chloroplast" }) }, () => "YES"),
      vec,
    );
    const { result } = await runPipeline(input({}, ON), { answerer: scriptedPort(), judge, clock: clock() });
    expect(judge.calls.map((c) => c.op)).toEqual(["structured"]);
    expect(result.template).toMatchObject({ verify_result: false, embedding_similarity_score: 0, embedding_override_applied: false });
  });

  it("never overrides a regex failure", async () => {
    const q = question({
      template: {
        fields: [{ name: "organelle", type: "str", description: "d", ground_truth: "mitochondrion", verify_with: { type: "ExactMatch" } }],
        regex: [{ name: "cites_pmid", pattern: "PMID\\d+", expected: 1, match_type: "count" }],
      },
    });
    const judge = withEmbeddings(
      judgeBy({ Answer: () => ({ organelle: "mitochondria" }) }, () => "YES"),
      vec,
    );
    const { result } = await runPipeline(input({ question: q }, ON), {
      answerer: scriptedPort({ chat: () => "mitochondria" }),
      judge,
      clock: clock(),
    });
    expect(result.template).toMatchObject({ embedding_override_applied: true, regex_overall_success: false, verify_result: false });
    expect(result.metadata.failure?.category).toBe("content");
  });

  it("does not run when the fields passed, or when it is disabled", async () => {
    const passing = withEmbeddings(judgeBy({ Answer: () => ({ organelle: "mitochondrion" }) }), vec);
    const a = await runPipeline(input({}, ON), { answerer: scriptedPort(), judge: passing, clock: clock() });
    expect(passing.embedCalls).toHaveLength(0);
    expect(a.result.template?.embedding_check_performed).toBe(false);
    const disabled = withEmbeddings(judgeBy({ Answer: () => ({ organelle: "mitochondria" }) }), vec);
    await runPipeline(input(), { answerer: scriptedPort(), judge: disabled, clock: clock() });
    expect(disabled.embedCalls).toHaveLength(0);
  });

  it("decides SemanticMatch fields: their primitive cannot, the embedding check can", async () => {
    const q = question({
      template: {
        fields: [
          { name: "organelle", type: "str", description: "d", ground_truth: "mitochondrion", verify_with: { type: "SemanticMatch" } },
        ],
      },
    });
    const judge = withEmbeddings(
      judgeBy({ Answer: () => ({ organelle: "the mitochondria" }) }, () => "YES"),
      vec,
    );
    const { result } = await runPipeline(input({ question: q }, ON), { answerer: scriptedPort(), judge, clock: clock() });
    expect(result.template).toMatchObject({ embedding_override_applied: true, verify_result: true });
  });

  it("is non-fatal when embeddings are unavailable: a warning, the field verdict stands", async () => {
    const judge = judgeBy({ Answer: () => ({ organelle: "mitochondria" }) }); // scripted embed → unsupported
    const { result } = await runPipeline(input({}, ON), { answerer: scriptedPort(), judge, clock: clock() });
    expect(result.template).toMatchObject({ embedding_check_performed: false, verify_result: false, embedding_model_used: "embed-small" });
    expect(result.metadata.warnings).toEqual([expect.stringContaining("embedding check failed (unsupported")]);
    expect(result.metadata.completed_without_errors).toBe(true);
  });

  it("computes cosine similarity", () => {
    expect(cosine([1, 0], [1, 0])).toBe(1);
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([3, 4], [6, 8])).toBeCloseTo(1);
    expect(cosine([0, 0], [1, 1])).toBe(0);
  });
});
