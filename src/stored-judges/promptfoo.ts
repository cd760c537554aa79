/**
 * promptfoo's webhook contract, both ways: its `{output, context: {prompt, vars}}` → the judge's
 * sample by the stored mapping, and the judge's outcome → `{pass, score, reason}`, or "undecided"
 * when the judge failed (the route answers 502 then: promptfoo reports a webhook error, never a
 * fail of the output).
 */
import { buildGraph, type JudgeOutcome, type JudgeSampleInput } from "../judges";
import { refsOf } from "../judges/template";
import type { JudgeConfig } from "../schemas/judge";
import type { FieldIssue } from "../schemas/field-issue";
import type { PromptfooMapping, PromptfooRequest } from "../schemas/stored-judges";

type Scalar = string | number | boolean;
type Json = PromptfooRequest["context"]["vars"][string];

/** A judge var is text, a number or a boolean; a list or object var is passed as its JSON. */
const scalar = (v: Json): Scalar => (typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : JSON.stringify(v));
const text = (v: Json | PromptfooRequest["output"]): string => (typeof v === "string" ? v : JSON.stringify(v));

/**
 * The judge vars a config's prompts and options read ({{vars.X}}, Verdict's {source.X}). Without
 * `mapping.vars` each is the test var of its name, so a test lacking one is named at
 * `context.vars.X` here; otherwise the judge's own check named `config.prompt`, a path promptfoo's
 * body does not have. An invalid config reads none (judgeOne reports it).
 */
export function varsRead(config: JudgeConfig): string[] {
  const built = buildGraph(config);
  if ("issues" in built) return [];
  const names = new Set<string>();
  for (const n of built.graph.nodes)
    for (const text of [n.unit.prompt, ...(n.options ?? [])])
      for (const r of text ? refsOf(text).refs : []) if (r.kind === "vars") names.add(r.name);
  return [...names];
}

/**
 * `mapping.vars` entries no prompt or option reads: each promptfoo test still had to set the test
 * var (a 400 otherwise) for a judge var nothing used. Refused when the judge is stored.
 */
export function unreadMappedVars(config: JudgeConfig, mapping: PromptfooMapping): FieldIssue[] {
  const read = new Set(varsRead(config));
  return Object.entries(mapping.vars ?? {})
    .filter(([judgeVar]) => !read.has(judgeVar))
    .map(([judgeVar, testVar]) => ({
      path: `mapping.vars.${judgeVar}`,
      message: `no prompt or option of this judge reads {{vars.${judgeVar}}}, so test var ${JSON.stringify(testVar)} would be required for nothing; remove it or use it`,
    }));
}

export function promptfooSample(
  body: PromptfooRequest,
  mapping: PromptfooMapping,
  judgeVars: readonly string[] = [],
): { ok: true; sample: JudgeSampleInput } | { ok: false; issues: FieldIssue[] } {
  const given = body.context.vars;
  const issues: FieldIssue[] = [];
  const read = (name: string, role: string): Json | undefined => {
    if (Object.hasOwn(given, name) && given[name] !== null) return given[name];
    issues.push({
      path: `context.vars.${name}`,
      message: `this judge takes its ${role} from the test var ${JSON.stringify(name)}, which this test does not set`,
    });
    return undefined;
  };
  const input = mapping.input === undefined ? body.context.prompt : read(mapping.input, "input");
  const reference = mapping.reference === undefined ? undefined : read(mapping.reference, "reference");
  const vars: Record<string, Scalar> = {};
  if (mapping.vars) {
    for (const [judgeVar, testVar] of Object.entries(mapping.vars)) {
      const v = read(testVar, `{{vars.${judgeVar}}}`);
      if (v !== undefined) vars[judgeVar] = scalar(v);
    }
  } else {
    for (const [name, v] of Object.entries(given)) if (v !== null) vars[name] = scalar(v);
    for (const name of judgeVars) if (!Object.hasOwn(vars, name)) read(name, `{{vars.${name}}}`);
  }
  if (issues.length) return { ok: false, issues };
  return {
    ok: true,
    sample: {
      input: text(input ?? ""),
      output: text(body.output),
      ...(reference !== undefined ? { reference: text(reference) } : {}),
      vars,
    },
  };
}

/**
 * A sample with what the mapping promises, for checking a config's placeholders when it is
 * stored: without `mapping.vars` every test var passes through, so any `{{vars.X}}` may be set.
 */
export function promisedSample(mapping: PromptfooMapping): JudgeSampleInput {
  const vars: Record<string, Scalar> = mapping.vars
    ? Object.fromEntries(Object.keys(mapping.vars).map((k) => [k, ""]))
    : new Proxy(
        {},
        {
          has: () => true,
          // The judge's check asks Object.hasOwn: every name is an own var of this sample.
          getOwnPropertyDescriptor: () => ({ value: "", writable: true, enumerable: true, configurable: true }),
        },
      );
  return { input: "", output: "", ...(mapping.reference !== undefined ? { reference: "" } : {}), vars };
}

export type PromptfooAnswer =
  | { decided: true; verdict: { pass: boolean; score?: number; reason: string } }
  | { decided: false; why: string };

export function promptfooAnswer(outcome: JudgeOutcome): PromptfooAnswer {
  if (outcome.pass === null) {
    const e = outcome.error;
    return {
      decided: false,
      why: e ? `the judge could not decide (unit ${e.unit}, ${e.kind}): ${e.message}` : `the judge could not decide: ${outcome.reason}`,
    };
  }
  return {
    decided: true,
    verdict: { pass: outcome.pass, ...(outcome.score !== null ? { score: outcome.score } : {}), reason: outcome.reason },
  };
}
