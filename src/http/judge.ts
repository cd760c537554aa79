/**
 * /v1/judge: grade one output with a compound judge, synchronously (`judgeOne`, which stored
 * judges grade through too); /v1/judge/calibrate: run a
 * judge over human-labelled items and report agreement. Both validate the whole judge graph (and
 * the secrets its models need) before any model call: problems are a 400 naming the config path.
 * A judge that fails (a model keeps failing) answers 200 with `pass: null` and `error`: the
 * judge failing is not the output failing. Model calls take the queue jobs' path (limiter,
 * retries by class, repair), except that a wait too long to hold the request ends the unit.
 */
import { Hono } from "hono";
import { z } from "zod";
import { WIRE_PARSE } from "../lib/wire-issues";
import { type Env, secretAdvice } from "../env";
import { type AppEnv, afterResponse, requireScope, tenantOf } from "./auth";
import { refsOf } from "../judges/template";
import {
  buildGraph,
  estimateCalls,
  validateJudge,
  runGraph,
  type GraphIssue,
  type JudgeGraph,
  type JudgeOutcome as JudgeOutcomeValue,
  type JudgePorts,
  type JudgeSampleInput,
} from "../judges";
import { calibrate } from "../judges/calibrate";
import { modelKeyIssues } from "../llm/model-keys";
import { temperatureIssues } from "../llm/temperature-range";
import { emptyLedger } from "../llm/retrying";
import { type Deadline, deadlinePort } from "../llm/deadline";
import { modelPortChain } from "../adapters/model-chain";
import { limitedAdapter, modelRetryPolicy, nonceSource, retrySettings } from "../adapters/edge-models";
import { type KeyRing, keyRing, loadKeyRing } from "../tenants/key-ring";
import type { TenantRecord } from "../tenants/tenants-repo";
import { requiredSecretName } from "../llm/factory";
import type { ModelPort } from "../llm/port";
import { costOf, priceFor, priceTable } from "../llm/prices";
import type { PriceOverrides } from "../schemas/prices";
import { CalibrateRequest, type JudgeConfig, JudgeRequest } from "../schemas/judge";
import type { ModelConfig } from "../schemas/model-config";
import { readJson, validate } from "./body";
import type { FieldIssue } from "../schemas/field-issue";
import { invalidBody } from "./errors";
import { reply } from "./reply";
import { CalibrationReport, JudgeOutcome } from "../schemas/judge-outcome";
import { CALIBRATE_BODY_LIMIT, JUDGE_BODY_LIMIT } from "../schemas/body-limits";

/**
 * Model calls one request may plan (before retries): each is a fetch subrequest, and a Worker
 * invocation has a subrequest budget (1,000 on the paid plan by default).
 */
export const MAX_JUDGE_CALLS = 200;
export const MAX_CALIBRATE_CALLS = 800;

export const judge = new Hono<AppEnv>();

judge.post("/", requireScope("judge"), async (c) => {
  const raw = (await readJson(c, JUDGE_BODY_LIMIT)).value;
  const body = parseJudgeRequest(raw);
  if (!sentInput(raw)) {
    const message = "uses {{input}}, which this request does not give: send input (the question the output answers)";
    const places = inputPlaces(body.config);
    if (places.length) throw invalidBody(places.map((path) => ({ path, message })));
  }
  const sample = {
    input: body.input,
    output: body.output,
    ...(body.reference !== undefined ? { reference: body.reference } : {}),
    vars: body.vars,
  };
  // The clock starts when the request is read: validation and key loading count against it.
  const outcome = await judgeOne(c.env, tenantOf(c), {
    config: body.config,
    sample,
    prices: body.prices,
    deadline_ms: body.deadline_ms,
    startedAt: Date.now(),
    settleLater: (p) => afterResponse(c, p),
  });
  return reply(c, JudgeOutcome, outcome);
});

/**
 * Judge configs parsed before, by their JSON text: a client grades many outputs with one judge,
 * and the config is most of what validating a request cost (zod, ~8 % of a request's CPU in
 * bench/judge). A config's parse depends on nothing else in the request, so a known config's
 * request checks only its other fields; each request gets its own copy. A config this isolate has
 * not seen, or a request that fails, takes the whole parse (the same 400 as ever). At most
 * MAX_CONFIGS configs of up to MAX_CONFIG_TEXT characters are kept (configs carry no keys: a key is
 * named by api_key_secret, never given).
 */
const configs = new Map<string, JudgeConfig>();
const MAX_CONFIGS = 64;
const MAX_CONFIG_TEXT = 16_384;
const JudgeRequestFields = JudgeRequest.extend({ config: z.unknown() });

