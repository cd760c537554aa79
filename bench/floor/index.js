// The floor worker (bench/floor.mjs): bench/throughput's run, graded with nothing but the I/O a
// result cannot do without. POST /runs takes the body edgeval's POST /v1/runs takes and does the
// least with it: no validation, the spec to R2, the jobs onto the queue shards. A job makes the
// same two model calls (an answer, then a structured parse of it) under a semaphore holding its
// invocation's share of the key's concurrency (no limiter object). A batch records its results
// when it ends: one Durable Object call and one D1 batch. GET /runs/:id counts them in the object.
// Nothing here survives a crash, retries, meters or checks its input: it is a lower bound for
// the CPU of a design, not a design.
import { DurableObject } from "cloudflare:workers";

export class Tally extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS results (id TEXT PRIMARY KEY, passed INTEGER)");
  }
  async init(total) {
    this.ctx.storage.kv.put("total", total);
  }
  async record(rows) {
    for (const [id, passed] of rows) this.ctx.storage.sql.exec("INSERT OR IGNORE INTO results VALUES (?, ?)", id, passed);
  }
  async status() {
    const { done, passed } = this.ctx.storage.sql.exec("SELECT count(*) AS done, coalesce(sum(passed), 0) AS passed FROM results").one();
    return { done, passed, total: this.ctx.storage.kv.get("total") ?? 0 };
  }
}

const SHARDS = ["JOBS_0", "JOBS_1", "JOBS_2", "JOBS_3"];
/**
 * The key's concurrency as edgeval's limiter defaults it for openai_compatible, split evenly over
 * the shards' invocations (at most one per shard at a time locally): workerd cancels a request's
 * continuation resolved from another request, so one semaphore cannot be shared across them.
 */
const KEY_CONCURRENCY = 64;
const PER_INVOCATION = KEY_CONCURRENCY / SHARDS.length;

/** A semaphore of `size` for one invocation's calls. */
function semaphore(size) {
  let free = size;
  const waiting = [];
  return async (fn) => {
    if (free > 0) free -= 1;
    else await new Promise((r) => waiting.push(r));
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    }
  };
}

async function chat(baseUrl, body) {
  const res = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer floor" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`model call: HTTP ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text).choices[0].message.content;
}

/**
 * Specs read, by run: the parsed value across invocations (a promise may be awaited only in the
 * request that made it), and within one invocation the read in flight, so its jobs read once.
 */
const specs = new Map();
function specReader(env) {
  const reads = new Map();
  return (runId) => {
    if (specs.has(runId)) return specs.get(runId);
    if (!reads.has(runId)) reads.set(runId, env.BLOBS.get(`spec/${runId}`).then(async (o) => {
      const spec = await o.json();
      specs.set(runId, spec);
      return spec;
    }));
    return reads.get(runId);
  };
}

async function grade(limited, specOf, { run_id, i }) {
  const spec = await specOf(run_id);
  const q = spec.benchmark.questions[i];
  const answering = spec.config.answering_models[0];
  const parsing = spec.config.parsing_models[0];
  const answer = await limited(() =>
    chat(answering.base_url, { model: answering.model_name, temperature: 0, messages: [{ role: "user", content: q.question }] }),
  );
  const properties = Object.fromEntries(q.template.fields.map((f) => [f.name, { type: "boolean", description: f.description }]));
  const schema = { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
  const parsed = await limited(() =>
    chat(parsing.base_url, {
      model: parsing.model_name,
      temperature: 0,
      messages: [
        { role: "system", content: "Fill the fields from the response." },
        { role: "user", content: `Question: ${q.question}\nResponse: ${answer}` },
      ],
      response_format: { type: "json_schema", json_schema: { name: "template", schema } },
    }),
  );
  const fields = JSON.parse(parsed);
  const passed = q.template.fields.every((f) => fields[f.name] === f.ground_truth);
  return [run_id, `${run_id}/${i}`, passed ? 1 : 0];
}

export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    if (req.method === "GET" && url.pathname === "/") return new Response("ok");
    if (req.method === "POST" && url.pathname === "/runs") {
      const body = await req.json();
      const run_id = crypto.randomUUID();
      const n = body.benchmark.questions.length;
      await env.BLOBS.put(`spec/${run_id}`, JSON.stringify(body));
      await env.TALLY.getByName(run_id).init(n);
      const ids = Array.from({ length: n }, (_, i) => i);
      for (let at = 0, k = 0; at < n; at += 100, k++) {
        await env[SHARDS[k % SHARDS.length]].sendBatch(ids.slice(at, at + 100).map((i) => ({ body: { run_id, i } })));
      }
      return Response.json({ run_id }, { status: 202 });
    }
    const m = /^\/runs\/([\w-]+)$/.exec(url.pathname);
    if (req.method === "GET" && m) return Response.json(await env.TALLY.getByName(m[1]).status());
    return new Response("POST /runs, GET /runs/:id", { status: 404 });
  },

  async queue(batch, env) {
    const limited = semaphore(PER_INVOCATION);
    const specOf = specReader(env);
    const graded = await Promise.all(batch.messages.map((m) => grade(limited, specOf, m.body)));
    const byRun = new Map();
    for (const [run, id, passed] of graded) {
      if (!byRun.has(run)) byRun.set(run, []);
      byRun.get(run).push([id, passed]);
    }
    for (const [run, rows] of byRun) await env.TALLY.getByName(run).record(rows);
    await env.DB.batch(graded.map(([, id, passed]) => env.DB.prepare("INSERT OR IGNORE INTO results VALUES (?, ?)").bind(id, passed)));
    batch.ackAll();
  },
};
