/**
 * The export builder's steps (src/exports/build.ts) over the real D1 and R2: a build in many small
 * steps writes the same bytes as one in a single step; a repeated or stale message changes
 * nothing; an export over 5 MiB goes up as equal 5 MiB multipart parts plus a last one; a failed
 * export says why in a user's words and what to do, never the builder's error text.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { buildStep, type ExportMessage, PART_SIZE } from "../../src/exports/build";
import { handleExportBatch } from "../../src/exports/consumer";
import { exportView, getExport, insertExport } from "../../src/exports/exports-repo";
import { addFakeRules, api, exactTemplate, fakeModel, requestExport, submitRun, uniqueModel, waitForRun } from "./helpers";

async function scriptedRun(answer: string, replicates: number): Promise<string> {
  const answerer = uniqueModel("exp-ans");
  const judge = uniqueModel("exp-judge");
  await addFakeRules([
    { match: { model: answerer }, reply: { text: answer } },
    { match: { model: judge }, reply: { json: { answer: "Paris" } } },
  ]);
  const runId = await submitRun({
    benchmark: {
      name: "export-build",
      questions: [{ id: "q", question: "What is the capital of France?", template: exactTemplate("Paris") }],
    },
    config: { answering_models: [fakeModel("ans", answerer)], parsing_models: [fakeModel("judge", judge)], replicate_count: replicates },
  });
  await waitForRun(runId, ["completed", "partial", "failed"], 60_000);
  return runId;
}

/** Drives an export's steps by hand, collecting the messages each step queues. */
async function buildByHand(runId: string, format: "karenina" | "csv" | "ndjson", results: number) {
  const exportId = crypto.randomUUID();
  const key = `t/default/runs/${runId}/exports/${exportId}/export.x`;
  await insertExport(env.DB, {
    tenant_id: "default",
    export_id: exportId,
    run_id: runId,
    format,
    filter: {},
    r2_key: key,
    results_total: 0,
    created_at: new Date().toISOString(),
  });
  const sent: ExportMessage[] = [];
  const queue = { send: async (m: unknown) => void sent.push(m as ExportMessage) } as unknown as Queue<unknown>;
  const benv = { DB: env.DB, BLOBS: env.BLOBS, EXPORTS: queue };
  let msg: ExportMessage = { tenant_id: "default", export_id: exportId, step: 0 };
  const steps: number[] = [];
  for (;;) {
    await buildStep(benv, msg, Date.parse("2026-11-24T12:00:00Z"), { results, partSize: PART_SIZE });
    steps.push(msg.step);
    const next = sent.shift();
    if (!next) break;
    msg = next;
  }
  return { exportId, key, steps, replay: (m: ExportMessage) => buildStep(benv, m, Date.now(), { results, partSize: PART_SIZE }), sent };
}

describe("export builder steps", () => {
  let runId: string;
  beforeAll(async () => {
    runId = await scriptedRun("Paris.", 9);
  }, 60_000);

  for (const format of ["karenina", "csv", "ndjson"] as const) {
    it(`${format}: nine results in steps of two write the same bytes as one step`, async () => {
      const small = await buildByHand(runId, format, 2);
      expect(small.steps).toEqual([0, 1, 2, 3, 4]);
      const whole = await buildByHand(runId, format, 500);
      expect(whole.steps).toEqual([0]);
      const a = await (await env.BLOBS.get(small.key))!.text();
      const b = await (await env.BLOBS.get(whole.key))!.text();
      expect(a).toBe(b);
      expect((await getExport(env.DB, "default", small.exportId))!).toMatchObject({
        status: "ready",
        results_done: 9,
        bytes: new TextEncoder().encode(a).byteLength,
      });
      // the segments that carried bytes between steps are gone once the export is ready
      expect((await env.BLOBS.list({ prefix: `t/default/runs/${runId}/exports/${small.exportId}/segments/` })).objects).toEqual([]);
    });
  }

  it("a redelivered or stale step message changes nothing", async () => {
    const built = await buildByHand(runId, "ndjson", 4);
    const before = await (await env.BLOBS.get(built.key))!.text();
    await built.replay({ tenant_id: "default", export_id: built.exportId, step: 0 });
    await built.replay({ tenant_id: "default", export_id: built.exportId, step: 2 });
    expect(built.sent).toEqual([]);
    expect(await (await env.BLOBS.get(built.key))!.text()).toBe(before);
    expect(before.trim().split("\n")).toHaveLength(9);
  });
});

