/**
 * `edgeval/client`: a typed client for edgeval's HTTP API, typed from the server's own zod
 * schemas (./types.ts). The CLI (cli/) and the e2e tests use it.
 *
 *   const ev = createClient({ url: "http://127.0.0.1:8787", token });
 *   const { run_id } = await ev.runs.create({ benchmark, config });
 *   for await (const e of ev.runs.events(run_id)) …          // SSE, or polling where absent
 *   for await (const r of ev.results.iterate(run_id)) …       // every result, page by page
 *   const file = await ev.exports.file(run_id, { format: "karenina" }) // a Response to stream to disk
 */
import { type RunEvent, watchRun, type WatchOptions } from "./events.ts";
import { type ClientOptions, enc, transport } from "./http.ts";
import { type RetryNotice, type RetryOptions, refusedUntaken, resendable, sleep, withRetries } from "./retry.ts";
import type * as W from "./types.ts";

export { EdgevalApiError, EdgevalConnectionError, type ClientOptions } from "./http.ts";
export { parseSse, pollRun, type RunEvent, type WatchOptions } from "./events.ts";
export { isTransient, type RetryNotice, type RetryOptions } from "./retry.ts";
export * from "./types.ts";

export interface ExportWaitOptions {
  pollMs?: number;
  /** How long an export may build; default 10 minutes. */
  timeoutMs?: number;
  /** Told before each retry of a failed poll, or of the file's GET. */
  onRetry?: (notice: RetryNotice) => void;
}

export interface PageQuery {
  limit?: number;
  cursor?: string | null;
}

/** GET /v1/runs's filters (src/schemas/api.ts RunListQuery). */
export interface RunFilter {
  status?: string | readonly W.RunStatusName[];
  benchmark_name?: string;
}

const qs = (q: Record<string, string | number | null | undefined>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
};

/** Follows next_cursor from the first page to the last, yielding each page. */
async function* pages<P extends { next_cursor: string | null }>(fetchPage: (cursor: string | null) => Promise<P>): AsyncGenerator<P> {
  let cursor: string | null = null;
  do {
    const page: P = await fetchPage(cursor);
    yield page;
    cursor = page.next_cursor;
  } while (cursor);
}

