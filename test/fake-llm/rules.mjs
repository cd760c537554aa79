// The rule engine of the fake LLM server: validation, matching, `times` bookkeeping.
//
// A script is { rules: Rule[] }; the first rule that matches (and still has `times` left) wins.
// Rule = { match?: { model?, contains?, kind?, probability?, seed?, in_flight_above?, last_tool_result? }, reply: { text?, json?, tool_calls?, fault?,
//          retry_after_s?, latency_ms?, error_message? }, times? }
// Unknown keys are rejected so that a typo (`contain`) cannot silently turn into "match all".

export const KINDS = ["chat", "structured", "embeddings", "tools"];
export const FAULTS = [
  "429",
  "500",
  "502",
  "503",
  "529",
  "hang",
  "malformed",
  "400",
  "401",
  "403",
  "404",
  "413",
  // 429 with OpenAI's insufficient_quota code; 200 headers then a body at 1 byte/s; output cut
  // short (finish_reason length / stop_reason max_tokens); a refusal (OpenAI `message.refusal`)
  "quota",
  "trickle",
  "truncated",
  "refusal",
];
/** Faults that are an HTTP error status, and the status. */
export const faultStatus = (fault) => (fault === "quota" ? 429 : /^\d{3}$/.test(fault) ? Number(fault) : null);

const MATCH_KEYS = new Set(["model", "contains", "kind", "probability", "seed", "in_flight_above", "last_tool_result", "rpm_above"]);
const REPLY_KEYS = new Set(["text", "json", "tool_calls", "fault", "retry_after_s", "latency_ms", "error_message", "model"]);
const RULE_KEYS = new Set(["match", "reply", "times"]);

const isObj = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
const nonNegNumber = (x) => typeof x === "number" && Number.isFinite(x) && x >= 0;

/** @returns {string | null} why the rule is invalid, or null */
export function validateRule(rule, where = "rule") {
  if (!isObj(rule)) return `${where}: must be an object`;
  for (const k of Object.keys(rule)) if (!RULE_KEYS.has(k)) return `${where}: unknown key "${k}"`;
  const { match = {}, reply, times } = rule;
  if (!isObj(match)) return `${where}.match: must be an object`;
  for (const k of Object.keys(match)) if (!MATCH_KEYS.has(k)) return `${where}.match: unknown key "${k}"`;
  for (const k of ["model", "contains", "last_tool_result"]) {
    if (match[k] !== undefined && typeof match[k] !== "string") return `${where}.match.${k}: must be a string`;
  }
  if (match.kind !== undefined && !KINDS.includes(match.kind)) return `${where}.match.kind: one of ${KINDS.join("|")}`;
  if (match.probability !== undefined && !(nonNegNumber(match.probability) && match.probability <= 1)) {
    return `${where}.match.probability: number in [0, 1]`;
  }
  if (match.seed !== undefined && !Number.isInteger(match.seed)) return `${where}.match.seed: integer`;
  if (match.rpm_above !== undefined && !(Number.isInteger(match.rpm_above) && match.rpm_above >= 1))
    return `${where}.match.rpm_above: integer >= 1`;
  if (match.in_flight_above !== undefined && !(Number.isInteger(match.in_flight_above) && match.in_flight_above >= 0)) {
    return `${where}.match.in_flight_above: integer >= 0`;
  }
  if (!isObj(reply)) return `${where}.reply: required object`;
  for (const k of Object.keys(reply)) if (!REPLY_KEYS.has(k)) return `${where}.reply: unknown key "${k}"`;
  if (reply.text !== undefined && typeof reply.text !== "string") return `${where}.reply.text: must be a string`;
  if (reply.fault !== undefined && !FAULTS.includes(reply.fault)) return `${where}.reply.fault: one of ${FAULTS.join("|")}`;
  if (reply.retry_after_s !== undefined && !nonNegNumber(reply.retry_after_s)) return `${where}.reply.retry_after_s: number >= 0`;
  if (reply.error_message !== undefined && typeof reply.error_message !== "string") return `${where}.reply.error_message: string`;
  if (reply.model !== undefined && (typeof reply.model !== "string" || !reply.model)) return `${where}.reply.model: non-empty string`;
  if (reply.latency_ms !== undefined && !nonNegNumber(reply.latency_ms)) return `${where}.reply.latency_ms: number >= 0`;
  if (reply.tool_calls !== undefined) {
    if (!Array.isArray(reply.tool_calls)) return `${where}.reply.tool_calls: must be an array`;
    for (const [i, c] of reply.tool_calls.entries()) {
      if (!isObj(c) || typeof c.name !== "string") return `${where}.reply.tool_calls[${i}].name: required string`;
    }
  }
  if (times !== undefined && !(Number.isInteger(times) && times > 0)) return `${where}.times: integer > 0`;
  return null;
}

