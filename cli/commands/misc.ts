/** `edgeval import`, `judge`, `cancel` and `keys`: one request each, printed for a person. */
import type { EdgevalClient, ImportedCheckpoint, JudgeRequest } from "../../src/client/index.ts";
import { EdgevalApiError } from "../../src/client/index.ts";
import { CliError, type Out, readData, textArg } from "../io.ts";

/** A checkpoint import's warnings and errors, one line each (`import`, and `run` of a checkpoint). */
export function printImportIssues(r: Pick<ImportedCheckpoint, "warnings" | "errors">, out: Out): void {
  for (const w of r.warnings) out.err(`warning ${w.path}: ${w.message}`);
  for (const e of r.errors) out.err(`error ${e.path}: ${e.message} (its question fails with template_validation)`);
}

export async function importCommand(client: EdgevalClient, file: string, out: Out): Promise<number> {
  const r = await client.benchmarks.import(readData(file));
  out.line(`benchmark ${r.benchmark_id}: ${r.imported} questions imported from ${file}`);
  printImportIssues(r, out);
  // Run by id: `edgeval run FILE` would import the checkpoint a second time.
  out.line(`run it: edgeval run --benchmark-id ${r.benchmark_id} --config FILE   (or POST /v1/runs with "benchmark_id": "${r.benchmark_id}")`);
  return 0;
}

/** Exit 0 when the judge passes the output, 1 when it fails it, 3 when the judge itself failed (never read as a fail). */
export async function judgeCommand(
  client: EdgevalClient,
  opts: { config: string; output: string; reference?: string; input?: string },
  out: Out,
): Promise<number> {
  const file = readData(opts.config);
  if (typeof file !== "object" || file === null) {
    throw new CliError(`${opts.config} must hold the judge config, an object ({type: …} or {pipeline: […]}), or {config, prices?, vars?}`);
  }
  // The file is the judge config itself, or a request without the sample ({config, prices?, vars?}).
  const request = ("config" in file ? file : { config: file }) as Omit<JudgeRequest, "output">;
  const body = {
    ...request,
    output: textArg(opts.output, "--output"),
    ...(opts.reference !== undefined ? { reference: textArg(opts.reference, "--reference") } : {}),
    ...(opts.input !== undefined ? { input: textArg(opts.input, "--input") } : {}),
  } as JudgeRequest;
  const r = await client.judges.judge(body);
  const cost = r.usage.cost_usd === null ? "unknown" : `$${r.usage.cost_usd.toFixed(6)}`;
  out.line(`pass: ${r.pass === null ? "null (the judge failed)" : r.pass}  score: ${r.score ?? "null"}  threshold: ${r.threshold}  calls: ${r.usage.calls}  cost: ${cost}`);
  out.line(`reason: ${r.reason}`);
  if (r.error) out.err(`judge error in ${r.error.unit}: ${r.error.kind}: ${r.error.message}`);
  return r.pass === null ? 3 : r.pass ? 0 : 1;
}

export async function cancelCommand(client: EdgevalClient, runId: string, out: Out): Promise<number> {
  try {
    const r = await client.runs.cancel(runId);
    out.line(`run ${runId}: ${r.status}, ${r.progress.done}/${r.progress.total} results; no model call of it starts from now on`);
    return 0;
  } catch (err) {
    if (err instanceof EdgevalApiError && err.routeMissing) {
      throw new CliError(`this server cannot cancel runs (it is older than POST /v1/runs/:id/cancel). Run ${runId} goes on; delete it once finished with DELETE /v1/runs/${runId}.`);
    }
    throw err;
  }
}

export async function keysCommand(client: EdgevalClient, action: string, args: { id?: string; name?: string; scopes?: string; expiresAt?: string }, out: Out): Promise<number> {
  // An unknown action first: "keys lst" is a typo, not a missing id.
  if (!["list", "create", "rotate", "revoke"].includes(action)) throw new CliError(`unknown keys action ${action}: list, create, rotate or revoke`);
  if (action === "list") {
    // Every key, page by page: the list answers at most 100 a request.
    for await (const k of client.keys.iterate()) out.line(`${k.key_id}  ${k.name}  ${k.scopes.join(",")}  ${k.revoked_at ? `revoked ${k.revoked_at}` : k.expires_at ? `expires ${k.expires_at}` : "active"}`);
    return 0;
  }
  if (action === "create") {
    if (!args.name || !args.scopes) throw new CliError("keys create needs --name NAME and --scopes a,b (e.g. --scopes runs:write,runs:read)");
    // No --expires-at, no expires_at: the server's default (none, or no later than the key calling), not an explicit "never".
    const k = await client.keys.create({
      name: args.name,
      scopes: args.scopes.split(",").map((s) => s.trim()) as never,
      ...(args.expiresAt ? { expires_at: args.expiresAt } : {}),
    });
    out.line(k.key);
    out.err(`key ${k.key_id} (${k.scopes.join(", ")}): shown once; store it now`);
    return 0;
  }
  if (!args.id) throw new CliError(`keys ${action} needs the key's id (edgeval keys list)`);
  if (action === "rotate") {
    // Without --expires-at the new key keeps the old key's lifetime (the server's default); null would mean "never".
    const k = await client.keys.rotate(args.id, args.expiresAt ? { expires_at: args.expiresAt } : {});
    out.line(k.key);
    out.err(`key ${k.key_id} replaces ${args.id}, which stays valid until revoked: edgeval keys revoke ${args.id}`);
    return 0;
  }
  const k = await client.keys.revoke(args.id);
  out.line(`key ${k.key_id} revoked at ${k.revoked_at}`);
  return 0;
}
