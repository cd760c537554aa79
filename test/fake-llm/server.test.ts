// The fake LLM server itself (plain Node): rule engine, schema defaults, faults, stats.
// Each test starts its own server, so reset() and stats are private to it.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { cosine, embedText } from "./embed.mjs";
// @ts-expect-error plain-Node module without types
import { RuleBook, validateRule } from "./rules.mjs";
// @ts-expect-error plain-Node module without types
import { defaultFromSchema } from "./schema-default.mjs";
// @ts-expect-error plain-Node module without types
import { startFakeLlm as startUntyped } from "./server.mjs";
import { tempDirs } from "../support/temp-dirs";

const tempDir = tempDirs();

interface Counter {
  total: number;
  by_endpoint: Record<string, number>;
  in_flight: number;
  peak_in_flight: number;
  faults: Record<string, number>;
  repeats: number;
}
interface Fake {
  port: number;
  url: string;
  close(): Promise<void>;
  stats(model?: string): Counter & { by_model: Record<string, Counter> };
  reset(): void;
  addRules(rules: unknown[]): number;
}
const startFakeLlm = startUntyped as (o?: { script?: unknown; latencyMs?: number }) => Promise<Fake>;

let fake: Fake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
async function start(opts: { script?: unknown; latencyMs?: number } = {}) {
  fake = await startFakeLlm(opts);
  return fake;
}
const post = (f: Fake, path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${f.url}${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" }, signal });
const chat = (model: string, content: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: "user", content }],
  ...extra,
});
const anthropicBody = (model: string, content: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 100,
  messages: [{ role: "user", content }],
  ...extra,
});

describe("defaultFromSchema", () => {
  it("builds a value from every property, picking the first non-null branch", () => {
    const schema = {
      type: "object",
      properties: {
        s: { type: "string" },
        i: { type: "integer" },
        n: { type: "number", minimum: 2 },
        b: { type: "boolean" },
        e: { enum: ["first", "second"] },
        a: { type: "array", items: { type: "string" } },
        o: { type: "object", properties: { deep: { type: "string" } } },
        nullable: { type: ["integer", "null"] },
        any: { anyOf: [{ type: "null" }, { type: "string" }] },
        ref: { $ref: "#/$defs/Thing" },
        optional: { type: "string", format: "date" },
      },
      required: ["s"],
      $defs: { Thing: { type: "object", properties: { x: { type: "boolean" } } } },
    };
    expect(defaultFromSchema(schema)).toEqual({
      s: "fake",
      i: 0,
      n: 2,
      b: true,
      e: "first",
      a: [],
      o: { deep: "fake" },
      nullable: 0,
      any: "fake",
      ref: { x: true },
      optional: "1970-01-01",
    });
  });

  it("stops on recursive schemas instead of looping", () => {
    const schema = { $ref: "#/$defs/Node", $defs: { Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } } } } };
    expect(JSON.stringify(defaultFromSchema(schema))).toContain("null");
  });
});