/** @returns {string | null} */
export function validateRules(rules) {
  if (!Array.isArray(rules)) return "rules: must be an array";
  for (const [i, r] of rules.entries()) {
    const err = validateRule(r, `rules[${i}]`);
    if (err) return err;
  }
  return null;
}

/**
 * @typedef {{ model: string, kind: string, text: string, in_flight?: number, lastToolResult?: string }} CallKey
 *   text = all message texts of the request, joined with "\n"; in_flight = the model's requests
 *   in flight, this one included; lastToolResult = the text of the last message when it is a tool
 *   result (OpenAI role "tool"; Anthropic a user turn of tool_result blocks: the last of them)
 */

/** mulberry32: a small seeded PRNG, so a `probability` rule fires on the same requests every run. */
function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const entryFor = (rule) => ({ rule, hits: 0, random: seededRandom(rule.match?.seed ?? 1) });

export class RuleBook {
  /** @param {unknown[]} [scriptRules] */
  constructor(scriptRules = []) {
    const err = validateRules(scriptRules);
    if (err) throw new Error(`fake-llm script: ${err}`);
    this.script = scriptRules.map(entryFor);
    this.added = [];
  }

  /** Appends rules; throws on an invalid rule (nothing is added then). */
  add(rules) {
    const err = validateRules(rules);
    if (err) throw new Error(err);
    for (const rule of rules) this.added.push(entryFor(rule));
    return this.size;
  }

  get size() {
    return this.script.length + this.added.length;
  }

  /** Drops added rules and re-arms the script rules' `times`. */
  reset() {
    this.added = [];
    this.script = this.script.map((e) => entryFor(e.rule));
  }

  /** @param {CallKey} call @returns {Record<string, any> | null} the reply of the first live matching rule */
  match(call) {
    for (const entry of [...this.script, ...this.added]) {
      const { match = {}, reply, times } = entry.rule;
      if (times !== undefined && entry.hits >= times) continue;
      if (match.model !== undefined && match.model !== call.model) continue;
      if (match.kind !== undefined && match.kind !== call.kind) continue;
      if (match.contains !== undefined && !call.text.includes(match.contains)) continue;
      if (
        match.last_tool_result !== undefined &&
        !(call.lastToolResult !== undefined && call.lastToolResult.includes(match.last_tool_result))
      )
        continue;
      if (match.in_flight_above !== undefined && !((call.in_flight ?? 0) > match.in_flight_above)) continue;
      // A provider's requests-per-minute window: it already admitted that many of this model's requests in the last 60 s.
      if (match.rpm_above !== undefined && !((call.admitted_last_minute ?? 0) >= match.rpm_above)) continue;
      // Drawn only for requests that match otherwise, so the sequence is per rule and repeatable.
      if (match.probability !== undefined && !(entry.random() < match.probability)) continue;
      entry.hits += 1;
      // Its 429 says when the window admits one more, unless the rule sets retry_after_s itself.
      if (match.rpm_above !== undefined && reply.fault === "429" && reply.retry_after_s === undefined)
        return { ...reply, retry_after_s: call.rpm_retry_after_s };
      return call.lastToolResult === undefined ? reply : fillLastToolResult(reply, call.lastToolResult);
    }
    return null;
  }
}

/**
 * A multi-turn script's reply may quote the previous tool result: `{{last_tool_result}}` in any
 * string of the reply (text, tool call arguments) becomes that result's text.
 */
export function fillLastToolResult(value, result) {
  if (typeof value === "string") return value.replaceAll("{{last_tool_result}}", result.trim());
  if (Array.isArray(value)) return value.map((v) => fillLastToolResult(v, result));
  if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillLastToolResult(v, result)]));
  return value;
}
