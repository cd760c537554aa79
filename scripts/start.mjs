#!/usr/bin/env node
// npm start — run examples/basic end to end on the local stack and check every verdict.
//
// Provider, picked from the environment (first match wins):
//   OPENAI_API_KEY    [+ OPENAI_BASE_URL]     → interface "openai"
//   ANTHROPIC_API_KEY [+ ANTHROPIC_BASE_URL]  → interface "anthropic"
//   EDGEVAL_OPENAI_COMPATIBLE_BASE_URL [+ EDGEVAL_OPENAI_COMPATIBLE_MODEL] → "openai_compatible"
//   otherwise the bundled offline judge: the fake LLM server with examples/basic/fake-script.json.
// EDGEVAL_ANSWERING_MODEL / EDGEVAL_PARSING_MODEL override the model names.
//
// Flags: --timeout <s> (default 180)  --no-expect (do not compare with expected.json)  --verbose
// Exit 0 only if the run completed and every verdict matches examples/basic/expected.json.
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT, reloadHint, startLocalStack } from "./lib/local-stack.mjs";
import { apiClient, compareVerdicts, formatSummary, summarize } from "./lib/runs.mjs";

const EXAMPLE = path.join(REPO_ROOT, "examples/basic");
const readJson = (f) => JSON.parse(fs.readFileSync(path.join(EXAMPLE, f), "utf8"));

function parseArgs(argv) {
  const opts = { timeoutS: 180, expect: true, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--timeout") opts.timeoutS = Number(argv[++i]);
    else if (a.startsWith("--timeout=")) opts.timeoutS = Number(a.slice("--timeout=".length));
    else if (a === "--no-expect") opts.expect = false;
    else if (a === "--verbose") opts.verbose = true;
    else throw new Error(`unknown option ${a} (use --timeout <s>, --no-expect, --verbose)`);
  }
  if (!(opts.timeoutS > 0)) throw new Error("--timeout needs a number of seconds > 0");
  return opts;
}

/**
 * @returns {{ name: string, interface: string, models: {alpha: string, beta: string, judge: string},
 *             baseUrl?: string, secrets: Record<string, string>, offline: boolean }}
 */
function pickProvider(env) {
  const names = (alpha, beta, judge) => ({
    alpha: env.EDGEVAL_ANSWERING_MODEL || alpha,
    beta: env.EDGEVAL_ANSWERING_MODEL || beta,
    judge: env.EDGEVAL_PARSING_MODEL || judge,
  });
  if (env.OPENAI_API_KEY) {
    return {
      name: "OpenAI",
      interface: "openai",
      models: names("gpt-4.1-mini", "gpt-4.1-nano", "gpt-4.1-mini"),
      baseUrl: env.OPENAI_BASE_URL || undefined,
      secrets: { OPENAI_API_KEY: env.OPENAI_API_KEY },
      offline: false,
    };
  }
  if (env.ANTHROPIC_API_KEY) {
    return {
      name: "Anthropic",
      interface: "anthropic",
      models: names("claude-sonnet-4-5", "claude-haiku-4-5", "claude-haiku-4-5"),
      baseUrl: env.ANTHROPIC_BASE_URL || undefined,
      secrets: { ANTHROPIC_API_KEY: env.ANTHROPIC_API_KEY },
      offline: false,
    };
  }
  if (env.EDGEVAL_OPENAI_COMPATIBLE_BASE_URL) {
    const m = env.EDGEVAL_OPENAI_COMPATIBLE_MODEL || "llama3.1:8b";
    return {
      name: "OpenAI-compatible server",
      interface: "openai_compatible",
      models: names(m, m, m),
      baseUrl: env.EDGEVAL_OPENAI_COMPATIBLE_BASE_URL,
      secrets: {},
      offline: false,
    };
  }
  return {
    name: "bundled offline judge",
    interface: "openai_compatible",
    models: { alpha: "edgeval-fake-alpha", beta: "edgeval-fake-beta", judge: "edgeval-fake-judge" },
    secrets: {},
    offline: true,
  };
}

