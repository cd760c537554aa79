/**
 * Running one unit: build its messages, extract and validate the answer, turn it into an output.
 * Pairwise with `swap` runs both orders (A B, then B A) and reports whether they disagree; its
 * value is the share of the two orders that preferred option A (the first option, by default the
 * output), so a position-biased judge lands on 0.5.
 */
import { addUsd } from "../llm/prices";
import { extract, type ExtractResult, type PricedUsage } from "./extract";
import { buildMessages, type PromptContext } from "./prompts";
import { mapValue, pool } from "./pools";
import type { JudgeNode, JudgePorts, UnitOutput, UnitUsage } from "./types";

export interface UnitContext {
  ctx: PromptContext;
  deps: JudgeNode[];
  ports: JudgePorts;
  rng: () => number;
}

export async function runUnit(n: JudgeNode, { ctx, deps, ports, rng }: UnitContext): Promise<UnitOutput> {
  const base = { name: n.name, id: n.id, type: n.type, inputs: ctx.previous.map((o) => o.name) };
  if (n.kind === "pool" || n.kind === "map") {
    const out: UnitOutput = { ...base, status: "ok", value: null, attempts: 0, usage: emptyUsage() };
    if (n.kind === "map") out.value = mapValue(n, ctx.previous[0]!, deps[0]!.range);
    else
      Object.assign(
        out,
        pool(
          n,
          ctx.previous,
          deps.map((d) => d.base),
        ),
      );
    return out;
  }
  const tokenOnly = n.unit.extractor?.type === "token-probability";
  const site = (ports.scope ?? "") + n.id;
  const first = await extract(n, buildMessages(n, ctx, undefined, tokenOnly), site, ports, rng);
  const runs: ExtractResult[] = [first];
  if (n.kind === "pairwise" && n.unit.swap && first.result.ok) {
    runs.push(await extract(n, buildMessages(n, ctx, [1, 0]), `${site}/swap`, ports, rng));
  }
  const out: UnitOutput = {
    ...base,
    status: "ok",
    value: null,
    attempts: runs.reduce((s, r) => s + r.attempts, 0),
    usage: sumUsage(runs.flatMap((r) => r.usage)),
  };
  const failed = runs.find((r) => !r.result.ok);
  if (failed && !failed.result.ok)
    return { ...out, status: "error", error: { kind: failed.result.error.kind, message: failed.result.error.message } };
  const f = runs.map((r) => (r.result.ok ? r.result.fields : {}));
  const fields = f[0]!;
  if (typeof fields.explanation === "string") out.explanation = fields.explanation;
  if (n.kind === "conversational" || n.kind === "cot") out.text = String(fields.text ?? "");
  else if (n.scale) {
    out.answer = fields.answer as UnitOutput["answer"];
    if (n.passValue !== undefined) out.pass_value = n.passValue;
    // A weighted token-probability answer on a boolean scale is P(yes): it pools as P(pass_value).
    const pYes = n.scale.kind === "boolean" && typeof out.answer === "number" ? out.answer : undefined;
    out.value =
      pYes !== undefined
        ? n.passValue === false
          ? 1 - pYes
          : pYes
        : n.scale.isLabel
          ? n.scale.numeric(out.answer!, n.passValue)
          : Number(out.answer);
    if (fields.distribution) (out as UnitOutput & { distribution?: unknown }).distribution = fields.distribution;
  } else if (n.kind === "ranker") {
    out.ranking = fields.ranking as string[];
    const k = n.options!.length;
    out.value = (k - 1 - out.ranking.indexOf("A")) / (k - 1);
  } else {
    out.chosen = String(fields.choice);
    out.value = out.chosen === "A" ? 1 : 0;
    if (runs.length === 2) {
      // In the swapped run the letters are reversed: its "B" is the original option A.
      out.chosen_swapped = String(f[1]!.choice) === "A" ? "B" : "A";
      out.disagreement = out.chosen !== out.chosen_swapped;
      out.value = (out.value + (out.chosen_swapped === "A" ? 1 : 0)) / 2;
    }
  }
  return out;
}

export function emptyUsage(): UnitUsage {
  return { calls: 0, input_tokens: 0, output_tokens: 0, total_tokens: 0, models: [], cost_usd: 0, unpriced_models: [] };
}

export function sumUsage(us: PricedUsage[]): UnitUsage {
  const out = emptyUsage();
  for (const u of us) {
    out.calls++;
    out.cost_usd = addUsd(out.cost_usd, u.cost_usd);
    if (u.cost_usd === null && !out.unpriced_models.includes(u.model)) out.unpriced_models.push(u.model);
    out.input_tokens += u.input_tokens;
    out.output_tokens += u.output_tokens;
    out.total_tokens += u.total_tokens;
    if (!out.models.includes(u.model)) out.models.push(u.model);
  }
  return out;
}