describe("a failed export", () => {
  let runId: string;
  beforeAll(async () => {
    runId = await scriptedRun("Paris.", 1);
  }, 60_000);

  async function exportRow(run: string): Promise<string> {
    const exportId = crypto.randomUUID();
    await insertExport(env.DB, {
      tenant_id: "default",
      export_id: exportId,
      run_id: run,
      format: "ndjson",
      filter: {},
      r2_key: `t/default/runs/${run}/exports/${exportId}/export.ndjson`,
      results_total: 1,
      created_at: new Date().toISOString(),
    });
    return exportId;
  }

  it("that kept failing says so and what to do, never the builder's error (which names internal keys)", async () => {
    const exportId = await exportRow(runId);
    const internal = `R2 GET t/default/runs/${runId}/spec.json: InternalError (10001) at BlobStore.get`;
    // Every call on the bucket fails, as R2 does in an outage.
    const broken = new Proxy({}, { get: () => async () => Promise.reject(new Error(internal)) }) as R2Bucket;
    let acked = false;
    const msg = {
      body: { tenant_id: "default", export_id: exportId, step: 0 },
      attempts: 6,
      ack: () => void (acked = true),
      retry: () => {},
    };
    await handleExportBatch({ messages: [msg] } as unknown as MessageBatch<unknown>, { DB: env.DB, BLOBS: broken, EXPORTS: env.EXPORTS });
    expect(acked).toBe(true);

    const view = (await (await api(`/v1/runs/${runId}/exports/${exportId}`)).json()) as any;
    expect(view).toMatchObject({ status: "failed", failure_reason: "kept_failing" });
    expect(view.error).toMatch(/^Building the file failed several times in a row .*Start the export again in a few minutes/);
    const download = await api(`/v1/runs/${runId}/exports/${exportId}/download`);
    expect(download.status).toBe(409);
    const said = JSON.stringify([view, await download.json()]);
    for (const leak of ["InternalError", "spec.json", "BlobStore", "t/default"]) expect(said).not.toContain(leak);
  });

  it("of a run deleted meanwhile says there is nothing left to export", async () => {
    const exportId = await exportRow(crypto.randomUUID());
    const benv = { DB: env.DB, BLOBS: env.BLOBS, EXPORTS: env.EXPORTS };
    await buildStep(benv, { tenant_id: "default", export_id: exportId, step: 0 }, Date.now());
    const view = exportView((await getExport(env.DB, "default", exportId))!);
    expect(view).toMatchObject({ status: "failed", failure_reason: "run_deleted" });
    expect(view.error).toBe("The run was deleted while this export was being built, so there is nothing left to export.");
  });

  it("recorded before the reasons were (raw error text in its row) shows the general words, not the text", async () => {
    const exportId = await exportRow(runId);
    await env.DB.prepare("UPDATE exports SET status = 'failed', error = ? WHERE export_id = ?")
      .bind("building failed 6 times; last error: Error: D1_ERROR: no such column: secret_sauce", exportId)
      .run();
    const view = (await (await api(`/v1/runs/${runId}/exports/${exportId}`)).json()) as any;
    expect(view).toMatchObject({ status: "failed", failure_reason: "unknown" });
    expect(view.error).toMatch(/^Building the file failed\. Start the export again/);
    expect(JSON.stringify(view)).not.toContain("D1_ERROR");
  });
});

describe("multipart upload", () => {
  it("an export over 5 MiB is built through the queue as equal 5 MiB parts and a last one, and streams back whole", async () => {
    // 8 results × (answer + its trace copy) of ~700 KB each ≈ 11 MB of Karenina export.
    const runId = await scriptedRun(`Paris. ${"word ".repeat(140_000)}`, 8);
    const view = await requestExport(runId, { format: "karenina" });
    expect(view).toMatchObject({ status: "ready", results_done: 8 });
    expect(view.bytes).toBeGreaterThan(2 * PART_SIZE);
    const row = (await getExport(env.DB, "default", view.export_id))!;
    const obj = (await env.BLOBS.head(row.r2_key))!;
    expect(obj.size).toBe(view.bytes);
    // A multipart object's etag is "<md5 of the part md5s>-<parts>" (one part per 5 MiB, the last smaller).
    expect(obj.etag).toMatch(new RegExp(`-${Math.ceil(view.bytes / PART_SIZE)}$`));
    const download = await api(view.download_url);
    const text = await download.text();
    const doc = JSON.parse(text);
    expect(doc.results).toHaveLength(8);
    expect(doc.results[0].template.raw_llm_response.length).toBeGreaterThan(700_000);

    // The same export in steps of 2 results (~2.8 MB a step): parts are completed from earlier
    // steps' segments, and the bytes are the same.
    const small = await buildByHand(runId, "karenina", 2);
    expect(small.steps).toEqual([0, 1, 2, 3, 4]);
    const byHand = (await env.BLOBS.get(small.key))!;
    expect(byHand.etag).toMatch(new RegExp(`-${Math.ceil(view.bytes / PART_SIZE)}$`));
    const handText = await byHand.text();
    // Only export_timestamp in the header differs (the hand build runs at a fixed clock).
    const strip = (t: string) => t.replace(/"export_timestamp":"[^"]*"/, "");
    expect(strip(handText)).toBe(strip(text));
  }, 120_000);
});