export function parseJudgeRequest(value: unknown): JudgeRequest {
  const raw = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as { config?: unknown }).config : undefined;
  const text = raw !== null && typeof raw === "object" ? JSON.stringify(raw) : undefined;
  const known = text !== undefined ? configs.get(text) : undefined;
  if (known) {
    const rest = JudgeRequestFields.safeParse(value, WIRE_PARSE);
    if (rest.success) return { ...rest.data, config: structuredClone(known) };
  }
  const body = validate(JudgeRequest, value);
  if (text !== undefined && text.length <= MAX_CONFIG_TEXT) {
    if (configs.size >= MAX_CONFIGS) configs.delete(configs.keys().next().value!);
    configs.set(text, structuredClone(body.config));
  }
  return body;
}

/** A judge config's graph, checked (on a sample, when given) and within the calls one request may make; a 400 at `config.…` paths otherwise. */
export function judgeGraph(config: JudgeConfig, sample?: JudgeSampleInput): JudgeGraph {
  const graph = checked(validateJudge(config, sample), "");
  capCalls(estimateCalls(graph), MAX_JUDGE_CALLS, "config", "this judge plans");
  return graph;
}

export interface OneJudgement {
  config: JudgeConfig;
  sample: JudgeSampleInput;
  prices?: PriceOverrides;
  deadline_ms: number;
  /** When the deadline's clock started (ms since the epoch). */
  startedAt: number;
  /** The request's waitUntil: limiter releases finish after the answer instead of before it. */
  settleLater?: (release: Promise<unknown>) => void;
}

/**
 * One output graded: the graph checked on the sample, the tenant's keys loaded when a model needs
 * one, every model call on the queue jobs' path and none past the deadline. POST /v1/judge and
 * stored judges (POST /v1/judges/:id/promptfoo) both grade through this.
 */
export async function judgeOne(env: Env, tenant: TenantRecord, j: OneJudgement): Promise<JudgeOutcomeValue> {
  const graph = judgeGraph(j.config, j.sample);
  const deadline = { at: j.startedAt + j.deadline_ms, ms: j.deadline_ms, now: Date.now };
  const ports = edgePorts(env, await ringFor(env, tenant, graph), graph, j.prices, deadline, j.settleLater);
  return runGraph(graph, j.sample, ports);
}

judge.post("/calibrate", requireScope("judge"), async (c) => {
  const raw = (await readJson(c, CALIBRATE_BODY_LIMIT)).value;
  const body = validate(CalibrateRequest, raw);
  const place = inputPlaces(body.config)[0];
  if (place) {
    const sent = (raw as { items: unknown[] }).items;
    const lacking = body.items.map((_, i) => i).filter((i) => !sentInput(sent[i]));
    const message = `the judge's ${place} uses {{input}}, which this item does not give`;
    if (lacking.length) throw invalidBody(lacking.map((i) => ({ path: `items[${i}].input`, message })));
  }
  let graph: JudgeGraph | undefined;
  body.items.forEach((item, i) => {
    graph = checked(validateJudge(body.config, item), ` (items[${i}])`);
  });
  const planned = estimateCalls(graph!) * body.items.length * body.repeats;
  capCalls(planned, MAX_CALIBRATE_CALLS, "items", "items × repeats × the judge's calls come to");
  const ports = edgePorts(c.env, await ringFor(c.env, tenantOf(c), graph!), graph!, body.prices);
  const report = await calibrate(
    graph!,
    body.items,
    { repeats: body.repeats, ...(body.label_threshold !== undefined ? { labelThreshold: body.label_threshold } : {}) },
    ports,
  );
  return reply(c, CalibrationReport, report);
});

/**
 * `input` defaults to "" (a compound rubric trait or promptfoo always gives one), so a prompt that
 * places {{input}} (or {source.input}) in a request without it asked the model to judge
 * "Question: " blind: like a missing {{reference}}, it is the caller's 400.
 */
const sentInput = (v: unknown) => v !== null && typeof v === "object" && (v as { input?: unknown }).input !== undefined;

/** The config paths of the prompts and options that place the sample's input. */
function inputPlaces(config: JudgeConfig): string[] {
  const built = buildGraph(config);
  if ("issues" in built) return [];
  const at = new Set<string>();
  for (const n of built.graph.nodes) {
    const texts: [string, string | undefined][] = [
      ["prompt", n.unit.prompt],
      ...(n.unit.options ?? []).map((o, i): [string, string] => [`options[${i}]`, o]),
    ];
    for (const [field, text] of texts)
      if (text && refsOf(text).refs.some((r) => r.kind === "input")) at.add(configPath(`${n.path}.${field}`));
  }
  return [...at];
}

function capCalls(planned: number, max: number, path: string, what: string): void {
  if (planned > max)
    throw invalidBody([{ path, message: `${what} ${planned} model calls; one request may make at most ${max} — split the work` }]);
}