describe("rule engine", () => {
  const call = (over: Partial<{ model: string; kind: string; text: string }> = {}) => ({
    model: "m",
    kind: "chat",
    text: "hello",
    ...over,
  });

  it("rejects unknown keys so a typo cannot match everything", () => {
    expect(validateRule({ match: { modle: "x" }, reply: {} })).toMatch(/unknown key "modle"/);
    expect(validateRule({ reply: { fault: "418" } })).toMatch(/fault/);
    expect(validateRule({ reply: {}, times: 0 })).toMatch(/times/);
    expect(validateRule({ match: { kind: "structured", contains: "x" }, reply: { json: 1 }, times: 2 })).toBeNull();
  });

  it("uses the first live match and skips a rule once its `times` are spent", () => {
    const book = new RuleBook([{ match: { model: "m" }, reply: { fault: "500" }, times: 1 }]);
    book.add([{ match: { model: "m" }, reply: { text: "ok" } }, { reply: { text: "never" } }]);
    expect(book.match(call())).toEqual({ fault: "500" });
    expect(book.match(call())).toEqual({ text: "ok" });
    expect(book.match(call())).toEqual({ text: "ok" });
    expect(book.match(call({ model: "other" }))).toEqual({ text: "never" });
  });

  it("matches on kind and on a substring of the request text", () => {
    const book = new RuleBook();
    book.add([
      { match: { kind: "structured" }, reply: { text: "s" } },
      { match: { contains: "needle" }, reply: { text: "n" } },
    ]);
    expect(book.match(call({ kind: "structured" }))).toEqual({ text: "s" });
    expect(book.match(call({ text: "hay needle hay" }))).toEqual({ text: "n" });
    expect(book.match(call())).toBeNull();
  });

  it("reset drops added rules and re-arms script rules", () => {
    const book = new RuleBook([{ reply: { text: "script" }, times: 1 }]);
    book.add([{ reply: { text: "added" } }]);
    expect(book.match(call())).toEqual({ text: "script" });
    expect(book.match(call())).toEqual({ text: "added" });
    book.reset();
    expect(book.match(call())).toEqual({ text: "script" });
    expect(book.match(call())).toBeNull();
  });
});

describe("embeddings", () => {
  it("are deterministic, unit length, and closer for texts that share words", () => {
    const a = embedText("the capital of France is Paris");
    expect(embedText("the capital of France is Paris")).toEqual(a);
    expect(Math.hypot(...a)).toBeCloseTo(1, 10);
    const near = cosine(a, embedText("Paris is the capital"));
    const far = cosine(a, embedText("quantum chromodynamics lattice"));
    expect(near).toBeGreaterThan(far);
    expect(cosine(a, a)).toBeCloseTo(1, 10);
  });
});

