/**
 * Deep judgment's evidence, shared by template deep judgment (src/pipeline/deep-judgment) and
 * rubric deep judgment (src/rubric/deep-judgment): an excerpt quoted from the answer, how sure the
 * judge is of it, its hallucination risk, and the web-search port that checks it.
 */
export type Confidence = "high" | "medium" | "low" | "none";
export type HallucinationRisk = "none" | "low" | "medium" | "high";

export interface Excerpt {
  text: string;
  confidence: Confidence;
  similarity_score: number;
  explanation?: string;
  search_results?: string;
  hallucination_risk?: HallucinationRisk;
  hallucination_justification?: string;
}

/** Web search for deep judgment's hallucination check (Tavily-compatible at the edge). */
export interface SearchPort {
  search(query: string): Promise<{ ok: true; text: string } | { ok: false; error: string }>;
}
