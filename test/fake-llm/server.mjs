// Fake LLM server: OpenAI + Anthropic wire formats, scripted replies, fault and latency injection,
// request statistics. Plain Node ESM, no dependencies. See README.md in this folder.
//
//   import { startFakeLlm } from "./server.mjs";
//   const fake = await startFakeLlm({ port: 0, script: { rules: [...] }, latencyMs: 0 });
//   node test/fake-llm/server.mjs --port 9797 [--host 127.0.0.1] [--script file.json] [--latency-ms N]
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import { pathToFileURL } from "node:url";
import { faultStatus, RuleBook } from "./rules.mjs";
import * as anthropic from "./wire-anthropic.mjs";
import * as openai from "./wire-openai.mjs";

export const ENDPOINTS = ["openai.chat", "openai.embeddings", "anthropic.messages"];
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const REQUEST_LOG_SIZE = 500;

const ROUTES = {
  "/v1/chat/completions": "openai.chat",
  "/chat/completions": "openai.chat",
  "/v1/embeddings": "openai.embeddings",
  "/embeddings": "openai.embeddings",
  "/v1/messages": "anthropic.messages",
  "/messages": "anthropic.messages",
};

const emptyCounts = () => Object.fromEntries(ENDPOINTS.map((e) => [e, 0]));
const newCounter = () => ({ total: 0, by_endpoint: emptyCounts(), in_flight: 0, peak_in_flight: 0, over_cap: 0, faults: {}, repeats: 0 });

/** Request counters, overall and per model; `in_flight` falls when the response closes. */
class Stats {
  constructor() {
    this.reset();
  }
  reset() {
    this.all = newCounter();
    this.models = new Map();
    this.answered = new Set();
  }
  /**
   * A request answered successfully: counted in `repeats` when the same body was already answered
   * successfully — a call its client paid for twice (identical prompts of replicates count too).
   */
  answeredOk(endpoint, model, body) {
    const key = createHash("sha1")
      .update(`${endpoint}\n${JSON.stringify(body)}`)
      .digest("hex");
    if (!this.answered.has(key)) return void this.answered.add(key);
    for (const c of [this.all, this.models.get(model)]) if (c) c.repeats += 1;
  }
  /** @returns {() => void} call once when the response is closed */
  begin(endpoint, model) {
    if (!this.models.has(model)) this.models.set(model, newCounter());
    const counters = [this.all, this.models.get(model)];
    for (const c of counters) {
      c.total += 1;
      c.by_endpoint[endpoint] += 1;
      c.in_flight += 1;
      c.peak_in_flight = Math.max(c.peak_in_flight, c.in_flight);
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      for (const c of counters) c.in_flight -= 1;
    };
  }
  /** A request a fault rule answered, counted by fault name. */
  fault(model, fault) {
    for (const c of [this.all, this.models.get(model)]) if (c) c.faults[fault] = (c.faults[fault] ?? 0) + 1;
  }
  inFlight(model) {
    return this.models.get(model)?.in_flight ?? 0;
  }
  /** A request refused by the concurrency cap: counted, never in flight. */
  refuse(endpoint, model) {
    if (!this.models.has(model)) this.models.set(model, newCounter());
    for (const c of [this.all, this.models.get(model)]) {
      c.total += 1;
      c.by_endpoint[endpoint] += 1;
      c.over_cap += 1;
    }
  }
  snapshot(model) {
    const copy = (c) => ({ ...c, by_endpoint: { ...c.by_endpoint }, faults: { ...c.faults } });
    if (model !== undefined && model !== null) return { model, ...copy(this.models.get(model) ?? newCounter()) };
    const by_model = {};
    for (const [name, c] of this.models) by_model[name] = copy(c);
    return { ...copy(this.all), by_model };
  }
}

function loadScript(script) {
  if (script === undefined || script === null) return [];
  const parsed = typeof script === "string" ? JSON.parse(readFileSync(script, "utf8")) : script;
  const rules = Array.isArray(parsed) ? parsed : parsed?.rules;
  if (!Array.isArray(rules)) throw new Error('fake-llm script: expected { "rules": [...] }');
  return rules;
}

