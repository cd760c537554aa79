/**
 * `edgeval results RUN --format ndjson|csv|karenina -o FILE`: the server's exports (issue 21,
 * src/exports/README.md) written to FILE as they arrive. ndjson and csv stream from
 * GET /v1/runs/:id/export (the results without traces); karenina, which carries every trace, is
 * built by POST /v1/runs/:id/exports, waited for, then downloaded. The filters narrow any format.
 */
import { EdgevalApiError, type EdgevalClient } from "../../src/client/index.ts";
import { CliError, checkWritable, type Out, writeOutput } from "../io.ts";
import { retryLine } from "../progress.ts";

export const FORMATS = ["ndjson", "csv", "karenina"] as const;
export type Format = (typeof FORMATS)[number];

export interface ResultFilters {
  answeringModel?: string;
  parsingModel?: string;
  questionId?: string;
  verdict?: "pass" | "fail" | "error" | "no_verdict";
  failureGroup?: string;
}

export async function resultsCommand(client: EdgevalClient, runId: string, opts: { format: Format; output: string; pollMs?: number } & ResultFilters, out: Out): Promise<number> {
  const request = {
    format: opts.format,
    answering_model: opts.answeringModel,
    parsing_model: opts.parsingModel,
    question_id: opts.questionId,
    verdict: opts.verdict,
    failure_group: opts.failureGroup as never,
  };
  checkWritable(opts.output);
  if (opts.format === "karenina") out.err(`building the karenina export of run ${runId} on the server (every result's trace)…`);
  let res: Response;
  try {
    res = await client.exports.file(runId, request, { pollMs: opts.pollMs ?? 1000, onRetry: retryLine(out) });
  } catch (err) {
    if (err instanceof EdgevalApiError && err.routeMissing) throw new CliError(`this server has no results export (it is older than GET /v1/runs/:id/export); nothing was written`);
    throw err;
  }
  let bytes = 0;
  let lines = 0;
  await writeOutput(opts.output, async (emit) => {
    const decoder = new TextDecoder();
    for await (const chunk of res.body ?? []) {
      const text = decoder.decode(chunk as Uint8Array, { stream: true });
      bytes += (chunk as Uint8Array).byteLength;
      for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
      emit(text);
    }
    emit(decoder.decode());
  });
  const where = opts.output === "-" ? "stdout" : opts.output;
  const what = opts.format === "ndjson" ? `${lines} results` : opts.format === "csv" ? `a header and ${Math.max(lines - 1, 0)} lines` : `${bytes} bytes`;
  out.err(`run ${runId}: ${what} written to ${where} (${opts.format})`);
  return 0;
}