export function createClient(opts: ClientOptions) {
  const t = transport(opts);
  const run = (id: string) => `/v1/runs/${enc(id)}`;

  const runs = {
    /**
     * Submits a run. A 429 (a quota: the run was not taken) is retried after its Retry-After, and
     * with an idempotencyKey any blip too (retry.ts); `signal` bounds it all, besides timeoutMs.
     */
    create: (body: W.RunSubmission, o: { idempotencyKey?: string } & Omit<RetryOptions, "retryable"> = {}) =>
      withRetries(
        () =>
          t.json<W.SubmittedRun>("POST", "/v1/runs", {
            body,
            headers: o.idempotencyKey ? { "idempotency-key": o.idempotencyKey } : {},
            signal: o.signal,
          }),
        { ...o, retryable: o.idempotencyKey ? resendable : refusedUntaken },
      ),
    dryRun: (body: W.RunSubmission) => t.json<W.DryRunEstimate>("POST", "/v1/runs", { body: { ...body, dry_run: true } }),
    get: (id: string) => t.json<W.RunStatus>("GET", run(id)),
    /** Newest first; `status` keeps runs in any of those statuses (`"queued,running"`, or a list), `benchmark_name` those of one benchmark. */
    list: (q: PageQuery & RunFilter = {}) =>
      t.json<W.RunList>("GET", `/v1/runs${qs({ ...q, status: typeof q.status === "string" ? q.status : q.status?.join(",") })}`),
    iterate: async function* (q: { limit?: number } & RunFilter = {}) {
      for await (const p of pages((cursor) => runs.list({ ...q, cursor }))) yield* p.runs;
    },
    summary: (id: string, q: PageQuery = {}) => t.json<W.SummaryPage>("GET", `${run(id)}/summary${qs({ ...q })}`),
    /** Every (answering, parsing) pair, beyond the 100 GET /v1/runs/:id embeds; a page's GET is retried (retry.ts). */
    allPairs: async (id: string, o: RetryOptions = {}) => {
      const out: W.PairSummary[] = [];
      for await (const p of pages((cursor) => withRetries(() => runs.summary(id, { limit: 500, cursor }), o))) out.push(...p.summary);
      return out;
    },
    delete: (id: string) => t.json<W.DeletedRun>("DELETE", run(id)),
    /** Run b against run a result by result: flips per question, McNemar's exact p per model pair (one page of questions); a_parsing_model / b_parsing_model pair two judges. */
    compare: (
      q: { a: string; b: string; a_model?: string; b_model?: string; a_parsing_model?: string; b_parsing_model?: string } & PageQuery,
    ) => t.json<W.RunComparison>("GET", `/v1/runs/compare${qs({ ...q })}`),
    /** Re-scores a finished run: a child run with new judges, answering models, replicates or traits, reusing its answers. */
    /** A 429 (the tenant's quota: no child was made) is retried after its Retry-After, as create does. */
    rescore: (id: string, body: W.RescoreRequest, o: Omit<RetryOptions, "retryable"> = {}) =>
      withRetries(() => t.json<W.RescoreStarted>("POST", `${run(id)}/rescore`, { body, signal: o.signal }), {
        ...o,
        retryable: refusedUntaken,
      }),
    /** Stops a queued or running run; the run as GET gives it. An ended run: EdgevalApiError run_finished (409). */
    cancel: (id: string) => t.json<W.RunStatus>("POST", `${run(id)}/cancel`),
    /** Live events (SSE), or events made by polling where the server has no stream. */
    events: (id: string, o?: WatchOptions) => watchRun(t, id, o),
    /** Resolves with the final run once its status is terminal; a failed request is retried as `events` retries. */
    wait: async (id: string, o: WatchOptions & { onEvent?: (e: RunEvent) => void } = {}) => {
      for await (const e of watchRun(t, id, o)) o.onEvent?.(e);
      const retry = { maxRetries: o.maxReconnects, signal: o.signal, onRetry: o.onRetry };
      return withRetries(() => t.json<W.RunStatus>("GET", run(id), { signal: o.signal }), retry);
    },
  };

  const results = {
    page: (runId: string, q: PageQuery = {}) => t.json<W.ResultPage>("GET", `${run(runId)}/results${qs({ ...q })}`),
    pages: (runId: string, q: { limit?: number } = {}) => pages((cursor) => results.page(runId, { ...q, cursor })),
    /** Every result of the run, in result_id order (traces left out, as the list does). */
    iterate: async function* (runId: string, q: { limit?: number } = {}) {
      for await (const p of results.pages(runId, q)) yield* p.results;
    },
    get: (runId: string, resultId: string) => t.json<W.VerificationResult>("GET", `${run(runId)}/results/${enc(resultId)}`),
  };

  const benchmarks = {
    create: (body: W.BenchmarkBody) => t.json<W.BenchmarkListing>("POST", "/v1/benchmarks", { body }),
    /** A Karenina JSON-LD checkpoint, as an object or as its text. */
    import: (checkpoint: unknown, o: { signal?: AbortSignal } = {}) =>
      t.json<W.ImportedCheckpoint>("POST", "/v1/benchmarks/import", {
        body: checkpoint,
        contentType: "application/ld+json",
        signal: o.signal,
      }),
    list: (q: PageQuery = {}) => t.json<W.BenchmarkList>("GET", `/v1/benchmarks${qs({ ...q })}`),
    iterate: async function* (q: { limit?: number } = {}) {
      for await (const p of pages((cursor) => benchmarks.list({ ...q, cursor }))) yield* p.benchmarks;
    },
    get: (id: string) => t.json<W.StoredBenchmark>("GET", `/v1/benchmarks/${enc(id)}`),
    /** The Karenina JSON-LD checkpoint, as text. */
    checkpoint: async (id: string) => (await t.text("GET", `/v1/benchmarks/${enc(id)}/checkpoint`)).text,
    delete: (id: string) => t.json<W.DeletedBenchmark>("DELETE", `/v1/benchmarks/${enc(id)}`),
  };

  const judges = {
    judge: (body: W.JudgeRequest) => t.json<W.JudgeOutcome>("POST", "/v1/judge", { body }),
    calibrate: (body: W.CalibrateRequest) => t.json<W.CalibrationReport>("POST", "/v1/judge/calibrate", { body }),
  };

  const judge = (id: string) => `/v1/judges/${enc(id)}`;
  /** Stored compound judges and their promptfoo tokens (src/stored-judges/README.md). */
  const storedJudges = {
    create: (body: W.StoredJudgeRequest) => t.json<W.StoredJudgeView>("POST", "/v1/judges", { body }),
    /** One page, newest first; `iterate` follows next_cursor through every page. */
    list: (q: PageQuery = {}) => t.json<W.StoredJudgeList>("GET", `/v1/judges${qs({ ...q })}`),
    iterate: async function* (q: { limit?: number } = {}) {
      for await (const p of pages((cursor) => storedJudges.list({ ...q, cursor }))) yield* p.judges;
    },
    get: (id: string) => t.json<W.StoredJudgeView>("GET", judge(id)),
    replace: (id: string, body: W.StoredJudgeRequest) => t.json<W.StoredJudgeView>("PUT", judge(id), { body }),
    delete: (id: string) => t.json<W.DeletedStoredJudge>("DELETE", judge(id)),
    /** The token is in this answer only; `promptfoo_url` is the path promptfoo's webhook assertion posts to. */
    mintToken: (id: string, body: W.CreateJudgeTokenRequest = {}) => t.json<W.MintedJudgeToken>("POST", `${judge(id)}/tokens`, { body }),
    /** One page of the judge's tokens, newest first; `iterateTokens` follows next_cursor through every page. */
    tokens: (id: string, q: PageQuery = {}) => t.json<W.JudgeTokenList>("GET", `${judge(id)}/tokens${qs({ ...q })}`),
    iterateTokens: async function* (id: string, q: { limit?: number } = {}) {
      for await (const p of pages((cursor) => storedJudges.tokens(id, { ...q, cursor }))) yield* p.tokens;
    },
    revokeToken: (id: string, tokenId: string) => t.json<W.JudgeTokenView>("DELETE", `${judge(id)}/tokens/${enc(tokenId)}`),
  };

  const keys = {
    create: (body: W.CreateKeyRequest) => t.json<W.MintedKey>("POST", "/v1/keys", { body }),
    /** One page, newest first, revoked keys included; `iterate` follows next_cursor through every page. */
    list: (q: PageQuery = {}) => t.json<W.KeyList>("GET", `/v1/keys${qs({ ...q })}`),
    iterate: async function* (q: { limit?: number } = {}) {
      for await (const p of pages((cursor) => keys.list({ ...q, cursor }))) yield* p.keys;
    },
    rotate: (id: string, body: { expires_at?: string | null } = {}) => t.json<W.MintedKey>("POST", `/v1/keys/${enc(id)}/rotate`, { body }),
    revoke: (id: string) => t.json<W.KeyView>("DELETE", `/v1/keys/${enc(id)}`),
  };

  const secrets = {
    put: (name: string, body: W.PutSecretRequest) => t.json<W.SecretView>("PUT", `/v1/secrets/${enc(name)}`, { body }),
    /** One page, newest first (by when each name was first set); `iterate` follows next_cursor through every page. */
    list: (q: PageQuery = {}) => t.json<W.SecretList>("GET", `/v1/secrets${qs({ ...q })}`),
    iterate: async function* (q: { limit?: number } = {}) {
      for await (const p of pages((cursor) => secrets.list({ ...q, cursor }))) yield* p.secrets;
    },
    delete: (name: string) => t.json<W.DeletedSecret>("DELETE", `/v1/secrets/${enc(name)}`),
  };

  const usage = { month: (month?: string) => t.json<W.MonthUsage>("GET", `/v1/usage${qs({ month })}`) };

  const exportsOf = (runId: string) => `${run(runId)}/exports`;
  const exports = {
    /** csv or ndjson streamed from the run's rows (no traces); the Response's body is the file. */
    /** A blip before the file begins is retried (retry.ts); one that breaks it midway is not (the file would start over). */
    stream: (runId: string, q: W.ExportQuery & { format: "csv" | "ndjson" }, o: RetryOptions = {}) =>
      withRetries(() => t.raw("GET", `${run(runId)}/export${qs({ ...q })}`, {}, o.signal), o),
    /** Starts building an export with every trace (karenina needs this); poll it with get or wait. */
    create: (runId: string, body: W.CreateExportRequest) => t.json<W.ExportView>("POST", exportsOf(runId), { body }),
    get: (runId: string, exportId: string) => t.json<W.ExportView>("GET", `${exportsOf(runId)}/${enc(exportId)}`),
    /** The run's exports, newest first, one page (an export whose id was lost is found here). */
    list: (runId: string, q: PageQuery = {}) => t.json<W.ExportList>("GET", `${exportsOf(runId)}${qs({ ...q })}`),
    /** Resolves with the export once ready; a failed export throws with its error. A failed GET is retried (retry.ts). */
    wait: async (runId: string, exportId: string, o: ExportWaitOptions = {}) => {
      const deadline = Date.now() + (o.timeoutMs ?? 600_000);
      for (;;) {
        const e = await withRetries(() => exports.get(runId, exportId), { onRetry: o.onRetry });
        if (e.status === "ready") return e;
        if (e.status === "failed") throw new Error(`export ${exportId} of run ${runId} failed: ${e.error ?? "no reason given"}`);
        if (Date.now() > deadline)
          throw new Error(`export ${exportId} of run ${runId} is still building (${e.results_done} of ${e.results_total} results)`);
        await sleep(o.pollMs ?? 1000);
      }
    },
    /** A ready export's file; the Response's body streams it. */
    download: (runId: string, exportId: string, o: RetryOptions = {}) =>
      withRetries(() => t.raw("GET", `${exportsOf(runId)}/${enc(exportId)}/download`, {}, o.signal), o),
    /** Any format as one Response: csv and ndjson streamed directly, karenina built, waited for, then downloaded. */
    file: async (runId: string, q: W.CreateExportRequest, o: ExportWaitOptions = {}) => {
      const retry = { onRetry: o.onRetry };
      if (q.format !== "karenina") return exports.stream(runId, { ...q, format: q.format }, retry);
      const e = await exports.create(runId, q);
      await exports.wait(runId, e.export_id, o);
      return exports.download(runId, e.export_id, retry);
    },
  };

  const schedules = {
    create: (body: W.CreateScheduleRequest) => t.json<W.ScheduleView>("POST", "/v1/schedules", { body }),
    /** One page, newest first; `iterate` follows next_cursor through every page. */
    list: (q: PageQuery = {}) => t.json<W.ScheduleList>("GET", `/v1/schedules${qs({ ...q })}`),
    iterate: async function* (q: { limit?: number } = {}) {
      for await (const p of pages((cursor) => schedules.list({ ...q, cursor }))) yield* p.schedules;
    },
    get: (id: string) => t.json<W.ScheduleDetail>("GET", `/v1/schedules/${enc(id)}`),
    update: (id: string, body: W.UpdateScheduleRequest) => t.json<W.ScheduleView>("PATCH", `/v1/schedules/${enc(id)}`, { body }),
    delete: (id: string) => t.json<W.DeletedSchedule>("DELETE", `/v1/schedules/${enc(id)}`),
  };

  return { url: t.base, runs, results, exports, benchmarks, judges, storedJudges, keys, secrets, usage, schedules };
}

export type EdgevalClient = ReturnType<typeof createClient>;