describe("HTTP server", () => {
  it("answers chat by default with the first 80 chars of the last user message, with usage", async () => {
    const f = await start();
    const long = "x".repeat(100);
    const res = await post(f, "/v1/chat/completions", chat("m", long));
    const body = await res.json<any>();
    expect(body.choices[0].message.content).toBe(`fake answer to: ${"x".repeat(80)}`);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
    // also without the /v1 prefix
    expect((await post(f, "/chat/completions", chat("m", "hi"))).status).toBe(200);
  });

  it("generates structured output from the requested schema (OpenAI json_schema and json_object)", async () => {
    const f = await start();
    const schema = { type: "object", properties: { ok: { type: "boolean" }, n: { type: "integer" } }, required: ["ok"] };
    const res = await post(
      f,
      "/v1/chat/completions",
      chat("m", "q", { response_format: { type: "json_schema", json_schema: { name: "x", schema } } }),
    );
    expect(JSON.parse((await res.json<any>()).choices[0].message.content)).toEqual({ ok: true, n: 0 });
    const obj = await post(f, "/v1/chat/completions", chat("m", "q", { response_format: { type: "json_object" } }));
    expect(JSON.parse((await obj.json<any>()).choices[0].message.content)).toEqual({});
  });

  it("answers an Anthropic forced tool with a tool_use block built from its input_schema", async () => {
    const f = await start();
    const tools = [{ name: "verdict", input_schema: { type: "object", properties: { correct: { type: "boolean" } } } }];
    const res = await post(f, "/v1/messages", anthropicBody("m", "q", { tools, tool_choice: { type: "tool", name: "verdict" } }));
    const body = await res.json<any>();
    expect(body.content).toEqual([expect.objectContaining({ type: "tool_use", name: "verdict", input: { correct: true } })]);
    expect(body.stop_reason).toBe("tool_use");
    expect(body.usage.input_tokens).toBeGreaterThan(0);
  });

  it("serves scripted json, text and tool calls on both wire formats", async () => {
    const f = await start();
    f.addRules([
      { match: { model: "j", kind: "structured" }, reply: { json: { a: 1 } } },
      { match: { model: "t", kind: "tools" }, reply: { tool_calls: [{ name: "lookup", arguments: { q: "x" } }] } },
    ]);
    const rf = { type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } };
    const oj = await (await post(f, "/v1/chat/completions", chat("j", "q", { response_format: rf }))).json<any>();
    expect(JSON.parse(oj.choices[0].message.content)).toEqual({ a: 1 });
    const aj = await (
      await post(
        f,
        "/v1/messages",
        anthropicBody("j", "q", { tools: [{ name: "s", input_schema: { type: "object" } }], tool_choice: { type: "tool", name: "s" } }),
      )
    ).json<any>();
    expect(aj.content[0]).toMatchObject({ type: "tool_use", name: "s", input: { a: 1 } });

    const tools = [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }];
    const ot = await (await post(f, "/v1/chat/completions", chat("t", "q", { tools }))).json<any>();
    expect(ot.choices[0].finish_reason).toBe("tool_calls");
    expect(ot.choices[0].message.tool_calls[0].function).toEqual({ name: "lookup", arguments: '{"q":"x"}' });
    const at = await (
      await post(f, "/v1/messages", anthropicBody("t", "q", { tools: [{ name: "lookup", input_schema: { type: "object" } }] }))
    ).json<any>();
    expect(at.content[0]).toMatchObject({ type: "tool_use", name: "lookup", input: { q: "x" } });
  });

  it("matches `contains` against system and assistant text too", async () => {
    const f = await start();
    f.addRules([{ match: { contains: "SYSTEM-MARK" }, reply: { text: "from system" } }]);
    const res = await post(f, "/v1/messages", anthropicBody("m", "hi", { system: "you are SYSTEM-MARK" }));
    expect((await res.json<any>()).content[0].text).toBe("from system");
  });

  it("injects 429 with retry-after, 500, and Anthropic's 529 overloaded_error", async () => {
    const f = await start();
    f.addRules([
      { match: { model: "rl" }, reply: { fault: "429", retry_after_s: 3 } },
      { match: { model: "boom" }, reply: { fault: "500" } },
      { match: { model: "ov" }, reply: { fault: "529" } },
    ]);
    const rl = await post(f, "/v1/chat/completions", chat("rl", "q"));
    expect(rl.status).toBe(429);
    expect(rl.headers.get("retry-after")).toBe("3");
    expect((await post(f, "/v1/messages", anthropicBody("boom", "q"))).status).toBe(500);
    const ov = await post(f, "/v1/messages", anthropicBody("ov", "q"));
    expect(ov.status).toBe(529);
    expect(await ov.json<any>()).toMatchObject({ type: "error", error: { type: "overloaded_error" } });
  });

  it("answers `malformed` with 200 and prose that is not JSON (and no tool_use)", async () => {
    const f = await start();
    f.addRules([{ match: { model: "bad" }, reply: { fault: "malformed" } }]);
    const rf = { type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } };
    const o = await (await post(f, "/v1/chat/completions", chat("bad", "q", { response_format: rf }))).json<any>();
    expect(() => JSON.parse(o.choices[0].message.content)).toThrow();
    const a = await (
      await post(
        f,
        "/v1/messages",
        anthropicBody("bad", "q", { tools: [{ name: "s", input_schema: { type: "object" } }], tool_choice: { type: "tool", name: "s" } }),
      )
    ).json<any>();
    expect(a.content.map((b: { type: string }) => b.type)).toEqual(["text"]);
  });

  it("injects the other statuses, OpenAI's insufficient_quota 429, truncated and refused output, and counts faults per model", async () => {
    const f = await start();
    f.addRules([
      ...["502", "503", "403", "404", "413", "quota"].map((fault) => ({ match: { model: fault }, reply: { fault } })),
      { match: { model: "cut" }, reply: { fault: "truncated", text: "Paris is the capital!" } },
      { match: { model: "no" }, reply: { fault: "refusal" } },
    ]);
    for (const status of ["502", "503", "403", "404", "413"])
      expect((await post(f, "/v1/chat/completions", chat(status, "q"))).status).toBe(Number(status));
    const quota = await post(f, "/v1/chat/completions", chat("quota", "q"));
    expect(quota.status).toBe(429);
    expect(await quota.json<any>()).toMatchObject({ error: { type: "insufficient_quota", code: "insufficient_quota" } });
    const cut = (await (await post(f, "/v1/chat/completions", chat("cut", "q"))).json<any>()).choices[0];
    expect(cut).toMatchObject({ finish_reason: "length", message: { content: "Paris is t" } });
    const no = (await (await post(f, "/v1/chat/completions", chat("no", "q"))).json<any>()).choices[0];
    expect(no.message).toMatchObject({ content: null, refusal: expect.stringContaining("can't") });
    const cutA = await (await post(f, "/v1/messages", anthropicBody("cut", "q"))).json<any>();
    expect(cutA).toMatchObject({ stop_reason: "max_tokens", content: [{ type: "text", text: "Paris is t" }] });
    expect(f.stats("quota").faults).toEqual({ quota: 1 });
    expect(f.stats("cut").faults).toEqual({ truncated: 2 });
  });

  it("counts a successful answer to a body it already answered as a repeat (a call paid twice)", async () => {
    const f = await start();
    f.addRules([{ match: { model: "rep" }, reply: { fault: "500" }, times: 1 }]);
    await post(f, "/v1/chat/completions", chat("rep", "same")); // 500: not answered
    await post(f, "/v1/chat/completions", chat("rep", "same"));
    await post(f, "/v1/chat/completions", chat("rep", "other"));
    expect(f.stats("rep").repeats).toBe(0);
    await post(f, "/v1/chat/completions", chat("rep", "same"));
    expect(f.stats("rep")).toMatchObject({ total: 4, repeats: 1 });
  });

  it("enforces a requests-per-minute window with rpm_above: a 429 saying when the window admits one more", async () => {
    const f = await start();
    f.addRules([{ match: { model: "rpm", rpm_above: 2 }, reply: { fault: "429" } }]);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(f, "/v1/chat/completions", chat("rpm", `q${i}`))).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
    const refused = await post(f, "/v1/chat/completions", chat("rpm", "q"));
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(59);
  });

  it("trickles a 200 body at one byte a second until the client gives up", async () => {
    const f = await start();
    f.addRules([{ match: { model: "slow" }, reply: { fault: "trickle" } }]);
    const res = await post(f, "/v1/chat/completions", chat("slow", "q"), AbortSignal.timeout(1_500));
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    await expect.poll(() => f.stats("slow").in_flight).toBe(0);
  });

  it("hangs until the client gives up, then in_flight falls back to 0", async () => {
    const f = await start();
    f.addRules([{ match: { model: "hang" }, reply: { fault: "hang" } }]);
    await expect(post(f, "/v1/chat/completions", chat("hang", "q"), AbortSignal.timeout(100))).rejects.toThrow();
    await expect.poll(() => f.stats("hang").in_flight).toBe(0);
    expect(f.stats("hang")).toMatchObject({ total: 1, peak_in_flight: 1 });
  });

  it("counts requests per endpoint and per model and records peak concurrency", async () => {
    const f = await start({ latencyMs: 50 });
    await Promise.all([1, 2, 3].map(() => post(f, "/v1/chat/completions", chat("p", "q")).then((r) => r.json<any>())));
    await (await post(f, "/v1/embeddings", { model: "e", input: "hello" })).json<any>();
    const s = f.stats();
    expect(s).toMatchObject({ total: 4, in_flight: 0, peak_in_flight: 3 });
    expect(s.by_endpoint).toEqual({ "openai.chat": 3, "openai.embeddings": 1, "anthropic.messages": 0 });
    expect(s.by_model.p).toMatchObject({ total: 3, peak_in_flight: 3 });
    const http = await (await fetch(`${f.url}/stats?model=e`)).json<any>();
    expect(http).toMatchObject({ model: "e", total: 1, by_endpoint: { "openai.embeddings": 1 } });
  });

  it("fires a probability rule on a repeatable share of matching requests (seeded)", async () => {
    const count = () => {
      const book = new RuleBook([{ match: { model: "p", probability: 0.2, seed: 7 }, reply: { fault: "500" } }]);
      return Array.from({ length: 1000 }, () => (book.match({ model: "p", kind: "chat", text: "" }) ? 1 : 0));
    };
    const a = count();
    const hits = a.reduce((n: number, x: number) => n + x, 0);
    expect(hits).toBeGreaterThan(150);
    expect(hits).toBeLessThan(250);
    expect(count()).toEqual(a);
    expect(validateRule({ match: { probability: 1.5 }, reply: {} })).toMatch(/probability/);
  });

  it("answers 429 only to requests above in_flight_above, and logs arrival time, fault and retry-after", async () => {
    const f = await start();
    f.addRules([
      { match: { model: "cap", in_flight_above: 2 }, reply: { fault: "429", retry_after_s: 1 } },
      { match: { model: "cap" }, reply: { text: "ok", latency_ms: 100 } },
    ]);
    const statuses = await Promise.all([1, 2, 3, 4].map(() => post(f, "/v1/chat/completions", chat("cap", "q")).then((r) => r.status)));
    expect(statuses.sort()).toEqual([200, 200, 429, 429]);
    const log = (await (await fetch(`${f.url}/_admin/requests?model=cap`)).json<any>()).requests;
    expect(log.filter((r: any) => r.fault === "429").every((r: any) => r.retry_after_s === 1 && r.replied_at >= r.at)).toBe(true);
    expect(log.every((r: any) => typeof r.at === "number")).toBe(true);
    expect(log.filter((r: any) => r.fault === "429").every((r: any) => r.in_flight > 2)).toBe(true);
    expect(log.filter((r: any) => r.fault === undefined).every((r: any) => r.in_flight <= 2)).toBe(true);
  });

  it("applies a rule's latency_ms", async () => {
    const f = await start();
    f.addRules([{ match: { model: "slow" }, reply: { latency_ms: 120 } }]);
    const t0 = performance.now();
    await (await post(f, "/v1/chat/completions", chat("slow", "q"))).json<any>();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(100);
  });

  it("appends rules over the admin API (script rules first) and resets them", async () => {
    const f = await start({ script: { rules: [{ match: { model: "s" }, reply: { text: "script" } }] } });
    const added = await post(f, "/_admin/rules", {
      rules: [
        { match: { model: "s" }, reply: { text: "added" } },
        { match: { model: "a" }, reply: { text: "added" } },
      ],
    });
    expect(await added.json<any>()).toMatchObject({ ok: true, added: 2, total_rules: 3 });
    const text = async (model: string) =>
      (await (await post(f, "/v1/chat/completions", chat(model, "q"))).json<any>()).choices[0].message.content;
    expect(await text("s")).toBe("script");
    expect(await text("a")).toBe("added");
    expect((await post(f, "/_admin/rules", { rules: [{ reply: { fault: "nope" } }] })).status).toBe(400);
    expect((await post(f, "/_admin/reset", {})).status).toBe(200);
    expect(await text("a")).toBe("fake answer to: q");
    expect(f.stats().total).toBe(1);
  });

  it("returns OpenAI embeddings as floats or base64 float32, and logprobs with top alternatives", async () => {
    const f = await start();
    const floats = await (await post(f, "/v1/embeddings", { model: "e", input: ["a b", "a b"] })).json<any>();
    expect(floats.data[0].embedding).toHaveLength(64);
    expect(floats.data[0].embedding).toEqual(floats.data[1].embedding);
    const b64 = await (await post(f, "/embeddings", { model: "e", input: "a b", encoding_format: "base64" })).json<any>();
    const bytes = Buffer.from(b64.data[0].embedding, "base64");
    expect(bytes.length).toBe(64 * 4);
    const lp = await (await post(f, "/v1/chat/completions", chat("m", "yes", { logprobs: true, top_logprobs: 3 }))).json<any>();
    const tokens = lp.choices[0].logprobs.content;
    expect(tokens.map((t: { token: string }) => t.token).join("")).toBe(lp.choices[0].message.content);
    expect(tokens[0].top_logprobs).toHaveLength(3);
    expect(tokens[0].top_logprobs[0].token).toBe(tokens[0].token);
  });

  it("runs from the command line with a script file and prints one line", async () => {
    const dir = tempDir("fake-llm-");
    const script = join(dir, "script.json");
    writeFileSync(script, JSON.stringify({ rules: [{ match: { model: "cli" }, reply: { text: "from cli" } }] }));
    const child = spawn(process.execPath, [join(import.meta.dirname, "server.mjs"), "--port", "0", "--script", script]);
    try {
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.once("data", (d: Buffer) => resolve(d.toString()));
        child.once("exit", (code) => reject(new Error(`exited ${code}`)));
      });
      const m = /^fake-llm listening on (http:\/\/127\.0\.0\.1:\d+)\n$/.exec(line);
      expect(m).not.toBeNull();
      const res = await fetch(`${m![1]}/v1/chat/completions`, { method: "POST", body: JSON.stringify(chat("cli", "q")) });
      expect((await res.json<any>()).choices[0].message.content).toBe("from cli");
    } finally {
      child.kill("SIGTERM");
    }
  });
});

