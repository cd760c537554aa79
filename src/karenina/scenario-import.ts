/**
 * Checkpoint scenarios (root `hasPart[]`, `karenina:Scenario`, inventory §4.4) → edgeval's runnable
 * scenarios (src/scenarios). Karenina's camelCase keys map to the wire's snake_case; each node's
 * question is read like a benchmark question (its id derived from its text as Karenina does, its
 * Python template read statically). A scenario that does not map — a template that cannot be
 * read, a Python callable, a graph edgeval refuses — is an import error naming it: it stays in
 * `benchmark.karenina.scenarios` as data (exported back) and does not run.
 */
import { WIRE_PARSE, wireIssues } from "../lib/wire-issues";
import { Scenario } from "../schemas/benchmark";
import { kareninaQuestionId } from "./question-id";
import { importTemplate } from "./template-import";

export interface ScenarioImport {
  scenarios: Scenario[];
  errors: { path: string; message: string }[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

export function importScenarios(parts: readonly unknown[]): ScenarioImport {
  const out: ScenarioImport = { scenarios: [], errors: [] };
  parts.forEach((part, i) => {
    const path = `hasPart[${i}]`;
    const p = obj(part);
    if (p["@type"] !== "karenina:Scenario") {
      out.errors.push({ path: `${path}.@type`, message: `not a karenina:Scenario (got ${JSON.stringify(p["@type"])}); kept as data` });
      return;
    }
    const mapped = mapScenario(p);
    if ("error" in mapped) {
      out.errors.push({
        path: `${path}.${mapped.at}`,
        message: `scenario "${str(p.name)}" not imported (kept as data, not run): ${mapped.error}`,
      });
      return;
    }
    const parsed = Scenario.safeParse(mapped.scenario, WIRE_PARSE);
    if (!parsed.success) {
      const first = parsed.error.issues.flatMap((iss) => wireIssues(iss))[0]!;
      out.errors.push({
        path: `${path}${checkpointPath(first.path)}`,
        message: `scenario "${str(p.name)}" not imported (kept as data, not run): ${first.message}`,
      });
      return;
    }
    out.scenarios.push(parsed.data);
  });
  return out;
}

function mapScenario(p: Obj): { scenario: Obj } | { error: string; at: string } {
  const nodes: Obj = {};
  for (const [id, raw] of Object.entries(obj(p.nodes))) {
    const n = obj(raw);
    const q = obj(n.question);
    const text = str(q.text) ?? str(obj(n.questionData).question);
    if (!text) return { error: "the node has no question text", at: `nodes.${id}.question.text` };
    const source = str(obj(q.hasPart).text) ?? str(obj(n.questionData).answer_template);
    let template: unknown;
    let conditional: unknown;
    if (source?.trim()) {
      const t = importTemplate(source);
      if (!t.ok) return { error: `its template was not imported: ${t.error}`, at: `nodes.${id}.question.hasPart.text` };
      template = t.template;
      conditional = t.conditional;
    }
    const rawAnswer = str(obj(q.acceptedAnswer).text);
    nodes[id] = {
      question: {
        id: kareninaQuestionId(text),
        question: text,
        ...(rawAnswer ? { raw_answer: rawAnswer } : {}),
        ...(template ? { template } : {}),
      },
      // A VerifiedField's ConditionalGroundTruth(...) becomes the node's conditional ground truth.
      ...(conditional ? { conditional_ground_truth: conditional } : {}),
      ...(n.agentIdentity != null ? { agent_identity: n.agentIdentity } : {}),
      ...(n.metadata != null ? { metadata: n.metadata } : {}),
      ...(n.stateUpdateSource != null ? { state_update_source: n.stateUpdateSource } : {}),
      ...(n.modelOverride != null ? { model_override: n.modelOverride } : {}),
      ...(n.toolFilter != null ? { tool_filter: n.toolFilter } : {}),
    };
  }
  const edges = (Array.isArray(p.edges) ? p.edges : []).map((raw) => {
    const e = obj(raw);
    return {
      source: e.source,
      target: e.target,
      ...(e.condition != null ? { condition: e.condition } : {}),
      ...(e.conditionSource != null ? { condition_source: e.conditionSource } : {}),
      ...(e.handover != null ? { handover: e.handover } : {}),
    };
  });
  const outcome_criteria = (Array.isArray(p.outcomeCriteria) ? p.outcomeCriteria : []).map((raw) => {
    const c = obj(raw);
    return {
      name: c.name,
      description: c.description ?? "",
      check: c.check ?? undefined,
      ...(c.evaluateSource != null ? { evaluate_source: c.evaluateSource } : {}),
    };
  });
  return {
    scenario: {
      name: p.name,
      description: p.description ?? "",
      entry_node: p.entryNode,
      nodes,
      edges,
      outcome_criteria,
      metadata: p.metadata ?? {},
    },
  };
}

/** The wire's snake_case names back to the checkpoint's camelCase, so an error points into the file. */
const CHECKPOINT_KEYS: Record<string, string> = {
  entry_node: "entryNode",
  outcome_criteria: "outcomeCriteria",
  evaluate_source: "evaluateSource",
  condition_source: "conditionSource",
  state_update_source: "stateUpdateSource",
  model_override: "modelOverride",
  tool_filter: "toolFilter",
  agent_identity: "agentIdentity",
};

function checkpointPath(path: readonly PropertyKey[]): string {
  return path.map((k) => (typeof k === "number" ? `[${k}]` : `.${CHECKPOINT_KEYS[String(k)] ?? String(k)}`)).join("");
}
