// The worker bench/binding-costs.mjs times: each route makes n calls of one kind, side by side.
import { DurableObject } from "cloudflare:workers";
import OpenAI from "openai";

export class Obj extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, v TEXT)");
  }
  async ping(x) {
    return x;
  }
  async write(k, v) {
    this.ctx.storage.sql.exec("INSERT INTO t (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", k, v);
  }
}

// About the size of a job's answer checkpoint.
const payload = JSON.stringify({ text: "x".repeat(2000), n: 1 });

const CALLS = {
  "do-rpc": (env, i, stub) => stub.ping({ lease_id: `l${i}`, tokens_used: 10 }),
  "do-sql-write": (env, i, stub) => stub.write(`k${i}`, payload),
  "r2-put": (env, i) => env.B.put(`k/${i}`, payload),
  "d1-upsert": (env, i) =>
    env.DB.prepare("INSERT INTO t (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v").bind(`k${i}`, payload).run(),
  fetch: (env, i, stub, target) => fetch(target).then((r) => r.text()),
  "openai-sdk": (env, i, stub, target) => sdk(target).chat.completions.create({ model: "m", messages: [{ role: "user", content: `Question ${i}?` }] }),
};

// One client per target, as an adapter keeps one per model (edgeval's options: no retries, a timeout).
const clients = new Map();
function sdk(target) {
  if (!clients.has(target)) clients.set(target, new OpenAI({ apiKey: "k", baseURL: target, maxRetries: 0, timeout: 120_000, organization: null, project: null }));
  return clients.get(target);
}

export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    const call = CALLS[url.pathname.slice(1)];
    if (!call) return new Response(`routes: ${Object.keys(CALLS).join(", ")}`, { status: 404 });
    if (url.pathname === "/d1-upsert") await env.DB.exec("CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, v TEXT)");
    const n = Number(url.searchParams.get("n") ?? 100);
    const stub = env.OBJ.getByName("o");
    const target = url.searchParams.get("target");
    await Promise.all(Array.from({ length: n }, (_, i) => call(env, i, stub, target)));
    return new Response("ok");
  },
};