/** A JSON answer (nothing once the client has gone or headers were sent); also used by test/mcp-server. */
export function sendJson(res, status, body, headers = {}) {
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The request body as text, refused past MAX_BODY_BYTES; also used by test/mcp-server. */
export function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) reject(new Error("body too large"));
      else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** 200 and its headers at once, then one byte of a JSON body a second, until the client gives up. */
function trickle(res) {
  res.writeHead(200, { "content-type": "application/json" });
  const text = '{"id":"trickle","choices":[{"index":0,"message":{"role":"assistant","content":"slow"}}]}';
  let i = 0;
  const timer = setInterval(() => {
    if (res.destroyed || i >= text.length) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(text[i++]);
  }, 1000);
  res.once("close", () => clearInterval(timer));
}

const sleep = (ms, res) =>
  new Promise((resolve) => {
    if (ms <= 0) return resolve();
    const t = setTimeout(resolve, ms);
    res.once("close", () => {
      clearTimeout(t);
      resolve();
    });
  });

/**
 * @param {{ port?: number, host?: string, script?: string | { rules: unknown[] } | unknown[], latencyMs?: number, maxInFlight?: number }} [options]
 *   maxInFlight: a provider's concurrency cap; a request arriving while that many are in flight gets 429 at once
 */
export async function startFakeLlm({
  port = 0,
  host = "127.0.0.1",
  script,
  latencyMs = 0,
  maxInFlight = Infinity,
  requestLogSize = REQUEST_LOG_SIZE,
} = {}) {
  const book = new RuleBook(loadScript(script));
  const stats = new Stats();
  const requestLog = [];
  /** Per model: arrival times of the requests answered without a fault (the rpm window). */
  const admittedAt = new Map();
  let seq = 0;

  async function handleLlm(endpoint, body, res, credential, headers) {
    const wire = endpoint === "anthropic.messages" ? anthropic : openai;
    const call =
      endpoint === "openai.chat"
        ? openai.describeChat(body)
        : endpoint === "openai.embeddings"
          ? openai.describeEmbeddings(body)
          : anthropic.describeMessages(body);
    const id = ++seq;
    if (stats.all.in_flight >= maxInFlight) {
      stats.refuse(endpoint, call.model);
      return sendJson(res, 429, wire.errorBody(429, `fake-llm concurrency cap: ${maxInFlight} requests in flight`));
    }
    const finished = stats.begin(endpoint, call.model);
    res.once("close", finished);
    const entry = { seq: id, at: Date.now(), endpoint, model: call.model, kind: call.kind, body, credential, headers };
    requestLog.push(entry);
    res.once("close", () => {
      entry.closed_at = Date.now();
    });
    if (requestLog.length > requestLogSize) requestLog.shift();

    entry.in_flight = stats.inFlight(call.model);
    // The requests of this model answered without a fault in the last 60 s (rules' rpm_above).
    const admitted = (admittedAt.get(call.model) ?? []).filter((t) => t > entry.at - 60_000);
    admittedAt.set(call.model, admitted);
    const rpm_retry_after_s = admitted.length ? Math.max(1, Math.ceil((admitted[0] + 60_000 - entry.at) / 1000)) : 1;
    const reply = book.match({ ...call, in_flight: entry.in_flight, admitted_last_minute: admitted.length, rpm_retry_after_s });
    if (!reply?.fault) admitted.push(entry.at);
    if (reply?.fault) {
      entry.fault = reply.fault;
      stats.fault(call.model, reply.fault);
    }
    if (reply?.retry_after_s !== undefined) entry.retry_after_s = reply.retry_after_s;
    await sleep(reply?.latency_ms ?? latencyMs, res);
    if (res.destroyed) return;

    const fault = reply?.fault;
    if (fault === "hang") return; // never answer; `in_flight` drops when the client goes away
    entry.replied_at = Date.now();
    const status = fault ? faultStatus(fault) : null;
    if (status !== null) {
      const headers = reply.retry_after_s !== undefined ? { "retry-after": String(reply.retry_after_s) } : {};
      const body = wire.errorBody(status, reply.error_message ?? `fake-llm injected fault ${fault}`);
      // OpenAI's answer when the account's credit is spent: a 429 that no retry will cure.
      if (fault === "quota" && body.error) Object.assign(body.error, { type: "insufficient_quota", code: "insufficient_quota" });
      return sendJson(res, status, body, headers);
    }
    if (fault === "trickle") return trickle(res);
    if (fault !== "malformed" && fault !== "truncated" && fault !== "refusal") stats.answeredOk(endpoint, call.model, body);
    if (endpoint === "openai.chat") return sendJson(res, 200, openai.chatCompletion(call, body, reply, id));
    if (endpoint === "openai.embeddings") return sendJson(res, 200, openai.embeddingsResponse(call, body));
    return sendJson(res, 200, anthropic.message(call, reply, id));
  }

  async function handle(req, res) {
    const url = new URL(req.url ?? "/", "http://fake-llm");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const method = req.method ?? "GET";
    const raw = method === "POST" ? await readBody(req) : "";
    let body = {};
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        return sendJson(res, 400, { error: { message: "body is not JSON", type: "invalid_request_error" } });
      }
    }

    if (method === "GET" && path === "/health") return sendJson(res, 200, { ok: true });
    if (method === "GET" && path === "/stats") return sendJson(res, 200, stats.snapshot(url.searchParams.get("model") ?? undefined));
    if (method === "POST" && path === "/_admin/rules") {
      try {
        const total = book.add(body?.rules);
        return sendJson(res, 200, { ok: true, added: body.rules.length, total_rules: total });
      } catch (e) {
        return sendJson(res, 400, { ok: false, error: String(e?.message ?? e) });
      }
    }
    if (method === "POST" && path === "/_admin/reset") {
      book.reset();
      stats.reset();
      requestLog.length = 0;
      return sendJson(res, 200, { ok: true });
    }
    if (method === "GET" && path === "/_admin/requests") {
      const model = url.searchParams.get("model");
      return sendJson(res, 200, { requests: requestLog.filter((r) => model === null || r.model === model) });
    }
    const endpoint = ROUTES[path];
    if (method === "POST" && endpoint) {
      if (body === null || typeof body !== "object" || Array.isArray(body)) {
        return sendJson(res, 400, { error: { message: "body must be a JSON object", type: "invalid_request_error" } });
      }
      // The key the client sent (tests check which key reached the provider).
      const credential = req.headers["x-api-key"] ?? req.headers.authorization?.replace(/^Bearer\s+/i, "") ?? null;
      // The other headers as they arrived (tests check what reached the provider's side); the key is in `credential`.
      const { authorization: _a, "x-api-key": _k, ...headers } = req.headers;
      return handleLlm(endpoint, body, res, credential, headers);
    }
    return sendJson(res, 404, { error: { message: `no route for ${method} ${path}`, type: "not_found" } });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => sendJson(res, 500, { error: { message: String(e?.message ?? e), type: "server_error" } }));
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(undefined));
  });
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  const urlHost = host.includes(":") ? `[${host}]` : host;

  return {
    port: address.port,
    url: `http://${urlHost}:${address.port}`,
    /** Closes the server, dropping hanging and keep-alive connections. */
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve(undefined));
        server.closeAllConnections();
      }),
    /** @param {string} [model] */
    stats: (model) => stats.snapshot(model),
    reset: () => {
      book.reset();
      stats.reset();
      requestLog.length = 0;
    },
    /** Appends rules (throws on an invalid one). Returns the number of rules now loaded. */
    addRules: (rules) => book.add(rules),
    /** The last requests (bodies as received), optionally for one model. */
    requests: (model) => requestLog.filter((r) => model === undefined || r.model === model),
  };
}

function parseArgs(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "--port") opts.port = Number(value());
    else if (flag === "--host") opts.host = value();
    else if (flag === "--script") opts.script = value();
    else if (flag === "--latency-ms") opts.latencyMs = Number(value());
    else if (flag === "--max-in-flight") opts.maxInFlight = Number(value());
    else throw new Error(`unknown option ${argv[i]} (use --port, --host, --script, --latency-ms, --max-in-flight)`);
  }
  return opts;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fake = await startFakeLlm(parseArgs(process.argv.slice(2)));
  console.log(`fake-llm listening on ${fake.url}`);
  const stop = () => fake.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