const configPath = (p: string) => (p === "config" || p.startsWith("config.") ? p : `config.${p}`);

function checked(v: { graph: JudgeGraph } | { issues: GraphIssue[] }, where: string): JudgeGraph {
  if ("issues" in v) throw invalidBody(v.issues.map((i): FieldIssue => ({ path: configPath(i.path), message: i.message + where })));
  return v.graph;
}

/** Every model the graph may call, with the config path its issues are reported at. */
function* graphModels(graph: JudgeGraph): Generator<{ model: ModelConfig; path: string }> {
  for (const n of graph.nodes) {
    const e = n.unit.extractor;
    const extra = e?.type === "post-hoc" && e.provider ? [e.provider] : [];
    for (const m of [...n.models, ...extra]) {
      yield {
        model: m,
        path: configPath(n.unit.provider || extra.includes(m) ? `${n.path}.${extra.includes(m) ? "extractor." : ""}provider` : "provider"),
      };
    }
  }
}

/**
 * The tenant's provider keys that the graph's models send, read (one D1 query) only when a model
 * sends one: a keyless model (an openai_compatible server without api_key_secret) needs none (bench/judge).
 */
async function ringFor(env: Env, tenant: TenantRecord, graph: JudgeGraph): Promise<KeyRing> {
  const models = [...graphModels(graph)].map(({ model }) => model);
  if (models.some((m) => requiredSecretName(m) !== null)) return loadKeyRing(env, tenant, models);
  return keyRing(env, tenant.use_deployment_keys, new Map());
}

/**
 * What keeps the graph's models from being called: a base_url or key destination the policy
 * refuses, a temperature the model does not take and, with `unset`, a key secret not set.
 */
function modelIssues(env: Env, ring: KeyRing, graph: JudgeGraph, include: { unset: boolean }): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const { model: m, path } of graphModels(graph)) {
    // A judge's issues sit at its provider, the base_url's included; a model shared by units is reported once.
    const { unset, misdirected } = modelKeyIssues(m, { model: path, base_url: path }, ring, (name) => secretAdvice(name, env));
    for (const issue of [...temperatureIssues(m, path), ...(include.unset ? unset : []), ...misdirected]) {
      if (!issues.some((x) => x.path === issue.path && x.message === issue.message)) issues.push(issue);
    }
  }
  return issues;
}

/**
 * A stored judge's models, checked when it is stored (POST/PUT /v1/judges) as POST /v1/judge checks
 * them, so a judge that no promptfoo call could run is a 400 now; a key secret not set yet is not
 * refused (it may be set before the first call), as a run's dry run only warns of one.
 */
export async function refuseUncallableModels(env: Env, tenant: TenantRecord, graph: JudgeGraph): Promise<void> {
  const issues = modelIssues(env, await ringFor(env, tenant, graph), graph, { unset: false });
  if (issues.length) throw invalidBody(issues);
}

/** One port per distinct model config; a model whose key secret is missing is a 400 up front. */
function edgePorts(
  env: Env,
  ring: KeyRing,
  graph: JudgeGraph,
  prices: PriceOverrides | undefined,
  deadline?: Deadline,
  settleLater?: (release: Promise<unknown>) => void,
): JudgePorts {
  const table = priceTable(prices);
  const issues = modelIssues(env, ring, graph, { unset: true });
  if (issues.length) throw invalidBody(issues);
  const ports = new Map<string, ModelPort>();
  // A request has no job to hand back to the queue: its retry ledger lives for the request.
  const ledger = emptyLedger();
  // A request is graded once (no cache): its answer-delimiting nonces need only be its own.
  const nonces = nonceSource(env, `judge:${crypto.randomUUID()}`);
  const { retryPolicy, retryEnv } = retrySettings(env);
  return {
    // A response served from the response cache (issue 5 marks it `cached`) was not paid for.
    cost: (m, usage) => ((usage as { cached?: boolean }).cached ? 0 : costOf(priceFor(table, m.interface, m.model_name), usage)),
    model(config: ModelConfig) {
      const key = JSON.stringify(config);
      let port = ports.get(key);
      // Same path as the queue's jobs: the shared limiter, retries by class, one repair retry.
      if (!port) {
        // With a deadline: no call starts after it (inner), and nothing in progress is waited for past it (outer).
        const bounded = (p: ModelPort) => (deadline ? deadlinePort(p, deadline) : p);
        port = bounded(
          modelPortChain(bounded(limitedAdapter(env, ring, config, settleLater ? { settleLater } : {})), nonces, {
            ledger,
            retryPolicy: modelRetryPolicy(retryPolicy, config),
            retryEnv,
          }),
        );
        ports.set(key, port);
      }
      return port;
    },
  };
}