/** The example config with the provider's interface, model names and base URL put in. */
function configFor(provider, baseConfig) {
  const adapt = (m) => {
    const { base_url: _ignored, ...rest } = m;
    const out = { ...rest, interface: provider.interface, model_name: provider.models[m.id] ?? m.model_name };
    if (provider.baseUrl) out.base_url = provider.baseUrl;
    return out;
  };
  return {
    ...baseConfig,
    answering_models: baseConfig.answering_models.map(adapt),
    parsing_models: baseConfig.parsing_models.map(adapt),
  };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const provider = pickProvider(process.env);
  const benchmark = readJson("benchmark.json");
  const baseConfig = readJson("config.json");
  const expected = readJson("expected.json");

  if (provider.offline) {
    console.log(
      "No OPENAI_API_KEY, ANTHROPIC_API_KEY or EDGEVAL_OPENAI_COMPATIBLE_BASE_URL set: using the bundled offline judge (a fake LLM scripted by examples/basic/fake-script.json), no real model is called.",
    );
  } else {
    const where = provider.baseUrl ? ` at ${provider.baseUrl}` : "";
    console.log(
      `Provider: ${provider.name}${where}; models ${provider.models.alpha}, ${provider.models.beta} (answering), ${provider.models.judge} (judge).`,
    );
  }

  const t0 = Date.now();
  const stack = await startLocalStack({
    fake: provider.offline ? { script: path.join(EXAMPLE, "fake-script.json") } : false,
    secrets: provider.secrets,
    // A key goes only to its provider or to an origin the deployment allows (src/llm/key-origins.ts).
    vars: provider.baseUrl && Object.keys(provider.secrets).length > 0 ? { EDGEVAL_KEY_ORIGINS: provider.baseUrl } : {},
    onLog: opts.verbose ? (l) => console.log(`  [wrangler] ${l}`) : undefined,
    say: (m) => console.log(`  ${m}`),
  });
  let ok = false;
  try {
    if (provider.offline) provider.baseUrl = `${stack.fake.url}/v1`;
    const config = configFor(provider, baseConfig);
    const api = apiClient(stack.url, stack.token);

    const submitted = await api.submit({ benchmark, config, run_name: "examples/basic via npm start" });
    const runId = submitted.run_id;
    console.log(
      `Submitted run ${runId}: ${benchmark.questions.length} questions × ${config.answering_models.length} answering × ${config.parsing_models.length} parsing × ${config.replicate_count} replicates (POST ${submitted.submit_ms.toFixed(0)} ms)`,
    );

    let run;
    try {
      run = await api.waitForRun(runId, {
        timeoutMs: opts.timeoutS * 1000,
        onProgress: (r, ms) => {
          const p = r?.progress ?? {};
          console.log(`  [${(ms / 1000).toFixed(1).padStart(5)} s] ${String(r?.status).padEnd(9)} ${p.done ?? "?"}/${p.total ?? "?"}`);
        },
      });
    } catch (err) {
      console.error(`\nFAILED: ${err.message}`);
      console.error("Last lines of wrangler dev:\n" + stack.tail(30));
      if (stack.reloads) console.error(reloadHint(stack));
      return 1;
    }
    console.log(`Run ${runId} ${run.status} in ${((Date.now() - t0) / 1000).toFixed(1)} s since start.`);

    const results = await api.allResults(runId);
    const rows = summarize(results);
    console.log(`\n${results.length} results\n${formatSummary(rows)}\n`);
    checkServerSummary(run, rows);

    if (provider.offline) {
      const s = stack.fake.stats();
      const count = (model) => s.by_model?.[model]?.total ?? 0;
      const answering = count(provider.models.alpha) + count(provider.models.beta);
      console.log(
        `Fake LLM: ${answering} answering calls, ${count(provider.models.judge)} judge calls (${s.total} in all, peak ${s.peak_in_flight} in flight).`,
      );
    }

    ok = run.status === "completed";
    if (!ok) console.error(`FAILED: run ended with status ${run.status}, not completed.`);
    if (opts.expect) ok = reportComparison(results, expected, provider) && ok;
    if (!ok && stack.reloads) console.error(reloadHint(stack));
    return ok ? 0 : 1;
  } finally {
    await stack.stop();
    console.log(ok ? "OK: every verdict matches examples/basic/expected.json." : "Stopped the local stack.");
  }
}

/** Warns when the service's own summary disagrees with the counts computed from the results. */
function checkServerSummary(run, rows) {
  for (const s of run.summary ?? []) {
    const mine = rows.find((r) => r.answering_model === s.answering_model && r.parsing_model === s.parsing_model);
    const same = mine && ["total", "passed", "failed", "errored"].every((k) => mine[k] === s[k]);
    if (!same)
      console.log(
        `WARNING: the service's summary for ${s.answering_model}/${s.parsing_model} says ${JSON.stringify(s)}, the results say ${JSON.stringify(mine ?? null)}`,
      );
  }
}

function reportComparison(results, expected, provider) {
  const { missing, extra, duplicate, different } = compareVerdicts(results, expected);
  const n = Object.keys(expected).length;
  if (!missing.length && !extra.length && !duplicate.length && !different.length) {
    console.log(`Verdicts: all ${n} match expected.json.`);
    return true;
  }
  console.error(`Verdicts: ${n - missing.length - different.length}/${n} match expected.json.`);
  for (const d of different) console.error(`  different ${d.key}: expected ${d.expected}, got ${d.got} (${d.why})`);
  for (const k of missing) console.error(`  missing   ${k}`);
  for (const k of extra) console.error(`  extra     ${k}`);
  for (const k of duplicate) console.error(`  duplicate ${k}`);
  if (!provider.offline && !provider.baseUrl?.startsWith("http://127.0.0.1")) {
    console.error(
      "  (expected.json holds the bundled offline judge's verdicts; a real model answers differently. Use --no-expect to skip this check.)",
    );
  }
  return false;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`FAILED: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
