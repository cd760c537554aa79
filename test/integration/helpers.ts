/** Helpers for tests that run inside workerd against the real bindings and the fake LLM server. */
import { env, exports } from "cloudflare:workers";
import { vi } from "vitest";
import type { PairSummary } from "../../src/coordinator/progress";

export const TOKEN = "test-token";

export function api(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has("authorization")) headers.set("authorization", `Bearer ${TOKEN}`);
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  return exports.default.fetch(`http://edgeval.test${path}`, { ...init, headers, body });
}

/** A model name no other test uses, so fake-server rules and stats stay per test. */
export function uniqueModel(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

export async function addFakeRules(rules: unknown[]): Promise<void> {
  const res = await fetch(`${env.FAKE_LLM_URL}/_admin/rules`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rules }),
  });
  if (!res.ok) throw new Error(`fake LLM rejected rules: ${res.status} ${await res.text()}`);
}

export interface FakeModelStats {
  total: number;
  by_endpoint: Record<string, number>;
  /** Requests a fault rule answered, by fault. */
  faults: Record<string, number>;
  /** Successful answers to a body the fake had already answered successfully (a call paid twice). */
  repeats: number;
  /** The most requests the model had open at once. */
  peak_in_flight: number;
}

export async function fakeStats(model: string): Promise<FakeModelStats> {
  const res = await fetch(`${env.FAKE_LLM_URL}/stats?model=${encodeURIComponent(model)}`);
  return (await res.json()) as FakeModelStats;
}

/** An openai_compatible model served by the fake LLM server. */
export function fakeModel(id: string, model_name: string, extra: Record<string, unknown> = {}) {
  return { id, interface: "openai_compatible", model_name, base_url: `${env.FAKE_LLM_URL}/v1`, ...extra };
}

export interface RunView {
  run_id: string;
  status: string;
  progress: { total: number; done: number };
  summary: PairSummary[];
}

export async function submitRun(body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const res = await api("/v1/runs", { method: "POST", json: body, headers });
  if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { run_id: string }).run_id;
}

export async function waitForRun(runId: string, statuses = ["completed", "partial", "failed"], timeout = 25_000) {
  return vi.waitUntil(
    async () => {
      const view = (await (await api(`/v1/runs/${runId}`)).json()) as RunView;
      return statuses.includes(view.status) ? view : false;
    },
    { timeout, interval: 50 },
  );
}

export async function allResults(runId: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const page = (await (await api(`/v1/runs/${runId}/results?limit=7${cursor ? `&cursor=${cursor}` : ""}`)).json()) as {
      results: any[];
      next_cursor: string | null;
    };
    out.push(...page.results);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

export async function d1ResultRows(runId: string) {
  const { results } = await env.DB.prepare(
    "SELECT result_id, question_id, answering_model, parsing_model, replicate, verdict FROM results WHERE run_id = ?",
  )
    .bind(runId)
    .all<{ result_id: string; question_id: string; answering_model: string; parsing_model: string; replicate: number; verdict: string }>();
  return results;
}

/** Where a run of tenant `default` (the test token's) keeps its R2 objects. */
export const runObjects = (runId: string) => `t/default/runs/${runId}`;

/**
 * Where each D1 result row's full form is: "d1" (a small result, whole in its row: trace_json),
 * "r2" (its R2 object exists) or "missing" (neither: a row without its trace).
 */
export async function savedResults(runId: string): Promise<("d1" | "r2" | "missing")[]> {
  const { results } = await env.DB.prepare("SELECT r2_key, trace_json FROM results WHERE run_id = ? ORDER BY result_id")
    .bind(runId)
    .all<{ r2_key: string; trace_json: string | null }>();
  return Promise.all(
    results.map(async (r) => (r.trace_json !== null ? "d1" : r.r2_key && (await env.BLOBS.head(r.r2_key)) ? "r2" : "missing")),
  );
}

/** A fake answer long enough that its result goes to R2 (src/storage/result-store.ts INLINE_RESULT_MAX). */
export const LONG_ANSWER = `Paris. ${"The capital of France is Paris. ".repeat(700)}`;

export async function r2Keys(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.BLOBS.list({ prefix, cursor });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys;
}

/** A template with one string field checked by ExactMatch. */
export function exactTemplate(groundTruth: string) {
  return {
    fields: [
      {
        name: "answer",
        type: "str",
        description: "The answer the response gives",
        ground_truth: groundTruth,
        verify_with: { type: "ExactMatch" },
      },
    ],
  };
}

/** POST /v1/runs/:id/exports and waits until the export has left `building`; returns its last view. */
export async function requestExport(runId: string, body: Record<string, unknown>, timeout = 30_000): Promise<any> {
  const res = await api(`/v1/runs/${runId}/exports`, { method: "POST", json: body });
  if (res.status !== 202) throw new Error(`export request failed: ${res.status} ${await res.text()}`);
  const created = (await res.json()) as { status_url: string };
  return vi.waitUntil(
    async () => {
      const v = (await (await api(created.status_url)).json()) as { status: string };
      return v.status === "building" ? false : v;
    },
    { timeout, interval: 50 },
  );
}