describe("multi-turn scripts on the previous tool result", () => {
  const turnRules = [
    {
      match: { model: "m", last_tool_result: "Paris" },
      reply: { tool_calls: [{ name: "population_of", arguments: { city: "{{last_tool_result}}" } }] },
    },
    { match: { model: "m", kind: "tools" }, reply: { tool_calls: [{ name: "capital_of", arguments: { country: "France" } }] } },
  ];
  const tools = [{ type: "function", function: { name: "capital_of", parameters: { type: "object" } } }];

  it("RuleBook matches last_tool_result only when the last message is a tool result, and fills the reply from it", () => {
    const book = new RuleBook(turnRules);
    expect(book.match({ model: "m", kind: "tools", text: "Paris" })).toEqual(turnRules[1]!.reply);
    expect(book.match({ model: "m", kind: "tools", text: "q\nParis", lastToolResult: " Paris \n" })).toEqual({
      tool_calls: [{ name: "population_of", arguments: { city: "Paris" } }],
    });
    expect(validateRule({ match: { last_tool_result: 3 }, reply: {} })).toMatch(/last_tool_result: must be a string/);
  });

  it("reads the last tool result of an OpenAI and of an Anthropic conversation", async () => {
    const f = await start({ script: turnRules });
    const openai: any = await (
      await post(f, "/v1/chat/completions", {
        model: "m",
        tools,
        messages: [
          { role: "user", content: "q" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c1", type: "function", function: { name: "capital_of", arguments: "{}" } }],
          },
          { role: "tool", tool_call_id: "c1", content: "Paris" },
        ],
      })
    ).json();
    expect(JSON.parse(openai.choices[0].message.tool_calls[0].function.arguments)).toEqual({ city: "Paris" });
    const anthropic: any = await (
      await post(f, "/v1/messages", {
        model: "m",
        max_tokens: 10,
        tools: [{ name: "capital_of", input_schema: { type: "object" } }],
        messages: [
          { role: "user", content: "q" },
          { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "capital_of", input: {} }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "Paris" }] }] },
        ],
      })
    ).json();
    expect(anthropic.content.find((b: { type: string }) => b.type === "tool_use").input).toEqual({ city: "Paris" });
  });
});
