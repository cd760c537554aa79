/**
 * Deep judgment, stage 1.5 (search on): each validated excerpt is looked up through the search
 * port, then one judge call rates every excerpt's hallucination risk against what the search
 * found (Karenina's `dj_template_hallucination`). An attribute's risk is the highest of its
 * excerpts'. A search that fails leaves that excerpt with a note instead of evidence; the judge
 * then has less to go on and should rate conservatively.
 */
import { z } from "zod";
import type { LlmError, Message, ModelPort, Usage } from "../llm/port";
import type { Excerpt, HallucinationRisk, SearchPort } from "./evidence";
import { withInstructions } from "./instructions";

const RISKS: readonly HallucinationRisk[] = ["none", "low", "medium", "high"];
const MAX_SEARCH_CHARS = 2_000;

const Assessment = z.object({
  assessments: z.array(
    z.object({
      excerpt_id: z.string(),
      hallucination_risk: z.enum(["none", "low", "medium", "high"]),
      justification: z.string().nullish(),
    }),
  ),
});

export type HallucinationOutcome =
  | { ok: true; excerpts: Record<string, Excerpt[]>; risk: Record<string, HallucinationRisk>; usage: Usage; warnings: string[] }
  | { ok: false; error: LlmError; warnings: string[] };

export async function assessHallucination(
  judge: ModelPort,
  search: SearchPort,
  question: string,
  excerpts: Record<string, Excerpt[]>,
  instructions?: string,
): Promise<HallucinationOutcome> {
  const warnings: string[] = [];
  const withResults: Record<string, Excerpt[]> = {};
  for (const [attr, list] of Object.entries(excerpts)) {
    withResults[attr] = [];
    for (const e of list) {
      const found = await search.search(e.text);
      if (!found.ok) warnings.push(`deep judgment search failed for an excerpt of ${attr}: ${found.error}`);
      const text = found.ok ? found.text.slice(0, MAX_SEARCH_CHARS) : `(search failed: ${found.error})`;
      withResults[attr]!.push({ ...e, search_results: text });
    }
  }
  const ids = Object.entries(withResults).flatMap(([attr, list]) => list.map((e, i) => ({ id: `${attr}#${i + 1}`, attr, e })));
  const res = await judge.structured({
    messages: buildMessages(question, ids, instructions),
    call_site: "deep_judgment/hallucination",
    schemaName: "HallucinationAssessment",
    jsonSchema: {
      type: "object",
      properties: {
        assessments: {
          type: "array",
          items: {
            type: "object",
            properties: { excerpt_id: { type: "string" }, hallucination_risk: { enum: [...RISKS] }, justification: { type: "string" } },
            required: ["excerpt_id", "hallucination_risk", "justification"],
          },
        },
      },
      required: ["assessments"],
    },
    schema: Assessment,
  });
  if (!res.ok) return { ok: false, error: res.error, warnings };
  const byId = new Map(res.value.value.assessments.map((a) => [a.excerpt_id, a]));
  const risk: Record<string, HallucinationRisk> = {};
  for (const { id, attr, e } of ids) {
    // An excerpt the judge skipped is rated "high": unassessed evidence is not corroborated evidence.
    const a = byId.get(id);
    e.hallucination_risk = a?.hallucination_risk ?? "high";
    e.hallucination_justification = a?.justification ?? "not assessed by the judge";
    risk[attr] = maxRisk(risk[attr], e.hallucination_risk);
  }
  return { ok: true, excerpts: withResults, risk, usage: res.value.usage, warnings };
}

function maxRisk(a: HallucinationRisk | undefined, b: HallucinationRisk): HallucinationRisk {
  return a === undefined || RISKS.indexOf(b) > RISKS.indexOf(a) ? b : a;
}

function buildMessages(question: string, ids: { id: string; attr: string; e: Excerpt }[], instructions?: string): Message[] {
  const system = `You are an expert fact-checker assessing the hallucination risk of excerpts from a model's response, using external search results as evidence.

For EVERY excerpt, assign a hallucination risk:
- "none": strong, consistent support from multiple search results
- "low": supported by the search results, with minor gaps
- "medium": weak, partial or mixed support
- "high": no support, or the search results contradict it

Be conservative: use "none" only with strong multi-source support; when between two levels, pick the higher risk. Give a one- or two-sentence justification for each.

Return ONLY a JSON object {"assessments": [{"excerpt_id": "...", "hallucination_risk": "none|low|medium|high", "justification": "..."}]} covering every excerpt id.`;
  const blocks = ids.map(
    ({ id, attr, e }) =>
      `[${id}] attribute: ${attr} | confidence: ${e.confidence} | similarity: ${e.similarity_score.toFixed(2)}\nExcerpt: "${e.text}"\nSearch results:\n${e.search_results}`,
  );
  return [
    { role: "system", content: withInstructions(system, instructions) },
    { role: "user", content: `<original_question>\n${question}\n</original_question>\n\n<excerpts>\n${blocks.join("\n\n")}\n</excerpts>` },
  ];
}
